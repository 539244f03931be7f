"""Which history steps are NL2Fix candidates: an issue referenced, tests changed, one method fixed.

The single-method decision is the NL2Fix builder's own (:func:`benchsmith.builders.single_method.analyse_bug`), run on
the
patch the export would write, so that ``nl2fix build`` later decides exactly as the miner did.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchsmith.builders.mine.scan import IssueRef, Step, Trackers, issue_reference, main_patch, with_changes
from benchsmith.builders.single_method import BugOutcome, analyse_bug
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.schema import NL2FixInstance
from benchsmith.sources.defects4j import Bug, Defects4JRoot
from benchsmith.sources.history import UpstreamGitSource

# Rejections before the single-method rule, in the order they are checked.
NO_ISSUE = "no issue reference"
NO_MAIN_CHANGE = "no main code change"
NO_TEST_CHANGE = "no test added or changed"
NON_JAVA_MAIN = "non-Java main files change"


@dataclass(frozen=True)
class Candidate:
    """A step that passed the rules: its bug, the instance the NL2Fix builder extracts, and whether the strict rule
    keeps it too."""

    step: Step
    bug: Bug
    instance: NL2FixInstance
    strict: bool


def select(
    d4j: Defects4JRoot, project: str, git_dir: Path, step: Step, bug_id: int, trackers: Trackers, selection: str
) -> tuple[Candidate | None, str, str, str]:
    """``(candidate or None, reason, detail, strict_reason)`` for one step; the patch is left at its Defects4J place
    (the export removes those of steps that are not instances). *bug_id* is the step's :func:`history_numbers`."""
    reference = issue_reference(step.message, trackers)
    if reference is None:
        return None, NO_ISSUE, step.subject[:120], ""
    step = with_changes(git_dir, step)
    if not step.main_files:
        return None, NO_MAIN_CHANGE, f"no .java file under {step.layout[0]}" if step.layout else "", ""
    if not step.test_files:
        return None, NO_TEST_CHANGE, ", ".join(step.main_files[:3]), ""
    if step.other_main:
        return None, NON_JAVA_MAIN, ", ".join(step.other_main[:3]), ""
    bug = bug_of(project, bug_id, step, reference)
    write_text_atomic(d4j.patch_path(bug), main_patch(git_dir, step))
    outcome: BugOutcome = analyse_bug(d4j, bug, UpstreamGitSource(git_dir))
    decided = outcome.under(selection)
    if decided.instance is None:
        return None, decided.reason, decided.detail, outcome.strict_reason
    return Candidate(step, bug, decided.instance, not outcome.strict_reason), "", "", outcome.strict_reason


def bug_of(project: str, bug_id: int, step: Step, reference: IssueRef) -> Bug:
    return Bug(project, bug_id, step.parent, step.sha, reference.report_id, reference.report_url)
