"""``benchsmith classbench build --language python``: a repository → shortlisted class tasks → Parquet and a card.

Steps (RepoClassBench paper, section 3 and appendix E): the repository's environment; one
run of its test suite recording each test's outcome and direct coverage; the
shortlist; for each shortlisted class, the tests that reference it and fail
once it is removed (its EXPECTED_TO_PASS directives); DETAILED and SKETCHY
metadata; export. Test runs and file analyses are cached per repository, so a
second build repeats none of them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import re
import shutil
import time
import tomllib
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchsmith import __version__
from benchsmith.benchmarks.classbench.python import ClassBench
from benchsmith.builders.classbench.paraphrased import flip_report
from benchsmith.builders.classbench.python.analysis import (
    AnalysedClass,
    MethodInfo,
    analyse_file,
    python_metadata,
    source_files,
)
from benchsmith.builders.classbench.python.paraphrased import flipped_repository
from benchsmith.builders.classbench.python.shortlist import (
    GOLD_FAILS,
    GOLD_REFUSED,
    NO_DIRECTIVE,
    directly_covered_methods,
    is_shortlisted,
    referencing_tests,
)
from benchsmith.builders.classbench.python.suite import (
    NOT_RUNNABLE,
    SuitePolicy,
    SuiteRun,
    not_runnable_summary,
    run_suite,
    run_tests,
)
from benchsmith.builders.classbench.python.suite import record as suite_record
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import HubSource, write_dataset
from benchsmith.core.progress import progress
from benchsmith.core.schema import BuildCard, ClassBenchTask, PythonBuildFacts, Service, TaskEnvironment, task_id
from benchsmith.runners.python.class_runner import TAMPERED, reference_solution
from benchsmith.runners.python.pytest_run import (
    describe_missing,
    is_runner_module,
    missing_imports,
    refused_calls,
    swapped_module,
    work_copy,
)
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox import services
from benchsmith.sources.checkout import private_cache_dir
from benchsmith.sources.python.environment import check_python_named
from benchsmith.sources.python.extensions import compiled_modules_of
from benchsmith.sources.python.removal import insert_class, remove_class
from benchsmith.sources.python.repo import Repository, resolve, run_variant, task_environment
from benchsmith.sources.services import detect_services

log = logging.getLogger(__name__)
ANALYSIS_VERSION = "3"  # 3: references in signatures and fields; attribute docstrings and comments uncounted
# 12: a name a base class's file writes is the test class's own, a candidate's registered pytest plugin forged; 11:
# skips say why, modules skipped whole are reported (not runnable); 10: the ground truth checked under the candidate
# guard; 9: qualified names on Pythons before 3.11; bump when test runs change (the sandbox, the plugin): cached runs
# are not reused
RUNS_FORMAT = 12


@dataclass(frozen=True)
class ClassBenchOptions:
    repo: str
    out: Path
    commit: str | None = None
    language: str = "python"
    paraphrase: bool = False
    no_relatives: bool = False  # leave each task's relatives (RepoClassBench paper, RQ2) unrecorded
    suite_seconds: float = 1800.0
    as_of: str | None = None  # resolve the environment as of this date instead of the repository's own
    resolve: str = "as-of"  # "latest": against today's index, no date
    python: str = (
        ""  # a minor version ("3.8") to build with, as a benchmark's own set-up names one; default: of its day
    )
    system_deps: bool = False  # install the Debian package a dependency's build lacks a header or library of (root)
    services: bool = False  # start the servers the suite expects (installing Debian's packages as root) in every run
    pure_python: bool = False  # test the package's pure-Python fallback, its compiled modules not imported


def build(options: ClassBenchOptions) -> BuildCard:
    if options.language != "python":
        raise BenchsmithError(f"--language {options.language}: only python is supported so far")
    started = time.monotonic()
    if options.python:
        check_python_named(options.python)
    asked = TaskEnvironment(python=options.python) if options.python else None  # a Python named, nothing locked
    if options.system_deps and os.geteuid() != 0:
        raise BenchsmithError("--system-deps installs Debian packages with apt-get: run the build as root")
    repo = resolve(
        options.repo,
        options.commit,
        options.as_of,
        options.resolve,
        locked=asked,
        system_deps=options.system_deps,
        implementation="pure-python" if options.pure_python else "",
    )
    repo, services_record = with_services(repo, options.services)
    outcome = _build_tasks(repo, options)
    paraphrase = None
    if options.paraphrase and outcome.tasks:
        flipped = flipped_repository(repo, [(t.file_path, t.class_name) for t in outcome.tasks])
        paraphrased = _build_tasks(flipped.repo, options, flipped.only)
        paraphrased.tasks = [dataclasses.replace(t, paraphrased=True) for t in paraphrased.tasks]
        paraphrase = flip_report(
            flipped.mapping, flipped.excluded, outcome.suite["outcomes"], paraphrased.suite["outcomes"]
        )
        outcome = paraphrased
    card = _card(repo, options, outcome, time.monotonic() - started)
    card.facts.services = services_record
    card.paraphrase = paraphrase or {"run": False}
    write_dataset(
        outcome.tasks,
        ClassBenchTask,
        options.out,
        card.to_dict(),
        render_card(card),
        benchmark=ClassBench.name,
        **hub_card(card),
    )
    return card


@dataclass
class BuildOutcome:
    suite: dict
    classes: list[AnalysedClass]
    tasks: list[ClassBenchTask]
    rejections: list[dict]
    checks: dict


def _build_tasks(repo: Repository, options: ClassBenchOptions, only: set[str] | None = None) -> BuildOutcome:
    """Suite run, shortlist, directives and checks for the classes of *repo* (those named in *only*, if given)."""
    classes = analyse_repository(repo)
    # Runs belong to one environment: another lock (another date, --resolve latest) runs the suite again.
    # So do the services started and the implementation tested.
    variant = f"v{RUNS_FORMAT}-{repo.resolution.get('lock_sha256', 'none')[:12]}" + (
        f"-{run_variant(repo)}" if run_variant(repo) else ""
    )
    runs = private_cache_dir("runs", repo.key, variant)
    policy = SuitePolicy(unit_seconds=options.suite_seconds, budget_seconds=2 * options.suite_seconds)
    with sandbox.leased_slot() as slot, trusted_work_copy(repo, slot) as copy:
        suite = _cached_suite(repo, copy, slot, runs, policy)
        passed = {node for node, outcome in suite["outcomes"].items() if outcome == "passed"}
        coverage = {node: [(str(copy / f), q) for f, q in calls] for node, calls in suite["coverage"].items()}
        tasks, rejections, checks = [], [], {}
        for info in progress(classes, "shortlisting classes", unit="class"):
            if only is not None and f"{info.file_path}::{info.name}" not in only:
                continue
            decision = is_shortlisted(info, directly_covered_methods(info, coverage, passed, copy))
            if not decision.accepted:
                rejections.append({"class": info.qualified_name, "reason": decision.reason, "detail": decision.detail})
                continue
            candidates = referencing_tests(info, coverage, passed, copy)
            directives = _directives(repo, copy, info, candidates, slot, policy, runs)
            if not directives:
                rejections.append(
                    {
                        "class": info.qualified_name,
                        "reason": NO_DIRECTIVE,
                        "detail": f"{len(candidates)} passing tests reference it; none fails without it",
                    }
                )
                continue
            task = _task(repo, options, info, classes, directives)
            # The ground truth is checked as eval judges a candidate: its module's code refused what the guard refuses
            # (the runner's own modules excepted, as in eval)
            checked = (
                policy
                if is_runner_module(repo, info.file_path)
                else dataclasses.replace(policy, guarded_module=str(copy / info.file_path))
            )
            gold, refused = _solution_check(
                repo, copy, info, directives, reference_solution(task), "gold", slot, checked, runs
            )
            # A test id that a second run does not collect (parameters named after object addresses, ...)
            # cannot be selected again: it is no directive.
            stable = [d for d in directives if d in gold]
            # One whose ground truth needs what a candidate's code is refused (boltons' tbutils reads frames) fails
            # every candidate that does what the ground truth does: it cannot judge one.
            stable = [d for d in stable if d not in refused]
            failing = [d for d in stable if gold[d] != "passed"]
            # A test that passed in the suite's run may fail whenever it runs among the directives alone, class or
            # no class (it leans on what earlier tests of the suite left behind): it cannot tell a candidate's
            # class, and is no directive. The original code, run the same way, says which ones.
            on_the_original = _original_check(repo, copy, info, stable, slot, policy, runs) if failing else {}
            leaning = [d for d in failing if on_the_original.get(d) != "passed"]
            stable = [d for d in stable if d not in leaning]
            failing = [d for d in failing if d not in leaning]
            # Passing on the original and failing with the same class once: run again, the same way. One that passes
            # then depends on timing (pykka's test_exception_in_on_start_is_logged caught a record an earlier test's
            # actor thread logged late): it could fail a right candidate, and is no directive.
            again = (
                _solution_check(repo, copy, info, stable, reference_solution(task), "gold-again", slot, checked, runs)[
                    0
                ]
                if failing
                else {}
            )
            flaky = [d for d in failing if again.get(d) == "passed"]
            stable = [d for d in stable if d not in flaky]
            failing = [d for d in failing if d not in flaky]
            if failing or not stable:
                how = ", ".join(f"{o} {n}" for o, n in Counter(gold[d] for d in failing).most_common())
                detail = f"{len(stable) - len(failing)} of {len(stable)} directives pass with it" + (
                    f" (the others: {how})" if how else ""
                )
                reason = GOLD_FAILS if failing else NO_DIRECTIVE
                if not failing and refused:
                    reason, detail = GOLD_REFUSED, _refusals(refused)
                rejections.append({"class": info.qualified_name, "reason": reason, "detail": detail})
                continue
            task = dataclasses.replace(task, test_directives=stable)
            empty = _solution_check(
                repo, copy, info, stable, f"class {info.name}:\n    pass\n", "empty", slot, policy, runs
            )[0]
            checks[info.qualified_name] = {
                "directives": len(stable),
                "unstable_ids_dropped": len(directives) - len(stable) - len(leaning) - len(flaky) - len(refused),
                "failing_on_the_original_dropped": len(leaning),
                "flaky_dropped": len(flaky),
                "refused_to_candidates_dropped": len(refused),
                "passing_with_ground_truth": len(stable),
                "passing_with_empty_class": sum(v == "passed" for v in empty.values()),
            }
            tasks.append(task)
    return BuildOutcome(suite, classes, tasks, rejections, checks)


def with_services(repo: Repository, start: bool) -> tuple[Repository, dict]:
    """*repo* with the services its suite expects to be started in every run, when *start* asks and their programs
    are here (or installed now); what the card says of them."""
    started, record = expected_services(repo.tree, start)
    return dataclasses.replace(repo, services=started), record


def expected_services(tree: Path, start: bool) -> tuple[tuple[Service, ...], dict]:
    """The services the tests of *tree* expect that every run starts, when *start* asks and their programs are here
    (or installed now, as root); what a card says of them (``detected``, ``started``, ``not_started``)."""
    detected = detect_services(tree)
    record: dict = {"detected": services.describe(detected), "started": []}
    if not detected:
        return (), record
    if not start:
        record["not_started"] = "not asked (--services starts them)"
        return (), record
    unavailable = services.prepare(detected, install=True)
    started = tuple(s for s in detected if s.kind not in unavailable)
    record["started"] = services.describe(started)
    if unavailable:
        record["not_started"] = unavailable
    return started, record


@contextmanager
def trusted_work_copy(repo: Repository, slot: int) -> Iterator[Path]:
    """The build's one copy of the tree, for its trusted runs; it holds the ground truth, so it goes afterwards."""
    folder = cache_dir("classbench", "work", f"slot-{slot}")
    try:
        yield work_copy(repo.tree, folder / repo.key, slot)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def analyse_repository(repo: Repository) -> list[AnalysedClass]:
    """Every module-level class outside the tests, each file's analysis cached by its content."""
    root = repo.tree / repo.import_root if repo.import_root else repo.tree
    packages = {p.parent.name for p in root.glob("*/__init__.py")} | {p.stem for p in root.glob("*.py")}
    cache = private_cache_dir("analysis")
    classes: list[AnalysedClass] = []
    for path in progress(source_files(repo.tree, repo.import_root), "analysing modules", unit="module"):
        text = path.read_bytes()
        key = hashlib.sha256(
            ANALYSIS_VERSION.encode() + str(path.relative_to(repo.tree)).encode() + b"\0" + text
        ).hexdigest()[:24]
        entry = cache / f"{key}.json"
        if entry.exists():
            try:
                found = [_class_from_json(c) for c in json.loads(entry.read_text())]
            except (ValueError, TypeError, KeyError) as exc:
                raise BenchsmithError(f"{entry}: corrupt analysis cache entry ({exc}); delete it") from exc
        else:
            found = analyse_file(path, repo.tree, repo.import_root, packages)
            write_text_atomic(entry, json.dumps([dataclasses.asdict(c) for c in found]))
        classes.extend(found)
    return classes


