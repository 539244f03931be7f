"""Deterministic mutants of a Java method: reference candidates that exercise every verdict.

Each mutant changes one token of the method (an operator, a literal, a
boolean) or deletes one statement line, so most still compile and many fail a
test. Used by the speed benchmark and the bundled replay of reference
candidates.
"""

from __future__ import annotations

import random

import javalang

from benchsmith.sources.java.source import lines_with_ends

_SWAPS = {
    "<": "<=",
    "<=": "<",
    ">": ">=",
    ">=": ">",
    "==": "!=",
    "!=": "==",
    "+": "-",
    "-": "+",
    "*": "/",
    "&&": "||",
    "||": "&&",
    "++": "--",
    "--": "++",
    "true": "false",
    "false": "true",
}


def _offsets(code: str) -> list[int]:
    offsets = [0]
    for line in lines_with_ends(code):
        offsets.append(offsets[-1] + len(line))
    return offsets


def mutants(code: str, limit: int, seed: int = 0) -> list[str]:
    """Up to *limit* distinct mutants of *code*, the same ones for the same seed."""
    try:
        tokens = list(javalang.tokenizer.tokenize(code))
    except (javalang.tokenizer.LexerError, TypeError, IndexError):
        return []
    offsets = _offsets(code)
    edits: list[tuple[int, int, str]] = []
    for token in tokens[1:]:  # never the declaration's first token
        start = offsets[token.position.line - 1] + token.position.column - 1
        end = start + len(token.value)
        if token.value in _SWAPS:
            edits.append((start, end, _SWAPS[token.value]))
        elif isinstance(token, javalang.tokenizer.DecimalInteger) and token.value.isdigit():
            edits.append((start, end, str(int(token.value) + 1)))
    lines = lines_with_ends(code)
    for number, line in enumerate(lines[1:-1], start=1):
        if line.strip().endswith(";") and not line.strip().startswith(("return", "throw")):
            start = offsets[number]
            edits.append((start, start + len(line), ""))
    random.Random(seed).shuffle(edits)
    seen = {code}
    result = []
    for start, end, replacement in edits:
        mutant = code[:start] + replacement + code[end:]
        if mutant not in seen:
            seen.add(mutant)
            result.append(mutant)
        if len(result) >= limit:
            break
    return result
