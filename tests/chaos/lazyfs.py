"""A filesystem that loses every write not yet fsynced when its power is cut (after Jepsen's
LazyFS), for the chaos harness's power cuts (issue 33).

It is a FUSE passthrough over a directory (``mfusepy`` over Debian's libfuse3). What a
program writes is kept in this process's memory, a page cache of its own, until the program
fsyncs the file (or its data: ``fdatasync``); only then is it written to the directory below
and synced there. Killing this process is the power cut: every page not yet synced is gone,
as from a machine's RAM, and the directory below holds what stable storage would.

The model, stated because it decides what a cut loses:
- file data (writes, truncations) is volatile until the file is synced;
- the namespace (create, rename, unlink, mkdir) is durable at once, as on a journalling
  filesystem that commits metadata before the data it points at (so a file created and
  never synced comes back empty, and a file renamed over another before its data was synced
  comes back empty: the case LazyFS found in NATS);
- reads see what was written, synced or not, as on a real machine until the cut.

Run: ``python -m tests.chaos.lazyfs BELOW MOUNTPOINT`` (root, or ``fusermount3``); it prints
``lazyfs: mounted`` once the mount answers. ``LazyMount`` drives it from asyncio.
"""
from __future__ import annotations

import asyncio
import errno
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

PAGE = 4096
MOUNTED = "lazyfs: mounted"


@dataclass
class Unsynced:
    """One file's writes since it was last synced."""

    size: int  # the file's size as its programs see it
    floor: int  # below this, the file below is still what they see; from here on it was cut away
    pages: dict[int, bytearray] = field(default_factory=dict)  # page number -> the page as written


