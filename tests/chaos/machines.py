"""Linux network namespaces as machines, for the chaos harness's partitions (issue 33).

``Machines(n)`` makes ``n`` namespaces, each with one interface (a veth pair) on a bridge of
its own, with addresses in a private /24 that nothing else on the host uses; the bridge has
the first address, so the harness (the players) reaches every machine from the host's own
namespace. A program runs on machine ``i`` under ``prefix(i)`` (``ip netns exec``).

``cut(i)`` partitions machine ``i`` from the other machines, silently as a real partition is
(each side's neighbour entry for the other points at a hardware address no interface has, so
the bridge drops their packets and the sender gets no error: TCP retransmits into nothing
until it gives up; this kernel has no traffic-control drop action to do it otherwise), while the players still reach
it: the case where a serve process and its NATS node lose the cluster but keep their
sessions. ``heal()`` undoes it (one machine is cut at a time). Needs root (CI runs as root)
and iproute2's ``ip``; ``missing()`` says why it cannot run.
"""
from __future__ import annotations

import asyncio
import functools
import os
import random
import shutil
import subprocess
from dataclasses import dataclass, field


@functools.cache
def missing() -> str:
    """Why network namespaces cannot be made here ("" if they can): tried once, with a
    namespace made and deleted (root in a container may still lack the right)."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "no ip command (iproute2)"
    probe = f"truco-probe-{os.getpid()}"
    made = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, check=False)
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    if made.returncode != 0:
        return f"cannot make a network namespace here: {made.stderr.strip()}"
    return ""


def _run(*command: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")


def _ip(*args: str) -> None:
    _run("ip", *args)


def _free_subnet() -> str:
    """A /24 in 10.200-249.x.0 that no address on the host is in (e.g. "10.213.7")."""
    used = subprocess.run(["ip", "-o", "-4", "addr"], capture_output=True, text=True, check=True).stdout
    while True:
        prefix = f"10.{random.randrange(200, 250)}.{random.randrange(256)}"
        if f" {prefix}." not in used:
            return prefix


NOWHERE = "02:00:5e:00:de:ad"  # a locally administered hardware address no interface here has


@dataclass
class Machines:
    count: int
    tag: str = field(default_factory=lambda: f"{os.getpid() % 100000:05d}")
    subnet: str = ""
    cut_now: set[int] = field(default_factory=set)

    def name(self, i: int) -> str:
        return f"truco{self.tag}m{i}"

    def address(self, i: int) -> str:
        return f"{self.subnet}.{10 + i}"

    @property
    def bridge(self) -> str:
        return f"tcb{self.tag}"

    def prefix(self, i: int) -> tuple[str, ...]:
        return ("ip", "netns", "exec", self.name(i))

    async def create(self) -> None:
        await asyncio.to_thread(self._create)

    def _create(self) -> None:
        try:
            self._make()
        except BaseException:
            self._destroy()
            raise

    def _make(self) -> None:
        self.subnet = _free_subnet()
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.subnet}.1/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")
        for i in range(self.count):
            ns, veth = self.name(i), f"tcv{self.tag}{i}"
            _ip("netns", "add", ns)
            _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", ns)
            _ip("link", "set", veth, "master", self.bridge, "up")
            _ip("-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
            _ip("-n", ns, "link", "set", "eth0", "up")
            _ip("-n", ns, "link", "set", "lo", "up")

    async def cut(self, i: int) -> None:
        await asyncio.to_thread(self._cut, i)
        self.cut_now.add(i)

    async def heal(self) -> None:
        await asyncio.to_thread(self._heal)
        self.cut_now.clear()

    def _cut(self, i: int) -> None:
        for j in range(self.count):
            if j != i:
                for ns, other in ((self.name(i), self.address(j)), (self.name(j), self.address(i))):
                    _ip("-n", ns, "neigh", "replace", other, "lladdr", NOWHERE, "nud", "permanent", "dev", "eth0")

    def _heal(self) -> None:
        for i in self.cut_now:
            for j in range(self.count):
                if j != i:  # (the real address is learnt again at the next packet)
                    _ip("-n", self.name(i), "neigh", "del", self.address(j), "dev", "eth0")
                    _ip("-n", self.name(j), "neigh", "del", self.address(i), "dev", "eth0")

    async def destroy(self) -> None:
        await asyncio.to_thread(self._destroy)

    def _destroy(self) -> None:
        for i in range(self.count):  # (the veth pairs go with their namespaces)
            subprocess.run(["ip", "netns", "del", self.name(i)], capture_output=True, check=False)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True, check=False)