def _class_from_json(data: dict) -> AnalysedClass:
    return AnalysedClass(**{**data, "methods": [MethodInfo(**m) for m in data["methods"]]})


def _cached_suite(repo: Repository, copy: Path, slot: int, runs: Path, policy: SuitePolicy) -> dict:
    path = runs / "suite.json"
    if path.exists():
        return json.loads(path.read_text())
    log.info("running the test suite of %s, recording direct coverage", repo.key)
    run = run_suite(repo, copy, slot, runs, policy)
    log_path = runs / "suite.log"
    log_text = log_path.read_text(errors="replace") if log_path.exists() else ""
    missing = missing_imports(log_text, copy)
    if not run.outcomes:
        why = f": {describe_missing(missing)}" if missing else ""
        raise BenchsmithError(f"{repo.spec}: the test suite ran no test{why}; see {log_path}")
    if missing:
        log.warning("%s: some test modules were not collected: %s", repo.key, describe_missing(missing))
    prefix = str(copy) + "/"
    record = {
        **suite_record(run),
        "not_collected": [dataclasses.asdict(m) for m in missing],
        "coverage": {
            n: [(f.removeprefix(prefix), q) for f, q in calls if f.startswith(prefix)]
            for n, calls in run.coverage.items()
        },
    }
    write_text_atomic(path, json.dumps(record))
    return record


