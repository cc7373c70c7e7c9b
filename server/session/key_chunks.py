"""Where a packet of typed bytes may be cut into the chunks the input gate hands the App
(server/session/input_gate.py): never inside a key's escape sequence or a bracketed paste."""
from __future__ import annotations

PASTE_START, PASTE_END = b"\x1b[200~", b"\x1b[201~"


def editing_key_end(data: bytes) -> int:
    """Where ``data``'s first chunk ends: after its first key when that is a control key or
    an escape sequence (CSI, SS3, a string such as OSC, or Alt+key), else before its first
    such key (a run of text, handled in order). A bracketed paste is a run of its own."""
    if not data:
        return 0
    first = data[0]
    if first == 0x1B:
        if data.startswith(PASTE_START):
            end = data.find(PASTE_END)
            return len(data) if end < 0 else end + len(PASTE_END)
        if len(data) >= 2 and data[1] in b"]P_^X":  # a string (OSC, DCS...): up to BEL or ST
            ends = [i + 1 for i in (data.find(b"\x07", 2),) if i >= 0]
            ends += [i + 2 for i in (data.find(b"\x1b\\", 2),) if i >= 0]
            return min(ends, default=len(data))
        if len(data) >= 2 and data[1] in b"[O":  # CSI or SS3: up to its final byte
            for i in range(2, len(data)):
                if 0x40 <= data[i] <= 0x7E:
                    return i + 1
            return len(data)  # cut short: the parser waits for the rest
        return min(len(data), 2)  # Alt+key, or a lone ESC
    if first < 0x20 or first == 0x7F:
        return 1
    for i in range(1, len(data)):
        if data[i] < 0x20 or data[i] == 0x7F:
            return i
    return len(data)
