"""The NL2Fix build stage: Defects4J bugs → single-method instances → Parquet and a dataset card.

Each bug's outcome is cached under ``<cache>/nl2fix/<project>/`` keyed by
everything it depends on, so an interrupted build resumes where it stopped
and a rebuild with unchanged inputs does no analysis at all.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import re
import subprocess
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from datetime import datetime, timezone
from pathlib import Path

from benchsmith import __version__, scrapers
from benchsmith.benchmarks.nl2fix import NL2Fix
from benchsmith.builders.bug_list import read_bug_list
from benchsmith.builders.selection import DEFAULT_SELECTION, SELECTIONS
from benchsmith.builders.single_method import SOURCE_MISSING, BugOutcome, analyse_bug
from benchsmith.builders.validate import summary, validate_all
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError, SourceUnavailable
from benchsmith.core.export import HubSource, write_dataset
from benchsmith.core.journal import Journal
from benchsmith.core.progress import progress
from benchsmith.core.schema import NL2FixInstance, record_from_dict
from benchsmith.runners.sandbox.jail import Limits
from benchsmith.sources.defects4j import Bug, Defects4JRoot
from benchsmith.sources.history import (
    PROJECT_FOLDERS,
    UPSTREAM_URLS,
    SourceProvider,
    UpstreamGitSource,
    has_git_history,
    provider_for,
)

log = logging.getLogger(__name__)

# Bump when the filter or the extraction changes, so cached outcomes are recomputed.
ANALYSIS_VERSION = "11"  # 11: a patch that applies at an offset is renumbered on the files in hand


@dataclasses.dataclass(frozen=True)
class BuildOptions:
    defects4j: Path
    out: Path
    repos: Path | None = None
    projects: str | None = None
    scrape: bool = True
    workers: int = 2
    validate: bool = False
    timeout: float = 120.0
    selection: str = DEFAULT_SELECTION  # one of benchsmith.builders.selection.SELECTIONS
    bugs: Path | None = None  # a file of bug ids (``Cli-5``), one a line: build exactly those


def build(options: BuildOptions) -> dict:
    """Build the NL2Fix dataset; return its card."""
    if options.selection not in SELECTIONS:
        raise BenchsmithError(f"--selection {options.selection}: must be one of {', '.join(SELECTIONS)}")
    if options.bugs is not None and options.projects is not None:
        raise BenchsmithError(f"--bugs {options.bugs} names the bugs, and so their projects: leave out --projects")
    d4j = Defects4JRoot(options.defects4j)
    listed = read_bug_list(options.bugs, d4j) if options.bugs is not None else None
    projects = list(listed) if listed is not None else d4j.resolve_projects(options.projects)
    sources: dict[str, str] = {}
    providers: dict[str, SourceProvider] = {}
    skipped: dict[str, str] = {}
    bugs: list[Bug] = []
    for project in projects:
        try:
            provider = provider_for(project, options.repos)
        except SourceUnavailable as exc:
            # Chart is in the paper's default set but its history is Subversion: the
            # default build skips it; an explicit request for it must fail.
            if options.projects is None and listed is None and not has_git_history(project):
                log.warning("skipping %s: %s", project, exc)
                skipped[project] = str(exc)
                continue
            raise
        sources[project] = provider.description
        providers[project] = provider
        bugs.extend(d4j.bugs(project) if listed is None else listed[project])
    outcomes = [o.under(options.selection) for o in _analyse_all(d4j, bugs, options)]
    _warn_unavailable(outcomes)
    instances = _with_fix_dates(d4j, [o.instance for o in outcomes if o.instance is not None], providers)
    issue_missing: Counter = Counter()
    if options.scrape:
        instances, issue_missing = _attach_issue_text(instances)
    validation_summary = None
    if options.validate:
        instances, validation_summary = _validate(d4j, instances, options)
    card = _card(d4j, options, projects, sources, skipped, outcomes, instances, issue_missing)
    card["validation"] = validation_summary or {"run": False}
    write_dataset(
        instances, NL2FixInstance, options.out, card, render_card(card), benchmark=NL2Fix.name, **hub_card(card)
    )
    Journal(options.out).remove()  # the validations journalled by _validate, now in the dataset
    return card


def _with_fix_dates(
    d4j: Defects4JRoot, instances: list[NL2FixInstance], providers: dict[str, SourceProvider]
) -> list[NL2FixInstance]:
    """Each instance with its fix's commit date: the project's ``commit-dates.csv`` (a mined project), else the
    fixed revision's committer date in the upstream repository at hand, else "" (a revision it lacks, or sources
    read through the ``defects4j`` command)."""
    dates = {project: d4j.commit_dates(project) for project in {i.project for i in instances}}
    dated = []
    for instance in instances:
        date = dates[instance.project].get(instance.bug_id, "")
        provider = providers.get(instance.project)
        if not date and isinstance(provider, UpstreamGitSource):
            date = provider.history.commit_date(instance.revision_fixed)
        dated.append(dataclasses.replace(instance, fix_date=date))
    return dated


def _fix_dates(instances: list[NL2FixInstance]) -> dict:
    dates = sorted((i.fix_date for i in instances if i.fix_date), key=datetime.fromisoformat)  # offsets differ
    return {
        "first": dates[0] if dates else None,
        "last": dates[-1] if dates else None,
        "dated": len(dates),
        "undated": len(instances) - len(dates),
    }


def _analyse_all(d4j: Defects4JRoot, bugs: list[Bug], options: BuildOptions) -> list[BugOutcome]:
    outcomes: dict[tuple[str, int], BugOutcome] = {}
    pending = []
    for bug in bugs:
        cached = _load_cached(d4j, bug)
        if cached is None:
            pending.append(bug)
        else:
            outcomes[(bug.project, bug.bug_id)] = cached
    log.info("%d bugs: %d cached, %d to analyse", len(bugs), len(bugs) - len(pending), len(pending))
    if pending:
        jobs = [(str(d4j.root), str(options.repos) if options.repos else None, bug) for bug in pending]
        if options.workers > 1 and len(pending) > 1:
            with ProcessPoolExecutor(max_workers=options.workers) as pool:
                results = pool.map(_analyse_job, jobs, chunksize=4)
                for outcome in progress(results, "analysing bugs", total=len(jobs)):
                    outcomes[(outcome.project, outcome.bug_id)] = outcome
        else:
            for job in progress(jobs, "analysing bugs"):
                outcome = _analyse_job(job)
                outcomes[(outcome.project, outcome.bug_id)] = outcome
    return [outcomes[(bug.project, bug.bug_id)] for bug in bugs]


def _warn_unavailable(outcomes: list[BugOutcome]) -> None:
    unavailable = Counter(o.project for o in outcomes if o.reason == SOURCE_MISSING)
    totals = Counter(o.project for o in outcomes)
    for project, count in unavailable.items():
        first = next(o.detail for o in outcomes if o.project == project and o.reason == SOURCE_MISSING)
        log.warning("%s: sources of %d of %d bugs unavailable (first: %s)", project, count, totals[project], first)


_WORKER_PROVIDERS: dict[str, SourceProvider] = {}


def _analyse_job(job: tuple[str, str | None, Bug]) -> BugOutcome:
    root, repos, bug = job
    d4j = Defects4JRoot(Path(root))
    if bug.project not in _WORKER_PROVIDERS:
        _WORKER_PROVIDERS[bug.project] = provider_for(bug.project, Path(repos) if repos else None)
    outcome = analyse_bug(d4j, bug, _WORKER_PROVIDERS[bug.project])
    if outcome.reason != SOURCE_MISSING:  # may be mended by a better --repos; never cache it
        _store_cached(d4j, bug, outcome)
    return outcome


def _cache_key(d4j: Defects4JRoot, bug: Bug) -> str:
    digest = hashlib.sha256()
    project_dir = d4j.project_dir(bug.project)
    inputs = [ANALYSIS_VERSION, json.dumps(dataclasses.asdict(bug), sort_keys=True)]
    if bug.project in PROJECT_FOLDERS:  # read from inside that folder since it was added (Joda-Time's JodaTime/)
        inputs.append(PROJECT_FOLDERS[bug.project])
    for part in (
        d4j.patch_path(bug),
        project_dir / "trigger_tests" / str(bug.bug_id),
        project_dir / "relevant_tests" / str(bug.bug_id),
    ):
        inputs.append(hashlib.sha256(part.read_bytes()).hexdigest() if part.is_file() else "absent")
    digest.update("\0".join(inputs).encode())
    return digest.hexdigest()[:20]


def _cache_file(d4j: Defects4JRoot, bug: Bug) -> Path:
    return cache_dir("nl2fix", bug.project) / f"{bug.bug_id}-{_cache_key(d4j, bug)}.json"


def _load_cached(d4j: Defects4JRoot, bug: Bug) -> BugOutcome | None:
    path = _cache_file(d4j, bug)
    if not path.exists():
        log.debug("cache miss: %s", path)
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        instance = data["instance"]
        if instance is not None:
            instance = record_from_dict(NL2FixInstance, instance)
        return BugOutcome(
            data["project"],
            data["bug_id"],
            instance,
            data["reason"],
            data["detail"],
            data["strict_reason"],
            data["strict_detail"],
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise BenchsmithError(f"{path}: corrupt cache entry ({exc}); delete it to recompute") from exc


def _store_cached(d4j: Defects4JRoot, bug: Bug, outcome: BugOutcome) -> None:
    write_text_atomic(_cache_file(d4j, bug), json.dumps(dataclasses.asdict(outcome)))


def _attach_issue_text(instances: list[NL2FixInstance]) -> tuple[list[NL2FixInstance], Counter]:
    missing: Counter = Counter()
    filled = []
    for instance in progress(instances, "issue text"):
        try:
            issue = scrapers.fetch_issue(instance.report_url)
        except (scrapers.TrackerUnavailable, scrapers.UnknownTracker) as exc:  # others (a corrupt cache) stop the build
            log.debug("no issue text for %s: %s", instance.instance_id, exc)
            missing[type(exc).__name__] += 1
            filled.append(instance)
            continue
        if issue.missing_reason:
            missing[issue.missing_reason] += 1
        filled.append(
            dataclasses.replace(
                instance,
                issue_title=issue.title,
                issue_description=issue.description,
                issue_comments=list(issue.comments),
            )
        )
    return filled, missing


def _validate(d4j: Defects4JRoot, instances: list[NL2FixInstance], options: BuildOptions) -> tuple[list, dict]:

    logs = options.out.with_name(options.out.name + ".validation-logs")
    outcomes = validate_all(
        instances, d4j, options.repos, options.workers, Limits(wall_seconds=options.timeout), logs, out=options.out
    )
    validated = [dataclasses.replace(i, validation=outcomes[i.instance_id]) for i in instances]
    return validated, {"run": True, **summary(outcomes)}


def _git_head(path: Path) -> str | None:
    completed = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True)
    return completed.stdout.strip() if completed.returncode == 0 else None


def _card(d4j, options, projects, sources, skipped, outcomes, instances, issue_missing) -> dict:
    per_project: dict[str, dict] = {}
    for project in projects:
        if project in skipped:
            continue
        mine = [o for o in outcomes if o.project == project]
        per_project[project] = {
            "bugs": len(mine),
            "selected": sum(1 for o in mine if o.instance is not None),
            "near_misses": sum(1 for o in mine if o.near_miss),
            "rejected": dict(Counter(o.reason for o in mine if o.instance is None).most_common()),
        }
    return {
        "dataset": "Defects4J-NL2Fix",
        "tool": f"benchsmith {__version__}",
        "analysis_version": ANALYSIS_VERSION,
        "selection": options.selection,
        "bug_list": str(options.bugs) if options.bugs is not None else None,
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "defects4j_root": str(d4j.root),
        "defects4j_revision": _git_head(d4j.root),
        "sources": sources,
        "skipped_projects": skipped,
        "instances": len(instances),
        "fix_dates": _fix_dates(instances),
        "near_misses": sum(p["near_misses"] for p in per_project.values()),
        "bugs": sum(p["bugs"] for p in per_project.values()),
        "projects": per_project,
        "rejection_reasons": dict(Counter(o.reason for o in outcomes if o.instance is None).most_common()),
        "issue_text": (
            {"requested": True, "filled": len(instances) - sum(issue_missing.values()), "missing": dict(issue_missing)}
            if options.scrape
            else {"requested": False}
        ),
        "rejections": [
            {"bug": f"{o.project}-{o.bug_id}", "reason": o.reason, "detail": o.detail}
            for o in outcomes
            if o.instance is None
        ],
        # Kept by the lenient rule only: what the strict rule says, and the changes a candidate cannot replay.
        "near_miss_bugs": [
            {
                "bug": f"{o.project}-{o.bug_id}",
                "strict_reason": o.strict_reason,
                "extra_changes": [dataclasses.asdict(e) for e in o.instance.extra_changes],
            }
            for o in outcomes
            if o.near_miss
        ],
    }


_SELECTION_TEXT = {
    "strict": "Strict: every changed code line lies inside the one method.",
    "lenient": "Lenient: exactly one method that exists in both versions changes; besides it the fix may change "
    "declarations outside methods and add or remove helper methods in the same file. {near_misses} "
    "instances do so (near misses); each records those changes in `extra_changes`.",
}


def _fix_dates_text(dates: dict | None) -> str:
    """The date range of the fixes (column ``fix_date``): what a user checks against a model's training cut-off."""
    if not dates or not dates["dated"]:
        return "The fixes' commit dates are not known (column `fix_date` empty)."
    undated = f"; {dates['undated']} instances without a date (column `fix_date` empty)" if dates["undated"] else ""
    return (
        f"Fixed (commit date of the fixed revision, column `fix_date`) between {dates['first']} and "
        f"{dates['last']}{undated}."
    )