def _run_without(repo, copy, info, replacement: str | None, nodes, slot, policy: SuitePolicy, log_path) -> SuiteRun:
    """*nodes* run with the class removed (and *replacement* where it was), surviving them as the suite run does:
    a crash, a segfault or a hang part way costs only the tests that cause it, each with its reason."""
    original = (copy / info.file_path).read_text(encoding="utf-8", errors="surrogateescape")
    removal = remove_class(original, info.name, info.file_path)
    text = removal.text if replacement is None else insert_class(removal.text, replacement)
    with swapped_module(copy / info.file_path, text):
        run = run_tests(repo, copy, slot, log_path, nodes, policy)
    for unit in run.crashed_units:
        log.warning(
            "%s: %s: %d tests did not report (%s); see %s",
            info.qualified_name,
            unit.unit,
            unit.tests,
            unit.reason,
            log_path.parent / unit.log,
        )
    return run


def _directives(
    repo, copy, info: AnalysedClass, candidates: list[str], slot, policy: SuitePolicy, runs: Path
) -> list[str]:
    """The referencing tests that fail once the class (and the imports only it used) is removed."""
    if not candidates:
        return []
    path = runs / "directives" / f"{info.file_path.replace('/', '__')}__{info.name}.json"
    if path.exists():
        return json.loads(path.read_text())
    run = _run_without(repo, copy, info, None, candidates, slot, policy, path.with_suffix(".log"))
    directives = sorted(n for n in candidates if run.outcomes.get(n, "error") != "passed")
    write_text_atomic(path, json.dumps(directives))
    return directives


