"""Every private part of Textual the TUI touches outside tui/textual_patches goes through
tui/textual_private.py, which lists them and refuses a Textual it was not written for; the
few private members that the project's subclasses of Textual classes override or use are
listed there too."""
from __future__ import annotations

import ast
import importlib
from functools import cache
from pathlib import Path

import pytest
import textual
from textual.widgets import Input

from tui import textual_private

ROOT = Path(__file__).resolve().parents[2]
TUI = ROOT / "tui"
FENCE = TUI / "textual_private.py"
PATCHES = TUI / "textual_patches"  # they replace private methods: their own list and tests
TEXTUAL = Path(textual.__file__).parent

# Names that read like Textual's but are another library's, where they are: (file, name).
NOT_TEXTUAL = {
    ("tui/widgets/panels.py", "_meta"),  # Widget.hover_style is a Rich Style: Rich's own attribute
}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


@cache
def _textual_classes() -> dict[tuple[str, str], frozenset[str]]:
    """(module, class name) -> the private names each class of the installed Textual
    defines: in its body, or as an attribute of ``self`` in its methods (``__x`` as Python
    mangles it), read from Textual's source."""
    out: dict[tuple[str, str], frozenset[str]] = {}
    for path in sorted(TEXTUAL.rglob("*.py")):
        module = ".".join(("textual", *path.relative_to(TEXTUAL).with_suffix("").parts)).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            names: set[str] = set()
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    names.add(item.name)
                elif isinstance(item, ast.Assign):
                    names |= {target.id for target in item.targets if isinstance(target, ast.Name)}
                elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                    names.add(item.target.id)
            names |= {sub.attr for sub in ast.walk(node) if isinstance(sub, ast.Attribute)
                      and isinstance(sub.value, ast.Name) and sub.value.id == "self"}
            out[(module, node.name)] = frozenset(
                f"_{node.name.lstrip('_')}{name}" if name.startswith("__") and not name.endswith("__") else name
                for name in names if _private(name))
    return out


@cache
def _textual_private_names() -> frozenset[str]:
    """Every private name of the installed Textual: its classes', its modules' own, and its
    private modules'."""
    names = set().union(*_textual_classes().values())
    for path in TEXTUAL.rglob("*.py"):
        names |= {part for part in path.relative_to(TEXTUAL).with_suffix("").parts if _private(part)}
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return frozenset(name for name in names if _private(name))


def _textual_bases(cls: type) -> dict[str, frozenset[str]]:
    """The Textual classes ``cls`` derives from -> the private names each defines."""
    return {klass.__name__: _textual_classes().get((klass.__module__, klass.__name__), frozenset())
            for klass in cls.__mro__ if klass.__module__.split(".")[0] == "textual"}


def _module_of(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _is_own(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``."""
    return (isinstance(node, ast.Name) and node.id in ("self", "cls")) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super")


def _touches(path: Path) -> tuple[set[str], set[tuple[str, frozenset[str]]]]:
    """What ``path`` touches of Textual's private names: the names it reads or writes on
    any object but its own (or through getattr/setattr/hasattr with a literal, or imports
    as a private module); and for each private member its subclasses of Textual classes
    override or use on ``self``/``super()``, (the name, the Textual bases that define it)."""
    private, rel = _textual_private_names(), str(path.relative_to(ROOT))
    tree = ast.parse(path.read_text(encoding="utf-8"))
    other: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in private and not _is_own(node.value):
            other.add(node.attr)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in private:
            other.add(node.args[1].value)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "textual":
            other |= {part for part in node.module.split(".") if _private(part)}
        elif isinstance(node, ast.Import):
            other |= {part for alias in node.names if alias.name.split(".")[0] == "textual"
                      for part in alias.name.split(".") if _private(part)}
    other -= {name for where, name in NOT_TEXTUAL if where == rel}
    subclass: set[tuple[str, frozenset[str]]] = set()
    module = importlib.import_module(_module_of(path))
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        cls = getattr(module, node.name, None)
        if not isinstance(cls, type):
            continue
        bases = _textual_bases(cls)
        used = {item.name for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        used |= {sub.attr for sub in ast.walk(node) if isinstance(sub, ast.Attribute) and _is_own(sub.value)}
        textual_mro = [klass for klass in cls.__mro__ if klass.__module__.split(".")[0] == "textual"]
        for name in used:
            defined_by = {base for base, names in bases.items() if name in names}
            if defined_by:  # (named by any Textual base that has it: Checkbox has ToggleButton's _button)
                subclass.add((name, frozenset(klass.__name__ for klass in textual_mro
                                              if defined_by & {k.__name__ for k in klass.__mro__})))
    return other, subclass


def _tui_files() -> list[Path]:
    return [path for path in sorted(TUI.rglob("*.py")) if PATCHES not in path.parents]


def test_the_reader_sees_textuals_private_names() -> None:
    names = _textual_private_names()
    assert {"_dirty_widgets", "_batch_count", "_Static__content", "_xterm_parser", "_timeout_time"} <= names
    assert "_on_key" in _textual_bases(Input)["Input"]


def test_only_the_fence_touches_textual_privately() -> None:
    outside = {str(path.relative_to(ROOT)): used for path in _tui_files()
               if path != FENCE and (used := _touches(path)[0])}
    assert outside == {}


def test_the_fence_lists_every_private_name_it_uses() -> None:
    assert _touches(FENCE)[0] == {name for _, name in textual_private.PRIVATE_NAMES}


def test_every_private_member_a_subclass_overrides_or_uses_is_listed() -> None:
    used = {(name, bases): str(path.relative_to(ROOT)) for path in _tui_files() for name, bases in _touches(path)[1]}
    listed = set(textual_private.SUBCLASS_NAMES)
    # Listed under one of the Textual classes the subclass derives from that have it.
    unlisted = {name: where for (name, bases), where in used.items()
                if not any((base, name) in listed for base in bases)}
    assert unlisted == {}
    stale = {(base, name) for base, name in listed if not any(name == n and base in bases for n, bases in used)}
    assert stale == set()


def test_the_installed_textual_passes_and_another_version_is_refused() -> None:
    textual_private.check()
    with pytest.raises(RuntimeError, match="written for Textual 8.2.8, not 8.3.0"):
        textual_private.check("8.3.0")


@pytest.mark.parametrize("entry", [("Screen", "_not_in_textual"), ("textual", "_not_a_module")])
def test_a_missing_private_name_is_refused(monkeypatch: pytest.MonkeyPatch, entry: tuple[str, str]) -> None:
    monkeypatch.setattr(textual_private, "PRIVATE_NAMES", (*textual_private.PRIVATE_NAMES, entry))
    with pytest.raises(RuntimeError, match=".".join(entry)):
        textual_private.check()


def test_a_missing_overridden_member_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(textual_private, "SUBCLASS_NAMES",
                        (*textual_private.SUBCLASS_NAMES, ("Input", "_not_in_textual")))
    with pytest.raises(RuntimeError, match="Input._not_in_textual"):
        textual_private.check()


def test_the_patches_start_up_runs_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from tui import textual_patches

    monkeypatch.setattr(textual_private, "PRIVATE_NAMES", (*textual_private.PRIVATE_NAMES, ("App", "_gone")))
    with pytest.raises(RuntimeError, match="App._gone"):
        textual_patches.install()
