"""What a candidate's processes write, read and kept within fixed bounds, whatever they write.

A candidate controls every byte its process prints: 250 MB on stdout, a line
with no end, a log through a descriptor the test runner saved. The harness
never holds more than a fixed amount of it in memory, and keeps a fixed amount
of it on disk:

* :class:`BoundedLog` takes a process's output as it comes (through a pipe
  the harness drains) and keeps its first ``HEAD_BYTES`` and its last bytes,
  at most ``LOG_BYTES`` in all, with one line saying how much was left out
  between them. Its memory is the tail it holds.
* A run's logs share a ledger (:func:`open_ledger`, a file in the run's log
  folder): once they hold ``RUN_LOG_BYTES``, each further log keeps only its
  head and its last ``FLOOR_BYTES``.
* :func:`read_tail` reads the end of a log that a process wrote directly
  (a JVM's stderr), never the whole file.
"""

from __future__ import annotations

import fcntl
import os
from collections import deque
from pathlib import Path

HEAD_BYTES = 64 << 10  # pytest's header, a JVM's first complaint
LOG_BYTES = 1 << 20  # one candidate's log, head and tail
RUN_LOG_BYTES = 1 << 30  # every log of one run (evaluate's log folder)
FLOOR_BYTES = 16 << 10  # the tail a log keeps once its run's budget is spent
TAIL_BYTES = 1 << 20  # what the harness reads of a log it did not write itself
LEDGER = ".benchsmith-log-bytes"  # in a run's log folder: the bytes its logs hold


def read_tail(path: Path, limit: int = TAIL_BYTES) -> str:
    """The last *limit* bytes of *path* as text ("" when it cannot be read)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            size = handle.tell()
            handle.seek(max(0, size - limit))
            return handle.read(limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


def open_ledger(folder: Path) -> Path:
    """Make *folder* the root of a run's logs: every log written under it counts against ``RUN_LOG_BYTES``."""
    folder.mkdir(parents=True, exist_ok=True)
    ledger = folder / LEDGER
    if not ledger.exists():
        ledger.write_text("0\n")
    return ledger


def _ledger_of(log_path: Path) -> Path:
    """The ledger of the run *log_path* belongs to: the nearest one above it, else one in its own folder."""
    for folder in list(log_path.parents)[:3]:
        if (folder / LEDGER).is_file():
            return folder / LEDGER
    return open_ledger(log_path.parent)


def _charge(ledger: Path, wanted: int) -> int:
    """Take up to *wanted* bytes from the run's budget (at least ``FLOOR_BYTES``); how many were granted."""
    with open(ledger, "r+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # the workers of one run share it
        text = handle.read().strip()
        spent = int(text) if text.isdigit() else 0
        granted = max(min(wanted, RUN_LOG_BYTES - spent), min(wanted, FLOOR_BYTES))
        handle.seek(0)
        handle.truncate()
        handle.write(f"{spent + granted}\n")
    return granted


class BoundedLog:
    """A log file fed with a process's output: its head as it comes, its tail at :meth:`close`."""

    def __init__(self, path: Path, limit: int = LOG_BYTES, head: int = HEAD_BYTES):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.limit = limit
        self.head_left = min(head, limit)
        self.tail_limit = limit - self.head_left
        self.tail: deque[bytes] = deque()
        self.tail_size = 0
        self.cut = 0  # bytes dropped between the head and the tail
        self.total = 0
        self.handle = open(path, "ab")
        self.start = self.handle.tell()

    def write(self, data: bytes) -> None:
        self.total += len(data)
        if self.head_left:
            taken = data[: self.head_left]
            self.handle.write(taken)
            self.head_left -= len(taken)
            data = data[len(taken) :]
        if not data:
            return
        self.tail.append(data)
        self.tail_size += len(data)
        while self.tail_size > self.tail_limit:  # drop whole chunks, then the front of one
            excess = self.tail_size - self.tail_limit
            first = self.tail[0]
            if len(first) <= excess:
                self.tail.popleft()
                self.tail_size -= len(first)
                self.cut += len(first)
            else:
                self.tail[0] = first[excess:]
                self.tail_size -= excess
                self.cut += excess

    def close(self) -> None:
        """Write the tail the run's budget allows, and say what was left out."""
        if self.handle.closed:
            return
        try:
            written = self.handle.tell() - self.start
            granted = _charge(_ledger_of(self.path), written + self.tail_size)
            keep = max(0, min(self.tail_size, granted - written))
            tail = b"".join(self.tail)
            self.cut += len(tail) - keep
            if self.cut:
                self.handle.write(
                    f"\n[benchsmith: {self.cut} of {self.total} bytes of output left out here]\n".encode()
                )
            self.handle.write(tail[len(tail) - keep :])
        finally:
            self.tail.clear()
            self.handle.close()
