"""``benchsmith classbench import``: the published RepoClassBench tasks (RepoClassBench paper) as classbench records.

microsoft/repoclassbench publishes its tasks as ``data/input/python_data.json``
and ``data/input/java_data.json``: a JSON list, one object per task, holding
the class's name and file, the paper's DETAILED and SKETCHY descriptions, the
ground truth, ``repo_metadata`` (Python: ``commit_id``, ``issue_id`` and, for
the SWE-bench repositories, ``setup_details``; Java: only ``repo_name``) and
``evaluation_metadata`` (Python: the pytest node ids to pass; Java: one test
class and its file). Each becomes a :class:`ClassBenchTask` whose descriptions
are the published ones (``description_backend="published"``) and whose
``setup`` keeps the entry's setup details as JSON, for building the repository
later. The Java file records no commit: ``classbench locate`` finds each
repository's in its public history by the ground truths' content
(:mod:`benchsmith.builders.classbench.java.locate`), and given that mapping (``--commits``)
each task is judged at it; without one, ``commit`` is "" and a user's folder of
each repository is judged as it is. A Java task's file path is relative to its
Maven module (the folder above ``src/main/java``), which its ``setup`` names.

Metadata is computed here from the ground truth: Java's with
:func:`benchsmith.builders.classbench.java.metadata.java_metadata`, Python's with the
analysis the builder uses.
"""

from __future__ import annotations

import dataclasses
import json
from collections import Counter
from pathlib import Path

from benchsmith import __version__
from benchsmith.builders.classbench.java.locate import at_located_commits
from benchsmith.builders.classbench.java.published import java_task
from benchsmith.builders.classbench.published_format import (
    ImportSummary,
    entry_name,
    has_commit,
    read_entries,
    repository_of,
)
from benchsmith.builders.classbench.python.build import services_lines
from benchsmith.builders.classbench.python.published import (
    checked_on_the_original,
    python_task,
    reconstructed,
    removed_imports,
    with_expected_services,
)
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import HubSource, write_dataset
from benchsmith.core.progress import progress
from benchsmith.core.schema import ClassBenchTask

BENCHMARKS = {"python": "classbench", "java": "classbench-java"}  # the benchmark each language's records belong to
SOURCE_URL = "https://github.com/microsoft/repoclassbench"


def import_published(
    source: str,
    out: Path,
    language: str | None = None,
    repos: Path | None = None,
    commits: Path | None = None,
    check_directives: bool = True,
    services: bool = False,
) -> ImportSummary:
    """Read the published tasks at *source* (a URL or a path) and write them to *out* as a classbench dataset.

    *language* is "python" or "java"; by default it is read off the entries. *repos*: a folder holding each
    published repository as ``repos/<name>`` (see :func:`_supplied`); those tasks are judged on that folder.
    *commits*: Java only, the mapping ``classbench locate`` wrote (see :func:`located`). *check_directives*: a
    supplied Python task at a commit of its history keeps only the directives that pass on the repository's own code
    there (:mod:`benchsmith.builders.classbench.python.published_check`; it builds the environment and runs each task's
    tests once). The services a supplied Python repository's tests expect are read at each task's commit, as
    ``classbench build`` reads them, and the card lists them; with *services* each task records those that can be
    started (as root, Debian's missing packages installed), and its check and every ``eval`` run start them fresh.
    """
    entries = read_entries(source)
    language = language or _language_of(entries, source)
    if language not in BENCHMARKS:
        raise BenchsmithError(f"--language {language!r}: not one of {', '.join(BENCHMARKS)}")
    if services and language != "python":
        raise BenchsmithError(f"--services: only Python tasks start the services their tests expect, not {language}")
    if services and repos is None:
        raise BenchsmithError(
            "--services: the services a task's tests expect are read from its repository at the task's commit; "
            "supply the repositories with --repos DIR"
        )
    convert = python_task if language == "python" else java_task
    tasks, summary = [], ImportSummary(language, BENCHMARKS[language])
    seen: dict[str, str] = {}
    for number, entry in progress(list(enumerate(entries)), f"importing {language} tasks", unit="task"):
        where = f"{source}: entry {number} ({entry_name(entry)})"
        if not isinstance(entry, dict):
            raise BenchsmithError(f"{where}: not a JSON object")
        try:
            task, why_no_metadata = convert(entry, where)
        except KeyError as exc:
            raise BenchsmithError(f"{where}: no {exc.args[0]!r}, which a published {language} task has") from None
        except (TypeError, AttributeError, ValueError) as exc:
            raise BenchsmithError(f"{where}: not in the published {language} format ({exc})") from None
        if task.task_id in seen:
            raise BenchsmithError(f"{where}: the same task as {seen[task.task_id]} ({task.task_id})")
        seen[task.task_id] = where
        if why_no_metadata:
            summary.without_metadata[task.task_id] = why_no_metadata
        published_name = json.loads(task.setup).get("published_class_name", "") if language == "java" else ""
        if published_name:
            summary.class_names_from_file[task.task_id] = (
                f"published as {published_name}, which its file does not declare; judged as {task.class_name}, "
                "the class its file and descriptions name"
            )
        tasks.append(task)
    summary.tasks = len(tasks)
    summary.per_repository = dict(Counter(repository_of(task) for task in tasks).most_common())
    if repos is not None:
        tasks = _supplied(tasks, Path(repos), summary)
        if language == "python":
            tasks = with_expected_services(tasks, summary, services)
        if check_directives:
            tasks = checked_on_the_original(tasks, summary)
    if commits is not None:
        if language != "java":
            raise BenchsmithError(
                f"--commits {commits}: only the Java tasks lack commits; the {language} ones record theirs"
            )
        tasks = at_located_commits(tasks, Path(commits), summary)
    summary.without_commit = sum(1 for task in tasks if not task.commit)
    card = _card(source, summary)
    write_dataset(
        tasks,
        ClassBenchTask,
        Path(out),
        card,
        _card_markdown(card),
        benchmark=summary.benchmark,
        sources=[HubSource("microsoft/repoclassbench", SOURCE_URL, "", "mit")],
        counts={"tasks": summary.tasks, "per_repository": summary.per_repository},
    )
    return summary


