"""What the lobby says about a table: its row in the tables list, and the line describing
the selected one (built from the protocol's TableInfo and the variants it was welcomed with)."""
from __future__ import annotations

from typing import Mapping

from rich.text import Text

import protocol as p
from tui.i18n import Translator, option_label, option_value

TARGET_OPTION = "target"


def describe(tr: Translator, variants: Mapping[str, p.VariantInfo], info: p.TableInfo) -> Text:
    """One line about a table: its game, size, points, timer and the options that differ."""
    variant = variants.get(info.variant)
    parts = [tr(f"variant.{info.variant}"), tr("form.n_players", n=len(info.seats))]
    parts.append(tr("lobby.timer", n=info.turn_timer) if info.turn_timer else tr("lobby.no_timer"))
    changed = []
    for opt in variant.options if variant else ():
        value = info.options.get(opt.name, opt.default)
        said = f"{option_label(tr, opt.name, opt.label)}: {option_value(tr, value)}"
        if opt.name == TARGET_OPTION:  # always said: a narrow list has no points column
            parts.insert(2, said)
        elif value != opt.default:
            changed.append(said)
    parts.append("; ".join(changed) if changed else tr("lobby.default_options"))
    return Text(f"{info.title}: " + " · ".join(parts))  # wraps (#status-line is height: auto)


def table_cells(tr: Translator, variants: Mapping[str, p.VariantInfo], info: p.TableInfo, mine: bool,
                compact: bool = False) -> dict[str, Text]:
    """The table's row; ``mine``: this player sits or watches there."""
    taken = sum(1 for s in info.seats if s)
    variant = variants.get(info.variant)
    game = tr(f"variant.{info.variant}") if variant else info.variant
    # A waiting room with every seat taken waits only for its creator's Enter: "full"
    # tells the lobby that j will not seat anyone there (it said "waiting").
    shown = "full" if info.status == "waiting" and info.seats and all(info.seats) else info.status
    status = tr(f"lobby.table_status.{shown}")
    if info.private and (info.status == "waiting" or compact):  # the one word that
        status = tr("lobby.private_waiting")   # tells j will not do (k + code will)
    elif info.private:
        status += " " + tr("lobby.private_mark")
    defaults = {opt.name: opt.default for opt in variant.options} if variant else {}
    target = info.options.get(TARGET_OPTION, defaults.get(TARGET_OPTION, ""))
    style = "bold" if mine else ""
    return {
        "title": Text(("> " if mine else "") + info.title, style=style, no_wrap=True, overflow="ellipsis"),
        "game": Text(game, no_wrap=True),
        "seats": Text(f"{taken}/{len(info.seats)}"),
        "points": Text(str(target)),
        "status": Text(status, no_wrap=True),
    }
