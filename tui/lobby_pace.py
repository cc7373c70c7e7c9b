"""How soon a lobby redraws its lists after the hub's news: soon, and for a crowd's arrivals
and departures a little later, so that a full lobby does not cost the server a redraw of
every lobby screen for every person who comes or goes."""
from __future__ import annotations

import random

REDRAW_DELAY = 0.1  # seconds: arrivals in a burst cost one redraw, not one each
# Every lobby redraws its list of players when anyone arrives or leaves: in a lobby of N
# people an arrival costs N redraws (a few ms of server CPU each), so arrivals at a rate r
# cost N * r of them a second. A crowded lobby waits longer before redrawing the list, in
# proportion to its size: then all the lobbies together redraw it at most about
# CROWD_REDRAWS times a second, however many people come and go (the tables and the
# player's own seat are drawn within REDRAW_DELAY all the same). Each lobby adds up to half
# again at random: they all hear of an arrival at once, and redrawing all at once would hold
# the server's event loop for the whole crowd's redraws in one go.
CROWD_REDRAWS = 100
PLAYERS_DELAY_MAX = 2.0  # seconds: a newcomer is listed within 3 s, spread (below) included


def players_delay(players: int) -> float:
    """How long a lobby of ``players`` people gathers arrivals and departures before it
    redraws its list of them."""
    return min(PLAYERS_DELAY_MAX, max(REDRAW_DELAY, players / CROWD_REDRAWS))


def spread(delay: float) -> float:
    """``delay``, or up to half again at random when it is a crowd's (see CROWD_REDRAWS)."""
    return delay if delay <= REDRAW_DELAY else delay * (1 + random.random() / 2)