def _language_of(entries: list, source: str) -> str:
    """python when the entries carry commits (``repo_metadata.commit_id``), java when they carry ``repo_name``."""
    kinds = set()
    for entry in entries:
        metadata = entry.get("repo_metadata") if isinstance(entry, dict) else None
        if isinstance(metadata, dict):
            kinds.add("python" if "commit_id" in metadata else "java" if "repo_name" in metadata else "?")
    if len(kinds) != 1 or "?" in kinds:
        raise BenchsmithError(f"{source}: cannot tell the language of its tasks; say --language python or java")
    return kinds.pop()


def _supplied(tasks: list[ClassBenchTask], repos: Path, summary: ImportSummary) -> list[ClassBenchTask]:
    """The tasks whose repository *repos* holds (``repos/<name>``, the name the summary counts them by), pointed at
    that folder: Java's a checkout judged as it is, Python's a git history (a clone or mirror) read at the commit."""
    if not repos.is_dir():
        raise BenchsmithError(f"--repos {repos}: no such folder")
    names = list(summary.per_repository)
    summary.supplied = {name: str((repos / name).resolve()) for name in names if (repos / name).is_dir()}
    summary.not_supplied = [name for name in names if name not in summary.supplied]
    pointed = [dataclasses.replace(task, repo=summary.supplied.get(repository_of(task), task.repo)) for task in tasks]
    rebuilt = reconstructed(
        [
            t
            for t in pointed
            if t.language == "python" and repository_of(t) in summary.supplied and not has_commit(t.repo, t.commit)
        ],
        summary,
    )
    pointed = [rebuilt.get(task.task_id, task) for task in pointed]
    for number, task in enumerate(pointed):
        if (
            task.language == "python"
            and repository_of(task) in summary.supplied
            and task.task_id not in summary.not_buildable
        ):
            imports, why = removed_imports(task)
            if why:
                summary.not_buildable[task.task_id] = why
            pointed[number] = dataclasses.replace(task, imports=imports)
    return pointed


def _card(source: str, summary: ImportSummary) -> dict:

    return {
        "dataset": summary.benchmark,
        "tool": f"benchsmith {__version__}",
        "source": source,
        "language": summary.language,
        "tasks": summary.tasks,
        "per_repository": summary.per_repository,
        "tasks_without_commit": summary.without_commit,
        "tasks_without_metadata": summary.without_metadata,
        "repositories_supplied": summary.supplied,
        "repositories_not_supplied": summary.not_supplied,
        "tasks_not_buildable": summary.not_buildable,
        "reconstructed": summary.reconstructed,
        "located_commits": summary.located,
        "class_names_from_file": summary.class_names_from_file,
        "directives_dropped_on_the_original": summary.directives_dropped,
        "services": summary.services,
        "descriptions": "published (the RepoClassBench paper's GPT-4 descriptions)",
    }


def _card_markdown(card: dict) -> str:
    lines = [
        f"# {card['dataset']}: the published RepoClassBench {card['language']} tasks",
        "",
        f"Imported by {card['tool']} from {card['source']}: {card['tasks']} tasks; descriptions as published.",
        "",
    ]
    if card["tasks_without_commit"]:
        lines += [
            (
                f"{card['tasks_without_commit']} tasks record no commit (the published file names none): "
                "they are judged once a user supplies each repository."
            ),
            "",
        ]
    lines += ["| repository | tasks |", "| --- | ---: |"]
    lines += [f"| {repo} | {count} |" for repo, count in card["per_repository"].items()]
    for where, record in card["services"].items():
        if record.get("not_read"):
            lines += ["", f"{where}: the services its tests expect were not read: {record['not_read']}."]
        elif record["detected"]:
            lines += ["", f"{where}:", *services_lines(record)]
    return "\n".join(lines).rstrip("\n") + "\n"
