"""``nl2fix mine``: scan, select, reproduce, export; every step journalled so an interrupted scan resumes."""

from __future__ import annotations

import dataclasses
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchsmith import __version__, scrapers
from benchsmith.builders.mine.export import StepOutcome, card, mark_duplicates, render_card, write_project
from benchsmith.builders.mine.reproduce import (
    GOLD_BROKEN,
    NO_VERDICT_MARKS,
    RELEVANT_STAGE_DETAILS,
    RUNS,
    Triggered,
    reproduce,
    stock_libraries,
)
from benchsmith.builders.mine.scan import (
    git,
    history_numbers,
    history_steps,
    open_repository,
    project_name,
    trackers_of,
)
from benchsmith.builders.mine.select import NO_ISSUE, select
from benchsmith.builders.selection import DEFAULT_SELECTION, SELECTIONS
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.journal import Journal
from benchsmith.core.progress import progress
from benchsmith.runners.sandbox.jail import Limits, leased_slot
from benchsmith.sources.defects4j import Defects4JRoot

log = logging.getLogger(__name__)
JOURNAL_FORMAT = 1  # bump when a step's outcome would be decided differently


@dataclass(frozen=True)
class MineOptions:
    repo: str
    out: Path
    since: str | None = None
    until: str | None = None
    name: str | None = None
    selection: str = DEFAULT_SELECTION
    jira: str = ""  # https://.../browse/KEY
    github: str = ""  # owner/name
    rev: str = "HEAD"
    scrape: bool = True
    timeout: float = 120.0
    limit: int | None = None  # at most this many steps (the newest), for a quick look
    runs: int = RUNS  # runs of each version's tests; a test whose outcome changes between them is flaky
    finish: bool = False  # export what an interrupted scan journalled, scanning nothing more (the range ends there)


def mine(options: MineOptions) -> dict:
    """Mine the repository; write the Defects4J project and the card under *options.out*; return the card."""
    if options.runs < RUNS:
        raise BenchsmithError(f"--runs {options.runs}: at least {RUNS}, as Defects4J runs its tests")
    if options.selection not in SELECTIONS:
        raise BenchsmithError(f"--selection {options.selection}: must be one of {', '.join(SELECTIONS)}")
    started = time.monotonic()
    name = options.name or project_name(options.repo)
    out = options.out
    project_dir = out / "framework" / "projects" / name
    (project_dir / "patches").mkdir(parents=True, exist_ok=True)
    git_dir = open_repository(options.repo, out / "repos", name)
    head = git(git_dir, "rev-parse", options.rev).strip()
    trackers = trackers_of(git_dir, head, options.jira, options.github)
    steps = history_steps(git_dir, options.since, options.until, head)
    numbers = history_numbers(git_dir, head)
    if options.limit is not None:
        steps = steps[-options.limit :]
    log.info("%s: %d commits to scan; trackers: %s", name, len(steps), trackers.describe())
    d4j = Defects4JRoot(out)
    journal = Journal(out / "mine")
    journalled = {e.sha: e for e in journal.read(_journalled(options)) if e is not None}
    # reproduced before the relevant tests were found by class loading: their trigger tests stand, found again only
    # their relevant tests
    # (--finish runs nothing: they are exported as journalled, their relevant_by empty)
    relevant_again = {
        sha: e for sha, e in journalled.items() if not e.reason and not e.relevant_by and not options.finish
    }
    done = {sha: e for sha, e in journalled.items() if sha not in relevant_again}
    if done:
        log.info("%s: %d of %d steps done before; resuming", journal.path, len(done), len(steps))
    if relevant_again:
        log.info(
            "%s: %d reproduced steps to have their relevant tests found again, by class loading",
            journal.path,
            len(relevant_again),
        )
    until = options.until
    if options.finish:
        if not done:
            raise BenchsmithError(f"--finish: {journal.path} holds no step of this scan to export")
        steps = [s for s in steps if s.sha in done]
        until = steps[-1].date  # what the card states: the scan stopped there
        log.info("%s: --finish: exporting the %d steps journalled, up to %s", name, len(steps), until)
    outcomes = []
    logs = (out / "mine-logs").resolve()
    limits = Limits(wall_seconds=options.timeout)
    with leased_slot() as slot:  # a sandbox slot no other benchsmith process uses: stopping a run kills its uids
        for step in progress(steps, f"mining {name}", unit="commit"):
            if step.sha in done:
                outcomes.append(done[step.sha])
                continue
            began = time.monotonic()
            outcome = _one_step(
                d4j,
                name,
                git_dir,
                step,
                numbers[step.sha],
                trackers,
                options,
                limits,
                logs,
                slot,
                relevant_again.get(step.sha),
            )
            outcome.seconds = round(time.monotonic() - began, 2)
            journal.append(
                {
                    "format": JOURNAL_FORMAT,
                    "selection": options.selection,
                    "runs": options.runs,
                    **dataclasses.asdict(outcome),
                }
            )
            outcomes.append(outcome)
    mark_duplicates(project_dir, outcomes)
    if options.scrape:
        _fetch_issues(outcomes)
    write_project(project_dir, outcomes)
    meta = {
        "dataset": "Defects4J-NL2Fix (mined)",
        "project": name,
        "tool": f"benchsmith {__version__}",
        "mined_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "repo": options.repo,
        "git_dir": str(git_dir),
        "head": head,
        "since": options.since,
        "until": until,
        "trackers": trackers.describe(),
        "selection": options.selection,
        "runs": options.runs,
        "seconds": round(time.monotonic() - started, 1),
    }
    result = card(meta, outcomes)
    write_text_atomic(out / "mine.json", json.dumps(result, indent=1) + "\n")
    write_text_atomic(out / "MINE.md", render_card(result))
    journal.remove()
    return result


