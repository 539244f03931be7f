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
(:mod:`builders.classbench.locate`), and given that mapping (``--commits``)
each task is judged at it; without one, ``commit`` is "" and a user's folder of
each repository is judged as it is. A Java task's file path is relative to its
Maven module (the folder above ``src/main/java``), which its ``setup`` names.

Metadata is computed here from the ground truth: Java's with
:func:`builders.classbench.metadata.java_metadata`, Python's with the
analysis the builder uses.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from benchsmith.core.errors import BenchsmithError
from benchsmith.core.export import HubSource, write_dataset
from benchsmith.core.progress import progress
from benchsmith.core.schema import ClassBenchTask, TaskEnvironment, task_id

BENCHMARKS = {"python": "classbench", "java": "classbench-java"}  # the benchmark each language's records belong to
# the RepoClassBench paper's set-up of its own (Type 2) Python repositories, those without setup_details: Python 3.8
TYPE2_PYTHON = "3.8"
PUBLISHED = "published"  # description_backend of descriptions taken from the published files
SOURCE_URL = "https://github.com/microsoft/repoclassbench"
_JAVADOC = re.compile(r"/\*\*.*?\*/", re.DOTALL)


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
    # Python task id -> the directives that did not pass on its repository's own code, dropped (published_check)
    directives_dropped: dict[str, dict] = field(default_factory=dict)


def import_published(source: str, out: Path, language: str | None = None, repos: Path | None = None,
                     commits: Path | None = None, check_directives: bool = True) -> ImportSummary:
    """Read the published tasks at *source* (a URL or a path) and write them to *out* as a classbench dataset.

    *language* is "python" or "java"; by default it is read off the entries. *repos*: a folder holding each
    published repository as ``repos/<name>`` (see :func:`_supplied`); those tasks are judged on that folder.
    *commits*: Java only, the mapping ``classbench locate`` wrote (see :func:`_located`). *check_directives*: a
    supplied Python task at a commit of its history keeps only the directives that pass on the repository's own code
    there (:mod:`builders.classbench.published_check`; it builds the environment and runs each task's tests once).
    """
    entries = _entries(source)
    language = language or _language_of(entries, source)
    if language not in BENCHMARKS:
        raise BenchsmithError(f"--language {language!r}: not one of {', '.join(BENCHMARKS)}")
    convert = _python_task if language == "python" else _java_task
    tasks, summary = [], ImportSummary(language, BENCHMARKS[language])
    seen: dict[str, str] = {}
    for number, entry in progress(list(enumerate(entries)), f"importing {language} tasks", unit="task"):
        where = f"{source}: entry {number} ({_entry_name(entry)})"
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
        tasks.append(task)
    summary.tasks = len(tasks)
    summary.per_repository = dict(Counter(_repository(task) for task in tasks).most_common())
    if repos is not None:
        tasks = _supplied(tasks, Path(repos), summary)
        if check_directives:
            tasks = _checked_on_the_original(tasks, summary)
    if commits is not None:
        if language != "java":
            raise BenchsmithError(f"--commits {commits}: only the Java tasks lack commits; the {language} ones record theirs")
        tasks = _located(tasks, Path(commits), summary)
    summary.without_commit = sum(1 for task in tasks if not task.commit)
    card = _card(source, summary)
    write_dataset(tasks, ClassBenchTask, Path(out), card, _card_markdown(card), benchmark=summary.benchmark,
                  sources=[HubSource("microsoft/repoclassbench", SOURCE_URL, "", "mit")],
                  counts={"tasks": summary.tasks, "per_repository": summary.per_repository})  # fmt: skip
    return summary


# --- reading --------------------------------------------------------------------------------------------------------


def _entries(source: str) -> list:
    if re.match(r"https?://", source):
        from scrapers.http import shared

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


def _entry_name(entry) -> str:
    if isinstance(entry, dict):
        return f"task_id {entry.get('task_id')!r}, class {entry.get('class_name')!r}"
    return type(entry).__name__


