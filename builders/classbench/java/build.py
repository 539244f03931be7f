"""``benchsmith classbench build --language java``: a Maven repository → shortlisted class tasks → Parquet and a card.

Steps: the module's workspace (``benchsmith.runners.java.maven_workspace``: class path, main and
test classes compiled once, cached); one sandboxed run of its suite on the JUnit
Platform, cached in the workspace; its report's tests mapped to their bodies in
the sources (``suite_tests``: those without one counted in the card with their
reason); the shortlist (``shortlist``); for each shortlisted class, its
directives (the passing reported tests that reference it),
checked by the class harness: the ground truth (the whole file) must pass them
all, and the class emptied to its declaration must break them, with that empty
class's CR and TR recorded; DETAILED and SKETCHY metadata; export.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import time
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from benchsmith import __version__
from benchsmith.benchmarks.classbench.java import ClassBenchJava
from benchsmith.builders.classbench.java.metadata import java_metadata
from benchsmith.builders.classbench.java.paraphrased import flipped_module
from benchsmith.builders.classbench.java.shortlist import (
    DOES_NOT_PARSE,
    EMPTY_PASSES,
    GOLD_FAILS,
    NO_PASSING_TEST,
    Decision,
    analyse_main_file,
    decide,
    declared_types,
    referencing_tests,
    relatives,
)
from benchsmith.builders.classbench.java.suite_tests import ReportedTests, index_sources, map_reported
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import HubSource, write_dataset
from benchsmith.core.progress import progress
from benchsmith.core.schema import BuildCard, ClassBenchTask, JavaBuildFacts, task_id
from benchsmith.runners.java.class_runner import ClassTaskRunner, SuiteReport, run_suite, test_runtime
from benchsmith.runners.java.maven_workspace import JavaSetup, JavaWorkspace, java_workspace
from benchsmith.runners.java.toolchain import jdk_for
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.sources.checkout import source_tree
from benchsmith.sources.java.class_file import empty_shell

log = logging.getLogger(__name__)
MISSING_LISTED = 50  # tests without a body named in the card's markdown (its JSON has them all)


@dataclass(frozen=True)
class JavaBuildOptions:
    repo: str
    out: Path
    commit: str | None = None
    module: str = ""
    classpath: str = ""  # central | maven | folder | maven-repo; "" tries them in that order
    classpath_dir: str = ""
    release: str = ""
    no_relatives: bool = False
    paraphrase: bool = False  # the tasks again in a copy whose shortlisted classes' identifiers are case-flipped
    suite_seconds: float = 1800.0
    only: tuple[str, ...] = ()  # qualified class names to consider (all when empty)
    # With *only*: they were shortlisted already (the same classes, paraphrased): their directives are recomputed and
    # checked, the shortlist's thresholds not applied again (a flipped name can take more tokens).
    shortlisted: bool = False


def build_java(options: JavaBuildOptions) -> BuildCard:
    started = time.monotonic()
    key, tree, _ = source_tree(options.repo, options.commit)
    if options.module:
        key = f"{key}-{options.module.replace('/', '-')}"
    setup = JavaSetup(
        options.module,
        options.classpath,
        str(Path(options.classpath_dir).resolve()) if options.classpath_dir else "",
        options.release,
    )
    prepared = java_workspace(tree, key, setup)
    tasks, rejections, checks, suite, classes = _tasks(key, prepared, options)
    paraphrase = {"run": False}
    if options.paraphrase and tasks:
        flipped = flipped_module(key, prepared, tasks)
        variant_options = dataclasses.replace(
            options, repo=str(flipped.folder), commit=None, module="", only=flipped.only, shortlisted=True
        )
        flipped_tasks, rejected, _, flipped_suite, _ = _tasks(flipped.key, flipped.workspace, variant_options)
        before, after = suite.report.outcomes, flipped_suite.report.outcomes
        paraphrase = flipped.report(before, after, len(tasks), len(flipped_tasks), rejected)
        tasks = [dataclasses.replace(t, paraphrased=True) for t in flipped_tasks]
    card = _card(options, prepared, suite, classes, tasks, rejections, checks, time.monotonic() - started)
    card.paraphrase = paraphrase
    counts = {
        "classes": card.classes,
        "tasks": card.tasks,
        "directives": card.directives,
        "rejection_reasons": card.rejection_reasons,
    }
    url = options.repo if "://" in options.repo else ""
    write_dataset(
        tasks,
        ClassBenchTask,
        options.out,
        card.to_dict(),
        render_card(card),
        benchmark=ClassBenchJava.name,
        sources=[HubSource(options.repo, url, options.commit or "", "unknown")],
        counts=counts,
    )
    return card


def _tasks(key: str, prepared: JavaWorkspace, options: JavaBuildOptions):
    workspace = prepared.workspace
    main_root = workspace.tree / workspace.source_dir
    texts = {
        str(p.relative_to(workspace.tree)): p.read_text(encoding=workspace.encoding, errors="surrogateescape")
        for p in sorted(main_root.rglob("*.java"))
    }
    repository_types = declared_types(texts.items())
    classes = [info for path, text in texts.items() for info in analyse_main_file(path, text, repository_types)]
    limits = sandbox.Limits(wall_seconds=options.suite_seconds, cpu_seconds=int(options.suite_seconds * 2))
    parents = {c.qualified_name: c.parent for c in classes}
    tasks, rejections, checks = [], [], {}
    with sandbox.leased_slot() as slot:
        suite = _cached_suite(prepared, slot, limits)
        reported = map_reported(suite.outcomes, suite.unattributed, *index_sources(_test_side_sources(workspace)))
        tests = reported.found
        passing = {name for name, outcome in suite.outcomes.items() if outcome == "passed"}
        for info in progress(classes, "shortlisting classes", unit="class"):
            if options.only and info.qualified_name not in options.only:
                continue
            decision = decide(info, tests, passing)
            if options.shortlisted and not decision.accepted and decision.reason != DOES_NOT_PARSE:
                directives = sorted(t.name for t in referencing_tests(info, tests, passing))
                decision = Decision(bool(directives), NO_PASSING_TEST, directives=directives)
            if not decision.accepted:
                rejections.append({"class": info.qualified_name, "reason": decision.reason, "detail": decision.detail})
                continue
            task = _task(
                key,
                options,
                prepared,
                info,
                texts[info.file_path],
                decision.directives,
                [] if options.no_relatives else relatives(info.qualified_name, parents),
            )
            check = _check(task, prepared, slot)
            if check["gold"] != "plausible":
                rejections.append({"class": info.qualified_name, "reason": GOLD_FAILS, "detail": check["gold_reason"]})
                continue
            if check["empty"] == "plausible":
                rejections.append({"class": info.qualified_name, "reason": EMPTY_PASSES, "detail": ""})
                continue
            checks[info.qualified_name] = check
            tasks.append(task)
    return tasks, rejections, checks, SuiteRun(suite, reported), classes


@dataclass(frozen=True)
class SuiteRun:
    report: SuiteReport
    tests: ReportedTests

    def outcomes(self) -> dict[str, int]:
        """Outcome → tests, the ones reported with no method among them."""
        return dict(Counter([*self.report.outcomes.values(), *(u["outcome"] for u in self.report.unattributed)]))


def _test_side_sources(workspace) -> list[tuple[str, str]]:
    """Every Java source of the module, where a test or a class it extends can be declared: the test root last, so
    that a name declared twice is the test root's."""
    test_root = workspace.tree / workspace.test_dir
    files = sorted(workspace.tree.rglob("*.java"), key=lambda p: (p.is_relative_to(test_root), str(p)))
    encoding = workspace.test_encoding
    return [(str(p.relative_to(workspace.tree)), p.read_text(encoding=encoding, errors="replace")) for p in files]


