"""The table screen's parts, one widget each, drawn from the table's model by ``update_from``."""
from tui.widgets.table.bets import BetsLine
from tui.widgets.table.calls import CallsPanel
from tui.widgets.table.hand import CardsPanel
from tui.widgets.table.score import ScoreLine, TitleLine
from tui.widgets.table.seats import SeatsPanel, TricksPanel
from tui.widgets.table.status import StatusLine, TurnTimer, rematch_text
from tui.widgets.table.talk import TableLog

__all__ = ["BetsLine", "CallsPanel", "CardsPanel", "ScoreLine", "SeatsPanel", "StatusLine", "TableLog",
           "TitleLine", "TricksPanel", "TurnTimer", "rematch_text"]
