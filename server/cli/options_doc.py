"""The table options of every variant as Markdown, from the engine's catalog.

`truco-ssh options` prints it; docs/HOSTING.md carries the same text (a test keeps the two
in step), so the documentation never drifts from what the New-table form offers.
"""
from __future__ import annotations

import engine


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(value)


def options_markdown() -> str:
    parts = []
    for variant in engine.variant_catalog():
        counts = ", ".join(str(n) for n in variant.player_counts)
        status = "" if variant.implemented else "; coming soon"
        parts.append(f"**{variant.title}** (`{variant.name}`; {counts} players{status})\n")
        parts.append("| option | default | choices | meaning |")
        parts.append("|---|---|---|---|")
        for opt in variant.options:
            choices = "on / off" if opt.kind == "bool" else " / ".join(_value(c) for c in opt.choices)
            parts.append(f"| `{opt.name}` | {_value(opt.default)} | {choices} | {opt.help} |")
        parts.append("")
    return "\n".join(parts).rstrip() + "\n"
