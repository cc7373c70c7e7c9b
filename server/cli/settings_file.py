"""``truco-ssh serve --config PATH``: every ``serve`` flag as a TOML setting (its dest:
``max_sessions = 500``), flags on the command line over the file; ``truco-ssh config example``
writes the file with every setting and its default from the same argument definitions."""
from __future__ import annotations

import argparse
import json
import re
import tomllib
from pathlib import Path
from typing import Any, Callable, cast

# Not settings: the file itself, help, and what only ``--workers`` gives its workers.
NOT_SETTINGS = {"help", "config", "reuse_port"}


class SettingsParser(argparse.ArgumentParser):
    """An argument parser that keeps each option it and its groups are given (``settings``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.settings: list[argparse.Action] = []
        self.commands: dict[str, SettingsParser] = {}
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.settings.append(action)
        return action

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        group = super().add_argument_group(*args, **kwargs)
        add: Callable[..., argparse.Action] = group.add_argument

        def recording(*a: Any, **kw: Any) -> argparse.Action:
            action = add(*a, **kw)
            self.settings.append(action)
            return action
        group.add_argument = recording  # type: ignore[method-assign]
        return group


class SettingsError(ValueError):
    """A setting the file may not have: ``PATH:LINE: reason``."""


def settable(parser: SettingsParser) -> dict[str, argparse.Action]:
    return {a.dest: a for a in parser.settings
            if a.option_strings and a.help != argparse.SUPPRESS and a.dest not in NOT_SETTINGS}


def _line(text: str, key: str) -> int | None:
    name = rf'(?:{re.escape(key)}|"{re.escape(key)}"|\'{re.escape(key)}\')'
    found = re.search(rf'^[ \t]*(?:{name}[ \t]*[.=]|\[\[?[ \t]*{name}[ \t]*[].])', text, re.M)
    return text.count("\n", 0, found.start()) + 1 if found else None


def _value(action: argparse.Action, value: object) -> object:
    """The setting as the flag would have it, or ValueError with the reason."""
    if action.nargs == 0:  # store_true / store_false: the file says what the dest becomes
        if not isinstance(value, bool):
            raise ValueError(f"must be true or false, not {value!r}")
        return value
    if isinstance(action.default, list):  # a flag given again for more (--operator-key): a list
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"must be a list of strings, not {value!r}")
        return value
    if isinstance(value, bool) or isinstance(value, (dict, list)) and not (
            action.dest == "nats" and isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ValueError(f"must be a single value, not {value!r}")
    if isinstance(value, list):
        value = ",".join(value)
    kind = action.type
    if kind is int and not isinstance(value, int):
        raise ValueError(f"must be a whole number, not {value!r}")
    if kind is float and not isinstance(value, (int, float)):
        raise ValueError(f"must be a number, not {value!r}")
    if kind not in (int, float) and not isinstance(value, (str, int)):
        raise ValueError(f"must be a string, not {value!r}")
    plain = value if kind in (int, float) else str(value)  # a number for `workers` is its text
    converted = cast(Any, kind)(plain) if callable(kind) else plain
    if action.choices is not None and converted not in action.choices:
        raise ValueError(f"must be one of {', '.join(map(str, action.choices))}, not {value!r}")
    return converted


def load_settings(path: Path, parser: SettingsParser) -> dict[str, object]:
    """The file's settings by dest, checked against ``parser``'s options."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SettingsError(f"{path}: not TOML: {exc}") from None
    known = settable(parser)
    values: dict[str, object] = {}
    for key, value in data.items():
        line = _line(text, key)
        where = f"{path}:{line}" if line else str(path)
        action = known.get(key)
        if action is None:
            raise SettingsError(f"{where}: unknown setting {key!r} (`truco-ssh config example` lists them)")
        try:
            values[key] = _value(action, value)
        except (ValueError, TypeError, argparse.ArgumentTypeError) as exc:
            raise SettingsError(f"{where}: {key}: {exc}") from None
    return values


def _toml(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))  # a TOML basic string


def example(parser: SettingsParser, command: str = "truco-ssh serve") -> str:
    """A settings file with every setting of ``parser``, its help, and its default."""
    lines = ["# truco-ssh settings: `truco-ssh serve --config PATH` (TOML).",
             "# Each setting is its flag's name with underscores; a flag given on the command",
             "# line wins over the file. Commented-out settings have no fixed default here.", ""]
    for dest, action in settable(parser).items():
        helped = str(action.help) % dict(vars(action), prog=command) if action.help else ""
        flags = ", ".join(action.option_strings)
        lines.append(f"# {helped} [{flags}]")
        default = action.default
        if default is None or isinstance(default, Path):
            sample = default if default is not None else (action.metavar or "")
            lines.append(f"# {dest} = {_toml(sample)}")
        else:
            lines.append(f"{dest} = {_toml(default)}")
        lines.append("")
    return "\n".join(lines)
