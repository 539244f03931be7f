"""Journals: what a long stage has finished, appended line by line, so an interrupted run resumes.

A journal is JSON Lines beside the stage's output (``<out>.journal.jsonl``)
and is removed once the output is written. A kill can cut its last line
short; reading drops that line from the file too, so the resumed run's
appends start on a line of their own.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from benchsmith.core.errors import BenchsmithError

log = logging.getLogger(__name__)
T = TypeVar("T")


def journal_path(out: Path) -> Path:
    return Path(out).with_name(Path(out).name + ".journal.jsonl")


class Journal:
    def __init__(self, out: Path) -> None:
        self.path = journal_path(out)

    def read(self, parse: Callable[[Any], T]) -> list[T]:
        """Every entry through *parse*, which raises ValueError, KeyError or TypeError on a malformed one.

        A malformed last line is a write cut short and is dropped; any other is
        an error naming the line.
        """
        if not self.path.exists():
            return []
        lines = self.path.read_bytes().splitlines(keepends=True)
        entries: list[T] = []
        kept = 0  # bytes of the lines read well
        for number, line in enumerate(lines, start=1):
            try:
                entries.append(parse(json.loads(line)))
            except (ValueError, KeyError, TypeError) as exc:
                if number < len(lines):
                    raise BenchsmithError(
                        f"{self.path}:{number}: corrupt journal line ({exc}); delete the journal to start over"
                    ) from None
                log.warning("%s: dropping an incomplete last line", self.path)
                with self.path.open("r+b") as handle:
                    handle.truncate(kept)
                return entries
            kept += len(line)
        if lines and not lines[-1].endswith(b"\n"):  # whole, but cut before its newline
            with self.path.open("ab") as handle:
                handle.write(b"\n")
        return entries

    def append(self, *entries: Any) -> None:
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(entry) + "\n" for entry in entries))

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
