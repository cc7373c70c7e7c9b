"""A one-line list of the keys that work here, translated, cheap to repaint.

Dialogs give the bar a fixed list (``show``). The lobby and the table let it follow
their bindings (``follow_bindings``): it lists exactly the bindings Textual says are
active now (``check_action`` hides the others), so the bar and the keys cannot disagree.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

from rich.text import Text
from textual.binding import ActiveBinding, Binding
from textual.screen import Screen

from tui.widgets.panels import Panel, line_key, style_as_span
from tui.widgets.shared_rows import SharedLRU

Labeller = Callable[[Binding], str]
Orderer = Callable[[Binding], int]  # a key's place in the bar (lowest first; ties: binding order)
Droppable = Callable[[Binding], bool]  # a key the bar leaves off when it would need another row for it


# The bars drawn, shared by every session: the seats of a table show the same few bars
# (to move, waiting, a bet to answer) in the same words, and each turn changes them. Kept
# with their rows and the rows' keys (``line_key``): a bar is split and keyed once, not on
# every turn of every seat.
_KEY_LINES: SharedLRU[tuple[object, ...], tuple[Text, list[Text], list[tuple[object, ...]]]] = SharedLRU(2_000)


def key_line(pairs: list[tuple[str, str]], width: int = 0) -> Text:
    """The keys on one line, or where ``width`` is too narrow for them, on as many lines as
    they need, broken between keys: a key and its words are never cut (60 columns).
    The Text returned may be shared: not to be changed."""
    return _key_rows(pairs, width)[0]


def _key_rows(pairs: list[tuple[str, str]], width: int) -> tuple[Text, list[Text], list[tuple[object, ...]]]:
    """``key_line``, its rows (as ``Panel.show`` splits it) and their keys."""
    key = (tuple(pairs), width)
    kept = _KEY_LINES.get(key)
    if kept is None:
        line = _key_line(pairs, width)
        rows = [style_as_span(row) for row in line.split("\n", allow_blank=True)]
        kept = (line, rows, [line_key(row) for row in rows])
        _KEY_LINES.put(key, kept)
    return kept


def _key_line(pairs: list[tuple[str, str]], width: int) -> Text:
    rows: list[Text] = []
    for key, label in pairs:
        piece = Text()
        piece.append(key, style="reverse bold")
        piece.append(" " + label)
        if rows and (not width or rows[-1].cell_len + 2 + piece.cell_len <= width):
            rows[-1].append("  ")
            rows[-1].append_text(piece)
        else:
            rows.append(piece)
    line = Text("\n").join(rows) if rows else Text()
    line.no_wrap, line.overflow = True, "ellipsis"
    return line


def _action_name(binding: Binding) -> str:
    return binding.action.split("(", 1)[0]


def _keys_text(keys: list[str]) -> str:
    """One entry for several keys of one action: "1-3" for a run of digits, else "1,3"."""
    if len(keys) > 1 and all(k.isdigit() for k in keys) \
            and [int(k) for k in keys] == list(range(int(keys[0]), int(keys[0]) + len(keys))):
        return f"{keys[0]}-{keys[-1]}"
    return ",".join(keys)


def binding_pairs(active: Mapping[str, ActiveBinding], label: Labeller,
                  order: Orderer | None = None, leave_out: Droppable | None = None) -> list[tuple[str, str]]:
    """The (key, label) pairs of the enabled, shown bindings, in binding order.

    Consecutive bindings of one action and label (the card keys: ``card(0)``, ``card(1)``...)
    make one entry, so three cards read "1-3 Card" and a single one "1 Card". A binding
    whose label is "" now is left off (the table's calls, listed only while answering).
    ``order`` puts some keys first (the answers to a bet, before the table's keys);
    ``leave_out`` leaves the bindings it says yes to off.
    """
    groups: list[tuple[tuple[str, str], list[str]]] = []
    entries = list(active.items())
    if order is not None:
        entries.sort(key=lambda item: order(item[1].binding))
    for key, entry in entries:
        binding = entry.binding
        if not entry.enabled or not binding.show or not binding.description:
            continue
        if leave_out is not None and leave_out(binding):
            continue
        words = label(binding)
        if not words:
            continue
        shown = binding.key_display or key
        name = (_action_name(binding), words)
        if groups and groups[-1][0] == name:
            groups[-1][1].append(shown)
        else:
            groups.append((name, [shown]))
    return [(_keys_text(keys), name[1]) for name, keys in groups]


class KeyBar(Panel):
    DEFAULT_CSS = "KeyBar { height: 1; dock: bottom; }"

    _label: Labeller | None = None
    _order: Orderer | None = None
    _optional: Droppable | None = None

    _pairs: list[tuple[str, str]] = []
    # The most rows the keys have needed at this width: the bar keeps them until the width
    # changes. A bar that grew and shrank with the keys offered (one row for the cards, two
    # for an envido's answers) moved everything above it by a row each time, and laid the
    # whole screen out again for it.
    _rows_kept: tuple[int, int] = (0, 0)  # (width, rows)

    def show(self, pairs: list[tuple[str, str]]) -> None:  # type: ignore[override]
        self._pairs = pairs
        width = self._inner_size().width or self._width_to_come()
        _, rows, keys = _key_rows(pairs, width)
        kept_width, kept_rows = self._rows_kept
        height = max(len(rows), kept_rows if kept_width == width else 0)
        self._rows_kept = (width, height)
        if self.styles.height is None or self.styles.height.value != height:
            self.styles.height = height  # (a layout: only when the rows kept change)
        self.show_keyed(rows, keys)

    def _width_to_come(self) -> int:
        """Before its first layout: the width a bar along the bottom of its screen will get
        (the terminal's, less its own frame), so that its first rows are the right ones and
        the layout that sizes it does not have to be done again. Elsewhere (in a dialog) 0:
        its first resize says."""
        if not isinstance(self.parent, Screen):  # (not mounted yet, or inside a dialog)
            return 0
        return max(0, self.app.size.width - self.styles.gutter.width)

    def on_resize(self) -> None:
        if self._optional is not None and self.is_attached:
            self._bindings_changed(self.screen)  # the optional keys may fit now, or no longer
        elif self._pairs:
            self.show(self._pairs)

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """What the bar shows now, as (keys, words) pairs."""
        return self._pairs

    @property
    def following(self) -> bool:
        """Whether the bar follows its screen's bindings (``follow_bindings`` was called)."""
        return self._label is not None

    def follow_bindings(self, label: Labeller, order: Orderer | None = None,
                        optional: Droppable | None = None) -> None:
        """Show the screen's active bindings from now on, redrawn whenever Textual (a focus
        change) or the screen (``refresh_bindings`` after a change of state) says they
        changed. ``label`` turns a binding into its words in the player's language; ``order``
        (if given) says which keys come first; ``optional`` (if given) which keys are shown
        only where they fit on the rows the others take."""
        self._label = label
        self._order = order
        self._optional = optional
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)
        self._bindings_changed(self.screen)

    def draw_bindings(self, screen: Screen[Any]) -> None:
        """Show ``screen``'s active bindings now (following them, the bar is drawn only on
        the next turn of the message loop)."""
        self._bindings_changed(screen)

    def _bindings_changed(self, screen: Screen[Any]) -> None:
        if self._label is None or not self.is_attached:
            return
        active = screen.active_bindings
        pairs = binding_pairs(active, self._label, self._order)
        if self._optional is not None:
            fewer = binding_pairs(active, self._label, self._order, self._optional)
            width = self._inner_size().width or self._width_to_come()
            if len(_key_rows(pairs, width)[1]) > len(_key_rows(fewer, width)[1]):
                pairs = fewer
        self.show(pairs)