def _solution_check(
    repo, copy, info: AnalysedClass, directives: list[str], code: str, label: str, slot, policy: SuitePolicy, runs: Path
) -> tuple[dict[str, str], dict[str, str]]:
    """The outcome of each directive collected with *code* where the class was; and, of those that did not pass, what
    the candidate guard refused *code* (``policy.guarded_module``), by directive."""
    path = runs / f"check-{label}" / f"{info.file_path.replace('/', '__')}__{info.name}.json"
    if path.exists():
        recorded = json.loads(path.read_text())
        return recorded["outcomes"], recorded["refused"]
    run = _run_without(repo, copy, info, code, directives, slot, policy, path.with_suffix(".log"))
    outcomes = {n: run.outcomes[n] for n in directives if n in run.outcomes}
    refused = (
        {n: call for n, call in refused_calls(run.messages).items() if outcomes.get(n, "passed") != "passed"}
        if policy.guarded_module
        else {}
    )
    if policy.guarded_module and TAMPERED in run.outcomes:
        # the plugin's check of the test modules refused the run, as it would in eval: no directive of it can judge
        message = run.messages.get(TAMPERED, "")[:300]
        refused = {n: f"the check of the test modules ({message})" for n in directives}
    write_text_atomic(path, json.dumps({"outcomes": outcomes, "refused": refused}))
    return outcomes, refused