def _text(entry: dict, key: str, where: str) -> str:
    value = entry[key]
    if not isinstance(value, str) or not value.strip():
        raise BenchsmithError(f"{where}: {key} is {'empty' if isinstance(value, str) else 'not text'}")
    return value


# --- Python ---------------------------------------------------------------------------------------------------------


def _python_task(entry: dict, where: str) -> tuple[ClassBenchTask, str]:
    metadata = entry["repo_metadata"]
    commit, issue = _text(metadata, "commit_id", where), _text(metadata, "issue_id", where)
    setup = metadata.get("setup_details") or {}
    owner_name = setup.get("repo") or _repository_of_issue(issue, where)
    owner, name = owner_name.split("/", 1)
    class_name = _text(entry, "class_name", where)
    file_path = _python_file_path(_text(entry, "file", where), issue, name, where)
    directives = entry["evaluation_metadata"]["test_directives"]
    if not isinstance(directives, list) or not all(isinstance(d, str) for d in directives) or not directives:
        raise BenchsmithError(f"{where}: evaluation_metadata.test_directives is not a list of pytest node ids")
    ground_truth = _text(entry, "ground_truth_class_body", where)
    detailed, sketchy, tokens, why = _python_metadata(ground_truth, file_path, class_name)
    module = file_path.removeprefix("src/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    return ClassBenchTask(
        task_id=task_id(f"{owner}__{name}", file_path, class_name), language="python",
        repo=f"https://github.com/{owner}/{name}", commit=commit, file_path=file_path, class_name=class_name,
        module=module, ground_truth_class=ground_truth, imports=[], detailed_metadata=detailed,
        sketchy_metadata=sketchy, detailed_description=_text(entry, "detailed_description", where),
        sketchy_description=_text(entry, "sketchy_description", where),
        test_directives=list(dict.fromkeys(without_xdist_group(d) for d in directives)),
        # the RepoClassBench paper, E.1.1: the SWE-bench (Type 1) repositories, those with setup_details, were paraphrased
        # (pvsYsTem); the newer (Type 2) ones, litestar, were not
        external_references=[], class_tokens=tokens, paraphrased=bool(setup), relatives=[],
        description_backend=PUBLISHED, setup=_setup_json(entry, "test_directives"),
        environment=TaskEnvironment(python="" if setup else TYPE2_PYTHON),
    ), why  # fmt: skip


def without_xdist_group(node_id: str) -> str:
    """*node_id* as pytest names it: pytest-xdist's ``--dist loadgroup`` reports a test marked ``xdist_group("redis")``
    as ``...::test_x[param]@redis`` (litestar's suite, which the paper ran with ``-n auto``). A test's name cannot hold
    an ``@``, so one after the name and its parameters is always that suffix; one inside the brackets is a parameter's."""
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
    from builders.classbench.analysis import analyse_file
    from builders.classbench.metadata import render

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
    return render(info, detailed=True), render(info, detailed=False), info.tokens, ""


# --- Java -----------------------------------------------------------------------------------------------------------


