"""Case flipping (RepoClassBench paper, E.1.3: ``encode`` -> ``eNcoDe``).

A name's variants are drawn deterministically from (seed, name): each ASCII
letter flips when its bit of a SHA-256 digest is set, at least one always
does. A variant is valid when it is not a keyword, builtin or dunder name and
keeps test discovery as it was (``test_x`` keeps its ``test`` prefix; no other
name gains one). :func:`build_mapping` gives every name its first variant
that is not already an identifier of the repository nor another name's.
"""

from __future__ import annotations

import builtins
import hashlib
import itertools
import keyword
from collections.abc import Callable, Iterable, Iterator

# Python's own names, which a flip must not produce (the default rule; benchsmith.paraphrase.java has Java's).
BUILTIN_NAMES: frozenset[str] = frozenset(dir(builtins))
KEYWORDS: frozenset[str] = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist)


def is_dunder(name: str) -> bool:
    return len(name) > 4 and name.startswith("__") and name.endswith("__")


_TEST_PREFIXES = ("test", "Test")
_RANDOM_ATTEMPTS = 64
_EXHAUSTIVE_LETTERS = 10  # names with at most this many letters also try every subset


def flippable_positions(name: str) -> list[int]:
    """Indexes of the ASCII letters that may change case (a ``test``/``Test`` prefix stays)."""
    start = 4 if name.startswith(_TEST_PREFIXES) else 0
    return [i for i, c in enumerate(name) if i >= start and c.isascii() and c.isalpha()]


def is_valid_flip(original: str, flipped: str) -> bool:
    if flipped == original or not flipped.isidentifier() or flipped in KEYWORDS or flipped in BUILTIN_NAMES:
        return False
    if is_dunder(flipped):
        return False
    return flipped.startswith(_TEST_PREFIXES) == original.startswith(_TEST_PREFIXES)


def _apply(name: str, positions: Iterable[int]) -> str:
    chars = list(name)
    for i in positions:
        chars[i] = chars[i].swapcase()
    return "".join(chars)


Validity = Callable[[str, str], bool]  # (original, flipped) -> may the flip be used


def variants(name: str, seed: int, valid: Validity = is_valid_flip) -> Iterator[str]:
    """The valid case variants of *name*, in the deterministic order the seed gives.

    *valid* is the language's rule (Python's by default; benchsmith.paraphrase.java has Java's).
    """
    positions = flippable_positions(name)
    if not positions:
        return
    seen: set[str] = set()
    for attempt in range(_RANDOM_ATTEMPTS):
        digest = hashlib.sha256(f"{seed}\x00{attempt}\x00{name}".encode()).digest()
        bits = int.from_bytes(digest, "big")
        chosen = [p for k, p in enumerate(positions) if bits >> (k % 240) & 1]
        if not chosen:
            chosen = [positions[(bits >> 240) % len(positions)]]
        candidate = _apply(name, chosen)
        if candidate not in seen and valid(name, candidate):
            seen.add(candidate)
            yield candidate
    if len(positions) <= _EXHAUSTIVE_LETTERS:
        for size in range(1, len(positions) + 1):
            for chosen in itertools.combinations(positions, size):
                candidate = _apply(name, chosen)
                if candidate not in seen and valid(name, candidate):
                    seen.add(candidate)
                    yield candidate


def flip_case(name: str, seed: int) -> str:
    """The first case variant of *name* for *seed*; ValueError when it has none."""
    for candidate in variants(name, seed):
        return candidate
    raise ValueError(f"{name!r} has no valid case variant")


def build_mapping(
    names: Iterable[str], seed: int, taken: Iterable[str], valid: Validity = is_valid_flip
) -> tuple[dict[str, str], list[str]]:
    """An injective name -> variant mapping avoiding *taken*; also the names left without one."""
    ordered = sorted(set(names))
    used = set(taken) | set(ordered)
    mapping: dict[str, str] = {}
    failed: list[str] = []
    for name in ordered:
        choice = next((v for v in variants(name, seed, valid) if v not in used), None)
        if choice is None:
            failed.append(name)
            continue
        mapping[name] = choice
        used.add(choice)
    return mapping, failed