def render_card(card: dict) -> str:
    lines = [
        f"# {card['dataset']}",
        "",
        f"Built by {card['tool']} on {card['built_at']} from Defects4J at `{card['defects4j_root']}`"
        + (f" (revision {card['defects4j_revision']})." if card["defects4j_revision"] else "."),
        "",
        f"{card['instances']} single-method instances from {card['bugs']} bugs, selected by the "
        f"`{card['selection']}` rule" + (f" from the bug list `{card['bug_list']}`." if card["bug_list"] else "."),
        _SELECTION_TEXT[card["selection"]].format(near_misses=card["near_misses"]),
        _fix_dates_text(card.get("fix_dates")),
        "",
        "| project | bugs | selected | of which near misses | rejected (reason: count) |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for project, stats in card["projects"].items():
        rejected = ", ".join(f"{reason}: {count}" for reason, count in stats["rejected"].items())
        lines.append(f"| {project} | {stats['bugs']} | {stats['selected']} | {stats['near_misses']} | {rejected} |")
    lines += ["", "## Sources", ""]
    lines += [f"- {project}: {description}" for project, description in card["sources"].items()]
    lines += [f"- {project}: skipped — {reason}" for project, reason in card["skipped_projects"].items()]
    issue = card["issue_text"]
    lines += ["", "## Issue text", ""]
    if issue["requested"]:
        lines.append(f"Filled for {issue['filled']} instances; missing: {issue['missing'] or 'none'}.")
    else:
        lines.append("Not scraped (`--no-scrape`): the issue columns are empty.")
    validation = card.get("validation", {"run": False})
    lines += ["", "## Validation", ""]
    if validation.get("run"):
        lines.append(
            f"{validation.get('reproduced', 0)} of {validation['instances']} instances reproduced; "
            f"not reproduced by reason: {validation['not reproduced by reason'] or 'none'}."
        )
    else:
        lines.append("Not run (`--validate` executes gold and buggy for every instance).")
    if card["near_miss_bugs"]:
        lines += [
            "",
            "## Near misses",
            "",
            "Kept by the lenient rule; the fixed file the harness inserts candidates into already holds these changes.",
            "",
            "| bug | strict rule | extra changes |",
            "| --- | --- | --- |",
        ]
        for near in card["near_miss_bugs"]:
            extras = "; ".join(f"{e['kind']} {e['name']}" for e in near["extra_changes"]).replace("|", "\\|")
            lines.append(f"| {near['bug']} | {near['strict_reason']} | {extras} |")
    lines += ["", "## Rejected bugs", "", "| bug | reason | detail |", "| --- | --- | --- |"]
    for rejection in card["rejections"]:
        detail = rejection["detail"].replace("|", "\\|")
        lines.append(f"| {rejection['bug']} | {rejection['reason']} | {detail} |")
    return "\n".join(lines) + "\n"


# The licence of each Defects4J project's code (its upstream repository's LICENSE), as Hugging Face licence ids.
# Defects4J itself (the metadata and patches) is MIT. A project not listed here (the bundled Ledger fixture, a
# project added locally) is "unknown": nothing declares it.
DEFECTS4J_LICENSE = "mit"
PROJECT_LICENSES = {
    **dict.fromkeys(["Cli", "Codec", "Collections", "Compress", "Csv", "JxPath", "Lang", "Math"], "apache-2.0"),
    **dict.fromkeys(["Closure", "Gson", "JacksonCore", "JacksonDatabind", "JacksonXml", "Time"], "apache-2.0"),
    "Chart": "lgpl-2.1",  # JFreeChart: LGPL 2.1 or later
    "Jsoup": "mit",
    "Mockito": "mit",
}


def hub_card(card: dict) -> dict:
    """The Hugging Face card's sources (licences, revisions) and counts, from the build's card."""
    sources = [
        HubSource(
            "Defects4J", "https://github.com/rjust/defects4j", card["defects4j_revision"] or "", DEFECTS4J_LICENSE
        )
    ]
    for project, description in card["sources"].items():
        head = re.search(
            r"\(HEAD ([0-9a-f]+)\)", description
        )  # the upstream history's HEAD (benchsmith/sources/history.py)
        sources.append(
            HubSource(
                project,
                (UPSTREAM_URLS.get(project) or "").removesuffix(".git"),
                head[1] if head else "",
                PROJECT_LICENSES.get(project, "unknown"),
            )
        )
    counts = {
        "bugs": card["bugs"],
        "instances": card["instances"],
        "rejected": len(card["rejections"]),
        "rejection_reasons": card["rejection_reasons"],
        "selected_per_project": {p: stats["selected"] for p, stats in card["projects"].items()},
    }
    return {"sources": sources, "counts": counts}
