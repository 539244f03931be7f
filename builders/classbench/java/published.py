"""The published RepoClassBench Java tasks (``data/input/java_data.json``) as classbench records, and each judged at the
commit ``classbench locate`` found its repository at (:mod:`benchsmith.builders.classbench.java.locate`)."""

from __future__ import annotations

import json
import re

from benchsmith.builders.classbench.java.metadata import java_class_metadata
from benchsmith.builders.classbench.published_format import PUBLISHED, setup_json, text_field
from benchsmith.builders.classbench.tokens import count_tokens
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask, task_id
from benchsmith.runners.java.maven_workspace import JavaSetup
from benchsmith.sources.java.declarations import analyse_java_class

_JAVADOC = re.compile(r"/\*\*.*?\*/", re.DOTALL)


def java_task(entry: dict, where: str) -> tuple[ClassBenchTask, str]:

    repository = text_field(entry["repo_metadata"], "repo_name", where)
    class_name = text_field(entry, "class_name", where)
    in_repository = under_repository(text_field(entry, "file", where), repository, "file", where)
    module, file_path = maven_module(in_repository, "src/main/java/")
    evaluation = entry["evaluation_metadata"]
    test_file = under_repository(text_field(evaluation, "test_file", where), repository, "test_file", where)
    test_class = _java_class_of(test_file, text_field(evaluation, "test_class_name", where), where)
    ground_truth = text_field(entry, "ground_truth_class_body", where)
    published_name = class_name
    stem = file_path.rsplit("/", 1)[-1].removesuffix(".java")
    if not _declares(ground_truth, class_name) and _declares(ground_truth, stem):
        # five published class_names are their file's class cut short (IntegerBooleanHandler for
        # BigIntegerBooleanHandler.java), while the descriptions and the test name the file's: the task is that class,
        # as the RepoClassBench paper's evaluator, which replaces the file and runs its test class, judges it
        class_name = stem
    why = ""
    try:
        info = analyse_java_class(ground_truth, class_name, "ground truth")
        metadata = java_class_metadata(info, file_path)
        detailed, sketchy = metadata.render(True), metadata.render(False)
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
        task_id=task_id(repository, in_repository, published_name),  # the published name: ids stay as they were
        language="java",
        repo=repository,
        commit="",
        file_path=file_path,
        class_name=class_name,
        module=package,
        ground_truth_class=ground_truth,
        imports=imports,
        detailed_metadata=detailed,
        sketchy_metadata=sketchy,
        detailed_description=text_field(entry, "detailed_description", where),
        sketchy_description=text_field(entry, "sketchy_description", where),
        test_directives=[test_class],
        # paraphrased=False: the RepoClassBench paper (E.1.1) case-flips only the Python SWE-bench repositories; Java's
        # are all Type 2
        external_references=[],
        class_tokens=count_tokens(_JAVADOC.sub("", ground_truth)),
        paraphrased=False,
        relatives=[],
        description_backend=PUBLISHED,
        setup=_java_setup_json(entry, module, published_name if published_name != class_name else ""),
    ), why


def maven_module(path: str, root: str) -> tuple[str, str]:
    """``sleeper/java/core/src/main/java/X.java`` -> (``sleeper/java/core``, ``src/main/java/X.java``): the module's
    folder (the workspace's tree) and the path within it; ("", path) for a file of the repository's root module."""
    index = path.find(root)
    if index <= 0 or path[index - 1] != "/":
        return "", path
    return path[: index - 1], path[index:]


def _java_setup_json(entry: dict, module: str, published_name: str) -> str:
    """The entry's setup and the module's; *published_name*, where the task's class is not the published class_name."""
    corrected = {"published_class_name": published_name} if published_name else {}
    return json.dumps(
        {**json.loads(setup_json(entry)), **json.loads(JavaSetup(module=module).to_json()), **corrected},
        sort_keys=True,
    )


def _declares(source: str, name: str) -> bool:
    return re.search(rf"\b(?:class|interface|enum|record)\s+{re.escape(name)}\b", source) is not None


def under_repository(path: str, repository: str, key: str, where: str) -> str:
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
