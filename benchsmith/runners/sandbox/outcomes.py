"""Test outcomes a candidate cannot forge: what ran is counted against what was asked, and sentinels planted.

A candidate's code runs in the process that runs its tests, so whatever that
process reports could have been written by the candidate. The report is
believed only as far as it can be checked from outside:

* every test that was asked for reports exactly once; one that does not
  report counts as failed, one that reports twice makes the report forged;
* sentinel tests, which the runner cannot tell from the others, must come out
  as the harness knows they must (one that must pass, one that must fail), so a
  blanket "everything passed" (a patched reporter, an ``atexit`` hook writing
  its own report) is caught and judged ``wrong`` with reason ``forged``;
* twins (Java, ``benchsmith.runners.java.sentinels``): a copy of a requested test that
  passes exactly when its original does, so a copy that fails fails its
  original; its inverted twin, which makes the same calls, must fail;
* with *strict_names* (Java), a reported name nobody asked for is a forgery:
  a report written without knowing the request has to guess.

This is a tripwire, not a proof: a candidate that reads the sentinels' code to
tell them apart could still forge, if it can write a report at all (in Java it
cannot: ``benchsmith/runners/java/Confinement.java``). Isolation (``benchsmith.runners.sandbox.jail``) is
what keeps one candidate's verdict out of another's reach.
"""

from __future__ import annotations

import itertools
import keyword
import random
import re
import secrets
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import KW_ONLY, dataclass, field

PASSED = "passed"


@dataclass(frozen=True)
class Sentinel:
    name: str  # the test's id as the runner reports it
    passes: bool  # what it does when nothing interferes
    _: KW_ONLY  # the two kinds of twin are named, never positional: one placed for the other inverts a verdict
    # An inverted twin: it calls the test named here, exactly as that test runs, and passes if and only if that test
    # does not (``passes`` is then unused). A forger that turns failures into passes for tests calling its code,
    # or for the tests it was asked about, makes the pair agree.
    inverts: str = ""
    # A copy of the real test *twin_of* (same calls, same class context): it passes exactly when that test does, so a
    # copy that does not pass fails its original too; "" for a sentinel whose outcome is fixed.
    twin_of: str = ""


@dataclass(frozen=True)
class Checked:
    outcomes: dict[
        str, str
    ]  # every real test that was due → its outcome (passed, failed, assumption, skipped, missing, ...)
    forged: str = ""  # why the report cannot be believed; "" when it holds up

    @property
    def failing(self) -> list[str]:
        return [name for name, outcome in self.outcomes.items() if outcome != PASSED]


@dataclass
class Expected:
    """The tests of one request in the order asked: phases of groups (one group per spec the runner was given, holding
    the test ids it must report), sentinels among them.

    Unless *run_all*, the runner stops phase 1 after the first group with a test that did not pass, and runs phase 2
    only when all of phase 1 passed (NL2Fix's trigger tests, then the relevant classes).
    """

    phases: list[list[tuple[str, ...]]]
    sentinels: list[Sentinel] = field(default_factory=list)
    run_all: bool = False
    # Every reported name must have been asked for (or be in also_allowed): a report naming tests of its own covers a
    # request it had to guess (Java's runners; pytest's ids are not all known ahead).
    strict_names: bool = False
    # With strict_names, the names allowed besides those asked: the specs (a runner reports a class that cannot start
    # by its spec), and whatever the ground truth's run reported for them (its skips included).
    also_allowed: frozenset[str] = frozenset()


