"""The two selection rules of the NL2Fix builder, and the near misses between them.

``strict``: every changed code line falls inside one method that exists in
both versions (builders/single_method.py). ``lenient``: exactly one method that
exists in both versions changes, and besides it only declarations outside
methods (fields, a type's header, initializers, enum constants) and methods
that only one version has (a helper the fix adds or removes), all in the same
file. A lenient instance records those other changes (:class:`ExtraChange`), so
users and the harness know a single-method candidate cannot replay them.

The Defects4J-NL2Fix paper kept such near misses (its Table 1 counts them); see docs/nl2fix.md,
"Selection rules", for the comparison behind the default.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from benchsmith.core.schema import ExtraChange
from benchsmith.sources.java.source import JavaFile

STRICT = "strict"
LENIENT = "lenient"
SELECTIONS = (STRICT, LENIENT)
# The Defects4J-NL2Fix paper's Table 1 is reproduced more closely by lenient than by strict (docs/nl2fix.md, "Selection
# rules").
DEFAULT_SELECTION = LENIENT


@dataclass(frozen=True)
class LenientDecision:
    """Where the one changed existing method is, and what else the fix changes; ``identity`` is () when rejected."""

    identity: tuple = ()
    extra_changes: tuple[ExtraChange, ...] = ()
    reason: str = ""  # why lenient rejects too, when it does ("" when accepted)
    detail: str = ""


def lenient_decision(
    changes: list, path: str, fixed: dict[str, JavaFile], buggy: dict[str, JavaFile], multi_method: str
) -> LenientDecision:
    """Apply the lenient rule to the code changes of one file (``single_method.code_changes``) that strict rejected.

    *multi_method* is the rejection reason to give when more than one existing method changes.
    """
    fixed_java, buggy_java = fixed[path], buggy[path]
    fixed_ids = {u.identity for u in fixed_java.units}
    buggy_ids = {u.identity for u in buggy_java.units}
    core = {
        c.unit.identity: c.unit for _, c in changes if c.unit is not None and c.unit.identity in fixed_ids & buggy_ids
    }
    if len(core) != 1:
        if len(core) > 1:
            names = ", ".join(sorted(u.signature for u in core.values()))
            return LenientDecision(reason=multi_method, detail=f"{path}: {len(core)} existing methods change: {names}")
        return LenientDecision(reason="", detail=f"{path}: no method that exists in both versions changes")
    (identity,) = core
    lines: dict[tuple[str, str], dict[str, set[int]]] = defaultdict(lambda: {"fixed": set(), "buggy": set()})
    for _, change in changes:
        if change.unit is not None and change.unit.identity == identity:
            continue
        java = fixed_java if change.side == "fixed" else buggy_java
        if change.unit is not None:
            kind = "method added" if change.unit.identity in fixed_ids else "method removed"
            name = change.unit.signature
        else:
            span = java.declaration_at(change.line)
            kind, name = (span.kind, span.name) if span is not None else ("type", path)
        lines[(kind, name)][change.side].add(change.line)
    extras = tuple(
        ExtraChange(kind, name, sorted(sides["fixed"]), sorted(sides["buggy"]))
        for (kind, name), sides in sorted(
            lines.items(), key=lambda item: (min(item[1]["fixed"] | item[1]["buggy"]), item[0])
        )
    )
    return LenientDecision(identity=identity, extra_changes=extras)