class LazyFS:
    """The operations mfusepy calls (an operation not defined here is not offered to the kernel)."""

    use_ns = True  # times in nanoseconds

    def __init__(self, below: str) -> None:
        self.below = below
        self.unsynced: dict[int, Unsynced] = {}  # inode below -> its writes since its last sync

    # -- where things are -------------------------------------------------------------------
    def _full(self, path: str) -> str:
        return os.path.join(self.below, path.lstrip("/"))

    def _state(self, fh: int) -> Unsynced:
        st = os.fstat(fh)
        state = self.unsynced.get(st.st_ino)
        if state is None:
            state = self.unsynced[st.st_ino] = Unsynced(size=st.st_size, floor=st.st_size)
        return state

    def _forget(self, full: str) -> None:
        """A name about to go (unlink, renamed over): its inode's writes go with its last name."""
        try:
            st = os.lstat(full)
        except FileNotFoundError:
            return
        if st.st_nlink <= 1:
            self.unsynced.pop(st.st_ino, None)

    # -- the page cache ---------------------------------------------------------------------
    def _below(self, fh: int, state: Unsynced | None, page: int) -> bytearray:
        data = bytearray(os.pread(fh, PAGE, page * PAGE))
        if state is not None:
            keep = max(0, state.floor - page * PAGE)
            data[keep:] = b""
        data.extend(bytes(PAGE - len(data)))
        return data

    def _page(self, fh: int, state: Unsynced, page: int) -> bytearray:
        if page not in state.pages:
            state.pages[page] = self._below(fh, state, page)
        return state.pages[page]

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        st = os.fstat(fh)
        state = self.unsynced.get(st.st_ino)
        end = min(offset + size, state.size if state is not None else st.st_size)
        out = bytearray()
        at = offset
        while at < end:
            page, inner = divmod(at, PAGE)
            data = state.pages.get(page) if state is not None else None
            if data is None:
                data = self._below(fh, state, page)
            take = min(PAGE - inner, end - at)
            out += data[inner:inner + take]
            at += take
        return bytes(out)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        state = self._state(fh)
        at, done = offset, 0
        while done < len(data):
            page, inner = divmod(at, PAGE)
            take = min(PAGE - inner, len(data) - done)
            self._page(fh, state, page)[inner:inner + take] = data[done:done + take]
            at += take
            done += take
        state.size = max(state.size, offset + len(data))
        return len(data)

    def _truncate(self, fh: int, length: int) -> None:
        state = self._state(fh)
        for page in [p for p in state.pages if p * PAGE >= length]:
            del state.pages[page]
        page, inner = divmod(length, PAGE)
        if page in state.pages:
            state.pages[page][inner:] = bytes(PAGE - inner)
        state.size = length
        state.floor = min(state.floor, length)

    def truncate(self, path: str | None, length: int, fh: int | None = None) -> int:
        if fh is not None:
            self._truncate(fh, length)
            return 0
        assert path is not None
        fd = os.open(self._full(path), os.O_RDWR)
        try:
            self._truncate(fd, length)
        finally:
            os.close(fd)
        return 0

    def fsync(self, path: str | None, datasync: int, fh: int) -> int:
        st = os.fstat(fh)
        state = self.unsynced.pop(st.st_ino, None)
        if state is not None:
            if state.floor < st.st_size:
                os.ftruncate(fh, state.floor)
            for page in sorted(state.pages):
                data = state.pages[page][:max(0, min(PAGE, state.size - page * PAGE))]
                if data:
                    os.pwrite(fh, data, page * PAGE)
            os.ftruncate(fh, state.size)
        (os.fdatasync if datasync else os.fsync)(fh)
        return 0

    # -- files ------------------------------------------------------------------------------
    def open(self, path: str, flags: int) -> int:
        # Always read-write below (the sync writes through this handle); truncation and
        # appending are done here, on the cache, not by the file below.
        fd = os.open(self._full(path), (flags & ~(os.O_ACCMODE | os.O_TRUNC | os.O_APPEND | os.O_DIRECT
                                                  | os.O_CREAT | os.O_EXCL)) | os.O_RDWR)
        if flags & os.O_TRUNC:
            self._truncate(fd, 0)
        return fd

    def create(self, path: str, mode: int, flags: int = 0) -> int:
        full = self._full(path)
        self._forget(full)
        fd = os.open(full, os.O_RDWR | os.O_CREAT | (flags & os.O_EXCL), mode)
        self.unsynced.pop(os.fstat(fd).st_ino, None)
        if flags & os.O_TRUNC:
            self._truncate(fd, 0)
        return fd

    def flush(self, path: str | None, fh: int) -> int:
        return 0  # a close is not a sync

    def release(self, path: str | None, fh: int) -> int:
        os.close(fh)
        return 0

    def getattr(self, path: str | None, fh: int | None = None) -> dict[str, int]:
        st = os.fstat(fh) if fh is not None else os.lstat(self._full(path or "/"))
        attrs = {key: getattr(st, key) for key in ("st_mode", "st_nlink", "st_uid", "st_gid", "st_size",
                                                   "st_atime_ns", "st_mtime_ns", "st_ctime_ns", "st_ino")}
        state = self.unsynced.get(st.st_ino)
        if state is not None:
            attrs["st_size"] = state.size
        attrs["st_blocks"] = (attrs["st_size"] + 511) // 512
        for key in ("st_atime", "st_mtime", "st_ctime"):
            attrs[key] = attrs.pop(key + "_ns")
        return attrs

    # -- the namespace: durable at once -----------------------------------------------------
    def access(self, path: str, amode: int) -> int:
        if not os.access(self._full(path), amode):
            raise OSError(errno.EACCES, path)
        return 0

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._full(path))]

    def mkdir(self, path: str, mode: int) -> int:
        os.mkdir(self._full(path), mode)
        return 0

    def rmdir(self, path: str) -> int:
        os.rmdir(self._full(path))
        return 0

    def unlink(self, path: str) -> int:
        full = self._full(path)
        self._forget(full)
        os.unlink(full)
        return 0

    def rename(self, old: str, new: str) -> int:
        self._forget(self._full(new))
        os.rename(self._full(old), self._full(new))
        return 0

    def link(self, target: str, source: str) -> int:
        os.link(self._full(source), self._full(target))
        return 0

    def symlink(self, target: str, source: str) -> int:
        os.symlink(source, self._full(target))
        return 0

    def readlink(self, path: str) -> str:
        return os.readlink(self._full(path))

    def chmod(self, path: str, mode: int) -> int:
        os.chmod(self._full(path), mode)
        return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        os.chown(self._full(path), uid, gid)
        return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        os.utime(self._full(path), ns=times)
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        return 0  # the namespace is durable at once

    def statfs(self, path: str) -> dict[str, int]:
        sv = os.statvfs(self._full(path))
        return {key: getattr(sv, key) for key in ("f_bavail", "f_bfree", "f_blocks", "f_bsize", "f_favail",
                                                  "f_ffree", "f_files", "f_flag", "f_frsize", "f_namemax")}

    def init(self, path: str) -> None:
        print(MOUNTED, flush=True)


