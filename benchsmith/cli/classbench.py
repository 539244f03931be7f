"""``benchsmith classbench build|import|locate``: RepoClassBench tasks, built from a repository or imported."""

from __future__ import annotations

import argparse
import os
from datetime import datetime, timezone
from pathlib import Path

from benchsmith.core.errors import BenchsmithError


def _classbench_build(args: argparse.Namespace) -> int:
    from benchsmith.builders.classbench.python.build import ClassBenchOptions, build

    if args.language == "java":
        return _classbench_build_java(args)
    card = build(
        ClassBenchOptions(
            repo=args.repo,
            out=args.out,
            commit=args.commit,
            language=args.language,
            paraphrase=args.paraphrase,
            no_relatives=args.no_relatives,
            as_of=args.as_of,
            resolve=args.resolve,
            python=args.python or "",
            system_deps=args.system_deps,
            services=args.services,
            pure_python=args.pure_python,
        )
    )
    print(
        f"{args.out}: {card.tasks} tasks from {card.classes} classes, {card.directives} directives "
        f"(rejected: {', '.join(f'{r} {n}' for r, n in card.rejection_reasons.items())}) in {card.seconds}s"
    )
    if card.paraphrase["run"]:
        p = card.paraphrase
        print(
            f"paraphrased: {p['names_flipped']} names flipped; {p['still_passing_after']} of "
            f"{p['tests_passing_before']} "
            f"passing tests still pass ({100 * (p['still_passing_share'] or 0):.1f}%)"
        )
    return 0


def _classbench_build_java(args: argparse.Namespace) -> int:
    from benchsmith.builders.classbench.java.build import JavaBuildOptions, build_java

    if args.offline:
        os.environ["BENCHSMITH_OFFLINE"] = "1"  # read where the class path is resolved (runners/java/central.py)
    card = build_java(
        JavaBuildOptions(
            repo=args.repo,
            out=args.out,
            commit=args.commit,
            module=args.module or "",
            classpath=args.classpath or "",
            classpath_dir=args.classpath_dir or "",
            release=args.release or "",
            no_relatives=args.no_relatives,
            paraphrase=args.paraphrase,
        )
    )
    print(
        f"{args.out}: {card.tasks} tasks from {card.classes} classes, {card.directives} directives "
        f"(rejected: {', '.join(f'{r} {n}' for r, n in card.rejection_reasons.items())}) in {card.seconds}s; "
        f"class path from {card.facts.classpath_source}"
    )
    if card.paraphrase["run"]:
        p = card.paraphrase
        print(
            f"paraphrased: {p['names_flipped']} names flipped ({p['names_excluded']} kept); {p['still_passing_after']} "
            f"of {p['tests_passing_before']} passing tests still pass ({100 * (p['still_passing_share'] or 0):.1f}%); "
            f"{p['tasks_after']} of {p['tasks_before']} tasks rebuilt"
        )
    return 0


def _classbench_locate(args: argparse.Namespace) -> int:

    from benchsmith.builders.classbench.java.locate import locate_published

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
        print(
            f"{name}: {match.commit[:12]} of {match.commit_date[:10]} holds {match.matching} of {match.tasks} ground "
            f"truths and {match.tests_present} test files; {match.candidates} commits do "
            f"({match.candidates_on_default_branch} on the default branch){differing}"
        )
    located = sum(1 for m in found.values() if m.commit)
    print(f"{args.out}: {located} of {len(found)} repositories located")
    return 0 if located == len(found) else 1


