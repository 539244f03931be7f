"""Defects4J bug → NL2Fix instance: the single-method filter and method extraction.

A bug is single-method (the strict rule) when all lines its patch changes,
ignoring blank lines, comment-only lines and import statements, fall inside one
method or constructor of a named type that exists in both versions (same type
path, name and parameter types). Code inside anonymous classes and lambdas
belongs to the enclosing method. The lenient rule (builders/selection.py) also
keeps a fix that changes fields or helper methods besides that one method; each
bug's outcome carries both verdicts, so a cached analysis serves either rule.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from benchsmith.builders.selection import LENIENT, SELECTIONS, lenient_decision
from benchsmith.core.errors import BenchsmithError, PatchError
from benchsmith.core.schema import NL2FixInstance, instance_id
from benchsmith.sources.defects4j import Bug, Defects4JRoot
from benchsmith.sources.history import SourceProvider
from benchsmith.sources.java.comments import strip_comments
from benchsmith.sources.java.source import JavaFile, MethodUnit, analyse_java
from benchsmith.sources.patches import FilePatch, parse_patch, rediff, states_lines_of

# Rejection reasons: a fixed vocabulary so the dataset card can count them.
MULTI_FILE = "multi-file"
MULTI_METHOD = "multi-method"
OUTSIDE_METHOD = "outside any method"
METHOD_ADDED_OR_REMOVED = "method added or removed"
NO_CODE_CHANGE = "no code change"
PARSE_FAILURE = "parse failure"
MISSING_PATCH = "missing patch file"
BAD_PATCH = "patch does not apply"
SOURCE_MISSING = "source unavailable"


@dataclass(frozen=True)
class SingleMethodDecision:
    """Whether a bug's fix is single-method, and where: ``reason`` is one of the rejection reasons above."""

    accepted: bool
    reason: str = ""
    detail: str = ""
    file_path: str = ""
    identity: tuple = ()
    hunks: int = 0
    changes: tuple = ()  # the code changes of the one file, as code_changes gives them (set when there is one file)


@dataclass(frozen=True)
class Change:
    file_path: str
    side: str  # "fixed" or "buggy"
    line: int
    unit: MethodUnit | None


def code_changes(
    patches: list[FilePatch], fixed: dict[str, JavaFile], buggy: dict[str, JavaFile]
) -> list[tuple[int, Change]]:
    """Every changed code line as (hunk ordinal, Change); blank, comment-only and import lines are left out."""
    changes = []
    ordinal = 0
    for patch in patches:
        for hunk in patch.hunks:
            ordinal += 1
            for side, lines, files in (("fixed", hunk.fixed_lines, fixed), ("buggy", hunk.buggy_lines, buggy)):
                java = files.get(patch.path)
                for line in lines:
                    if java is None:
                        if patch.path.endswith(".java"):
                            continue  # the file itself is absent on this side; counted by its other side
                        changes.append((ordinal, Change(patch.path, side, line, None)))
                    elif line in java.code_lines and line not in java.import_lines:
                        changes.append((ordinal, Change(patch.path, side, line, java.unit_at(line))))
    return changes


def is_single_method_fix(
    patches: list[FilePatch], fixed: dict[str, JavaFile], buggy: dict[str, JavaFile]
) -> SingleMethodDecision:
    """Decide whether a patch changes exactly one method that exists in both versions."""
    changes = code_changes(patches, fixed, buggy)
    if not changes:
        return SingleMethodDecision(False, NO_CODE_CHANGE, "only blank, comment or import lines change")
    files = sorted({c.file_path for _, c in changes})
    if len(files) > 1:
        return SingleMethodDecision(False, MULTI_FILE, f"code changes in {len(files)} files: {', '.join(files)}")
    path = files[0]
    rejected = functools.partial(SingleMethodDecision, False, file_path=path, changes=tuple(changes))
    if path not in fixed or path not in buggy:
        side = "fixed" if path not in fixed else "buggy"
        return rejected(METHOD_ADDED_OR_REMOVED, f"{path} does not exist in the {side} version")
    outside = [c for _, c in changes if c.unit is None]
    if outside:
        where = ", ".join(f"{c.side} line {c.line}" for c in outside[:5])
        return rejected(OUTSIDE_METHOD, f"{path}: {len(outside)} changed line(s) outside any method ({where})")
    identities = {c.unit.identity: c.unit for _, c in changes}
    fixed_ids = {u.identity for u in fixed[path].units}
    buggy_ids = {u.identity for u in buggy[path].units}
    one_sided = [unit for ident, unit in identities.items() if ident not in fixed_ids or ident not in buggy_ids]
    if one_sided:
        names = ", ".join(
            f"{u.signature} ({'only fixed' if u.identity in fixed_ids else 'only buggy'})" for u in one_sided
        )
        return rejected(METHOD_ADDED_OR_REMOVED, f"{path}: {names}")
    if len(identities) > 1:
        names = ", ".join(sorted(u.signature for u in identities.values()))
        return rejected(MULTI_METHOD, f"{path}: {len(identities)} methods change: {names}")
    (identity,) = identities
    hunks = len({ordinal for ordinal, _ in changes})
    return SingleMethodDecision(
        True, file_path=path, identity=identity, hunks=hunks, detail=identities[identity].signature
    )


