"""What an agent may see of a verdict: the failing tests' names and failure reports, and the compiler's errors.

Never the ground truth: a line of the feedback that appears in the ground truth and not in the candidate's own code
is withheld. Never a test's source: pytest's failure reports quote the lines of the tests they pass through (indented
under each ``file:line: in function`` line); those quotes are dropped and the locations and the ``E`` lines (the
exception and its message) kept. JUnit's reports are exceptions and stack frames, which quote no source. Never a
log's path on the server. Each part is cut to a bound, so a candidate that floods its output floods no client.
"""

from __future__ import annotations

from benchsmith.core.schema import Result

REASON_CHARS = 4000
MESSAGE_CHARS = 1500
MESSAGES = 20
WITHHELD = "[withheld: it quotes the reference solution]"
QUOTED_CHARS = 12  # a line this long or longer is withheld when the ground truth holds it and the candidate does not


def feedback_of(result: Result, messages: dict[str, str], code: str, truth: str) -> str:
    parts = [f"status: {result.status}"]
    if result.status in ("plausible", "wrong"):
        parts.append(f"tests: {result.tests_passed} passed, {result.tests_failed} failed")
    if result.reason:
        parts.append(_cut(result.reason, REASON_CHARS))
    for name in result.failing_tests[:MESSAGES]:
        report = messages.get(name, "")
        report = _unquoted(report)
        parts.append(f"FAILED {name}" + (f"\n{_cut(report, MESSAGE_CHARS)}" if report else ""))
    if len(result.failing_tests) > MESSAGES:
        parts.append(f"... and {len(result.failing_tests) - MESSAGES} more failing tests")
    return _withhold("\n".join(parts), code, truth)


def _unquoted(report: str) -> str:
    """*report* without the source lines pytest quotes (indented lines, and the carets under them)."""
    kept = [line for line in report.splitlines() if not line.startswith((" ", "\t")) or not line.strip()]
    return "\n".join(line for line in kept if line.strip())


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit // 2] + "\n[...]\n" + text[-limit // 2 :]


def _withhold(text: str, code: str, truth: str) -> str:
    if not truth:
        return text
    kept = []
    for line in text.splitlines():
        quoted = line.strip()
        if len(quoted) >= QUOTED_CHARS and quoted in truth and quoted not in code:
            kept.append(WITHHELD)
        else:
            kept.append(line)
    return "\n".join(kept)
