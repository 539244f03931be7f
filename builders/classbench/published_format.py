"""The published RepoClassBench files as both languages read them: the import's summary, an entry's fields, the setup
kept as JSON, and the repository a task belongs to (:mod:`benchsmith.builders.classbench.published`)."""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask

PUBLISHED = "published"  # description_backend of descriptions taken from the published files


@dataclass
class ImportSummary:
    language: str
    benchmark: str
    tasks: int = 0
    per_repository: dict[str, int] = field(default_factory=dict)
    without_commit: int = 0  # tasks whose file records no commit (all of Java's)
    without_metadata: dict[str, str] = field(default_factory=dict)  # task id -> why its ground truth did not analyse
    supplied: dict[str, str] = field(default_factory=dict)  # repository name -> the folder --repos holds for it
    not_supplied: list[str] = field(default_factory=list)  # repositories --repos holds no folder for
    not_buildable: dict[str, str] = field(default_factory=dict)  # task id -> why its supplied history cannot build it
    reconstructed: dict[str, dict] = field(default_factory=dict)  # "<repo>@<published commit>" -> how it was rebuilt
    located: dict[str, str] = field(default_factory=dict)  # Java repository -> the commit --commits maps it to
    # Java task id -> the published class_name and the class of its file the task is (the published one not declared)
    class_names_from_file: dict[str, str] = field(default_factory=dict)
    # Python task id -> the directives that did not pass on its repository's own code, dropped (published_check)
    directives_dropped: dict[str, dict] = field(default_factory=dict)
    # Python "<repo>@<commit>" -> the services its tests expect there and those every run starts (as a build's card)
    services: dict[str, dict] = field(default_factory=dict)


def read_entries(source: str) -> list:
    if re.match(r"https?://", source):
        from benchsmith.scrapers.http import shared

        response = shared().get(source)
        if response.status_code != 200:
            raise BenchsmithError(f"{source}: HTTP {response.status_code} {response.reason}")
        text = response.content.decode("utf-8", errors="replace")
    else:
        try:
            text = Path(source).read_text(encoding="utf-8")
        except FileNotFoundError:
            raise BenchsmithError(f"{source}: no such file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise BenchsmithError(f"{source}: cannot read it: {exc}") from None
    try:
        entries = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BenchsmithError(f"{source}: not JSON: {exc}") from None
    if not isinstance(entries, list):
        raise BenchsmithError(f"{source}: not a JSON list of tasks (the published files are lists)")
    return entries


def entry_name(entry) -> str:
    if isinstance(entry, dict):
        return f"task_id {entry.get('task_id')!r}, class {entry.get('class_name')!r}"
    return type(entry).__name__


def text_field(entry: dict, key: str, where: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise BenchsmithError(f"{where}: {key} is {'empty' if isinstance(value, str) else 'not text'}")
    return value


def setup_json(entry: dict, *directives_key: str) -> str:
    """The entry's setup details (its own task id, repo_metadata, evaluation_metadata but the directives) as JSON."""
    evaluation = {k: v for k, v in entry["evaluation_metadata"].items() if k not in directives_key}
    details = {"published_task_id": entry.get("task_id"), "repo_metadata": entry["repo_metadata"]}
    if evaluation:
        details["evaluation_metadata"] = evaluation
    return json.dumps(details, sort_keys=True)


def has_commit(history: str, commit: str) -> bool:
    return (
        subprocess.run(["git", "-C", history, "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True).returncode
        == 0
    )


def repository_of(task: ClassBenchTask) -> str:
    return task.task_id.split("::", 1)[0]