@dataclass(frozen=True)
class BugOutcome:
    """What became of one bug under the lenient rule, and the strict rule's verdict where it differs.

    ``instance``/``reason``/``detail``: the lenient verdict (an instance, or why not).
    ``strict_reason``/``strict_detail``: why the strict rule rejects the bug ("" when it accepts it, or when it
    rejects it for the same reason). :meth:`under` gives the verdict of either rule.
    """

    project: str
    bug_id: int
    instance: NL2FixInstance | None = None
    reason: str = ""
    detail: str = ""
    strict_reason: str = ""
    strict_detail: str = ""

    def under(self, selection: str) -> BugOutcome:
        """This outcome as *selection* ("strict" or "lenient") decides it."""
        if selection not in SELECTIONS:
            raise BenchsmithError(f"selection {selection!r} is not one of {', '.join(SELECTIONS)}")
        if selection == LENIENT or not self.strict_reason:
            return self
        return dataclasses.replace(self, instance=None, reason=self.strict_reason, detail=self.strict_detail)

    @property
    def near_miss(self) -> bool:
        """Kept by the lenient rule only: the fix also changes fields or helper methods."""
        return self.instance is not None and bool(self.strict_reason)


def analyse_bug(d4j: Defects4JRoot, bug: Bug, provider: SourceProvider) -> BugOutcome:
    """Run the filter and, for a single-method fix, extract the instance (issue text left empty)."""

    def rejected(reason: str, detail: str) -> BugOutcome:
        return BugOutcome(bug.project, bug.bug_id, reason=reason, detail=detail)

    patch_path = d4j.patch_path(bug)
    if not patch_path.is_file():
        return rejected(MISSING_PATCH, f"{patch_path} does not exist")
    patch_text = patch_path.read_bytes().decode("utf-8", errors="surrogateescape")
    try:
        patches = parse_patch(patch_text, str(patch_path))
    except BenchsmithError as exc:
        return rejected(BAD_PATCH, str(exc))
    paths = [p.path for p in patches]
    try:
        fixed_text, buggy_text = provider.files(bug, paths, patch_text, str(patch_path))
    except BenchsmithError as exc:
        reason = BAD_PATCH if isinstance(exc, PatchError) else SOURCE_MISSING
        return rejected(reason, str(exc))
    for patch in patches:
        if patch.in_fixed and fixed_text.get(patch.path) is None:
            return rejected(SOURCE_MISSING, f"{patch.path} is not in revision {bug.revision_fixed}")
    if not states_lines_of(patch_text, fixed_text, str(patch_path)):
        # The patch applied at an offset (a twin of Defects4J's file, benchsmith/sources/svn_history.py): number the
        # changes as they stand in the files in hand.
        patches = parse_patch(rediff(fixed_text, buggy_text), str(patch_path))
    try:
        fixed = {
            p: analyse_java(t, f"{p}@fixed") for p, t in fixed_text.items() if t is not None and p.endswith(".java")
        }
        buggy = {
            p: analyse_java(t, f"{p}@buggy") for p, t in buggy_text.items() if t is not None and p.endswith(".java")
        }
    except BenchsmithError as exc:
        return rejected(PARSE_FAILURE, str(exc))
    decision = is_single_method_fix(patches, fixed, buggy)
    extra_changes: tuple = ()
    if not decision.accepted:
        if (
            decision.reason not in (OUTSIDE_METHOD, METHOD_ADDED_OR_REMOVED, MULTI_METHOD)
            or decision.file_path not in fixed
            or decision.file_path not in buggy
        ):
            return rejected(decision.reason, decision.detail)
        lenient = lenient_decision(list(decision.changes), decision.file_path, fixed, buggy, MULTI_METHOD)
        if not lenient.identity:
            if lenient.reason and lenient.reason != decision.reason:
                return BugOutcome(
                    bug.project,
                    bug.bug_id,
                    reason=lenient.reason,
                    detail=lenient.detail,
                    strict_reason=decision.reason,
                    strict_detail=decision.detail,
                )
            return rejected(decision.reason, decision.detail)
        extra_changes = lenient.extra_changes
        decision = dataclasses.replace(
            decision, identity=lenient.identity, hunks=len({ordinal for ordinal, _ in decision.changes})
        )
        strict = (decision.reason, decision.detail)
    else:
        strict = ("", "")
    path = decision.file_path
    buggy_unit = _unit_with(buggy[path], decision.identity)
    fixed_unit = _unit_with(fixed[path], decision.identity)
    buggy_method = buggy_unit.text(buggy_text[path])
    instance = NL2FixInstance(
        instance_id=instance_id(bug.project, bug.bug_id),
        project=bug.project,
        bug_id=bug.bug_id,
        report_id=bug.report_id,
        report_url=bug.report_url,
        issue_title="",
        issue_description="",
        issue_comments=[],
        file_path=path,
        method_name=buggy_unit.name,
        method_signature=buggy_unit.signature,
        method_start_line=buggy_unit.start_line,
        method_end_line=buggy_unit.end_line,
        fixed_method_start_line=fixed_unit.start_line,
        fixed_method_end_line=fixed_unit.end_line,
        buggy_method=buggy_method,
        buggy_method_no_comments=strip_comments(buggy_method),
        fixed_method=fixed_unit.text(fixed_text[path]),
        hunks=decision.hunks,
        trigger_tests=d4j.trigger_tests(bug),
        relevant_tests=d4j.relevant_tests(bug),
        revision_buggy=bug.revision_buggy,
        revision_fixed=bug.revision_fixed,
        extra_changes=list(extra_changes),
    )
    return BugOutcome(bug.project, bug.bug_id, instance=instance, strict_reason=strict[0], strict_detail=strict[1])


def _unit_with(java: JavaFile, identity: tuple) -> MethodUnit:
    return next(u for u in java.units if u.identity == identity)
