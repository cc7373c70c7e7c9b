"""Per-session colour depth for Textual's output.

Textual 8.2.8 renders a strip to escape sequences in ``Strip.render`` and caches the
result twice, without the colour system in the key: on the strip (``_render_cache``)
and on the shared Rich ``Style`` object (``style._ansi``). With hundreds of apps in
one process, the first session to render a style fixes its escapes for everybody, and
a console without colour (``color_system=None``) is treated as truecolor. This patch
keeps Textual's path for truecolor sessions and, for 256-colour, 16-colour and
colourless sessions, renders through a cache keyed by colour system that never writes
to the shared caches. It uses private Textual APIs (Textual is pinned exactly in
pyproject.toml); tests/e2e/test_lite_ssh.py checks the escapes a client receives.

Those escapes set each style once where it changes within the strip (``ESC[0;...m``: a
reset and the new style in one sequence), where Textual sets and resets every segment's:
a table's first paint 9,944 -> 8,297 bytes (997 compressed, was 1,128), a 4-player hand
29,848 -> 26,294 per player (2,097 compressed, was 2,148; ``load_bench.py --tables``).
tests/tui/test_colour_depth_cache.py checks on a terminal emulator that every cell looks
as with Textual's escapes.

Patched: ``textual.strip.Strip.render``.
Upstream would need: the colour system in the key of ``Strip._render_cache`` and no use
of Rich's per-``Style`` ``_ansi`` cache when rendering for a console that is not
truecolor (or a ``Strip.render`` that takes the colour system as an argument).
"""
from __future__ import annotations

from functools import lru_cache

from rich.color import ColorSystem
from rich.console import Console
from rich.style import Style
from textual.strip import SGR_STYLES, Strip

from tui.widgets.shared_rows import SharedLRU

_textual_render = Strip.render


@lru_cache(maxsize=16384)
def _sgr(style: Style, color_system: ColorSystem | None) -> str:
    attributes = style._attributes & style._set_attributes
    sgr = [SGR_STYLES[bit] for bit in range(attributes.bit_length()) if attributes & (1 << bit)]
    if color_system is not None:
        if style._color is not None:
            sgr.extend(style._color.downgrade(color_system).get_ansi_codes())
        if style._bgcolor is not None:
            sgr.extend(style._bgcolor.downgrade(color_system).get_ansi_codes(False))
    return ";".join(sgr)


# (strip id, colour system) -> (the strip, its escapes), bounded: Textual keeps a strip's
# truecolour escapes on the strip, and these were made again on every write. A row is the
# same Strip for the players of a table (tui/widgets/shared_rows.py), and the compositor's
# pieces of it too (``Strip.divide`` keeps them on the strip), so each is rendered once per
# colour system, not once per session and write: most players' terminals say 256 colours
# (TERM=xterm-256color; OpenSSH does not pass COLORTERM on). Keeps the strip, so that its
# id is not reused while the entry lives.
_RENDERED: SharedLRU[tuple[int, ColorSystem | None], tuple[Strip, str]] = SharedLRU(10_000)


def rendered_count() -> int:
    """How many strips' escapes are kept (tests: the bound holds)."""
    return len(_RENDERED)


def _render(self: Strip, console: Console) -> str:
    color_system = console._color_system
    if color_system is ColorSystem.TRUECOLOR:
        return _textual_render(self, console)
    key = (id(self), color_system)
    kept = _RENDERED.get(key)
    if kept is not None and kept[0] is self:
        return kept[1]
    out = _escapes(self, color_system)
    _RENDERED.put(key, (self, out))
    return out


def _escapes(self: Strip, color_system: ColorSystem | None) -> str:
    """The strip's text with its styles, each set once where it changes (Textual sets each
    segment's style and resets it after the segment: neighbours that look alike, a row's
    background, repeated it). The strip ends with no style set, as Textual's does."""
    parts: list[str] = []
    current = ""  # the SGR parameters in force ("": none)
    for text, style, _ in self._segments:
        ansi = _sgr(style, color_system) if style is not None else ""
        if ansi != current:
            # "0;" first: what the last segment set does not carry over
            parts.append(f"\x1b[0;{ansi}m" if ansi else "\x1b[0m")
            current = ansi
        parts.append(text)
    if current:
        parts.append("\x1b[0m")
    return "".join(parts)


def install() -> None:
    """Replace ``Strip.render``; a second call changes nothing."""
    Strip.render = _render  # type: ignore[method-assign]
