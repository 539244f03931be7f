"""Per-instance work spread over N workers, each with a sandbox slot of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import TypeVar

from harness.sandbox import leased_slot

T = TypeVar("T")
R = TypeVar("R")


def per_instance(items: Iterable[T], work: Callable[[T, int], R], workers: int) -> Iterator[R]:
    """Run ``work(item, slot)`` for every item, at most *workers* at a time; yield results as they finish.

    Threads suffice: the work happens in sandboxed JVMs. Each running item holds
    a sandbox slot leased machine-wide, so no two sandboxes, of this process or
    another, share a uid or a scratch folder.
    """

    def with_slot(item: T) -> R:
        with leased_slot() as slot:
            return work(item, slot)

    pending = list(items)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        futures = {pool.submit(with_slot, item) for item in pending}
        try:
            while futures:
                done, futures = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    yield future.result()
        finally:
            for future in futures:
                future.cancel()
