"""A widget's component styles are worked out on the same few nodes each time, not new ones.

Textual 8.2.8's ``Stylesheet._process_component_classes`` runs at every styling of a widget
that has component classes (an OptionList's highlight, an Input's cursor, a DataTable's
header...): when it is mounted, and again whenever the screen is styled anew (a resize that
changes a breakpoint class, focus moving, a pseudo-class). Each time it makes a new virtual
``DOMNode`` per component class and attaches it to the widget, so every such node and
its styles, bindings, signals and weak sets (about 25 objects) become garbage in a
reference cycle with the widget, which only the garbage collector frees. Under a flood of
resizes and keys (tests/bench/flood_bench.py) that was 1,200 nodes a minute, the largest
share of what its pauses of 100-280 ms collected.

Here each widget keeps one virtual node per component class and styles it again: the
rules it gets are the same ones, and the widget is refreshed exactly when a component's
rules changed, as before.

Patched: ``textual.css.stylesheet.Stylesheet._process_component_classes``.
Upstream would need: the virtual nodes kept on the node between stylings.
"""
from __future__ import annotations

from typing import Callable

from textual.css.styles import RulesMap
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

_NODES = "_truco_component_nodes"  # on a widget: {component class: its virtual node}
_original: Callable[[Stylesheet, DOMNode], None] | None = None


def _process_component_classes(self: Stylesheet, node: DOMNode) -> None:
    component_classes = node._get_component_classes()
    if not component_classes:
        return
    kept: dict[str, DOMNode] = node.__dict__.setdefault(_NODES, {})
    refresh_node = False
    shown = node._component_styles
    for gone in [name for name in kept if name not in component_classes]:
        del kept[gone]
        shown.pop(gone, None)
        refresh_node = True
    for component in sorted(component_classes):
        virtual_node = kept.get(component)
        if virtual_node is None:
            virtual_node = kept[component] = DOMNode(classes=component)
            virtual_node._attach(node)
            before: RulesMap | None = None
        else:
            before = virtual_node.styles.base.get_rules()  # (a copy)
        self.apply(virtual_node, animate=False)
        if before is None or shown.get(component) is not virtual_node.styles \
                or virtual_node.styles.base.get_rules() != before:
            refresh_node = True
        shown[component] = virtual_node.styles
    if refresh_node:
        node.refresh()


def install() -> None:
    """Replace the method; a second call changes nothing."""
    global _original
    if _original is not None:
        return
    _original = Stylesheet._process_component_classes
    Stylesheet._process_component_classes = _process_component_classes  # type: ignore[method-assign]
