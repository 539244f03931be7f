"""``benchsmith classbench import``: published RepoClassBench tasks, in their real format, from a URL and a path."""

from __future__ import annotations

import functools
import json
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from benchsmith.builders.classbench.published import import_published
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask, Result, read_records, read_stamp
from tests.helpers.cli import run_cli

# Entries in the shape of microsoft/repoclassbench's data/input/python_data.json, with text written here: a
# SWE-bench repository (setup_details, paths under the instance's folder) and one of the paper's own (no
# setup_details, absolute paths from the authors' machine).
PYTHON = [
    {
        "task_id": "acme__shapes-101_poLYgoN",
        "class_name": "poLYgoN",
        "file": "acme__shapes-101/src/shapes/polygon.py",
        "sketchy_description": "A polygon from points.",
        "detailed_description": "A polygon; it measures itself.",
        "repo_metadata": {
            "commit_id": "a" * 40,
            "issue_id": "acme__shapes-101",
            "setup_details": {
                "repo": "acme/shapes",
                "instance_id": "acme__shapes-101",
                "base_commit": "b" * 40,
                "version": "1.2",
                "environment_setup_commit": "c" * 40,
            },
        },
        "evaluation_metadata": {
            "test_directives": ["tests/test_polygon.py::test_area", "tests/test_polygon.py::test_sides"]
        },
        "ground_truth_class_body": (
            "@dataclass\nclass poLYgoN(Shape):\n    sides: int = 3\n\n"
            '    def area(self) -> float:\n        """The area."""\n        return 0.0\n'
        ),
    },
    {
        "task_id": "acme-org__router-0001_Route",
        "class_name": "Route",
        "file": "/home/someone/work/repos/router/router/route.py",
        "sketchy_description": "A route.",
        "detailed_description": "A route with a path.",
        "repo_metadata": {"commit_id": "d" * 40, "issue_id": "acme-org__router-0001", "setup_details": None},
        # as pytest-xdist's --dist loadgroup reports a test marked xdist_group("redis")
        "evaluation_metadata": {
            "test_directives": ["tests/test_route.py::test_path", "tests/test_route.py::test_cache[a@b]@redis"]
        },
        "ground_truth_class_body": "class Route:\n    def __init__(self, path):\n        self.path = path\n",
    },
]

# And of data/input/java_data.json: no commit, one test class per task, the whole file as ground truth.
JAVA = [
    {
        "detailed_description": "A counter that counts.",
        "sketchy_description": "A counter.",
        "file": "counters/src/main/java/org/acme/count/Counter.java",
        "class_name": "Counter",
        "repo_metadata": {"repo_name": "counters"},
        "evaluation_metadata": {
            "test_class_name": "CounterTest",
            "test_file": "counters/src/test/java/org/acme/count/CounterTest.java",
        },
        "task_id": 0,
        "ground_truth_class_body": (
            "/* Licence text. */\npackage org.acme.count;\n\nimport java.util.List;\n\n"
            "public class Counter {\n    private int count = 0;\n\n    /** Adds one. */\n"
            "    public int increment() {\n        return ++count;\n    }\n}\n"
        ),
    },
    {
        "detailed_description": "A gauge.",
        "sketchy_description": "Reads a level.",
        "file": "counters/src/main/java/org/acme/count/BigGauge.java",
        "class_name": "Gauge",
        "repo_metadata": {"repo_name": "counters"},
        "evaluation_metadata": {
            "test_class_name": "GaugeTest",
            "test_file": "counters/src/test/java/org/acme/count/BigGaugeTest.java",
        },
        "task_id": 1,
        "ground_truth_class_body": "package org.acme.count;\n\npublic class BigGauge "
        "{\n    int level() { return 1; }\n}\n",
    },
    {
        "detailed_description": "Reads settings.",
        "sketchy_description": "Settings.",
        "file": "settings-app/src/main/java/org/acme/Settings.java",
        "class_name": "Settings",
        "repo_metadata": {"repo_name": "settings-app"},
        "evaluation_metadata": {
            "test_class_name": "SettingsTest",
            "test_file": "settings-app/src/test/java/org/acme/SettingsTest.java",
        },
        "task_id": 2,
        "ground_truth_class_body": "package org.acme;\n\n@Deprecated\ninterface Settings extends Cloneable "
        "{\n    String get(String key);\n}\n",
    },
]


