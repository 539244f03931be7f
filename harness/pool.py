"""Per-instance work spread over N workers, each with a sandbox slot of its own."""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def per_instance(items: Iterable[T], work: Callable[[T, int], R], workers: int) -> Iterator[R]:
    """Run ``work(item, slot)`` for every item, at most *workers* at a time; yield results as they finish.

    Threads suffice: the work happens in sandboxed JVMs. Each running item holds
    one slot (0..workers-1), so no two sandboxes share a uid or scratch folder.
    """
    slots: queue.Queue[int] = queue.Queue()
    for slot in range(max(1, workers)):
        slots.put(slot)

    def with_slot(item: T) -> R:
        slot = slots.get()
        try:
            return work(item, slot)
        finally:
            slots.put(slot)

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