def _refusals(refused: dict[str, str]) -> str:
    """``refused`` of :func:`_solution_check`, in one line."""
    counted = ", ".join(
        f"{event} ({n} directive{'s' if n > 1 else ''})" for event, n in Counter(refused.values()).most_common()
    )
    return f"its directives cannot pass with it under the candidate guard, which refuses a candidate's code {counted}"


def _original_check(
    repo, copy, info: AnalysedClass, directives: list[str], slot, policy: SuitePolicy, runs: Path
) -> dict:
    """The outcome of each directive run as the checks run them, on the repository's own code."""
    path = runs / "check-original" / f"{info.file_path.replace('/', '__')}__{info.name}.json"
    if path.exists():
        return json.loads(path.read_text())
    run = run_tests(repo, copy, slot, path.with_suffix(".log"), directives, policy)
    outcomes = {n: run.outcomes[n] for n in directives if n in run.outcomes}
    write_text_atomic(path, json.dumps(outcomes))
    return outcomes


def relatives_of(info: AnalysedClass, classes: list[AnalysedClass]) -> list[str]:
    """Descendants of the class's grandparents other than its parent and itself (RepoClassBench paper, RQ2), by base
    name."""
    by_name = {c.name: c for c in classes}

    def bases(c: AnalysedClass) -> set[str]:
        return {b.split("[")[0].split(".")[-1] for b in c.bases}

    parents = bases(info)
    grandparents = {g for p in parents if p in by_name for g in bases(by_name[p])}
    children: dict[str, set[str]] = {}
    for c in classes:
        for b in bases(c):
            children.setdefault(b, set()).add(c.name)
    found, frontier = set(), list(grandparents)
    while frontier:
        for child in children.get(frontier.pop(), ()):
            if child not in found:
                found.add(child)
                frontier.append(child)
    return sorted(by_name[n].qualified_name for n in found - parents - {info.name} if n in by_name)


def _task(
    repo: Repository,
    options: ClassBenchOptions,
    info: AnalysedClass,
    classes: list[AnalysedClass],
    directives: list[str],
) -> ClassBenchTask:
    original = (repo.tree / info.file_path).read_text(encoding="utf-8", errors="surrogateescape")
    removal = remove_class(original, info.name, info.file_path)
    return ClassBenchTask(
        task_id=task_id(repo.key, info.file_path, info.name),
        language="python",
        repo=repo.spec,
        commit=repo.commit,
        file_path=info.file_path,
        class_name=info.name,
        module=info.module,
        ground_truth_class=info.source.strip("\n"),
        imports=removal.imports,
        detailed_metadata=python_metadata(info).render(detailed=True),
        sketchy_metadata=python_metadata(info).render(detailed=False),
        detailed_description="",
        sketchy_description="",
        test_directives=directives,
        external_references=info.external_references,
        class_tokens=info.tokens,
        paraphrased=False,
        relatives=[] if options.no_relatives else relatives_of(info, classes),
        environment=task_environment(repo),
    )


def _card(repo, options, outcome: BuildOutcome, seconds) -> BuildCard:
    suite_run = {
        "collected": len(outcome.suite.get("collected", [])),
        "runs": outcome.suite.get("runs", 1),
        "crashed_units": outcome.suite.get("crashed_units", []),
        "retried_after_exhaustion": dict(
            Counter(
                f"{r['first']} then {r['then']} ({r['exhausted']})" for r in outcome.suite.get("retried", {}).values()
            )
        ),
    }
    lost = outcome.suite.get("not_runnable", {})
    not_imported = (
        compiled_modules_of(repo.tree, repo.import_root, set(lost.values()))
        if repo.implementation == "pure-python"
        else set()
    )
    return BuildCard(
        dataset="RepoClassBench (python)",
        tool=f"benchsmith {__version__}",
        built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        repo=repo.spec,
        commit=repo.commit,
        facts=PythonBuildFacts(
            license=declared_license(repo.tree),
            environment=repo.installed,
            resolution=repo.resolution,
            suite_run=suite_run,
            not_collected=outcome.suite.get("not_collected", []),
            not_runnable=not_runnable_summary(lost, repo.resolution, not_imported),
        ),
        test_suite=dict(
            Counter(
                NOT_RUNNABLE if node in outcome.suite.get("not_runnable", {}) else result
                for node, result in outcome.suite["outcomes"].items()
            )
        ),
        classes=len(outcome.classes),
        tasks=len(outcome.tasks),
        directives=sum(len(t.test_directives) for t in outcome.tasks),
        rejection_reasons=dict(Counter(r["reason"] for r in outcome.rejections).most_common()),
        rejections=outcome.rejections,
        solution_checks=outcome.checks,
        no_relatives=options.no_relatives,
        seconds=round(seconds, 1),
    )


