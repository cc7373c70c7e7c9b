"""The screens of a session: choose a name, the lobby, its dialogs."""
