"""The verdict on one candidate, as every runner returns it and ``eval`` records it."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Status(StrEnum):
    """A candidate's verdict. The values are the strings results.parquet's ``status`` column holds (a StrEnum is a
    str: it compares, formats and is written as its value)."""

    PLAUSIBLE = "plausible"  # every test asked passed
    WRONG = "wrong"  # it compiled and a test failed
    UNCOMPILABLE = "uncompilable"
    TIMEOUT = "timeout"
    ERROR = "error"  # the harness could not judge it


@dataclass
class Verdict:
    status: Status  # given as a Status or its value
    compiled: bool = False
    tests_passed: int = 0
    tests_failed: int = 0
    failing_tests: list[str] = field(default_factory=list)
    reason: str = ""
    path: str = ""  # "fast" or "plain"
    seconds: float = 0.0
    regression_passed: bool | None = None  # the relevant tests other than the trigger tests; None: not run
    # failing test -> the end of its failure report (classbench, for agents' feedback). From the process under test:
    # shown to models, never used to decide the status.
    messages: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.status = Status(self.status)  # a status outside the five is a harness bug: it fails here, not in a report