def render_card(card: BuildCard) -> str:
    lines = [
        f"# {card.dataset}: {card.repo}",
        "",
        f"Built by {card.tool} on {card.built_at} in {card.seconds}s.",
        "",
        f"{card.tasks} tasks from {card.classes} module-level classes; {card.directives} test directives.",
        f"Test suite: {card.facts.suite_run['collected']} collected; "
        f"{', '.join(f'{k} {v}' for k, v in card.test_suite.items())}"
        f" ({card.facts.suite_run['runs']} runs of pytest).",
        "",
        "## Tasks: directives, and how many pass with the ground truth and with an empty class",
        "",
        "| class | directives | pass with the ground truth | pass with an empty class |",
        "| --- | ---: | ---: | ---: |",
    ]
    for name, check in card.solution_checks.items():
        lines.append(
            f"| {name} | {check['directives']} | {check['passing_with_ground_truth']} | "
            f"{check['passing_with_empty_class']} |"
        )
    if card.facts.suite_run["crashed_units"]:
        lines += [
            "",
            "## Test runs that died, and what was run again",
            "",
            "Tests that had not reported were run again in fresh processes: the one running when its unit died "
            "alone, the rest per file.",
            "",
            "| unit | tests not reported | reason |",
            "| --- | ---: | --- |",
        ]
        lines += [f"| {u['unit']} | {u['tests']} | {u['reason']} |" for u in card.facts.suite_run["crashed_units"]]
    if card.facts.suite_run.get("retried_after_exhaustion"):
        lines += [
            "",
            "Tests that failed on an exhausted resource, run again in fresh processes: "
            + "; ".join(f"{count} {what}" for what, count in card.facts.suite_run["retried_after_exhaustion"].items())
            + ".",
        ]
    lines += ["", "## Rejected classes", "", "| class | reason | detail |", "| --- | --- | --- |"]
    lines += [f"| {r['class']} | {r['reason']} | {r['detail']} |" for r in card.rejections]
    resolution = card.facts.resolution or {}
    lines += ["", "## Environment", ""]
    if resolution:
        when = f"as of {resolution['as_of']}" if resolution.get("as_of") else "against the index of the build's day"
        lines += [
            f"Resolved by {resolution['resolver']} {when} for Python {resolution['python']} from "
            f"{', '.join(resolution['declarations']) or 'the package alone'}; lock sha256 {resolution['lock_sha256']}.",
            *[f"Left out: {d['source']} ({d['reason'][:200]})." for d in resolution.get("dropped", [])],
            *[
                f"Not built, left out: {d['requirement']} ({d['error'][:200]})"
                + (
                    f"; the Debian package {d['debian_package']} provides {d['missing']}."
                    if d["debian_package"]
                    else "."
                )
                for d in resolution.get("not_built", [])
            ],
            *[
                f"Debian package installed: {d['package']}, for {d['requirement']} ({d['for']})."
                for d in resolution.get("system_packages", [])
            ],
            "",
        ]
    lost = card.facts.not_runnable
    if lost and lost.get("by_module"):
        fallback = lost.get("compiled_not_imported", {})
        lines += [
            f"Not runnable here, for a missing module (counted apart, not as failures): {lost['tests']} tests and "
            f"{lost['modules_not_collected']} test modules not collected or skipped whole.",
            *(
                [
                    f"Of them, {fallback['tests']} tests and {fallback['modules_not_collected']} test modules import "
                    "a compiled module of the package by name, which this build of its pure-Python fallback does "
                    "not import."
                ]
                if fallback.get("tests") or fallback.get("modules_not_collected")
                else []
            ),
            "",
            "| module | tests | modules not collected | left out |",
            "| --- | ---: | --- | --- |",
            *[
                f"| {m} | {e['tests']} | {', '.join(e['modules_not_collected'])} | {e['left_out']} |"
                for m, e in lost["by_module"].items()
            ],
            "",
        ]
    implementation = resolution.get("implementation", {})
    if implementation:
        switches = ", ".join(f"{k}={v}" for k, v in implementation.get("switches", {}).items())
        lines += [f"Implementation tested: {implementation['tested']}" + (f" ({switches})." if switches else "."), ""]
    lines += services_lines(card.facts.services)
    lines.append(", ".join(f"{k}=={v}" for k, v in sorted(card.facts.environment.items())))
    return "\n".join(lines) + "\n"


