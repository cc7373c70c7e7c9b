"""kvscan.current_values: a bucket's current values, read whole, not ended early by the
watch's end-of-values marker, which can come before the values on a loaded machine
(`python tests/bench/kvscan_race.py --watch`: 4 short scans in 1,800; none in 1,500 here)."""
from __future__ import annotations

from server.cluster.bus import Bus, BusOptions, bucket
from server.cluster.kvscan import BATCH, current_values
from server.cluster.natsd import NatsServer


async def test_every_current_value_and_no_deleted_key(nats_server: NatsServer) -> None:
    bus = await Bus.connect(nats_server.url, BusOptions(), owner="scan-1")
    try:
        kv = await bucket(bus, "truco_scan_test")
        assert await current_values(kv) == []  # an empty bucket
        many = BATCH * 2 + 7  # more than one fetch
        for i in range(many):
            await kv.put(f"a.k{i}", b"first")
        await kv.put("a.k0", b"second")  # a key written again: its current value only
        await kv.delete("a.k1")
        await kv.purge("a.k2")
        await kv.put("b.other", b"elsewhere")
        found = await current_values(kv, "a.*")
        values = {entry.key: entry.value for entry in found}
        assert len(found) == len(values) == many - 2
        assert values["a.k0"] == b"second" and "a.k1" not in values and "a.k2" not in values
        assert "b.other" not in values
        assert {e.key for e in await current_values(kv)} == set(values) | {"b.other"}
        info = await bus.js.stream_info("KV_truco_scan_test")
        assert info.state.consumer_count == 0  # each scan's consumer is gone with it
    finally:
        await bus.close()