def _task(
    key: str,
    options: JavaBuildOptions,
    prepared: JavaWorkspace,
    info,
    text: str,
    directives: list[str],
    related: list[str],
) -> ClassBenchTask:
    detailed, sketchy = java_metadata(text, info.name, info.file_path)
    return ClassBenchTask(
        task_id=task_id(key, info.file_path, info.name),
        language="java",
        repo=options.repo,
        commit=options.commit or "",
        file_path=info.file_path,
        class_name=info.name,
        module=info.qualified_name.rpartition(".")[0],
        ground_truth_class=text,
        imports=[],
        detailed_metadata=detailed,
        sketchy_metadata=sketchy,
        detailed_description="",
        sketchy_description="",
        test_directives=directives,
        external_references=info.external_references,
        class_tokens=info.tokens,
        paraphrased=False,
        relatives=related,
        setup=prepared.setup.to_json(),
    )


def _check(task: ClassBenchTask, prepared: JavaWorkspace, slot: int) -> dict:
    """The ground truth and the empty class through the class harness: statuses, and the empty class's CR and TR.

    Cached by the workspace, the file and the directives: a second build of the same repository judges nothing."""
    key = hashlib.sha256(
        "\0".join(
            [prepared.workspace.root.name, task.file_path, task.ground_truth_class, *task.test_directives]
        ).encode()
    ).hexdigest()[:24]
    cached = prepared.workspace.root.parent.parent / "checks" / f"{key}.json"
    if cached.is_file():
        return json.loads(cached.read_text())
    check = _run_check(task, prepared, slot, cached.with_suffix(""))
    write_text_atomic(cached, json.dumps(check))
    return check