@pytest.fixture
def served(tmp_path):
    """A local HTTP server holding both files, as raw.githubusercontent.com would."""
    folder = tmp_path / "site" / "data" / "input"
    folder.mkdir(parents=True)
    (folder / "python_data.json").write_text(json.dumps(PYTHON))
    (folder / "java_data.json").write_text(json.dumps(JAVA))
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(tmp_path / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/data/input"
    server.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def test_python_tasks_import_from_a_url(served, tmp_path):
    out = tmp_path / "python.parquet"
    result = run_cli("classbench", "import", "--from", f"{served}/python_data.json", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert (
        f"{out}: 2 published python tasks imported as classbench from 2 repositories "
        "(acme__shapes 1, acme-org__router 1)"
    ) in result.stdout
    assert read_stamp(out).benchmark == "classbench"
    polygon, route = read_records(out, ClassBenchTask)
    assert polygon.task_id == "acme__shapes::src/shapes/polygon.py::poLYgoN"
    assert (polygon.repo, polygon.commit, polygon.file_path, polygon.module) == (
        "https://github.com/acme/shapes",
        "a" * 40,
        "src/shapes/polygon.py",
        "shapes.polygon",
    )
    assert polygon.test_directives == ["tests/test_polygon.py::test_area", "tests/test_polygon.py::test_sides"]
    assert polygon.ground_truth_class == PYTHON[0]["ground_truth_class_body"]
    assert (polygon.detailed_description, polygon.sketchy_description) == (
        "A polygon; it measures itself.",
        "A polygon from points.",
    )
    assert (polygon.description_backend, polygon.description_model) == ("published", "")
    assert json.loads(polygon.setup) == {
        "published_task_id": "acme__shapes-101_poLYgoN",
        "repo_metadata": PYTHON[0]["repo_metadata"],
    }
    # metadata by the builder's own analysis of the ground truth
    assert polygon.detailed_metadata.startswith(
        "Class signature: class poLYgoN(Shape):\nClass full name: shapes.polygon.poLYgoN\n"
    )
    assert "Decorators: @dataclass\n" in polygon.sketchy_metadata and "    sides: int = 3\n" in polygon.sketchy_metadata
    assert "Function body:" in polygon.detailed_metadata and "Function body:" not in polygon.sketchy_metadata
    assert polygon.class_tokens > 0
    assert (
        polygon.paraphrased and not route.paraphrased
    )  # the RepoClassBench paper, E.1.1: only the SWE-bench repositories were
    # no setup_details: the repository comes from the issue id, the file from below repos/<name>/
    assert (route.repo, route.commit, route.file_path) == (
        "https://github.com/acme-org/router",
        "d" * 40,
        "router/route.py",
    )
    # the xdist group's suffix is no part of the node id; an "@" in a parameter is
    assert route.test_directives == ["tests/test_route.py::test_path", "tests/test_route.py::test_cache[a@b]"]
    assert json.loads(route.setup)["repo_metadata"]["setup_details"] is None


def test_java_tasks_import_from_a_path(tmp_path):
    source = tmp_path / "java_data.json"
    source.write_text(json.dumps(JAVA))
    out = tmp_path / "java.parquet"
    result = run_cli("classbench", "import", "--from", str(source), "--out", str(out), "--language", "java")
    assert result.returncode == 0, result.stderr
    assert (
        f"{out}: 3 published java tasks imported as classbench-java from 2 repositories (counters 2, settings-app 1)"
        in result.stdout
    )
    assert "3 tasks record no commit" in result.stdout
    # the published class_name is not always the ground truth's class: where the file's is, the task is that one
    assert (
        "counters::src/main/java/org/acme/count/BigGauge.java::Gauge: published as Gauge, which its file does not "
        "declare; judged as BigGauge, the class its file and descriptions name"
    ) in result.stdout
    assert read_stamp(out).benchmark == "classbench-java"
    counter, gauge, settings = read_records(out, ClassBenchTask)
    assert (counter.task_id, counter.language, counter.repo, counter.commit) == (
        "counters::src/main/java/org/acme/count/Counter.java::Counter",
        "java",
        "counters",
        "",
    )
    assert (counter.file_path, counter.module, counter.imports) == (
        "src/main/java/org/acme/count/Counter.java",
        "org.acme.count",
        ["import java.util.List;"],
    )
    assert counter.test_directives == ["org.acme.count.CounterTest"]
    assert (
        counter.ground_truth_class == JAVA[0]["ground_truth_class_body"] and counter.description_backend == "published"
    )
    assert json.loads(counter.setup) == {
        "published_task_id": 0,
        "repo_metadata": {"repo_name": "counters"},
        "evaluation_metadata": JAVA[0]["evaluation_metadata"],
        "java": {"module": "", "classpath": "", "classpath_dir": "", "release": ""},
    }
    assert counter.detailed_metadata == (
        "Class signature: public class Counter\nClass full name: org.acme.count.Counter\n"
        "File path: src/main/java/org/acme/count/Counter.java\nDecorators: \nParent classes: \nMember variables:\n"
        "    private int count = 0;\nFunctions accessible:\n<Function details for function no. 0>\n"
        "Function signature: public int increment()\nFunction fqdn: org.acme.count.Counter.increment\nDecorators: \n"
        "Function docstring: Adds one.\nFunction body: public int increment() {\n    return ++count;\n}\n</function "
        "details>\n"
    )
    assert not counter.paraphrased and gauge.test_directives == ["org.acme.count.GaugeTest"]
    assert (gauge.class_name, json.loads(gauge.setup)["published_class_name"]) == ("BigGauge", "Gauge")
    assert gauge.detailed_metadata.startswith("Class signature: public class BigGauge\n")
    assert "Decorators: @Deprecated\nParent classes: Cloneable\n" in settings.sketchy_metadata


def test_the_language_is_read_off_the_entries(served, tmp_path):
    summary = import_published(f"{served}/java_data.json", tmp_path / "java.parquet")
    assert (summary.language, summary.tasks, summary.per_repository) == ("java", 3, {"counters": 2, "settings-app": 1})


def test_errors_name_the_input_and_the_entry(served, tmp_path):
    out = tmp_path / "x.parquet"
    with pytest.raises(BenchsmithError, match=r"/missing.json: HTTP 404"):
        import_published(f"{served}/missing.json", out)
    with pytest.raises(BenchsmithError, match=r"^nowhere.json: no such file"):
        import_published("nowhere.json", out)
    broken = [dict(PYTHON[0]), {k: v for k, v in PYTHON[1].items() if k != "ground_truth_class_body"}]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken))
    with pytest.raises(
        BenchsmithError,
        match=rf"^{path}: entry 1 \(task_id 'acme-org__router-0001_Route', "
        r"class 'Route'\): no 'ground_truth_class_body'",
    ):
        import_published(str(path), out)
    path.write_text(json.dumps(JAVA))
    with pytest.raises(BenchsmithError, match=rf"^{path}: entry 0 .*no 'commit_id', which a published python task has"):
        import_published(str(path), out, "python")
    path.write_text(json.dumps({"tasks": []}))
    with pytest.raises(BenchsmithError, match="not a JSON list of tasks"):
        import_published(str(path), out)
    assert not out.exists()