def check_report(reported: Sequence[tuple[str, str]], expected: Expected) -> Checked:
    """Hold a runner's report (``(test id, outcome)`` pairs) against what was asked."""
    counts = Counter(name for name, _ in reported)
    repeated = sorted(name for name, count in counts.items() if count > 1)
    outcome = dict(reported)
    sentinels = {s.name: s for s in expected.sentinels}
    due: list[str] = []
    for number, groups in enumerate(expected.phases, start=1):
        if number > 1 and not expected.run_all and any(outcome.get(name) != PASSED for name in due):
            break
        for group in groups:
            due.extend(group)
            if number == 1 and not expected.run_all and any(outcome.get(name) != PASSED for name in group):
                break
    real = {name: outcome.get(name, "missing") for name in due if name not in sentinels}
    if repeated:
        return Checked(real, f"forged: {len(repeated)} test(s) reported more than once, e.g. {repeated[0]}")
    for name in (n for n in due if n in sentinels and not sentinels[n].twin_of):
        got = outcome.get(name, "missing")
        if sentinels[name].inverts:
            twin = outcome.get(sentinels[name].inverts, "missing")
            if (got == PASSED) == (twin == PASSED):
                return Checked(
                    real, f"forged: a control test that inverts {sentinels[name].inverts} ({twin}) came out {got}"
                )
            continue
        if (got == PASSED) != sentinels[name].passes:
            return Checked(
                real, f"forged: a control test that must {'pass' if sentinels[name].passes else 'fail'} came out {got}"
            )
    asked = {name for groups in expected.phases for group in groups for name in group}
    undue = [name for name in outcome if name in asked and name not in set(due)]
    if undue:
        return Checked(real, f"forged: {undue[0]} reported although it was not due")
    if expected.strict_names:
        unasked = [name for name in outcome if name not in asked and name not in expected.also_allowed]
        if unasked:
            return Checked(real, f"forged: {unasked[0]} reported although it was not asked for")
    for twin in (s for s in expected.sentinels if s.twin_of and s.name in due and s.twin_of in real):
        got = outcome.get(twin.name, "missing")
        if got != PASSED and real[twin.twin_of] == PASSED:  # the copy failed: so does what it copies
            real[twin.twin_of] = got if got != "missing" else "failed"
    return Checked(real)


def shuffled(items: Iterable[str], rng: random.Random) -> list[str]:
    items = list(items)
    rng.shuffle(items)
    return items


def placed_among(items: Sequence[str], extra: str, rng: random.Random) -> list[str]:
    """*items* in their order, with *extra* at a random place among them."""
    at = rng.randint(0, len(items))
    return [*items[:at], extra, *items[at:]]


_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_RESERVED = set(keyword.kwlist) | {
    "abstract",
    "boolean",
    "byte",
    "case",
    "catch",
    "char",
    "const",
    "default",
    "do",
    "double",
    "enum",
    "extends",
    "final",
    "float",
    "goto",
    "implements",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "void",
    "volatile",
    "var",
    "record",
    "yield",
}


_FILLER = ("value", "case", "input", "result", "order", "empty", "state", "range", "limit", "source", "format", "count")


def plausible_names(existing: Iterable[str], count: int, rng: random.Random, style: str) -> list[str]:
    """*count* new names made of the words of *existing* names (so that they read like the project's own),
    none of them in *existing*. *style* is ``camel`` (ParserOptionsTest) or ``snake`` (test_parser_options)."""
    existing = [e for e in existing if e]
    taken = set(existing)
    words = sorted(
        {
            w.lower()
            for name in existing
            for w in _WORD.findall(name)
            if w.lower() not in ("test", "tests") and w.lower() not in _RESERVED
        }
    )
    words = words or list(_FILLER[:6])
    filler = (
        w for w in itertools.chain(_FILLER, (f"{w}{n}" for n in itertools.count(2) for w in _FILLER)) if w not in words
    )
    names: list[str] = []
    misses = 0
    while len(names) < count:
        if misses > 64:  # a project of one or two test classes has few blends: widen its words, or this never ends
            words.append(next(filler))
            misses = 0
        picked = rng.sample(words, k=min(2, len(words)))
        if len(picked) < 2 or rng.random() < 0.3:
            picked.append(secrets.choice(["basic", "again", "edge", "simple", "more", "other"]))
        if style == "camel":
            name = "".join(w.capitalize() for w in picked)
        else:
            name = "_".join(picked)
        if name.isidentifier() and name not in taken and name not in names and name.lower() not in _RESERVED:
            names.append(name)
        else:
            misses += 1
    return names
