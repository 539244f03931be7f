"""``benchsmith classbench locate``: the commit each published RepoClassBench Java repository was cut from, by content.

microsoft/repoclassbench's ``java_data.json`` names no commit: its repositories come as an archive of
checkouts. Each task's ground truth is its class's whole file, so the commit is found as Math's rewritten
history is (benchsmith/sources/revision_map.py): by the blob ids of the ground truths. Every commit of the history is
scored by how many of the repository's tasks have their file at a ground-truth blob (then by how many of
their test files exist); the best-scoring commits are the candidates, and the one chosen is the newest of
them that is on the default branch (and before ``--before``, the date the published file appeared, when
given): the authors' checkout lay somewhere in that window, and its last commit is nearest to when they
took it. A file equal to its ground truth only once line endings and trailing whitespace are normalised
counts too, and says so; no other difference is forgiven.

The mapping is computed from the public histories at run time; what it stores is commit ids and counts.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

from benchsmith.builders.classbench.java.published import maven_module, under_repository
from benchsmith.builders.classbench.published_format import ImportSummary, read_entries, repository_of, text_field
from benchsmith.core.atomic import write_text_atomic
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.progress import progress
from benchsmith.core.schema import ClassBenchTask, task_id
from benchsmith.sources.history import git_dir_of
from benchsmith.sources.revision_map import blob_id, blobs_at

LOCATE_FORMAT = 1
EXACT, WHITESPACE, NONE = "exact", "equal once line endings and trailing whitespace are normalised", "none"


@dataclass(frozen=True)
class PublishedFile:
    task: str  # the task id ``classbench import`` gives it
    number: int  # the published task_id
    class_name: str
    file_path: str  # relative to the repository's root
    test_file: str
    ground_truth: str


@dataclass
class RepositoryMatch:
    repository: str
    git_dir: str
    commit: str | None
    commit_date: str = ""
    on_default_branch: bool = False
    tasks: int = 0
    matching: int = 0  # tasks whose file at the commit is their ground truth
    tests_present: int = 0  # tasks whose test file exists at the commit
    candidates: int = 0  # commits scoring as the chosen one does
    candidates_on_default_branch: int = 0
    window: list[str] = field(default_factory=list)  # the oldest and newest candidate
    first_differing: dict = field(default_factory=dict)  # the first task not matching at the commit, and why
    why: str = ""  # why there is no commit
    per_task: dict[str, dict] = field(default_factory=dict)


def published_files(entries: list, source: str) -> dict[str, list[PublishedFile]]:
    """The published Java entries, grouped by repository (their ``repo_name``)."""

    grouped: dict[str, list[PublishedFile]] = {}
    for number, entry in enumerate(entries):
        where = f"{source}: entry {number}"
        try:
            repository = text_field(entry["repo_metadata"], "repo_name", where)
            file_path = under_repository(text_field(entry, "file", where), repository, "file", where)
            test_file = under_repository(
                text_field(entry["evaluation_metadata"], "test_file", where), repository, "test_file", where
            )
            class_name = text_field(entry, "class_name", where)
            found = PublishedFile(
                task_id(repository, file_path, class_name),
                entry.get("task_id", number),
                class_name,
                file_path,
                test_file,
                text_field(entry, "ground_truth_class_body", where),
            )
        except (KeyError, TypeError, AttributeError) as exc:
            raise BenchsmithError(f"{where}: not a published Java task ({exc})") from None
        grouped.setdefault(repository, []).append(found)
    return grouped


def _normalised(text: str) -> str:
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")).strip("\n")


def _git(git_dir: Path, *args: str) -> str:
    completed = subprocess.run(["git", "--git-dir", str(git_dir), *args], capture_output=True)
    if completed.returncode != 0:
        raise BenchsmithError(
            f"{git_dir}: git {args[0]} failed: {completed.stderr.decode(errors='replace').strip()[:200]}"
        )
    return completed.stdout.decode("utf-8", "surrogateescape")


def _matching_blobs(git_dir: Path, wanted: PublishedFile, seen: set[str]) -> tuple[set[str], str]:
    """The versions of the task's file that are its ground truth, and how they equal it."""
    exact = blob_id(wanted.ground_truth.encode("utf-8", "surrogateescape"))
    if exact in seen:
        return {exact}, EXACT
    target = _normalised(wanted.ground_truth)
    found = {blob for blob in seen if _normalised(_git(git_dir, "cat-file", "blob", blob)) == target}
    return found, (WHITESPACE if found else NONE)