def _classbench_import(args: argparse.Namespace) -> int:
    from benchsmith.builders.classbench.published import import_published

    summary = import_published(
        args.source,
        args.out,
        args.language,
        args.repos,
        args.commits,
        check_directives=not args.no_directive_check,
        services=args.services,
    )
    repositories = ", ".join(f"{repo} {count}" for repo, count in summary.per_repository.items())
    print(
        f"{args.out}: {summary.tasks} published {summary.language} tasks imported as {summary.benchmark} "
        f"from {len(summary.per_repository)} repositories ({repositories})"
    )
    if summary.without_commit:
        print(
            f"{summary.without_commit} tasks record no commit: the published file names none, so their commit is "
            "left empty; judge them once you supply each repository (--repos DIR holding DIR/<repo_name>)"
        )
    if summary.supplied:
        print(f"judged on the folders given: {', '.join(f'{n} {p}' for n, p in summary.supplied.items())}")
    if summary.located:
        print(f"at the commits of {args.commits}: {', '.join(f'{n} {c[:12]}' for n, c in summary.located.items())}")
    if args.repos is not None and summary.not_supplied:
        print(f"not in {args.repos}: {', '.join(summary.not_supplied)}")
    for where, how in summary.reconstructed.items():
        kept = f"; kept as upstream spells them: {', '.join(how['flips_kept'])}" if how["flips_kept"] else ""
        print(
            f"rebuilt {where} from upstream {how['base_commit'][:12]}: {how['names_flipped']} names flipped as the "
            f"ground truths spell them, {how['files_changed']} files changed, {how['tasks']} tasks{kept}"
        )
    dropped = {task: how for task, how in summary.directives_dropped.items() if "dropped" in how}
    if dropped:
        print(
            f"{sum(how['dropped'] for how in dropped.values())} directives of {len(dropped)} tasks do not pass on "
            "their repository's own code here and were dropped (the card lists them):"
        )
        for task, how in dropped.items():
            outcomes = ", ".join(f"{outcome} {n}" for outcome, n in how["outcomes"].items())
            print(f"  {task}: {how['dropped']} of {how['of']} ({outcomes})")
    unchecked = {task: how["not checked"] for task, how in summary.directives_dropped.items() if "not checked" in how}
    if unchecked:
        print(
            f"the directives of {len(unchecked)} tasks were not checked on their repository's own code (kept as "
            "published):"
        )
        for task, why in unchecked.items():
            print(f"  {task}: {why}")
    for where, record in summary.services.items():
        if record.get("not_read"):
            print(f"{where}: the services its tests expect were not read: {record['not_read']}")
        elif record["detected"]:
            started = "; ".join(record["started"]) or "none"
            print(f"{where}: its tests expect {'; '.join(record['detected'])}; started in every run: {started}")
    if summary.not_buildable:
        print(f"{len(summary.not_buildable)} tasks cannot be built from the folders and commits given:")
        for task, why in summary.not_buildable.items():
            print(f"  {task}: {why}")
    if summary.class_names_from_file:
        print(f"{len(summary.class_names_from_file)} tasks are judged as the class their file declares:")
        for task, why in summary.class_names_from_file.items():
            print(f"  {task}: {why}")
    if summary.without_metadata:
        print(f"{len(summary.without_metadata)} tasks have no metadata, their ground truth did not analyse:")
        for task, why in summary.without_metadata.items():
            print(f"  {task}: {why}")
    return 0


