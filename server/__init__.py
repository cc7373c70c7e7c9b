"""The truco-ssh server: SSH front end, lobby hub, persistence, CLI."""