def locate_repository(
    repository: str, git_dir: Path, files: list[PublishedFile], before: datetime | None = None
) -> RepositoryMatch:
    """The commit of *git_dir* that holds the most of *files* at their ground truths, with the evidence."""
    git_dir = Path(git_dir)
    # --date-order never shows a parent before its children: the reversed position orders commits of one second too
    dated = [
        line.split()
        for line in _git(git_dir, "log", "--all", "--date-order", "--format=%H %ct").splitlines()
        if line.strip()
    ]
    dates = {commit: int(stamp) for commit, stamp in dated}
    order = {commit: len(dated) - position for position, (commit, _) in enumerate(dated)}
    default = set(_git(git_dir, "rev-list", "HEAD").split()) if dated else set()
    paths = list(dict.fromkeys([f.file_path for f in files] + [f.test_file for f in files]))
    column = {path: number for number, path in enumerate(paths)}
    rows = dict(blobs_at(git_dir, list(dates), paths))
    result = RepositoryMatch(repository, str(git_dir), None, tasks=len(files))
    matching: list[set[str]] = []
    for wanted in files:
        seen = {row[column[wanted.file_path]] for row in rows.values()} - {None}
        blobs, how = _matching_blobs(git_dir, wanted, seen)
        holding = sorted((c for c, row in rows.items() if row[column[wanted.file_path]] in blobs), key=order.get)
        result.per_task[wanted.task] = {
            "published_task_id": wanted.number,
            "file": wanted.file_path,
            "match": how,
            "ground_truth_blob": sorted(blobs),
            "versions_of_the_file": len(seen),
            "commits_holding": len(holding),
            "first_holding": holding[0] if holding else "",
            "last_holding": holding[-1] if holding else "",
        }
        matching.append(blobs)

    def score(row: tuple) -> tuple[int, int]:
        return (
            sum(row[column[f.file_path]] in m for f, m in zip(files, matching)),
            sum(row[column[f.test_file]] is not None for f in files),
        )

    scores = {commit: score(row) for commit, row in rows.items()}
    best = max(scores.values(), default=(0, 0))
    if best[0] == 0:
        first = files[0]
        versions = result.per_task[first.task]["versions_of_the_file"]
        result.why = (
            f"task {first.number} ({first.class_name}): no commit of {git_dir} has {first.file_path} equal to "
            f"its ground truth ({versions} version(s) of that file in the history)"
        )
        return result
    candidates = sorted((c for c, s in scores.items() if s == best), key=order.get)
    eligible = [c for c in candidates if before is None or dates[c] < before.timestamp()] or candidates
    chosen = max(eligible, key=lambda c: (c in default, order[c]))
    row = rows[chosen]
    result.commit, result.on_default_branch = chosen, chosen in default
    result.commit_date = datetime.fromtimestamp(dates[chosen], timezone.utc).isoformat()
    result.matching, result.tests_present = best
    result.candidates, result.candidates_on_default_branch = len(candidates), sum(c in default for c in candidates)
    result.window = [candidates[0], candidates[-1]]
    for wanted, blobs in zip(files, matching):
        blob = row[column[wanted.file_path]]
        result.per_task[wanted.task]["at_commit"] = blob in blobs
        if blob not in blobs and not result.first_differing:
            state = "absent" if blob is None else f"at blob {blob[:12]}, not its ground truth"
            result.first_differing = {
                "task": wanted.task,
                "published_task_id": wanted.number,
                "file": wanted.file_path,
                "why": f"{wanted.file_path} is {state} at {chosen[:12]}",
            }
    return result