def register(commands: argparse._SubParsersAction) -> None:
    classbench = commands.add_parser("classbench", help="the RepoClassBench benchmark")
    classbench_commands = classbench.add_subparsers(dest="classbench_command", required=True)
    classbench_build = classbench_commands.add_parser("build", help="a repository → shortlisted class tasks (Parquet)")
    classbench_build.add_argument(
        "--repo", required=True, metavar="SPEC", help="git URL or path (with --commit), a folder, or pypi:NAME==VERSION"
    )
    classbench_build.add_argument("--commit", help="the commit of a git repository")
    # Java is offered once its builder exists; the option stays so that scripts passing "--language python" still work.
    classbench_build.add_argument("--language", choices=["python", "java"], default="python")
    classbench_build.add_argument(
        "--module", metavar="DIR", help="java: the Maven module's folder in the repository (default: its root)"
    )
    classbench_build.add_argument(
        "--classpath",
        choices=["central", "maven", "folder", "maven-repo"],
        help="java: where the class path comes from (default: the first that works, in this order; central: Maven "
        "resolves it into benchsmith's own local repository)",
    )
    classbench_build.add_argument(
        "--offline",
        action="store_true",
        help="java: resolve nothing over the network: Maven runs offline on benchsmith's local repository, then the "
        "other class path sources (the same as BENCHSMITH_OFFLINE=1)",
    )
    classbench_build.add_argument(
        "--classpath-dir", metavar="DIR", help="java: a folder of jars, the class path when Maven cannot resolve one"
    )
    classbench_build.add_argument(
        "--release", metavar="N", help="java: the Java release to compile for (default: the pom's, at least 8)"
    )
    classbench_build.add_argument(
        "--paraphrase", action="store_true", help="case-flip the identifiers of the shortlisted classes"
    )
    classbench_build.add_argument(
        "--no-relatives",
        action="store_true",
        help="leave the relatives column empty (by default each task lists its relatives, RepoClassBench's RQ2)",
    )
    classbench_build.add_argument(
        "--as-of",
        metavar="DATE",
        help="resolve the environment with packages uploaded before DATE (default: the sdist's upload time, the "
        "commit's date, the folder's newest file)",
    )
    classbench_build.add_argument(
        "--resolve",
        choices=["as-of", "latest"],
        default="as-of",
        help="latest: resolve against today's index, with no date",
    )
    classbench_build.add_argument(
        "--python",
        metavar="X.Y",
        help="python: build and judge with this minor version, as a benchmark's own set-up names one (the "
        "RepoClassBench paper's litestar: 3.8); default: the newest released by the repository's date",
    )
    classbench_build.add_argument(
        "--system-deps",
        action="store_true",
        help="python, root only: when a dependency's build lacks a header or library, install the Debian package "
        "that provides it (looked up in Debian's Contents index) and build again; without it, the card names "
        "the package and the dependency is left out",
    )
    classbench_build.add_argument(
        "--services",
        action="store_true",
        help="python: start the servers the suite expects on localhost (Redis, PostgreSQL, MySQL/MariaDB, memcached, "
        "as its CI, compose file or test settings declare them), fresh in every run's own network namespace; as "
        "root, missing Debian packages are installed",
    )
    classbench_build.add_argument(
        "--pure-python",
        action="store_true",
        help="python: test the package's pure-Python fallback: its compiled modules are not built or imported, and "
        "the fallback switches its code reads (FOO_NO_EXTENSIONS) are set",
    )
    classbench_build.add_argument("--out", type=Path, required=True)
    classbench_build.set_defaults(handler=_classbench_build)
    classbench_import = classbench_commands.add_parser(
        "import", help="the published RepoClassBench tasks (microsoft/repoclassbench data/input/*_data.json) → Parquet"
    )
    classbench_import.add_argument(
        "--from",
        dest="source",
        required=True,
        metavar="FILE_OR_URL",
        help="python_data.json or java_data.json: a path or an http(s) URL",
    )
    classbench_import.add_argument("--out", type=Path, required=True)
    classbench_import.add_argument("--language", choices=["python", "java"], help="default: read off the entries")
    classbench_import.add_argument(
        "--repos",
        type=Path,
        metavar="DIR",
        help="a folder holding each published repository as DIR/<name> (the name the "
        "command counts its tasks by): Java's a checkout judged as it is (the file "
        "records no commit), Python's a git history read at the task's commit",
    )
    classbench_import.add_argument(
        "--commits",
        type=Path,
        metavar="MAPPING",
        help="java: the mapping `classbench locate` wrote: each task is judged at its "
        "repository's commit, in the history --repos DIR/<name> (else the mapping's) holds",
    )
    classbench_import.add_argument(
        "--no-directive-check",
        action="store_true",
        help="keep every published directive of a supplied Python task; by default those that "
        "do not pass on the repository's own code at its commit are dropped and counted",
    )
    classbench_import.add_argument(
        "--services",
        action="store_true",
        help="python, with --repos: start the servers a supplied repository's tests expect on localhost (as "
        "`classbench build --services`, read at each task's commit), fresh in every run of the directive check "
        "and of eval; the tasks record them; as root, missing Debian packages are installed",
    )
    classbench_import.set_defaults(handler=_classbench_import)
    classbench_locate = classbench_commands.add_parser(
        "locate", help="the commit of each published Java repository, found by its tasks' ground truths"
    )
    classbench_locate.add_argument(
        "--from", dest="source", required=True, metavar="FILE_OR_URL", help="java_data.json: a path or an http(s) URL"
    )
    classbench_locate.add_argument(
        "--repos",
        type=Path,
        required=True,
        metavar="DIR",
        help="a folder holding each repository's git history as DIR/<repo_name> (a clone or a bare mirror)",
    )
    classbench_locate.add_argument(
        "--before",
        metavar="DATE",
        help="prefer commits before DATE (the published file's own date): among equal matches the newest before it is "
        "chosen",
    )
    classbench_locate.add_argument("--out", type=Path, required=True, metavar="MAPPING")
    classbench_locate.set_defaults(handler=_classbench_locate)
