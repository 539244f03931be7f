"""How much of a candidate's text the harness's own parsers read, checked by a linear scan before any of them runs.

A candidate is untrusted text, and the harness parses it in its own process: for the dedup key, the one-method rule,
the screen, the extraction from an answer. Those parsers recurse (javalang's Java parser, CPython's own ``ast``), and
a few hundred bytes of nesting (300 nested parentheses in a Java method) or a few KB of chained operators (3,000
``+1`` terms in a Python attribute) raise RecursionError or MemoryError inside them; a native parser (libcst) can
overflow the C stack and kill the process outright. So every parser that reads a candidate asks :func:`unreadable`
first, which scans the text once, without recursion, and refuses what is larger than :data:`MAX_CHARS` or nested
deeper than :data:`MAX_NESTING`; and still catches :data:`PARSER_LIMITS`, which a shape the scan does not measure
(a chain of unary operators, of lambdas) can reach. Either way the candidate gets a verdict of its own with the
reason, and no other candidate, and not the run, is touched.
"""

from __future__ import annotations

import re

MAX_CHARS = 1_000_000  # characters; a whole class a model writes is tens of KB
MAX_NESTING = 100  # brackets; javalang's parser recurses out of Python's stack at about 160 nested parentheses
PARSER_LIMITS = (RecursionError, MemoryError)  # what a recursive parser raises on a degenerate input
_OPENING, _CLOSING = "([{", ")]}"
_SURROGATE = re.compile("[\ud800-\udfff]")


def unreadable(code: str) -> str:
    """Why the harness's parsers will not read *code*, or "" when they will: one linear scan of its characters."""
    if len(code) > MAX_CHARS:
        return f"{len(code):,} characters, more than the harness reads ({MAX_CHARS:,})"
    depth = deepest = 0
    for char in code:
        if char in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
        elif char in _CLOSING:
            depth -= 1
    if deepest > MAX_NESTING:
        return f"brackets nested {deepest} deep, deeper than the harness's parsers read ({MAX_NESTING})"
    return ""


def encodable(value):
    """*value* (a string, or lists and dicts of them, as a JSON report decodes) with every lone UTF-16 surrogate made
    U+FFFD, so it can be written as UTF-8 anywhere: a log, Parquet, an HTTP answer. A JSON report from a candidate's
    process may spell ``"\\ud800"``, which decodes to a string nothing can encode (red team round 5: the Java verdict
    became the harness's error; the server's answer a permanent 500)."""
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [encodable(item) for item in value]
    if isinstance(value, dict):
        return {encodable(key): encodable(item) for key, item in value.items()}
    return value