def _run_check(task: ClassBenchTask, prepared: JavaWorkspace, slot: int, logs: Path) -> dict:
    runner = ClassTaskRunner(task, prepared, slot, sandbox.Limits(), logs)
    try:
        gold = runner.evaluate(task.ground_truth_class, "gold")
        empty = runner.evaluate(empty_shell(task.ground_truth_class, task.class_name, task.task_id), "empty")
    finally:
        runner.close()
    total = len(task.test_directives)
    return {
        "directives": total,
        "gold": gold.status,
        "gold_reason": gold.reason,
        "gold_passed": gold.tests_passed,
        "empty": empty.status,
        "empty_compiled": empty.compiled,
        "empty_TR": round(empty.tests_passed / total, 3) if total else 0.0,
    }


def _cached_suite(prepared: JavaWorkspace, slot: int, limits: sandbox.Limits) -> SuiteReport:
    # .report.json: the report with its unattributed tests (a plain .json beside it is an older build's outcomes)
    path = prepared.workspace.root.parent.parent / "suites" / f"{prepared.workspace.root.name}.report.json"
    if path.is_file():
        return SuiteReport(**json.loads(path.read_text()))
    if not prepared.test_classes:
        raise BenchsmithError(
            f"{prepared.workspace.root}: no test class to run (none compiles, or none is named as Surefire runs them)"
        )
    log.info("running the test suite once (%d classes)", len(prepared.test_classes))
    report = run_suite(prepared, slot, limits, path.with_suffix("").with_suffix(".log"))
    if not report.outcomes and not report.unattributed:
        raise BenchsmithError(
            f"{prepared.workspace.root}: the test suite ran no test; see {path.with_suffix('').with_suffix('.log')}"
        )
    write_text_atomic(path, json.dumps(dataclasses.asdict(report), indent=1, sort_keys=True))
    return report


def _card(options, prepared: JavaWorkspace, suite: SuiteRun, classes, tasks, rejections, checks, seconds) -> BuildCard:
    facts = JavaBuildFacts(
        module=options.module,
        classpath_source=prepared.setup.classpath,
        release=prepared.setup.release,
        test_runtime=test_runtime(prepared).describe(),
        libraries=prepared.libraries,
        excluded_test_classes=prepared.excluded_tests,
        excluded_main_classes=prepared.excluded_main,
        missing_artifacts=prepared.missing_artifacts,
        missing_parent_pom=prepared.missing_parent,
        missing_bom_imports=prepared.missing_imports,
        sibling_modules=prepared.siblings,
        generated_files=prepared.generated,
        resolved_coordinates=list(prepared.setup.resolved),
        classpath_notes=prepared.classpath_notes,
        suite_tests=suite.tests.counts(len(suite.report.outcomes) + len(suite.report.unattributed)),
        tests_without_source=suite.tests.missing,
        compiler=jdk_for(prepared.setup.release or "8").describe(),
    )
    return BuildCard(
        dataset="RepoClassBench (java)",
        tool=f"benchsmith {__version__}",
        built_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        repo=options.repo,
        commit=options.commit or "",
        facts=facts,
        test_suite=suite.outcomes(),
        classes=len(classes),
        tasks=len(tasks),
        directives=sum(len(t.test_directives) for t in tasks),
        rejection_reasons=dict(Counter(r["reason"] for r in rejections).most_common()),
        rejections=rejections,
        solution_checks=checks,
        no_relatives=options.no_relatives,
        seconds=round(seconds, 1),
    )


