"""The title line (table, variant, target) and the score line."""
from __future__ import annotations

from rich.text import Text

import protocol as p
from tui.event_text import score_text, team_name
from tui.table_model import TableModel
from tui.widgets.panels import Panel
from tui.widgets.table.part import TablePart, drawn_from


class TitleLine(Panel, TablePart):
    """``#t-title``: the table's name, variant, target and flor; "watching" for a spectator."""

    @drawn_from(lambda part, model, info: (info, model.seat is None, model.update is None))
    def update_from(self, model: TableModel, info: p.TableInfo | None) -> None:
        title = Text(no_wrap=True, overflow="ellipsis")
        title.append(" truco-ssh ", style="reverse bold")
        if info is not None:
            variant = self.tr(f"variant.{info.variant}")
            target = info.options.get("target", "")
            title.append(f" {info.title} · {variant} · {self.tr('table.to_points', n=target)}")
            if info.options.get("flor") is True:
                title.append(" · " + self.tr("table.with_flor"))
        if model.seat is None and model.update is not None:
            title.append(" · " + self.tr("table.watching"), style="italic")
        self.show(title)


class ScoreLine(Panel, TablePart):
    """``#t-score``: each side's points (yours in green), the malas/buenas, the games won."""

    @drawn_from(lambda part, model: (
        model.view.scores, model.view.score_holders, model.view.target, model.view.malas,
        model.view.games_won, model.view.match_games, model.view.teams, model.seat,
        model.update.seats if model.update is not None else None))
    def update_from(self, model: TableModel) -> None:
        view = model.view
        scores = list(view.scores or (0, 0))
        holders = view.score_holders or tuple((i,) for i in range(len(scores)))
        target = view.target
        line = Text(no_wrap=True, overflow="ellipsis")
        # Two sides: yours first ("Nós  0/30  Eles 4/30"), as players say the score.
        order = [1, 0] if len(scores) == 2 and model.my_team() == 1 else list(range(len(scores)))
        for entry in order:
            score = scores[entry]
            seats = holders[entry] if entry < len(holders) else ()
            if len(scores) == 2:
                label, mine = team_name(self.tr, model, entry), model.my_team() == entry
            else:  # one score per player (the three-player game)
                label = " + ".join(model.name(seat) for seat in seats)
                mine = model.seat in seats
            line.append(f" {label} ", style="reverse bold green" if mine else "reverse bold")
            if view.malas:
                line.append(f" {score} ({score_text(self.tr, score, view.malas)})  ")
            else:  # past the target too: "31/30" says what the game was played to
                line.append(f" {score}/{target}  ", style="bold" if score >= target else "")
        games = view.games_won or (0, 0)
        if view.match_games > 1 and len(games) == 2:
            line.append(self.tr("table.games", a=games[order[0]], b=games[order[1]]), style="dim")
        self.show(line)
