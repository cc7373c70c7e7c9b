"""What the command line prints (``serve``, ``host``, ``find``), in the terminal's language:
LC_ALL, LC_MESSAGES or LANG (es*, pt*, else English), from the players' locale files
(tui/locales, keys ``cli.*``), and so does ``--help`` (``cli.help.*``). Logs stay in English:
they are for whoever reads the log."""
from __future__ import annotations

import argparse
import contextlib
import os
from typing import Iterator

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


# argparse's own words ("usage: ", "options", its error messages) in the terminal's language.
# argparse binds gettext's ``_`` and ``ngettext`` as module globals at import and looks them up
# on every call, in the process-wide "messages" domain (a .mo file in the system's locale
# directory that a pip install cannot provide). So, for as long as the command line builds and
# runs its parser (one thread, before any event loop), ``speaking`` swaps those two globals for
# lookups in the players' catalogs and puts the originals back. argparse's messages about
# mistakes in our own parser definitions are not listed: they stay English (the msgid).
ARGPARSE_KEYS = {
    "usage: ": "cli.help.argparse.usage",
    "positional arguments": "cli.help.argparse.positional",
    "options": "cli.help.argparse.options",
    "show this help message and exit": "cli.help.argparse.help",
    "%(prog)s: error: %(message)s\n": "cli.help.argparse.error",
    "argument %(argument_name)s: %(message)s": "cli.help.argparse.argument",
    "the following arguments are required: %s": "cli.help.argparse.required",
    "one of the arguments %s is required": "cli.help.argparse.one_of_required",
    "invalid choice: %(value)r (choose from %(choices)s)": "cli.help.argparse.invalid_choice",
    "invalid %(type)s value: %(value)r": "cli.help.argparse.invalid_value",
    "unrecognized arguments: %s": "cli.help.argparse.unrecognized",
    "unknown parser %(parser_name)r (choices: %(choices)s)": "cli.help.argparse.unknown_parser",
    "expected one argument": "cli.help.argparse.expected_one",
    "expected at most one argument": "cli.help.argparse.expected_at_most_one",
    "expected at least one argument": "cli.help.argparse.expected_at_least_one",
    "expected %s argument": "cli.help.argparse.expected_n_one",
    "expected %s arguments": "cli.help.argparse.expected_n_other",
    "ambiguous option: %(option)s could match %(matches)s": "cli.help.argparse.ambiguous",
    "not allowed with argument %s": "cli.help.argparse.not_allowed_with",
    "ignored explicit argument %r": "cli.help.argparse.ignored_explicit",
    "unexpected option string: %s": "cli.help.argparse.unexpected_option",
    "can't open '%(filename)s': %(error)s": "cli.help.argparse.cant_open",
}


@contextlib.contextmanager
def speaking(tr: Translator) -> Iterator[None]:
    """argparse says its own words through ``tr`` inside this block (see ARGPARSE_KEYS)."""

    def gettext(message: str) -> str:
        key = ARGPARSE_KEYS.get(message)
        return tr(key) if key else message

    def ngettext(singular: str, plural: str, n: int) -> str:
        return gettext(singular if n == 1 else plural)

    saved = argparse._, argparse.ngettext  # type: ignore[attr-defined]
    argparse._, argparse.ngettext = gettext, ngettext  # type: ignore[attr-defined]
    try:
        yield
    finally:
        argparse._, argparse.ngettext = saved  # type: ignore[attr-defined]
