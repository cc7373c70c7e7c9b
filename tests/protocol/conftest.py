import sys
from pathlib import Path

# The examples module is shared by the round-trip and fuzz tests of this folder.
sys.path.insert(0, str(Path(__file__).parent))
