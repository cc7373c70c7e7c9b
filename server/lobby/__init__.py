"""The lobby: who is online, names, seats and holds, the table directory, history and the
tables of the last run (see ``hub`` for how the parts fit)."""
from server.lobby.history import split_hands
from server.lobby.hub import Hub

__all__ = ["Hub", "split_hands"]
