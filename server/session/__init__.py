"""One connection's session: a player's screen (shell) or a program (the ``truco`` subsystem),
what it may write and when, and the CPU budget of its input."""
