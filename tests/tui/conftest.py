import sys
from pathlib import Path

# The table-screen tests share the fake link of test_screens.
sys.path.insert(0, str(Path(__file__).parent))
