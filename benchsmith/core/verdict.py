"""The verdict on one candidate, as every runner returns it and ``eval`` records it."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Verdict:
    status: str  # plausible | wrong | uncompilable | timeout | error
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
