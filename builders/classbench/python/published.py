"""The published RepoClassBench Python tasks (``data/input/python_data.json``) as classbench records, and what a
supplied history needs for them: the paraphrased copy rebuilt where the history lacks it, the imports that leave with
the class, and the directives checked on the repository's own code."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import subprocess
import tempfile
from pathlib import Path

from benchsmith.builders.classbench.published_format import (
    PUBLISHED,
    ImportSummary,
    has_commit,
    repository_of,
    setup_json,
    text_field,
)
from benchsmith.builders.classbench.python.analysis import analyse_file, python_metadata
from benchsmith.builders.classbench.python.build import expected_services
from benchsmith.builders.classbench.python.published_check import check_on_the_original
from benchsmith.builders.classbench.python.reconstruct import (
    RECONSTRUCTION_FORMAT,
    export_fixed,
    instance_fix,
    read_group,
    reconstruct,
)
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.progress import progress
from benchsmith.core.schema import ClassBenchTask, TaskEnvironment, task_id
from benchsmith.sources.checkout import private_cache_dir, source_tree
from benchsmith.sources.python.removal import remove_class

# the RepoClassBench paper's set-up of its own (Type 2) Python repositories, those without setup_details: Python 3.8
TYPE2_PYTHON = "3.8"


def python_task(entry: dict, where: str) -> tuple[ClassBenchTask, str]:
    metadata = entry["repo_metadata"]
    commit, issue = text_field(metadata, "commit_id", where), text_field(metadata, "issue_id", where)
    setup = metadata.get("setup_details") or {}
    owner_name = setup.get("repo") or _repository_of_issue(issue, where)
    owner, name = owner_name.split("/", 1)
    class_name = text_field(entry, "class_name", where)
    file_path = _python_file_path(text_field(entry, "file", where), issue, name, where)
    directives = entry["evaluation_metadata"]["test_directives"]
    if not isinstance(directives, list) or not all(isinstance(d, str) for d in directives) or not directives:
        raise BenchsmithError(f"{where}: evaluation_metadata.test_directives is not a list of pytest node ids")
    ground_truth = text_field(entry, "ground_truth_class_body", where)
    detailed, sketchy, tokens, why = _python_metadata(ground_truth, file_path, class_name)
    module = file_path.removeprefix("src/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return ClassBenchTask(
        task_id=task_id(f"{owner}__{name}", file_path, class_name),
        language="python",
        repo=f"https://github.com/{owner}/{name}",
        commit=commit,
        file_path=file_path,
        class_name=class_name,
        module=module,
        ground_truth_class=ground_truth,
        imports=[],
        detailed_metadata=detailed,
        sketchy_metadata=sketchy,
        detailed_description=text_field(entry, "detailed_description", where),
        sketchy_description=text_field(entry, "sketchy_description", where),
        test_directives=list(dict.fromkeys(without_xdist_group(d) for d in directives)),
        # the RepoClassBench paper, E.1.1: the SWE-bench (Type 1) repositories, those with setup_details, were
        # paraphrased
        # (pvsYsTem); the newer (Type 2) ones, litestar, were not
        external_references=[],
        class_tokens=tokens,
        paraphrased=bool(setup),
        relatives=[],
        description_backend=PUBLISHED,
        setup=setup_json(entry, "test_directives"),
        environment=TaskEnvironment(python="" if setup else TYPE2_PYTHON),
    ), why


def without_xdist_group(node_id: str) -> str:
    """*node_id* as pytest names it: pytest-xdist's ``--dist loadgroup`` reports a test marked ``xdist_group("redis")``
    as ``...::test_x[param]@redis`` (litestar's suite, which the paper ran with ``-n auto``). A test's name cannot hold
    an ``@``, so one after the name and its parameters is always that suffix; one inside the brackets is a
    parameter's."""
    found = re.fullmatch(r"(?P<id>.*::[^@\[\]]+(?:\[.*\])?)@[^\[\]:@]+", node_id, re.DOTALL)
    return found["id"] if found else node_id


def _repository_of_issue(issue: str, where: str) -> str:
    """``litestar-org__litestar-0001`` -> ``litestar-org/litestar`` (SWE-bench's instance naming)."""
    found = re.fullmatch(r"(?P<owner>[^_/]+(?:_[^_/]+)*)__(?P<name>.+)-\d+", issue)
    if found is None:
        raise BenchsmithError(f"{where}: issue_id {issue!r} does not name a repository (owner__name-number)")
    return f"{found['owner']}/{found['name']}"


def _python_file_path(published: str, issue: str, name: str, where: str) -> str:
    """The file relative to the repository: the published paths start with the instance's folder
    (``pvlib__pvlib-python-1854/pvlib/pvsystem.py``) or are absolute paths on the authors' machine
    (``/home/…/repos/litestar/litestar/connection/websocket.py``)."""
    if published.startswith(f"{issue}/"):
        return published[len(issue) + 1 :]
    found = re.search(rf"/repos/{re.escape(name)}/(.+)$", published)
    if found is None:
        raise BenchsmithError(f"{where}: file {published!r} is neither under {issue}/ nor under a repos/{name}/ folder")
    return found[1]


def _python_metadata(ground_truth: str, file_path: str, class_name: str) -> tuple[str, str, int, str]:
    """DETAILED and SKETCHY metadata, the token count, and why there are none ("" when there are)."""

    with tempfile.TemporaryDirectory(prefix="benchsmith-published-") as folder:
        path = Path(folder) / file_path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(ground_truth, encoding="utf-8")
        try:
            classes = analyse_file(path, Path(folder), "src" if file_path.startswith("src/") else "", set())
        except BenchsmithError as exc:
            return "", "", 0, str(exc).split(": ", 1)[-1]
    info = next((c for c in classes if c.name == class_name), None)
    if info is None:
        declared = ", ".join(c.name for c in classes) or "none"
        return "", "", 0, f"the ground truth declares no class {class_name} (it declares: {declared})"
    metadata = python_metadata(info)
    return metadata.render(detailed=True), metadata.render(detailed=False), info.tokens, ""


def with_expected_services(tasks: list[ClassBenchTask], summary: ImportSummary, start: bool) -> list[ClassBenchTask]:
    """The supplied Python tasks with the services their repository's tests expect at the task's commit (its CI's
    ``services:``, a compose file, its test settings), read as ``classbench build`` reads them; with *start*, those
    whose programs are here (or installed now, as root) go into each task's environment, so that the check on the
    original and every ``eval`` run start them, as a built task's do. The summary records them per commit."""
    groups: dict[tuple[str, str], list[int]] = {}
    for number, task in enumerate(tasks):
        if (
            task.language == "python"
            and repository_of(task) in summary.supplied
            and task.task_id not in summary.not_buildable
        ):
            groups.setdefault((task.repo, task.commit), []).append(number)
    tasks = list(tasks)
    for (history, commit), members in groups.items():
        where = f"{repository_of(tasks[members[0]])}@{commit[:12]}"
        try:
            _, tree, _ = source_tree(history, commit)
        except BenchsmithError as exc:  # the tasks' check and eval meet the same error and say it
            summary.services[where] = {"detected": [], "started": [], "not_read": str(exc)}
            continue
        started, summary.services[where] = expected_services(tree, start)
        for number in members:
            task = tasks[number]
            environment = dataclasses.replace(task.environment, services=list(started))
            tasks[number] = dataclasses.replace(task, environment=environment)
    return tasks


def checked_on_the_original(tasks: list[ClassBenchTask], summary: ImportSummary) -> list[ClassBenchTask]:
    """The supplied Python tasks at a commit of their own history (not rebuilt), with only the directives that pass
    on that commit's code; the rest as they are."""

    rebuilt = {how["history"] for how in summary.reconstructed.values()}
    own = [
        task
        for task in tasks
        if task.language == "python"
        and repository_of(task) in summary.supplied
        and task.task_id not in summary.not_buildable
        and task.repo not in rebuilt
    ]
    if not own:
        return tasks
    checked, summary.directives_dropped, unjudgeable = check_on_the_original(own)
    summary.not_buildable.update(unjudgeable)
    by_id = {task.task_id: task for task in checked}
    return [by_id.get(task.task_id, task) for task in tasks]


def reconstructed(tasks: list[ClassBenchTask], summary: ImportSummary) -> dict[str, ClassBenchTask]:
    """The tasks whose paraphrased commit the supplied history lacks, pointed at a copy rebuilt from the upstream
    base commit with the flips their ground truths spell (:mod:`benchsmith.builders.classbench.python.reconstruct`)."""

    groups: dict[tuple[str, str, str], list[ClassBenchTask]] = {}
    for task in tasks:
        base = json.loads(task.setup or "{}").get("repo_metadata", {}).get("setup_details", {}).get("base_commit", "")
        if not base or not has_commit(task.repo, base):
            summary.not_buildable[task.task_id] = f"commit {task.commit[:12]} is not in {task.repo}" + (
                f", nor its upstream base commit {base[:12]}" if base else ""
            )
            continue
        groups.setdefault((task.repo, task.commit, base), []).append(task)
    rebuilt: dict[str, ClassBenchTask] = {}
    for (history, published, base), members in progress(
        list(groups.items()), "rebuilding paraphrased repositories", unit="repo"
    ):
        name = repository_of(members[0])
        fix = ""
        flips, sites, mixed, readable, unreadable = read_group(history, base, members, None)
        instance = json.loads(members[0].setup).get("repo_metadata", {}).get("setup_details", {}).get("instance_id", "")
        if unreadable and (found_fix := instance_fix(Path(history), base, instance)):
            # a ground truth that is not the base commit's class may be the instance's fix: RepoClassBench's copies
            # hold it (pvlib's PVSystem after #1854)
            with tempfile.TemporaryDirectory(prefix="benchsmith-fixed-") as scratch:
                try:
                    export_fixed(Path(history), base, found_fix, Path(scratch) / "tree")
                    with_fix = read_group(history, base, members, Path(scratch) / "tree")
                except BenchsmithError as exc:
                    unreadable = {t: f"{why}; {exc}" for t, why in unreadable.items()}
                    with_fix = None
            if with_fix is not None and len(with_fix[3]) > len(readable):
                (flips, sites, mixed, readable, unreadable), fix = with_fix, found_fix
        summary.not_buildable.update(unreadable)
        if not readable:
            continue
        asked = json.dumps([RECONSTRUCTION_FORMAT, base, sorted(flips.items()), *([fix] if fix else [])])
        asked = hashlib.sha256(asked.encode()).hexdigest()[:12]
        target = private_cache_dir("reconstructed", f"{name}-{published[:12]}-{asked}")  # a rebuild per set of flips
        copy = reconstruct(Path(history), base, flips, target, sites, mixed, fix)
        kept_by_task = {}
        for task, found in readable:
            rebuilt[task.task_id] = dataclasses.replace(task, repo=copy.history, commit=copy.commit)
            kept = sorted(set(found) & set(copy.kept))
            if kept:
                kept_by_task[task.task_id] = kept
        summary.reconstructed[f"{name}@{published}"] = {
            "base_commit": base,
            "instance_fix": copy.fix,
            "history": copy.history,
            "commit": copy.commit,
            "tasks": len(readable),
            "names_flipped": len(copy.flips),
            "files_changed": copy.files_changed,
            "renamed_by_reference": copy.by_reference,
            "renamed_against_a_rule": copy.overruled,
            "flips_kept": {n: copy.kept[n] for n in sorted(set(flips) & set(copy.kept))},
            "tasks_with_kept_flips": kept_by_task,
        }
    return rebuilt


def removed_imports(task: ClassBenchTask) -> tuple[list[str], str]:
    """The imports that leave the module with the class, as the builder records them (the RepoClassBench paper's
    evaluator removes
    them too: the published ground truth is the class alone), read from the supplied history at the task's commit;
    or why the history cannot give them."""

    shown = subprocess.run(["git", "-C", task.repo, "show", f"{task.commit}:{task.file_path}"], capture_output=True)
    if shown.returncode != 0:
        if not has_commit(task.repo, task.commit):
            return [], f"commit {task.commit[:12]} is not in {task.repo}"
        return [], f"{task.file_path} is not in commit {task.commit[:12]} of {task.repo}"
    try:
        return remove_class(
            shown.stdout.decode("utf-8", "surrogateescape"), task.class_name, task.file_path
        ).imports, ""
    except BenchsmithError as exc:
        return [], str(exc)