@pytest.mark.java
def test_a_supplied_java_repository_judges_the_published_tasks(tmp_path):
    """The published Java file names no commit: with --repos the user's folder of each repository is judged as it is."""
    from tests.helpers.java_repo import write_java_repo

    write_java_repo(tmp_path / "repos" / "geometry")
    main = tmp_path / "repos" / "geometry" / "src" / "main" / "java" / "org" / "example" / "geometry"
    gold = (main / "Rectangle.java").read_text()
    entries = [
        {
            "detailed_description": "A rectangle.",
            "sketchy_description": "A rectangle.",
            "task_id": 0,
            "file": "geometry/src/main/java/org/example/geometry/Rectangle.java",
            "class_name": "Rectangle",
            "repo_metadata": {"repo_name": "geometry"},
            "evaluation_metadata": {
                "test_class_name": "RectangleTest",
                "test_file": "geometry/src/test/java/org/example/geometry/RectangleTest.java",
            },
            "ground_truth_class_body": gold,
        },
        dict(JAVA[2]),
    ]
    source = tmp_path / "java_data.json"
    source.write_text(json.dumps(entries))
    out = tmp_path / "java.parquet"
    result = run_cli(
        "classbench", "import", "--from", str(source), "--out", str(out), "--repos", str(tmp_path / "repos")
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"judged on the folders given: geometry {(tmp_path / 'repos' / 'geometry').resolve()}" in result.stdout
    assert "not in " in result.stdout and "settings-app" in result.stdout
    task = next(t for t in read_records(out, ClassBenchTask) if t.class_name == "Rectangle")
    assert (task.repo, task.commit, task.test_directives) == (
        str((tmp_path / "repos" / "geometry").resolve()),
        "",
        ["org.example.geometry.RectangleTest"],
    )
    candidates = tmp_path / "candidates.jsonl"
    wrong = gold.replace("return width * height;", "return width + height;")
    assert wrong != gold
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in (("gold", gold), ("wrong", wrong))
        )
    )
    results = tmp_path / "results.parquet"
    evaluated = run_cli("eval", "--dataset", str(out), "--candidates", str(candidates), "--out", str(results))
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    assert {r.candidate_id: r.status for r in read_records(results, Result)} == {"gold": "plausible", "wrong": "wrong"}


def test_reference_candidates_skip_the_empty_class_of_a_task_naming_a_class_its_file_lacks(tmp_path):
    """A published task whose class_name neither its file nor its file's name declares (Gauge.java holding BigGauge)
    gets its gold, and no empty class, rather than stopping `candidates reference` for every task."""
    source = tmp_path / "java_data.json"
    gauge = {**JAVA[1], "file": "counters/src/main/java/org/acme/count/Gauge.java"}
    source.write_text(json.dumps([JAVA[0], gauge, JAVA[2]]))
    out = tmp_path / "java.parquet"
    assert run_cli("classbench", "import", "--from", str(source), "--out", str(out)).returncode == 0
    candidates = tmp_path / "candidates.jsonl"
    result = run_cli("candidates", "reference", "--dataset", str(out), "--out", str(candidates))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "no empty class: counters::src/main/java/org/acme/count/Gauge.java::Gauge" in result.stderr
    kinds = sorted(
        (json.loads(line)["instance_id"].split("::")[-1], json.loads(line)["candidate_id"])
        for line in candidates.read_text().splitlines()
    )
    assert kinds == [
        ("Counter", "empty"),
        ("Counter", "gold"),
        ("Gauge", "gold"),
        ("Settings", "empty"),
        ("Settings", "gold"),
    ]