def render_card(card: BuildCard) -> str:
    facts = card.facts
    lines = [
        f"# {card.dataset}: {card.repo} {card.commit}{' module ' + card.facts.module if card.facts.module else ''}",
        "",
        f"Built by {card.tool} on {card.built_at} in {card.seconds}s; Java release {card.facts.release}, compiled by "
        f"{card.facts.compiler or 'the JDK on PATH'}, tests run on {card.facts.test_runtime}; "
        f"class path from {card.facts.classpath_source} ({len(card.facts.libraries)} entries"
        f"{'; sibling modules compiled: ' + ', '.join(facts.sibling_modules) if facts.sibling_modules else ''}).",
        f"Class path notes: {'; '.join(facts.classpath_notes) or 'none'}.",
        f"Generated at build time: {', '.join(card.facts.generated_files) or 'nothing'}.",
        f"Declared dependencies without a jar: {', '.join(card.facts.missing_artifacts) or 'none'}"
        f"{'; parent pom not at hand: ' + card.facts.missing_parent_pom if card.facts.missing_parent_pom else ''}"
        f"{'; imported BOMs not at hand: ' + ', '.join(facts.missing_bom_imports) if facts.missing_bom_imports else ''}"
        ".",
        "",
        f"{card.tasks} tasks from {card.classes} top-level types; {card.directives} test directives.",
        f"Test suite: {', '.join(f'{k} {v}' for k, v in card.test_suite.items())}; "
        f"{len(card.facts.excluded_test_classes)} test classes left out (do not compile).",
        f"Tests the suite run reported: {', '.join(f'{k} {v}' for k, v in facts.suite_tests.items())}.",
        "",
        "## Tasks: directives, the ground truth, and the empty class (its CR and TR)",
        "",
        "| class | directives | ground truth | empty class | empty compiles | empty TR |",
        "| --- | ---: | --- | --- | --- | ---: |",
    ]
    for name, c in card.solution_checks.items():
        lines.append(
            f"| {name} | {c['directives']} | {c['gold']} | {c['empty']} | {c['empty_compiled']} | {c['empty_TR']} |"
        )
    lines += ["", "## Rejected classes", "", "| class | reason | detail |", "| --- | --- | --- |"]
    lines += [f"| {r['class']} | {r['reason']} | {r['detail']} |" for r in card.rejections]
    lines += ["", "## Tests that ran whose body was not found (no directive can use them)", ""]
    missing = facts.tests_without_source
    lines += [f"- {why}: {n}" for why, n in Counter(w.split(" (", 1)[0] for w in missing.values()).most_common()]
    lines += [f"  - {name}: {why}" for name, why in list(missing.items())[:MISSING_LISTED]]
    if len(missing) > MISSING_LISTED:
        lines.append(f"  - and {len(missing) - MISSING_LISTED} more (the card's JSON lists them)")
    lines += [] if missing else ["none"]
    lines += ["", "## Test classes left out", ""]
    lines += [f"- {name}: {why}" for name, why in card.facts.excluded_test_classes.items()] or ["none"]
    lines += ["", "## Main classes left out (they do not compile against the class path)", ""]
    lines += [f"- {name}: {why}" for name, why in card.facts.excluded_main_classes.items()] or ["none"]
    return "\n".join(lines) + "\n"
