"""A widget's matched CSS rules are worked out once per kind of place in the DOM, for every
session in the process.

Textual 8.2.8's ``Stylesheet.apply`` styles one node by filtering every rule of the
stylesheet down to the ones that could match, matching each of their selectors against the
node's path from the App, and merging the matched declarations by specificity. It runs for
every widget mounted and again whenever a class or pseudo-class changes: 0.9 ms a node here,
17 % of the CPU of the screen tests (tests/tui/test_table_layout.py and two others, timed
around ``apply``), and the same work for every session showing the same screen. Its own
cache only serves siblings within one ``update_nodes`` call.

What the matching reads from each node of the path is its type, id, classes and the
pseudo-classes that the candidate rules name; what comes out depends on nothing else (the
rule sets are shared and never changed after parsing: ``shared_css``). So the merged rules
are kept process-wide under exactly that: the candidate rule sets and, for every node of
the path, its type, id, classes and those pseudo-classes. A node whose candidate rules name
a pseudo-class that depends on its siblings (``first-child``, ``odd``...) or on its
descendants' focus is styled as before, uncached, as Textual's own cache does.

Patched: ``textual.css.stylesheet.Stylesheet.apply``.
Upstream would need: a cache of matched rules keyed by the path's selector-relevant state.
"""
from __future__ import annotations

from typing import Any, Callable, NamedTuple

from textual.css.styles import RulesMap
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

_CANDIDATES = "_truco_candidates"  # on a stylesheet: (its rules list, {selector names: _Candidates})
_MAX_RULE_LISTS = 64  # distinct stylesheets: one per App class and theme, in practice
_RULE_LISTS: dict[tuple[int, ...], tuple[tuple[Any, ...], dict[frozenset[str], Any]]] = {}
_MAX_ENTRIES = 4096  # a bound, not a working size (the screen tests fill about 500)
_NO_RULES = object()  # nothing matched: Textual leaves the node's rules as they were
_MATCHED: dict[tuple[Any, ...], Any] = {}
_original: Callable[..., None] | None = None


class _Candidates(NamedTuple):
    rules: tuple[Any, ...]      # the rule sets that could match, in the order Textual checks them
    pseudo: tuple[str, ...]     # every pseudo-class they name
    hover: bool
    focus_within: bool
    order: bool
    odd_or_even: bool
    cacheable: bool


def _candidates(stylesheet: Stylesheet, node: DOMNode) -> _Candidates:
    rules_list = stylesheet.rules
    kept = stylesheet.__dict__.get(_CANDIDATES)
    if kept is None or kept[0] is not rules_list:  # a new stylesheet, or parsed again
        # Every session's App has its own list of the same shared rule sets: one entry for
        # all of them, which holds the rule sets (so their ids stay theirs while it lives).
        ids = tuple(map(id, rules_list))
        shared = _RULE_LISTS.get(ids)
        if shared is None:
            if len(_RULE_LISTS) >= _MAX_RULE_LISTS:
                _RULE_LISTS.clear()
            shared = _RULE_LISTS[ids] = (tuple(rules_list), {})
        kept = stylesheet.__dict__[_CANDIDATES] = (rules_list, shared[1])
    names = frozenset(node._selector_names)
    found: _Candidates | None = kept[1].get(names)
    if found is None:
        rules_map = stylesheet.rules_map
        limit = {rule for name in rules_map.keys() & names for rule in rules_map[name]}
        rules = tuple(filter(limit.__contains__, reversed(rules_list)))
        pseudo: set[str] = set().union(*[rule.pseudo_classes for rule in rules])
        found = _Candidates(
            rules, tuple(sorted(pseudo)), "hover" in pseudo, "focus-within" in pseudo,
            not pseudo.isdisjoint({"first-of-type", "last-of-type", "first-child", "last-child", "empty"}),
            "odd" in pseudo or "even" in pseudo,
            pseudo.isdisjoint(Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE))
        kept[1][names] = found
    return found


def _place(node: DOMNode, pseudo: tuple[str, ...]) -> tuple[Any, ...]:
    """What the candidate rules' selectors can read along the node's path from the App."""
    return tuple(
        (type(step), step._id, frozenset(step._classes), tuple(step.has_pseudo_class(name) for name in pseudo))
        for step in node.css_path_nodes)


def _apply(self: Stylesheet, node: DOMNode, *, animate: bool = False,
           cache: dict[tuple[Any, ...], RulesMap] | None = None) -> None:
    assert _original is not None
    found = _candidates(self, node)
    if not found.cacheable:
        _original(self, node, animate=animate, cache=cache)
        return
    key = (found.rules, _place(node, found.pseudo))
    matched = _MATCHED.get(key)
    if matched is None:
        scratch: dict[tuple[Any, ...], RulesMap] = {}
        _original(self, node, animate=animate, cache=scratch)  # (it sets the node's flags)
        if len(_MATCHED) >= _MAX_ENTRIES:
            _MATCHED.clear()
        _MATCHED[key] = next(iter(scratch.values())) if scratch else _NO_RULES
        return
    node._has_hover_style = found.hover
    node._has_focus_within = found.focus_within
    node._has_order_style = found.order
    node._has_odd_or_even = found.odd_or_even
    if matched is not _NO_RULES:
        if node.styles.base._rules == matched:
            # Styled again with the same rules (a class changed elsewhere on the screen):
            # setting each rule would change nothing; Textual would still tell the node.
            node.notify_style_update()
        else:
            self.replace_rules(node, matched, animate=animate)
    self._process_component_classes(node)


def install() -> None:
    """Replace ``Stylesheet.apply``; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Stylesheet.apply
    Stylesheet.apply = _apply  # type: ignore[method-assign]