def _java_task(entry: dict, where: str) -> tuple[ClassBenchTask, str]:
    from builders.classbench.analysis import count_tokens
    from builders.classbench.metadata import render_java
    from sources.java_declarations import analyse_java_class

    repository = _text(entry["repo_metadata"], "repo_name", where)
    class_name = _text(entry, "class_name", where)
    in_repository = _under_repository(_text(entry, "file", where), repository, "file", where)
    module, file_path = _maven_module(in_repository, "src/main/java/")
    evaluation = entry["evaluation_metadata"]
    test_file = _under_repository(_text(evaluation, "test_file", where), repository, "test_file", where)
    test_class = _java_class_of(test_file, _text(evaluation, "test_class_name", where), where)
    ground_truth = _text(entry, "ground_truth_class_body", where)
    why = ""
    try:
        info = analyse_java_class(ground_truth, class_name, "ground truth")
        detailed, sketchy = render_java(info, file_path, True), render_java(info, file_path, False)
        package = info.qualified_name.rsplit(".", 1)[0] if "." in info.qualified_name else ""
    except BenchsmithError as exc:
        # the published files hold a few: a class_name that is not the class of the ground truth, or syntax
        # newer than javalang 0.13 parses (String[]::new); the task is kept, its metadata empty, the reason told
        detailed = sketchy = package = ""
        why = str(exc).removeprefix("ground truth: ")
        declared = re.findall(r"\b(?:class|interface|enum)\s+([A-Za-z_$][\w$]*)", ground_truth)
        if "declares no class" in why and declared:
            why += f" (it declares: {', '.join(dict.fromkeys(declared))})"
    imports = [m[0].strip() for m in re.finditer(r"^\s*import\s+[\w.*\s]+;", ground_truth, re.MULTILINE)]
    return ClassBenchTask(
        task_id=task_id(repository, in_repository, class_name), language="java", repo=repository, commit="",
        file_path=file_path, class_name=class_name, module=package, ground_truth_class=ground_truth, imports=imports,
        detailed_metadata=detailed, sketchy_metadata=sketchy,
        detailed_description=_text(entry, "detailed_description", where),
        sketchy_description=_text(entry, "sketchy_description", where), test_directives=[test_class],
        # paraphrased=False: the RepoClassBench paper (E.1.1) case-flips only the Python SWE-bench repositories; Java's are all Type 2
        external_references=[], class_tokens=count_tokens(_JAVADOC.sub("", ground_truth)), paraphrased=False,
        relatives=[], description_backend=PUBLISHED, setup=_java_setup_json(entry, module),
    ), why  # fmt: skip


def _maven_module(path: str, root: str) -> tuple[str, str]:
    """``sleeper/java/core/src/main/java/X.java`` -> (``sleeper/java/core``, ``src/main/java/X.java``): the module's
    folder (the workspace's tree) and the path within it; ("", path) for a file of the repository's root module."""
    index = path.find(root)
    if index <= 0 or path[index - 1] != "/":
        return "", path
    return path[: index - 1], path[index:]


def _java_setup_json(entry: dict, module: str) -> str:
    from harness.java.maven_workspace import JavaSetup

    return json.dumps({**json.loads(_setup_json(entry)), **json.loads(JavaSetup(module=module).to_json())}, sort_keys=True)


def _under_repository(path: str, repository: str, key: str, where: str) -> str:
    """The published Java paths start with the repository's folder: ``zouzhiy-excel/src/main/java/…``."""
    if not path.startswith(f"{repository}/"):
        raise BenchsmithError(f"{where}: {key} {path!r} is not under the repository's folder {repository}/")
    return path[len(repository) + 1 :]


def _java_class_of(test_file: str, test_class: str, where: str) -> str:
    """The test class's qualified name: the package of its file under ``src/test/java``, and its name.

    The directive runs all its tests. The name is test_class_name's even where the file is named otherwise
    (one published entry names ``MpscLinkedQueueTest`` in ``Java8MpscLinkedQueueTest.java``); setup keeps both.
    """
    if not re.fullmatch(r"[A-Za-z_$][\w$]*", test_class):
        raise BenchsmithError(f"{where}: test_class_name {test_class!r} is not a Java class name")
    parts = test_file.removesuffix(".java").split("/")
    if "java" in parts[:-1]:
        root = len(parts) - 1 - parts[::-1].index("java")  # the last java/ folder: src/test/java/<package>/<class>
        return ".".join([*parts[root + 1 : -1], test_class])
    return test_class


# --- both -----------------------------------------------------------------------------------------------------------


def _setup_json(entry: dict, *directives_key: str) -> str:
    """The entry's setup details (its own task id, repo_metadata, evaluation_metadata but the directives) as JSON."""
    evaluation = {k: v for k, v in entry["evaluation_metadata"].items() if k not in directives_key}
    details = {"published_task_id": entry.get("task_id"), "repo_metadata": entry["repo_metadata"]}
    if evaluation:
        details["evaluation_metadata"] = evaluation
    return json.dumps(details, sort_keys=True)


