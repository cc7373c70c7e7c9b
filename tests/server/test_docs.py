"""The README documents exactly the options the engine offers."""
from __future__ import annotations

from pathlib import Path

from server.options_doc import options_markdown

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_lists_every_table_option_as_the_catalog_has_them() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- options:begin", 1)[1].split("-->", 1)[1].split("<!-- options:end -->")[0]
    assert block.strip() == options_markdown().strip(), "run `truco-ssh options` and paste it into the README"
