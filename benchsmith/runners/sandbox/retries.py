"""Steps of the harness's own that the machine's load can make late, tried again before anything is concluded.

A verdict is about the candidate, never about the machine's load. javac, a warm compiler's start or a JVM's, a jail's
set-up, Ray's node: when one of these is ended by the wall clock, that says how busy the machine is, not what the
candidate's code is. Every such step goes through :func:`retried`: it is tried again with twice the time (and, for a
start, after a pause), and when every attempt was killed it fails with :class:`OutOfTime`, which names the step and
each time it had, for the runner to turn into the candidate's ``timeout`` (:func:`timeout_verdict`) — never into
``uncompilable``, a statement about the candidate's code.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from benchsmith.core.verdict import Verdict

log = logging.getLogger(__name__)

T = TypeVar("T")
ATTEMPTS = 3  # a step killed by the wall clock is tried twice more...
GROWTH = 2.0  # ...each time with twice the time of the one before
START_PAUSE = 5.0  # a start that failed waits 5 s, then 10 s: on a machine loaded to several times its cores, a
# process boots late, and starting it again at once only adds to the load


def seconds_text(seconds: float) -> str:
    """*seconds* as a log line gives them: ``8 s``, ``0.05 s``."""
    return f"{seconds:.0f} s" if seconds >= 10 else f"{seconds:.2g} s"


class Killed(OSError):
    """A step of the harness's own that the wall clock ended after *seconds*."""

    def __init__(self, what: str, seconds: float):
        super().__init__(f"{what} was killed after {seconds_text(seconds)}")
        self.what, self.seconds = what, seconds


class Died(OSError):
    """A step of the harness's own that ended without a word about its input: a signal (the kernel's out-of-memory
    killer, a bound of the run) or an exit with no message. That is the machine's state, not the candidate's code, so
    it is tried again like a step the wall clock ended; *how* says how it ended."""

    def __init__(self, what: str, how: str):
        super().__init__(f"{what} {how}")
        self.what, self.how = what, how


class OutOfTime(OSError):
    """A step of the harness's own that the wall clock ended at every attempt; *seconds*: the time each had."""

    def __init__(self, what: str, seconds: list[float]):
        given = ", ".join(map(seconds_text, seconds))
        super().__init__(f"{what} was killed by the wall clock at each of {len(seconds)} tries (after {given})")
        self.what, self.seconds = what, list(seconds)


def retried(
    step: Callable[[float], T],
    what: str,
    seconds: float,
    attempts: int = ATTEMPTS,
    growth: float = GROWTH,
    pause: float = 0.0,
    retry_on: tuple[type[BaseException], ...] = (Killed,),
) -> T:
    """``step(s)``'s result, *s* being *seconds*, then *growth* times as much at each new attempt, for as long as it
    raises one of *retry_on* (and waiting *pause*, then twice that, between attempts). When the last attempt was
    :class:`Killed`, :class:`OutOfTime` naming *what*; any other exception of the last attempt, as it is."""
    given: list[float] = []
    for attempt in range(1, attempts + 1):
        allowed = seconds * growth ** (attempt - 1)
        try:
            return step(allowed)
        except retry_on as exc:
            given.append(allowed)
            if attempt == attempts:
                if isinstance(exc, Killed):
                    raise OutOfTime(what, given) from exc
                raise
            wait = pause * attempt
            log.warning(
                "%s failed (%s); trying again%s%s (%d of %d)",
                what,
                exc,
                f" in {seconds_text(wait)}" if wait else "",
                f" with {seconds_text(seconds * growth**attempt)}" if seconds else "",
                attempt + 1,
                attempts,
            )
            time.sleep(wait)
    raise AssertionError("unreachable: the last attempt returns or raises")


def timeout_verdict(exc: OutOfTime, path: str = "") -> Verdict:
    """The verdict on a candidate whose judging a step of the harness's own could not finish in any time it had:
    ``timeout``, the reason naming the step and its times; nothing about the code is known."""
    return Verdict(
        "timeout",
        reason=f"harness: {exc}: the machine is too busy for the time allowed (--timeout), or the candidate makes "
        "that step so slow",
        path=path,
    )
