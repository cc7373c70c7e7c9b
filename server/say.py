"""What the command line prints (``serve``, ``host``, ``find``), in the terminal's language:
LC_ALL, LC_MESSAGES or LANG (es*, pt*, else English), from the players' locale files
(tui/locales, keys ``cli.*``). Logs stay in English: they are for whoever reads the log."""
from __future__ import annotations

import os

from tui.i18n import Translator, language_from_env


def terminal_tr() -> Translator:
    return Translator(language_from_env(dict(os.environ)))


ENGLISH = Translator("en")


class Said(Exception):
    """An error whose message is a catalog key: English in the log (``str``), the terminal's
    language where the command line prints it (``said``)."""

    def __init__(self, key: str, **values: object) -> None:
        super().__init__(ENGLISH(key, **values))
        self.key, self.values = key, values

    def said(self, tr: Translator) -> str:
        return tr(self.key, **self.values)