def _supplied(tasks: list[ClassBenchTask], repos: Path, summary: ImportSummary) -> list[ClassBenchTask]:
    """The tasks whose repository *repos* holds (``repos/<name>``, the name the summary counts them by), pointed at
    that folder: Java's a checkout judged as it is, Python's a git history (a clone or mirror) read at the commit."""
    if not repos.is_dir():
        raise BenchsmithError(f"--repos {repos}: no such folder")
    names = list(summary.per_repository)
    summary.supplied = {name: str((repos / name).resolve()) for name in names if (repos / name).is_dir()}
    summary.not_supplied = [name for name in names if name not in summary.supplied]
    pointed = [dataclasses.replace(task, repo=summary.supplied.get(_repository(task), task.repo)) for task in tasks]
    rebuilt = _reconstructed([t for t in pointed if t.language == "python" and _repository(t) in summary.supplied
                              and not _has_commit(t.repo, t.commit)], summary)  # fmt: skip
    pointed = [rebuilt.get(task.task_id, task) for task in pointed]
    for number, task in enumerate(pointed):
        if task.language == "python" and _repository(task) in summary.supplied and task.task_id not in summary.not_buildable:
            imports, why = _removed_imports(task)
            if why:
                summary.not_buildable[task.task_id] = why
            pointed[number] = dataclasses.replace(task, imports=imports)
    return pointed


def _checked_on_the_original(tasks: list[ClassBenchTask], summary: ImportSummary) -> list[ClassBenchTask]:
    """The supplied Python tasks at a commit of their own history (not rebuilt), with only the directives that pass
    on that commit's code; the rest as they are."""
    from builders.classbench.published_check import check_on_the_original

    rebuilt = {how["history"] for how in summary.reconstructed.values()}
    own = [task for task in tasks if task.language == "python" and _repository(task) in summary.supplied
           and task.task_id not in summary.not_buildable and task.repo not in rebuilt]  # fmt: skip
    if not own:
        return tasks
    checked, summary.directives_dropped, unjudgeable = check_on_the_original(own)
    summary.not_buildable.update(unjudgeable)
    by_id = {task.task_id: task for task in checked}
    return [by_id.get(task.task_id, task) for task in tasks]


def _located(tasks: list[ClassBenchTask], mapping_path: Path, summary: ImportSummary) -> list[ClassBenchTask]:
    """The Java tasks at the commit the mapping gives their repository, in the history ``--repos`` supplied (else the
    one the mapping was computed on). Tasks it cannot build are kept and counted in ``not_buildable`` with the reason:
    a repository without a commit, a file not at its ground truth there, a test in another module than its class."""
    from builders.classbench.locate import LocatedCommit, read_mapping

    mapping = read_mapping(mapping_path)
    located = []
    for task in tasks:
        name = _repository(task)
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
        test_module, _ = _maven_module(test_file, "src/test/java/")
        if task.task_id in found.not_matching:
            summary.not_buildable[task.task_id] = found.not_matching[task.task_id]
        elif summary.without_metadata.get(task.task_id, "").startswith("declares no class"):
            # the published entry's class_name is not its file's class: the harness checks a candidate declares it
            summary.not_buildable[task.task_id] = f"its class_name {summary.without_metadata[task.task_id]}"
        elif test_module != module:
            summary.not_buildable[task.task_id] = (f"its test {test_file} is in module {test_module or '(root)'}, the class in "
                                                   f"{module or '(root)'}: it needs a multi-module build")  # fmt: skip
        located.append(dataclasses.replace(task, repo=history, commit=found.commit))
    return located


def _has_commit(history: str, commit: str) -> bool:
    return subprocess.run(["git", "-C", history, "cat-file", "-e", f"{commit}^{{commit}}"], capture_output=True).returncode == 0