def _fenced_fuse():  # type: ignore[no-untyped-def]
    """mfusepy's FUSE class, the one use of the library, with the version it was written for
    (imported here: the harness imports this module for ``LazyMount`` without libfuse)."""
    from importlib.metadata import version
    import mfusepy
    found = version("mfusepy")
    if int(found.split(".")[0]) != 3:
        raise SystemExit(f"lazyfs was written for mfusepy 3.x (operations called by name, use_ns), found {found}")
    return mfusepy.FUSE


def main() -> int:
    below, mountpoint = sys.argv[1:3]
    os.makedirs(below, exist_ok=True)
    os.makedirs(mountpoint, exist_ok=True)
    # One thread: every request in the order the kernel sends it (no locking of the cache).
    _fenced_fuse()(LazyFS(below), mountpoint, foreground=True, nothreads=True, fsname="lazyfs")
    return 0


def fuse_missing() -> str:
    """Why a power-cut filesystem cannot be mounted here ("" if it can). ``make test`` installs
    Debian's fuse3 when it runs as root (as CI does)."""
    import ctypes.util
    if ctypes.util.find_library("fuse3") is None:
        return "libfuse3 is not installed (Debian: apt-get install fuse3; make test does it as root)"
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if os.geteuid() != 0 and subprocess.run(["which", "fusermount3"], capture_output=True).returncode != 0:
        return "not root and no fusermount3"
    return ""


def _unmount(mountpoint: Path) -> None:
    """Detach the mount (also a dead one, whose process was killed)."""
    subprocess.run(["umount", "-l", str(mountpoint)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)


@dataclass
class LazyMount:
    """A ``LazyFS`` process over ``below`` at ``mountpoint``; ``cut()`` is a power cut."""

    below: Path
    mountpoint: Path
    process: asyncio.subprocess.Process | None = None

    async def start(self, timeout: float = 20.0) -> None:
        await asyncio.to_thread(_unmount, self.mountpoint)
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "tests.chaos.lazyfs", str(self.below), str(self.mountpoint),
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            cwd=Path(__file__).resolve().parents[2])
        assert self.process.stdout is not None and self.process.stderr is not None
        try:
            line = await asyncio.wait_for(self.process.stdout.readline(), timeout)
        except asyncio.TimeoutError:
            line = b""
        if line.decode().strip() != MOUNTED:
            self.process.kill()
            err = await self.process.stderr.read()
            raise RuntimeError(f"lazyfs at {self.mountpoint} did not mount: {err.decode(errors='replace')[-500:]}")

    async def cut(self) -> None:
        """The power cut: the process and every page it held are gone; the dead mount detached."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
            await self.process.wait()
        self.process = None
        await asyncio.to_thread(_unmount, self.mountpoint)


if __name__ == "__main__":
    sys.exit(main())
