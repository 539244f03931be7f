"""Atomic file output: write to a temporary name beside the target, rename when complete."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(target: Path) -> Iterator[Path]:
    """Yield a temporary path; on success it replaces *target*, on failure it is removed."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_text_atomic(target: Path, text: str) -> None:
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")


def build_folder_atomic(target: Path, build: Callable[[Path], None]) -> Path:
    """*target*, built once: *build* fills a folder (not yet made) in a staging folder beside it, which is renamed
    into place when complete. A folder already there, or built meanwhile by another process, is kept as it is, so
    readers never see a half-built one and concurrent builders need no lock."""
    target = Path(target)
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".building-", dir=target.parent))
    try:
        tree = staging / "tree"
        build(tree)
        tree.mkdir(exist_ok=True)
        try:
            tree.rename(target)
        except OSError:  # another process built the same folder meanwhile
            if not target.is_dir():
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target


@contextmanager
def exclusive(target: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<target>.lock`` (made beside *target*): one process or thread builds *target* at a
    time; the others wait, then find it built."""
    lock_path = Path(target).with_name(Path(target).name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with _THREADS_LOCK:
        thread_lock = _THREAD_LOCKS.setdefault(str(lock_path), threading.Lock())
    with thread_lock, open(lock_path, "a") as handle:  # flock is per open file: threads need their own lock too
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


_THREADS_LOCK = threading.Lock()
_THREAD_LOCKS: dict[str, threading.Lock] = {}