def _reconstructed(tasks: list[ClassBenchTask], summary: ImportSummary) -> dict[str, ClassBenchTask]:
    """The tasks whose paraphrased commit the supplied history lacks, pointed at a copy rebuilt from the upstream
    base commit with the flips their ground truths spell (:mod:`builders.classbench.reconstruct`)."""
    from builders.classbench.reconstruct import RECONSTRUCTION_FORMAT, export_fixed, instance_fix, read_group, reconstruct
    from sources.python_repo import private_cache_dir

    groups: dict[tuple[str, str, str], list[ClassBenchTask]] = {}
    for task in tasks:
        base = json.loads(task.setup or "{}").get("repo_metadata", {}).get("setup_details", {}).get("base_commit", "")
        if not base or not _has_commit(task.repo, base):
            summary.not_buildable[task.task_id] = (f"commit {task.commit[:12]} is not in {task.repo}"
                                                   + (f", nor its upstream base commit {base[:12]}" if base else ""))  # fmt: skip
            continue
        groups.setdefault((task.repo, task.commit, base), []).append(task)
    rebuilt: dict[str, ClassBenchTask] = {}
    for (history, published, base), members in progress(list(groups.items()), "rebuilding paraphrased repositories", unit="repo"):
        name = _repository(members[0])
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
            "base_commit": base, "instance_fix": copy.fix, "history": copy.history, "commit": copy.commit, "tasks": len(readable),
            "names_flipped": len(copy.flips), "files_changed": copy.files_changed, "renamed_by_reference": copy.by_reference,
            "renamed_against_a_rule": copy.overruled,
            "flips_kept": {n: copy.kept[n] for n in sorted(set(flips) & set(copy.kept))},
            "tasks_with_kept_flips": kept_by_task,
        }  # fmt: skip
    return rebuilt


def _removed_imports(task: ClassBenchTask) -> tuple[list[str], str]:
    """The imports that leave the module with the class, as the builder records them (the RepoClassBench paper's evaluator removes
    them too: the published ground truth is the class alone), read from the supplied history at the task's commit;
    or why the history cannot give them."""
    from sources.python_removal import remove_class

    shown = subprocess.run(["git", "-C", task.repo, "show", f"{task.commit}:{task.file_path}"], capture_output=True)
    if shown.returncode != 0:
        if not _has_commit(task.repo, task.commit):
            return [], f"commit {task.commit[:12]} is not in {task.repo}"
        return [], f"{task.file_path} is not in commit {task.commit[:12]} of {task.repo}"
    try:
        return remove_class(shown.stdout.decode("utf-8", "surrogateescape"), task.class_name, task.file_path).imports, ""
    except BenchsmithError as exc:
        return [], str(exc)


def _repository(task: ClassBenchTask) -> str:
    return task.task_id.split("::", 1)[0]


def _card(source: str, summary: ImportSummary) -> dict:
    from benchsmith import __version__

    return {
        "dataset": summary.benchmark, "tool": f"benchsmith {__version__}", "source": source,
        "language": summary.language, "tasks": summary.tasks, "per_repository": summary.per_repository,
        "tasks_without_commit": summary.without_commit, "tasks_without_metadata": summary.without_metadata,
        "repositories_supplied": summary.supplied, "repositories_not_supplied": summary.not_supplied,
        "tasks_not_buildable": summary.not_buildable, "reconstructed": summary.reconstructed,
        "located_commits": summary.located, "directives_dropped_on_the_original": summary.directives_dropped,
        "descriptions": "published (the RepoClassBench paper's GPT-4 descriptions)",
    }  # fmt: skip


def _card_markdown(card: dict) -> str:
    lines = [f"# {card['dataset']}: the published RepoClassBench {card['language']} tasks", "",
             f"Imported by {card['tool']} from {card['source']}: {card['tasks']} tasks; descriptions as published.", ""]  # fmt: skip
    if card["tasks_without_commit"]:
        lines += [(f"{card['tasks_without_commit']} tasks record no commit (the published file names none): "
                   "they are judged once a user supplies each repository."), ""]  # fmt: skip
    lines += ["| repository | tasks |", "| --- | ---: |"]
    lines += [f"| {repo} | {count} |" for repo, count in card["per_repository"].items()]
    return "\n".join(lines) + "\n"
