"""The ``truco-ssh`` command line: ``serve`` and every other command, its settings file, where
it keeps its files, and the generated documents."""
