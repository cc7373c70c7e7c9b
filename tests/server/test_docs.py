"""The documentation (README.md and docs/*.md) lists exactly the options the engine offers."""
from __future__ import annotations

from pathlib import Path

from server.cli.options_doc import options_markdown

ROOT = Path(__file__).resolve().parents[2]


def documentation() -> str:
    """README.md and every guide under docs/, one text."""
    return "\n".join(p.read_text(encoding="utf-8") for p in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])


def test_readme_lists_every_table_option_as_the_catalog_has_them() -> None:
    text = documentation()
    block = text.split("<!-- options:begin", 1)[1].split("-->", 1)[1].split("<!-- options:end -->")[0]
    assert block.strip() == options_markdown().strip(), "run `truco-ssh options` and paste it into docs/HOSTING.md"
