"""The lobby: who is online, names, seats and holds, the table directory, history."""
from server.lobby.hub import Hub, split_hands

__all__ = ["Hub", "split_hands"]
