"""A cleared or emptied ``LRUCache`` leaves no ring of links for the garbage collector.

Textual 8.2.8's ``LRUCache`` keeps its entries in a ring of ``[prev, next, key, value]``
lists. ``clear()`` drops its dictionary and its head but leaves the ring as it was: every
link still holds its neighbours, so the whole ring, with every value in it (a DataTable's
rendered cells and rows, a log's lines, a node's query results), is a cycle that only the
collector frees. DataTable, OptionList, RichLog and every DOM node clear theirs whenever
their content or styles change, so a server holding many sessions' lobbies made tens of
thousands of such objects a second: the middle generation's passes freed 70,000-100,000
objects each, lists of segments, texts and strips, and took 0.1-0.6 s under the load bench
(docs/DEVELOPMENT.md, "The collector's pauses"). ``discard()`` of the only entry left it
linked to itself, with its value.

Here both cut every link they drop, so what the cache held is freed at once by reference
counting; what the cache does is unchanged.

Patched: ``textual.cache.LRUCache.clear`` and ``LRUCache.discard``.
Upstream would need: ``clear`` and ``discard`` emptying the links they drop.
"""
from __future__ import annotations

from typing import Any

from textual.cache import LRUCache

_original_discard: Any = None


def clear(self: LRUCache[Any, Any]) -> None:
    """Textual's ``clear``, each link emptied first."""
    for link in self._cache.values():
        link.clear()
    self._cache.clear()
    self._full = False
    self._head = []


def discard(self: LRUCache[Any, Any], key: Any) -> None:
    """Textual's ``discard``, the dropped link emptied after it is taken out of the ring."""
    link = self._cache.get(key)
    _original_discard(self, key)
    if link is not None:
        link.clear()


def install() -> None:
    """Replace the two methods; a second call changes nothing."""
    global _original_discard
    if _original_discard is not None:
        return
    _original_discard = LRUCache.discard
    LRUCache.clear = clear  # type: ignore[method-assign]
    LRUCache.discard = discard  # type: ignore[method-assign]