def services_lines(record: dict) -> list[str]:
    if not record.get("detected"):
        return []
    lines = ["Services the suite expects: " + "; ".join(record["detected"]) + "."]
    if record.get("started"):
        lines.append("Started, fresh, in every run's own network namespace: " + "; ".join(record["started"]) + ".")
    why = record.get("not_started")
    if why:
        why = why if isinstance(why, str) else "; ".join(f"{kind}: {reason}" for kind, reason in why.items())
        lines.append(f"Not started: {why}; the tests that need them error or fail for want of them.")
    return [*lines, ""]


# Licence texts and classifiers as packages declare them → Hugging Face licence ids.
_LICENSE_IDS = {
    "apache-2.0": "apache-2.0",
    "apache 2.0": "apache-2.0",
    "apache license 2.0": "apache-2.0",
    "apache software license": "apache-2.0",
    "apache license, version 2.0": "apache-2.0",
    "mit": "mit",
    "mit license": "mit",
    "bsd-3-clause": "bsd-3-clause",
    "bsd-2-clause": "bsd-2-clause",
    "bsd": "bsd",
    "bsd license": "bsd",
    "isc": "isc",
    "isc license (iscl)": "isc",
    "mpl-2.0": "mpl-2.0",
    "mozilla public license 2.0 (mpl 2.0)": "mpl-2.0",
    "gpl-2.0": "gpl-2.0",
    "gpl-3.0": "gpl-3.0",
    "lgpl-2.1": "lgpl-2.1",
    "lgpl-3.0": "lgpl-3.0",
    "unlicense": "unlicense",
    "the unlicense (unlicense)": "unlicense",
    "cc0-1.0": "cc0-1.0",
    "agpl-3.0": "agpl-3.0",
}


def declared_license(tree: Path) -> str:
    """The licence the source tree declares (pyproject ``license``, else PKG-INFO), as a Hugging Face id.

    "other" when it declares one this table does not know (the card keeps the text), "unknown" when it declares none.
    """
    declared = []
    pyproject = tree / "pyproject.toml"
    if pyproject.is_file():
        try:
            license_field = tomllib.loads(pyproject.read_text(errors="replace")).get("project", {}).get("license")
        except tomllib.TOMLDecodeError:
            license_field = None
        if isinstance(license_field, str):
            declared.append(license_field)
        elif isinstance(license_field, dict) and isinstance(license_field.get("text"), str):
            declared.append(license_field["text"])
    for info in (tree / "PKG-INFO", *tree.glob("*.egg-info/PKG-INFO"), *tree.glob("src/*.egg-info/PKG-INFO")):
        if info.is_file():
            text = info.read_text(errors="replace")
            declared += re.findall(r"^License(?:-Expression)?: (.+)$", text, re.M)
            declared += re.findall(r"^Classifier: License :: (?:OSI Approved :: )?(.+)$", text, re.M)
    declared = [d.strip() for d in declared if d.strip() and d.strip().upper() != "UNKNOWN"]
    for text in declared:
        if text.lower() in _LICENSE_IDS:
            return _LICENSE_IDS[text.lower()]
    return "other" if declared else "unknown"


def hub_card(card: BuildCard) -> dict:
    """The Hugging Face card's sources (licence, revision) and counts, from the build's card."""
    spec = card.repo
    pinned = re.fullmatch(r"pypi:([^=]+)==(.+)", spec)
    url = f"https://pypi.org/project/{pinned[1]}/{pinned[2]}/" if pinned else (spec if "://" in spec else "")
    revision = card.commit or (pinned[2] if pinned else "")
    counts = {
        "classes": card.classes,
        "tasks": card.tasks,
        "directives": card.directives,
        "rejection_reasons": card.rejection_reasons,
    }
    return {"sources": [HubSource(spec, url, revision, card.facts.license)], "counts": counts}
