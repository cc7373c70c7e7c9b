"""What the command line prints (``serve``, ``host``, ``find``), in the terminal's language:
LC_ALL, LC_MESSAGES or LANG (es*, pt*, else English), from the players' locale files
(tui/locales, keys ``cli.*``). Logs stay in English: they are for whoever reads the log."""
from __future__ import annotations

import os

from tui.i18n import Translator, language_from_env


def terminal_tr() -> Translator:
    return Translator(language_from_env(dict(os.environ)))


ENGLISH = Translator("en")


class Phrase:
    """A catalog key and its values, any of which may be a phrase itself: said in any language."""

    def __init__(self, key: str, **values: object) -> None:
        self.key, self.values = key, values

    def text(self, tr: Translator) -> str:
        return tr(self.key, **{k: v.text(tr) if isinstance(v, Phrase) else v for k, v in self.values.items()})


class Said(Exception):
    """An error whose message is a catalog key: English in the log (``str``), the terminal's
    language where the command line prints it (``said``)."""

    def __init__(self, key: str, **values: object) -> None:
        self.phrase = Phrase(key, **values)
        super().__init__(self.phrase.text(ENGLISH))

    def said(self, tr: Translator) -> str:
        return self.phrase.text(tr)
