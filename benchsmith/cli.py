"""The ``benchsmith`` command line (its shape is a contract: see DESIGN.md)."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

from benchsmith import __version__
from benchsmith.errors import BenchsmithError
from benchsmith.progress import setup_logging

log = logging.getLogger("benchsmith")


def _nl2fix_build(args: argparse.Namespace) -> int:
    from builders.nl2fix import BuildOptions, build

    started = time.monotonic()
    card = build(
        BuildOptions(
            defects4j=args.defects4j,
            out=args.out,
            repos=args.repos,
            projects=args.projects,
            scrape=not args.no_scrape,
            workers=args.workers,
            validate=args.validate,
            timeout=args.timeout,
            **({"selection": args.selection} if args.selection else {}),
            bugs=args.bugs,
        )
    )
    per_project = ", ".join(f"{p} {s['selected']}/{s['bugs']}" for p, s in card["projects"].items())
    print(f"{args.out}: {card['instances']} instances ({card['selection']} rule, {card['near_misses']} near misses) "
          f"from {card['bugs']} bugs ({per_project}) in {time.monotonic() - started:.1f}s")  # fmt: skip
    if args.bugs is not None:  # a published list: say which of its bugs the rule rejects, and why
        for rejection in card["rejections"]:
            print(f"rejected {rejection['bug']}: {rejection['reason']} ({rejection['detail']})")
    for project, reason in card["skipped_projects"].items():
        print(f"skipped {project}: {reason}")
    return 0


def _limits(args: argparse.Namespace):
    from harness.sandbox import Limits

    return Limits(wall_seconds=args.timeout)


def _validate(args: argparse.Namespace) -> int:
    from benchsmith.atomic import write_text_atomic
    from benchsmith.journal import Journal
    from benchsmith.schema import NL2FixInstance, read_records
    from builders.validate import summary, validate_all
    from sources.defects4j import Defects4JRoot

    instances = read_records(args.dataset, NL2FixInstance)
    outcomes = validate_all(instances, Defects4JRoot(args.defects4j.resolve()), args.repos, args.workers, _limits(args),
                            args.out.with_name(args.out.name + ".logs"), _executor(args), out=args.out)  # fmt: skip
    from harness.javatools import defects4j_runtime

    runtime = defects4j_runtime().describe()
    report = {"summary": summary(outcomes), "test_runtime": runtime,
              "instances": {i: {"status": v.status, "reason": v.reason} for i, v in outcomes.items()}}  # fmt: skip
    write_text_atomic(args.out, json.dumps(report, indent=2) + "\n")
    Journal(args.out).remove()
    counts = report["summary"]
    print(f"{args.out}: {counts.get('reproduced', 0)} of {counts['instances']} instances reproduced (tests on {runtime})")
    for instance_id, validation in outcomes.items():
        if validation.status != "reproduced":
            print(f"  {instance_id}: {validation.reason}")
    return 0


def _eval(args: argparse.Namespace) -> int:
    from harness.benchmarks import EvalOptions
    from harness.evaluate import evaluate

    results = evaluate(
        EvalOptions(
            dataset=args.dataset, candidates=args.candidates, out=args.out, defects4j=args.defects4j, repos=args.repos,
            workers=args.workers, limits=_limits(args), fast=not args.plain, regression=args.regression,
            second_opinion=args.second_opinion,
        ),
        _executor(args),
    )  # fmt: skip
    statuses = {s: sum(r.status == s for r in results) for s in ("plausible", "wrong", "uncompilable", "timeout", "error")}
    print(f"{args.out}: {len(results)} results ({', '.join(f'{s} {n}' for s, n in statuses.items())})")
    return 0


def _report(args: argparse.Namespace) -> int:
    from benchsmith.schema import RankedCandidate, Result, json_objects, read_records, read_stamp
    from harness.benchmarks import get
    from harness.report import METRIC_COLUMNS, plot, render_table, summarise

    ks = [int(k) for k in args.k.split(",")]
    results = read_records(args.results, Result)
    stamp = read_stamp(args.results)
    columns = get(stamp.benchmark).report_columns if stamp and stamp.benchmark else METRIC_COLUMNS
    ranking = read_records(args.ranking, RankedCandidate) if args.ranking else None
    transcripts = []
    for path in args.transcripts or []:
        for where, row in json_objects(path, "transcripts"):
            if not isinstance(row.get("task_id"), str) or not isinstance(row.get("events"), list):
                raise BenchsmithError(f"{where}: not an agent transcript (no task_id and events)")
            transcripts.append(row)
    summary = summarise(results, ks, ranking, transcripts)
    if args.plots:
        for path in plot(summary, args.plots, ks):
            print(f"wrote {path}", file=sys.stderr)
    print(json.dumps(summary, indent=2) if args.json else render_table(summary, ks, columns))
    return 0


def _rank(args: argparse.Namespace) -> int:
    from harness.ranking import parse_threshold, rank_to_file

    records = rank_to_file(args.dataset, args.candidates, args.out, args.embedder, parse_threshold(args.threshold))
    kept = sum(not r.pruned for r in records)
    print(f"{args.out}: {len(records)} candidates ranked, {kept} above the threshold, {len(records) - kept} pruned")
    return 0


def _scrape(args: argparse.Namespace) -> int:
    from scrapers.scrape import run

    if args.workers < 1:
        raise BenchsmithError(f"--workers {args.workers}: must be at least 1")
    summary = run(args.urls, args.out, workers=args.workers)
    missing = ", ".join(f"{reason}: {count}" for reason, count in summary.missing.items()) or "none"
    print(f"{args.out}: {summary.filled} of {summary.urls} issues filled; missing: {missing} "
          f"({summary.network_requests} requests, {summary.cache_hits} answered from the cache)")  # fmt: skip
    return 0


def _classbench_build(args: argparse.Namespace) -> int:
    from builders.classbench.build import ClassBenchOptions, build

    if args.language == "java":
        return _classbench_build_java(args)
    card = build(ClassBenchOptions(repo=args.repo, out=args.out, commit=args.commit, language=args.language,
                                   paraphrase=args.paraphrase, no_relatives=args.no_relatives, as_of=args.as_of,
                                   resolve=args.resolve))  # fmt: skip
    print(f"{args.out}: {card['tasks']} tasks from {card['classes']} classes, {card['directives']} directives "
          f"(rejected: {', '.join(f'{r} {n}' for r, n in card['rejection_reasons'].items())}) in {card['seconds']}s")  # fmt: skip
    if card["paraphrase"]["run"]:
        p = card["paraphrase"]
        print(f"paraphrased: {p['names_flipped']} names flipped; {p['still_passing_after']} of {p['tests_passing_before']} "
              f"passing tests still pass ({100 * (p['still_passing_share'] or 0):.1f}%)")  # fmt: skip
    return 0


def _classbench_build_java(args: argparse.Namespace) -> int:
    from builders.classbench.java_build import JavaBuildOptions, build_java

    card = build_java(JavaBuildOptions(repo=args.repo, out=args.out, commit=args.commit, module=args.module or "",
                                       classpath=args.classpath or "", classpath_dir=args.classpath_dir or "",
                                       release=args.release or "", no_relatives=args.no_relatives,
                                       paraphrase=args.paraphrase))  # fmt: skip
    print(f"{args.out}: {card['tasks']} tasks from {card['classes']} classes, {card['directives']} directives "
          f"(rejected: {', '.join(f'{r} {n}' for r, n in card['rejection_reasons'].items())}) in {card['seconds']}s; "
          f"class path from {card['classpath_source']}")  # fmt: skip
    if card["paraphrase"]["run"]:
        p = card["paraphrase"]
        print(f"paraphrased: {p['names_flipped']} names flipped ({p['names_excluded']} kept); {p['still_passing_after']} "
              f"of {p['tests_passing_before']} passing tests still pass ({100 * (p['still_passing_share'] or 0):.1f}%); "
              f"{p['tasks_after']} of {p['tasks_before']} tasks rebuilt")  # fmt: skip
    return 0


def _classbench_locate(args: argparse.Namespace) -> int:
    from datetime import datetime, timezone

    from builders.classbench.locate import locate_published

    before = None
    if args.before:
        try:
            before = datetime.fromisoformat(args.before)
        except ValueError:
            raise BenchsmithError(f"--before {args.before}: not a date (YYYY-MM-DD or ISO 8601)") from None
        before = before if before.tzinfo else before.replace(tzinfo=timezone.utc)
    found = locate_published(args.source, args.repos, args.out, before)
    for name, match in found.items():
        if match.commit is None:
            print(f"{name}: no commit: {match.why}")
            continue
        differing = f"; first differing: {match.first_differing['why']}" if match.first_differing else ""
        print(f"{name}: {match.commit[:12]} of {match.commit_date[:10]} holds {match.matching} of {match.tasks} ground "
              f"truths and {match.tests_present} test files; {match.candidates} commits do "
              f"({match.candidates_on_default_branch} on the default branch){differing}")  # fmt: skip
    located = sum(1 for m in found.values() if m.commit)
    print(f"{args.out}: {located} of {len(found)} repositories located")
    return 0 if located == len(found) else 1


def _classbench_import(args: argparse.Namespace) -> int:
    from builders.classbench.published import import_published

    summary = import_published(args.source, args.out, args.language, args.repos, args.commits)
    repositories = ", ".join(f"{repo} {count}" for repo, count in summary.per_repository.items())
    print(f"{args.out}: {summary.tasks} published {summary.language} tasks imported as {summary.benchmark} "
          f"from {len(summary.per_repository)} repositories ({repositories})")  # fmt: skip
    if summary.without_commit:
        print(f"{summary.without_commit} tasks record no commit: the published file names none, so their commit is "
              "left empty; judge them once you supply each repository (--repos DIR holding DIR/<repo_name>)")  # fmt: skip
    if summary.supplied:
        print(f"judged on the folders given: {', '.join(f'{n} {p}' for n, p in summary.supplied.items())}")
    if summary.located:
        print(f"at the commits of {args.commits}: {', '.join(f'{n} {c[:12]}' for n, c in summary.located.items())}")
    if args.repos is not None and summary.not_supplied:
        print(f"not in {args.repos}: {', '.join(summary.not_supplied)}")
    for where, how in summary.reconstructed.items():
        kept = f"; kept as upstream spells them: {', '.join(how['flips_kept'])}" if how["flips_kept"] else ""
        print(f"rebuilt {where} from upstream {how['base_commit'][:12]}: {how['names_flipped']} names flipped as the "
              f"ground truths spell them, {how['files_changed']} files changed, {how['tasks']} tasks{kept}")  # fmt: skip
    if summary.not_buildable:
        print(f"{len(summary.not_buildable)} tasks cannot be built from the folders and commits given:")
        for task, why in summary.not_buildable.items():
            print(f"  {task}: {why}")
    if summary.without_metadata:
        print(f"{len(summary.without_metadata)} tasks have no metadata, their ground truth did not analyse:")
        for task, why in summary.without_metadata.items():
            print(f"  {task}: {why}")
    return 0


def _paraphrase(args: argparse.Namespace) -> int:
    if args.language == "java":
        from paraphrase.java.run import paraphrase_java_classes

        classpath = [Path(p) for p in (args.classpath or "").split(os.pathsep) if p]
        paraphrase_java_classes(args.repo, args.out, [args.classes] if args.classes else None, args.seed, classpath,
                                args.release)  # fmt: skip
        return 0
    from paraphrase.run import paraphrase_classes

    paraphrase_classes(args.repo, args.out, args.seed, args.classes.split(",") if args.classes else None, args.strict)
    return 0


def _reference_candidates(args: argparse.Namespace) -> int:
    from harness.reference import write_reference_candidates

    count = write_reference_candidates(args.dataset, args.out, args.mutants)
    print(f"{args.out}: {count} reference candidates")
    return 0


def _describe(args: argparse.Namespace) -> int:
    from builders.describe import describe
    from harness.models import backend_from_args, format_usage

    backend = backend_from_args(args)
    summary = describe(args.dataset, backend, args.out)
    print(f"{args.out or args.dataset}: {summary.described} of {summary.tasks} tasks described by {backend.name} "
          f"({summary.skipped} already were, {summary.resumed} by an interrupted run, "
          f"{len(summary.without_answers)} without an answer)")  # fmt: skip
    print(format_usage(backend), file=sys.stderr)
    return 0


def _generate(args: argparse.Namespace) -> int:
    from harness.generate import generate
    from harness.models import backend_from_args, format_usage

    backend = backend_from_args(args)
    summary = generate(args.dataset, args.strategy, backend, args.n, args.temperature, args.out,
                       description=args.description, max_tokens=args.max_tokens)  # fmt: skip
    print(f"{args.out}: {summary.candidates} candidates for {summary.items} items ({summary.resumed} from an interrupted run, "
          f"{len(summary.without_answers)} without an answer, {summary.not_extracted} with no code found)")  # fmt: skip
    print(format_usage(backend), file=sys.stderr)
    return 0


def _agent_run(args: argparse.Namespace) -> int:
    from harness.agents.run import AgentRunOptions, run_agent, transcripts_path
    from harness.models import backend_from_args, format_usage

    backend = backend_from_args(args)
    summary = run_agent(args.dataset, backend, args.out, AgentRunOptions(
        agent=args.agent, description=args.description, max_calls=args.max_calls, tool_format=args.tool_format,
        no_relatives=args.no_relatives, temperature=args.temperature, max_tokens=args.max_tokens, limits=_limits(args),
        workers=args.workers), _executor(args))  # fmt: skip
    print(f"{args.out}: {summary.candidates} candidates for {summary.tasks} tasks by {args.agent} ({summary.resumed} "
          f"from an interrupted run, {summary.passed} passing the oracle, {summary.no_code} answers without code; "
          f"{summary.tool_format} tool calls) in {summary.seconds:.1f}s; transcripts in {transcripts_path(args.out)}")  # fmt: skip
    usage = summary.usage
    print(f"the transcripts' tokens (resumed steps included): {usage.prompt_tokens} prompt + {usage.completion_tokens} "
          f"completion" + (f", cost ${usage.cost_usd:.4f}" if backend.priced else ""), file=sys.stderr)  # fmt: skip
    print(format_usage(backend), file=sys.stderr)
    return 0


def _agent_demo_script(args: argparse.Namespace) -> int:
    from harness.agents.demo import demo_script

    tasks = demo_script(args.dataset, args.out, args.description, args.max_calls)
    print(f"{args.out}: a scripted RRR demonstration for {tasks} tasks (an attempt that fails, two tool calls, "
          "a reflection, the gold); run it with `agent run --agent rrr --backend scripted --script`")  # fmt: skip
    return 0


def _agent_list(args: argparse.Namespace) -> int:
    from harness.agents import agents

    for name, entry in agents().items():
        print(f"{name:<10} {entry.help}")
    return 0


def _add_execution_options(parser: argparse.ArgumentParser, d4j_required: bool = True) -> None:
    parser.add_argument("--defects4j", type=Path, required=d4j_required, metavar="D4J_ROOT",
                        help="the Defects4J checkout an NL2Fix dataset came from")  # fmt: skip
    parser.add_argument("--repos", type=Path, metavar="DIR", help="upstream git repositories as DIR/<Project>")
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="instances run in parallel")
    parser.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per candidate run")
    _add_executor_options(parser)


def _add_executor_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--executor", choices=["local", "ray"], default="local",
                        help="where instances run: threads here (--workers of them) or a Ray cluster")  # fmt: skip
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="the Ray cluster to join (host:port or 'auto'); default: RAY_ADDRESS, else a new local one")  # fmt: skip


def _executor(args: argparse.Namespace):
    from harness.executors import executor

    return executor(args.executor, args.workers, args.ray_address)


def build_parser() -> argparse.ArgumentParser:
    from harness.models import add_backend_arguments  # argparse only: no backend module is imported
    from harness.prompts import STRATEGIES

    parser = argparse.ArgumentParser(prog="benchsmith", description=__doc__)
    parser.add_argument("--version", action="version", version=f"benchsmith {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages (cache misses, ...)")
    commands = parser.add_subparsers(dest="command", required=True)

    nl2fix = commands.add_parser("nl2fix", help="the Defects4J-NL2Fix benchmark")
    nl2fix_commands = nl2fix.add_subparsers(dest="nl2fix_command", required=True)
    nl2fix_build = nl2fix_commands.add_parser("build", help="Defects4J → single-method instances (Parquet)")
    nl2fix_build.add_argument("--defects4j", type=Path, required=True, metavar="D4J_ROOT", help="a Defects4J checkout")
    nl2fix_build.add_argument("--repos", type=Path, metavar="DIR", help="upstream git repositories as DIR/<Project>")
    nl2fix_build.add_argument("--projects", metavar="P,Q", help="comma-separated projects, or 'all' (default: the paper's twelve)")
    nl2fix_build.add_argument("--selection", choices=["strict", "lenient"],  # builders/selection.py SELECTIONS
                              help="strict: the fix changes one method only; lenient (the default): also fields and "
                                   "helper methods, recorded as each instance's extra_changes")  # fmt: skip
    nl2fix_build.add_argument("--bugs", type=Path, metavar="FILE",
                              help="build exactly these bugs (ids like Cli-5, one a line); rejected ones are listed")  # fmt: skip
    nl2fix_build.add_argument("--no-scrape", action="store_true", help="leave the issue columns empty")
    nl2fix_build.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help="parallel analysis processes")
    nl2fix_build.add_argument("--validate", action="store_true", help="execute gold and buggy; fill the validation column")
    nl2fix_build.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per run when validating")
    nl2fix_build.add_argument("--out", type=Path, required=True, help="the Parquet file to write")
    nl2fix_build.set_defaults(handler=_nl2fix_build)

    classbench = commands.add_parser("classbench", help="the RepoClassBench benchmark")
    classbench_commands = classbench.add_subparsers(dest="classbench_command", required=True)
    classbench_build = classbench_commands.add_parser("build", help="a repository → shortlisted class tasks (Parquet)")
    classbench_build.add_argument("--repo", required=True, metavar="SPEC", help="git URL or path (with --commit), a folder, or pypi:NAME==VERSION")
    classbench_build.add_argument("--commit", help="the commit of a git repository")
    # Java is offered once its builder exists; the option stays so that scripts passing "--language python" still work.
    classbench_build.add_argument("--language", choices=["python", "java"], default="python")
    classbench_build.add_argument("--module", metavar="DIR", help="java: the Maven module's folder in the repository (default: its root)")
    classbench_build.add_argument("--classpath", choices=["maven", "folder", "maven-repo"], help="java: where the class path comes from (default: the first that works, in this order)")
    classbench_build.add_argument("--classpath-dir", metavar="DIR", help="java: a folder of jars, the class path when Maven cannot resolve one")
    classbench_build.add_argument("--release", metavar="N", help="java: the Java release to compile for (default: the pom's, at least 8)")
    classbench_build.add_argument("--paraphrase", action="store_true", help="case-flip the identifiers of the shortlisted classes")
    classbench_build.add_argument("--no-relatives", action="store_true", help="leave the relatives column empty (by default each task lists its relatives, seed 002's RQ2)")
    classbench_build.add_argument("--as-of", metavar="DATE", help="resolve the environment with packages uploaded before DATE (default: the sdist's upload time, the commit's date, the folder's newest file)")
    classbench_build.add_argument("--resolve", choices=["as-of", "latest"], default="as-of", help="latest: resolve against today's index, with no date")
    classbench_build.add_argument("--out", type=Path, required=True)
    classbench_build.set_defaults(handler=_classbench_build)
    classbench_import = classbench_commands.add_parser("import", help="the published RepoClassBench tasks (microsoft/repoclassbench data/input/*_data.json) → Parquet")
    classbench_import.add_argument("--from", dest="source", required=True, metavar="FILE_OR_URL", help="python_data.json or java_data.json: a path or an http(s) URL")
    classbench_import.add_argument("--out", type=Path, required=True)
    classbench_import.add_argument("--language", choices=["python", "java"], help="default: read off the entries")
    classbench_import.add_argument("--repos", type=Path, metavar="DIR",
                                   help="a folder holding each published repository as DIR/<name> (the name the "
                                        "command counts its tasks by): Java's a checkout judged as it is (the file "
                                        "records no commit), Python's a git history read at the task's commit")  # fmt: skip
    classbench_import.add_argument("--commits", type=Path, metavar="MAPPING",
                                   help="java: the mapping `classbench locate` wrote: each task is judged at its "
                                        "repository's commit, in the history --repos DIR/<name> (else the mapping's) holds")  # fmt: skip
    classbench_import.set_defaults(handler=_classbench_import)
    classbench_locate = classbench_commands.add_parser("locate", help="the commit of each published Java repository, found by its tasks' ground truths")
    classbench_locate.add_argument("--from", dest="source", required=True, metavar="FILE_OR_URL", help="java_data.json: a path or an http(s) URL")
    classbench_locate.add_argument("--repos", type=Path, required=True, metavar="DIR", help="a folder holding each repository's git history as DIR/<repo_name> (a clone or a bare mirror)")
    classbench_locate.add_argument("--before", metavar="DATE", help="prefer commits before DATE (the published file's own date): among equal matches the newest before it is chosen")
    classbench_locate.add_argument("--out", type=Path, required=True, metavar="MAPPING")
    classbench_locate.set_defaults(handler=_classbench_locate)

    paraphrase = commands.add_parser("paraphrase", help="case-flip a repository's class identifiers consistently (Python or Java)")
    paraphrase.add_argument("--language", choices=["python", "java"], default="python")
    paraphrase.add_argument("--repo", type=Path, required=True, metavar="DIR")
    paraphrase.add_argument("--out", type=Path, required=True, metavar="DIR")
    paraphrase.add_argument("--seed", type=int, default=0)
    paraphrase.add_argument("--classes", metavar="FILE::CLASS,... | a.b.Class,...", help="Python: default every module-level class outside tests; Java: fully qualified top-level classes (required)")
    paraphrase.add_argument("--strict", action="store_true", help="(Python) also keep attributes of objects of unknown type")
    paraphrase.add_argument("--classpath", metavar="JARS", help=f"(Java) the jars main and test sources compile against, separated by {os.pathsep!r}")
    paraphrase.add_argument("--release", metavar="N", help="(Java) javac --release for the analysis")
    paraphrase.set_defaults(handler=_paraphrase)

    validate = commands.add_parser("validate", help="prove each instance: gold passes, buggy fails the trigger tests")
    validate.add_argument("--dataset", type=Path, required=True)
    _add_execution_options(validate)
    validate.add_argument("--out", type=Path, required=True, help="report.json")
    validate.set_defaults(handler=_validate)

    evaluate = commands.add_parser("eval", help="judge candidates by running the tests")
    evaluate.add_argument("--dataset", type=Path, required=True)
    evaluate.add_argument("--candidates", type=Path, required=True, help="JSON Lines: instance_id, candidate_id, code, ...")
    _add_execution_options(evaluate, d4j_required=False)
    evaluate.add_argument("--plain", action="store_true", help="skip the warm JVM: fresh copy, full javac, fresh JVM")
    evaluate.add_argument("--regression", action="store_true", help="run the relevant tests even after a trigger test fails")
    evaluate.add_argument("--second-opinion", action="store_true",
                          help="Python classbench: judge a plausible candidate again, in a run arranged otherwise")
    evaluate.add_argument("--out", type=Path, required=True, help="results.parquet")
    evaluate.set_defaults(handler=_eval)

    scrape = commands.add_parser("scrape", help="issue report URLs → title, description, comments (Parquet)")
    scrape.add_argument("--urls", type=Path, required=True, metavar="FILE", help="one issue URL a line")
    scrape.add_argument("--workers", type=int, default=4, help="issues fetched in parallel (per-host limits still apply)")
    scrape.add_argument("--out", type=Path, required=True, help="issues.parquet")
    scrape.set_defaults(handler=_scrape)

    candidates = commands.add_parser("candidates", help="candidate files made without a model")
    candidates_commands = candidates.add_subparsers(dest="candidates_command", required=True)
    reference = candidates_commands.add_parser("reference", help="gold, the unchanged buggy code and mutants of the gold")
    reference.add_argument("--dataset", type=Path, required=True)
    reference.add_argument("--mutants", type=int, default=8, help="mutants of the gold per NL2Fix instance")
    reference.add_argument("--out", type=Path, required=True, help="candidates JSONL")
    reference.set_defaults(handler=_reference_candidates)

    describe = commands.add_parser("describe", help="write each classbench task's DETAILED and SKETCHY descriptions")
    describe.add_argument("--dataset", type=Path, required=True, help="a classbench dataset")
    add_backend_arguments(describe, default_backend="template")
    describe.add_argument("--out", type=Path, help="the dataset to write (default: --dataset, in place)")
    describe.set_defaults(handler=_describe)

    generate = commands.add_parser("generate", help="prompt a model for candidates (JSON Lines)")
    generate.add_argument("--dataset", type=Path, required=True)
    generate.add_argument("--strategy", required=True, choices=STRATEGIES,
                          help="NL2Fix: zero-shot, title-only, one-shot, reasoning; classbench: basic")  # fmt: skip
    generate.add_argument("--n", type=int, default=10, help="samples per instance (the paper: 100)")
    generate.add_argument("--temperature", type=float, default=0.8, help="the paper: 0.8 and 0.2")
    generate.add_argument("--description", choices=["detailed", "sketchy"], help="classbench: which description to prompt with (default detailed)")
    generate.add_argument("--max-tokens", type=int, help="cap on each answer's length")
    add_backend_arguments(generate)
    generate.add_argument("--out", type=Path, required=True, help="candidates JSONL")
    generate.set_defaults(handler=_generate)

    agent = commands.add_parser("agent", help="seed 002's RRR and its baselines: agents that write candidates")
    agent_commands = agent.add_subparsers(dest="agent_command", required=True)
    agent_list = agent_commands.add_parser("list", help="the registered agents")
    agent_list.set_defaults(handler=_agent_list)
    agent_demo = agent_commands.add_parser("demo-script", help="a scripted-backend script that walks RRR through every "
                                           "phase on a dataset without a model (the gold as the second attempt)")  # fmt: skip
    agent_demo.add_argument("--dataset", type=Path, required=True)
    agent_demo.add_argument("--description", choices=["detailed", "sketchy"])
    agent_demo.add_argument("--max-calls", type=int, default=5, help="as agent run's: how many rounds to script")
    agent_demo.add_argument("--out", type=Path, required=True, help="the script (JSON Lines)")
    agent_demo.set_defaults(handler=_agent_demo_script)
    agent_run = agent_commands.add_parser("run", help="run an agent on every task of a dataset → candidates JSONL")
    agent_run.add_argument("--agent", required=True, help="basic, naive-rag, repocoder, reflexion, rrr (`agent list`)")
    agent_run.add_argument("--dataset", type=Path, required=True)
    agent_run.add_argument("--description", choices=["detailed", "sketchy"], help="which description the agent gets (default detailed)")
    agent_run.add_argument("--max-calls", type=int, default=5,
                           help="oracle calls (attempts judged) of reflexion and rrr, generations of repocoder (default 5)")  # fmt: skip
    agent_run.add_argument("--tool-format", choices=["auto", "openai", "text"], default="auto",
                           help="how the model calls tools: the OpenAI tools API, the paper's Thought/Action text, or "
                                "auto: the API where the backend offers it, text when the endpoint refuses tools")  # fmt: skip
    agent_run.add_argument("--no-relatives", action="store_true", help="leave each task's relatives out of the tools' view (seed 002's RQ2)")
    agent_run.add_argument("--temperature", type=float, default=0.2, help="the paper: 0.2")
    agent_run.add_argument("--max-tokens", type=int, help="cap on each answer's length")
    agent_run.add_argument("--timeout", type=float, default=120.0, help="wall-clock seconds per oracle run")
    agent_run.add_argument("--workers", type=int, default=1, help="tasks worked at once, each with an oracle of its own (default 1)")
    _add_executor_options(agent_run)
    add_backend_arguments(agent_run)
    agent_run.add_argument("--out", type=Path, required=True, help="candidates JSONL (transcripts go beside it)")
    agent_run.set_defaults(handler=_agent_run)

    rank = commands.add_parser("rank", help="rank each bug's candidates by embedding similarity to its buggy method")
    rank.add_argument("--dataset", type=Path, required=True, help="an NL2Fix dataset")
    rank.add_argument("--candidates", type=Path, required=True, help="JSON Lines: instance_id, candidate_id, code, ...")
    rank.add_argument("--embedder", choices=["minilm", "openai"], default="minilm",
                      help="minilm (all-MiniLM-L6-v2) runs offline; openai asks for the paper's text-embedding-ada-002")  # fmt: skip
    rank.add_argument("--threshold", default="median", metavar="median|COSINE",
                      help="prune candidates less similar than this: the median over the file (default; the paper's "
                           "came out at 0.95 with ada-002 and was then fixed), or a cosine such as 0.95")  # fmt: skip
    rank.add_argument("--out", type=Path, required=True, help="ranking.parquet")
    rank.set_defaults(handler=_rank)

    report = commands.add_parser("report", help="pass@k, per project, Table 2 statistics, plots")
    report.add_argument("--results", type=Path, required=True)
    report.add_argument("--k", default="1,5,10,100", help="comma-separated k values")
    report.add_argument("--json", action="store_true", help="print JSON instead of a table")
    report.add_argument("--plots", type=Path, metavar="DIR", help="write PNG plots here")
    report.add_argument("--ranking", type=Path, metavar="FILE", help="ranking.parquet from `benchsmith rank`: adds r.pass@k")
    report.add_argument("--transcripts", type=Path, metavar="FILE", action="append",
                        help="an agent run's transcripts (repeatable): adds its tool-call frequencies")  # fmt: skip
    report.set_defaults(handler=_report)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    setup_logging(args.verbose)
    try:
        return args.handler(args)
    except BenchsmithError as exc:
        print(f"benchsmith: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("benchsmith: interrupted; finished work is cached, run the same command again to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
