"""Bots: players that choose an action from a seat's view (never from the state)."""