def _journalled(options: MineOptions):
    def parse(entry: dict) -> StepOutcome | None:
        """None for a step decided by another format or selection: decided again; so is a step rejected once its
        relevant tests were known, before they were found by class loading (a journal without ``relevant_by``)."""
        if (entry.pop("format"), entry.pop("selection"), entry.pop("runs")) != (
            JOURNAL_FORMAT,
            options.selection,
            options.runs,
        ):
            return None
        outcome = StepOutcome.from_json(entry)
        if outcome.reason and _reached_relevant_tests(outcome) and not outcome.relevant_by:
            return None
        return None if _harness_failed(outcome) else outcome

    return parse


def _harness_failed(outcome: StepOutcome) -> bool:
    """The step was given up because the harness itself failed (its warm compiler did not start on a loaded machine) or
    its runs were killed for their time: no verdict on the step, so a resumed scan tries it again."""
    return outcome.reason == GOLD_BROKEN and any(mark in outcome.detail for mark in NO_VERDICT_MARKS)


def _reached_relevant_tests(outcome: StepOutcome) -> bool:
    return outcome.lenient and (not outcome.reason or outcome.detail.startswith(RELEVANT_STAGE_DETAILS))


def _one_step(
    d4j: Defects4JRoot,
    name: str,
    git_dir: Path,
    step,
    bug_id: int,
    trackers,
    options: MineOptions,
    limits: Limits,
    logs: Path,
    slot: int,
    reproduced: StepOutcome | None = None,
) -> StepOutcome:
    """What becomes of *step*; *reproduced*: its journalled outcome, whose trigger tests stand."""
    outcome = StepOutcome(step.sha, step.parent, step.date)
    try:
        candidate, reason, detail, strict_reason = select(d4j, name, git_dir, step, bug_id, trackers, options.selection)
    except BenchsmithError as exc:
        outcome.reason, outcome.detail, outcome.referenced = "history unreadable", str(exc), True
        return outcome
    outcome.referenced = reason != NO_ISSUE
    if candidate is None:
        outcome.reason, outcome.detail = reason, detail
        return outcome
    outcome.main_root, outcome.test_root = candidate.step.layout
    outcome.bug_id, outcome.report_id, outcome.report_url = bug_id, candidate.bug.report_id, candidate.bug.report_url
    outcome.strict, outcome.lenient = candidate.strict, True
    outcome.file_path, outcome.method = candidate.instance.file_path, candidate.instance.method_signature
    notes = stock_libraries(git_dir, step.sha, d4j.lib_dir(name))
    triggered = Triggered(tuple(reproduced.trigger_tests), tuple(reproduced.flaky_tests)) if reproduced else None
    found = reproduce(
        candidate,
        d4j,
        (d4j.root / "repos").resolve(),
        limits,
        logs / f"{name}-{bug_id}",
        notes,
        options.runs,
        slot,
        triggered,
    )
    outcome.reason, outcome.detail = found.reason, found.detail
    outcome.trigger_tests, outcome.relevant_tests = list(found.trigger_tests), list(found.relevant_tests)
    outcome.broken_tests, outcome.flaky_tests, outcome.build_notes = (
        list(found.broken_tests),
        list(found.flaky_tests),
        found.build_notes,
    )
    outcome.relevant_by = found.relevant_by
    if found.reason:
        log.info("%s %s: %s: %s", name, step.sha[:12], found.reason, found.detail[:300])
    return outcome


def _fetch_issues(outcomes: list[StepOutcome]) -> None:
    """The issue text of each instance, through the scrapers and their cache (``nl2fix build`` reads it from there);
    a report that cannot be fetched keeps its link and says why."""
    for outcome in [o for o in outcomes if o.instance]:
        try:
            issue = scrapers.fetch_issue(outcome.report_url)
        except (scrapers.TrackerUnavailable, scrapers.UnknownTracker) as exc:
            outcome.issue = f"unfetchable: {type(exc).__name__}"
            log.debug("%s: %s", outcome.report_url, exc)
            continue
        outcome.issue = f"missing: {issue.missing_reason}" if issue.missing_reason else "fetched"