def locate_published(source: str, repos: Path, out: Path, before: datetime | None = None) -> dict[str, RepositoryMatch]:
    """Locate every repository of the published Java tasks at *source* in ``repos/<repo_name>``; write *out*."""

    entries = read_entries(source)
    grouped = published_files(entries, source)
    found: dict[str, RepositoryMatch] = {}
    for repository, files in progress(list(grouped.items()), "locating repositories", unit="repo"):
        folder = Path(repos) / repository
        git_dir = git_dir_of(folder) if folder.exists() else None
        if git_dir is None:
            found[repository] = RepositoryMatch(
                repository,
                str(folder),
                None,
                tasks=len(files),
                why=f"{folder}: {'not a git repository' if folder.exists() else 'no such folder'}",
            )
            continue
        found[repository] = locate_repository(repository, git_dir, files, before)
    digest = hashlib.sha256(json.dumps(entries, sort_keys=True).encode()).hexdigest()
    write_text_atomic(
        Path(out),
        json.dumps(
            {
                "format": LOCATE_FORMAT,
                "source": source,
                "source_sha256": digest,
                "before": before.isoformat() if before else "",
                "repositories": {name: dataclasses.asdict(match) for name, match in found.items()},
            },
            indent=1,
        )
        + "\n",
    )
    return found


@dataclass(frozen=True)
class LocatedCommit:
    commit: str
    git_dir: str
    not_matching: dict[str, str]  # task id -> why its file at the commit is not its ground truth


def read_mapping(path: Path) -> dict[str, LocatedCommit | str]:
    """``repository -> LocatedCommit``, or the reason the mapping gives for having none."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if data.get("format") != LOCATE_FORMAT:
            raise ValueError(f"format {data.get('format')!r}, not {LOCATE_FORMAT}")
        repositories = data["repositories"]
        mapping: dict[str, LocatedCommit | str] = {}
        for name, match in repositories.items():
            if not match.get("commit"):
                mapping[name] = match.get("why") or "the mapping names no commit"
                continue
            not_matching = {
                task: f"{how['file']} at {match['commit'][:12]} is not its ground truth"
                for task, how in match["per_task"].items()
                if not how.get("at_commit")
            }
            mapping[name] = LocatedCommit(match["commit"], match["git_dir"], not_matching)
        return mapping
    except FileNotFoundError:
        raise BenchsmithError(f"--commits {path}: no such file") from None
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise BenchsmithError(f"--commits {path}: not a mapping written by `classbench locate` ({exc})") from None


def at_located_commits(tasks: list[ClassBenchTask], mapping_path: Path, summary: ImportSummary) -> list[ClassBenchTask]:
    """The Java tasks at the commit the mapping gives their repository, in the history ``--repos`` supplied (else the
    one the mapping was computed on). Tasks it cannot build are kept and counted in ``not_buildable`` with the reason:
    a repository without a commit, a file not at its ground truth there, a test in another module than its class."""
    mapping = read_mapping(mapping_path)
    located = []
    for task in tasks:
        name = repository_of(task)
        found = mapping.get(name, f"{mapping_path} does not name {name}")
        if not isinstance(found, LocatedCommit):
            summary.not_buildable[task.task_id] = found
            located.append(task)
            continue
        summary.located[name] = found.commit
        history = summary.supplied.get(name, found.git_dir)
        setup = json.loads(task.setup)
        module = setup["java"]["module"]
        test_file = setup.get("evaluation_metadata", {}).get("test_file", "").removeprefix(f"{name}/")
        test_module, _ = maven_module(test_file, "src/test/java/")
        if task.task_id in found.not_matching:
            summary.not_buildable[task.task_id] = found.not_matching[task.task_id]
        elif summary.without_metadata.get(task.task_id, "").startswith("declares no class"):
            # the published entry's class_name is not its file's class: the harness checks a candidate declares it
            summary.not_buildable[task.task_id] = f"its class_name {summary.without_metadata[task.task_id]}"
        elif test_module != module:
            summary.not_buildable[task.task_id] = (
                f"its test {test_file} is in module {test_module or '(root)'}, the class in "
                f"{module or '(root)'}: it needs a multi-module build"
            )
        located.append(dataclasses.replace(task, repo=history, commit=found.commit))
    return located
