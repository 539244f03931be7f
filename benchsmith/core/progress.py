"""Progress bars and logging, set up by the CLI only (importing benchsmith configures nothing)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

from tqdm import tqdm

T = TypeVar("T")


def progress(items: Iterable[T], description: str, total: int | None = None, unit: str = "bug") -> Iterator[T]:
    return iter(tqdm(items, desc=description, total=total, unit=unit, file=sys.stderr, mininterval=1.0, leave=True))


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if not verbose:  # the HTTP clients under openai log every request at INFO; the backends count them instead
        for noisy in ("httpx", "httpx2", "httpcore"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
