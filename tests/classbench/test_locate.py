"""``classbench locate``: the commit of a published Java repository found by its tasks' ground truths, in histories
written here; and ``classbench import --commits`` judging the tasks at it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from benchsmith.builders.classbench.java.locate import EXACT, WHITESPACE, read_mapping
from benchsmith.core.schema import ClassBenchTask, Result, read_records
from tests.helpers.cli import run_cli

COUNTER = {
    1: "package org.acme;\n\npublic class Counter {\n    int n;\n}\n",
    2: "package org.acme;\n\npublic class Counter {\n    int n;\n\n    void up() { n++; }\n}\n",
    3: "package org.acme;\n\npublic class Counter {\n    long n;\n\n    void up() { n++; }\n}\n",
}
GAUGE = {
    1: "package org.acme;\n\npublic class Gauge {\n}\n",
    2: "package org.acme;\n\npublic class Gauge {\n    double level;\n}\n",
}
MAIN, TESTS = "app/src/main/java/org/acme", "app/src/test/java/org/acme"


def _commit(repo: Path, files: dict[str, str], message: str) -> str:
    for relative, text in files.items():
        path = repo / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode())
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", message], check=True)
    return subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def _history(root: Path) -> list[str]:
    """counters: Counter at its ground truth in commits 2 and 3, Gauge only in 3 (with CRLF line endings), then
    Counter changes again."""
    repo = root / "counters"
    repo.mkdir(parents=True)
    subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    return [
        _commit(repo, {f"{MAIN}/Counter.java": COUNTER[1]}, "first"),
        _commit(
            repo,
            {
                f"{MAIN}/Counter.java": COUNTER[2],
                f"{MAIN}/Gauge.java": GAUGE[1],
                f"{TESTS}/CounterTest.java": "// a test\n",
                f"{TESTS}/GaugeTest.java": "// a test\n",
            },
            "up",
        ),
        _commit(repo, {f"{MAIN}/Gauge.java": GAUGE[2].replace("\n", "\r\n")}, "level"),
        _commit(repo, {f"{MAIN}/Counter.java": COUNTER[3]}, "long"),
    ]


def _entry(number: int, class_name: str, ground_truth: str) -> dict:
    return {
        "task_id": number,
        "class_name": class_name,
        "file": f"counters/{MAIN}/{class_name}.java",
        "detailed_description": f"A {class_name}.",
        "sketchy_description": f"A {class_name}.",
        "repo_metadata": {"repo_name": "counters"},
        "ground_truth_class_body": ground_truth,
        "evaluation_metadata": {
            "test_class_name": f"{class_name}Test",
            "test_file": f"counters/{TESTS}/{class_name}Test.java",
        },
    }


def test_the_commit_holding_every_ground_truth_is_found_by_content(tmp_path):
    commits = _history(tmp_path / "repos")
    source = tmp_path / "java_data.json"
    source.write_text(json.dumps([_entry(0, "Counter", COUNTER[2]), _entry(1, "Gauge", GAUGE[2])]))
    mapping = tmp_path / "mapping.json"
    result = run_cli(
        "classbench", "locate", "--from", str(source), "--repos", str(tmp_path / "repos"), "--out", str(mapping)
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert f"counters: {commits[2][:12]} of " in result.stdout
    assert "holds 2 of 2 ground truths and 2 test files; 1 commits do (1 on the default branch)" in result.stdout
    found = json.loads(mapping.read_text())["repositories"]["counters"]
    assert (found["commit"], found["matching"], found["window"], found["first_differing"]) == (
        commits[2],
        2,
        [commits[2]] * 2,
        {},
    )
    counter, gauge = found["per_task"].values()
    assert (counter["match"], counter["commits_holding"], counter["first_holding"], counter["last_holding"]) == (
        EXACT,
        2,
        commits[1],
        commits[2],
    )
    # the history's Gauge has CRLF line endings where the ground truth has LF: equal once normalised, and said so
    assert (gauge["match"], gauge["commits_holding"], gauge["versions_of_the_file"]) == (WHITESPACE, 2, 2)


def test_a_ground_truth_that_no_commit_holds_is_named_with_its_file(tmp_path):
    _history(tmp_path / "repos")
    source = tmp_path / "java_data.json"
    source.write_text(json.dumps([_entry(7, "Counter", COUNTER[2].replace("n++", "n += 2"))]))
    mapping = tmp_path / "mapping.json"
    result = run_cli(
        "classbench", "locate", "--from", str(source), "--repos", str(tmp_path / "repos"), "--out", str(mapping)
    )
    assert result.returncode == 1
    assert (
        f"counters: no commit: task 7 (Counter): no commit of {tmp_path / 'repos' / 'counters' / '.git'} has "
        f"{MAIN}/Counter.java equal to its ground truth (3 version(s) of that file in the history)"
    ) in result.stdout
    assert read_mapping(mapping)["counters"].startswith("task 7 (Counter): no commit")


def test_import_judges_the_tasks_at_the_located_commit_and_counts_those_not_there(tmp_path):
    commits = _history(tmp_path / "repos")
    entries = [_entry(0, "Counter", COUNTER[3]), _entry(1, "Gauge", GAUGE[2]), _entry(2, "Counter", COUNTER[2])]
    entries[2]["file"] = f"counters/{MAIN}/Counter2.java"  # a file of no commit: the first differing task
    entries.append(_entry(3, "Level", GAUGE[2]))  # a class_name its file does not declare, as five published tasks
    entries[3]["file"] = f"counters/{MAIN}/Gauge.java"
    source = tmp_path / "java_data.json"
    source.write_text(json.dumps(entries))
    mapping = tmp_path / "mapping.json"
    located = run_cli(
        "classbench", "locate", "--from", str(source), "--repos", str(tmp_path / "repos"), "--out", str(mapping)
    )
    assert located.returncode == 0, located.stderr[-2000:]
    # Counter's ground truth is the last version (commit 4), Gauge's is in commits 3 and 4: the best commit holds two
    assert f"counters: {commits[3][:12]} of " in located.stdout
    assert f"first differing: {MAIN}/Counter2.java is absent at {commits[3][:12]}" in located.stdout
    out = tmp_path / "java.parquet"
    imported = run_cli("classbench", "import", "--from", str(source), "--out", str(out), "--commits", str(mapping))
    assert imported.returncode == 0, imported.stderr[-2000:]
    assert f"at the commits of {mapping}: counters {commits[3][:12]}" in imported.stdout
    assert (
        f"counters::{MAIN}/Counter2.java::Counter: {MAIN}/Counter2.java at {commits[3][:12]} is not its ground truth"
        in imported.stdout
    )
    # the published class_name is its file's class cut short: the task is the file's class, at the commit
    assert (
        f"counters::{MAIN}/Gauge.java::Level: published as Level, which its file does not declare; judged as Gauge, "
        "the class its file and descriptions name"
    ) in imported.stdout
    assert "its class_name declares no class" not in imported.stdout
    tasks = {t.task_id: t for t in read_records(out, ClassBenchTask)}
    level = tasks[f"counters::{MAIN}/Gauge.java::Level"]
    assert (level.class_name, level.commit) == ("Gauge", commits[3])
    gauge = tasks[f"counters::{MAIN}/Gauge.java::Gauge"]
    assert (gauge.repo, gauge.commit, gauge.file_path) == (
        str(tmp_path / "repos" / "counters" / ".git"),
        commits[3],
        "src/main/java/org/acme/Gauge.java",
    )
    assert json.loads(gauge.setup)["java"]["module"] == "app"


@pytest.mark.java
@pytest.mark.slow
def test_a_located_task_of_a_module_is_judged_at_its_commit(tmp_path):
    """End to end on a Maven module in a subfolder: locate, import --commits, eval: the gold passes, a wrong class
    does not, the task read from the commit and not from the changed work tree."""
    from tests.helpers.java_repo import write_java_repo

    repo = tmp_path / "repos" / "geometry"
    write_java_repo(repo / "shapes")
    subprocess.run(["git", "-C", str(repo), "init", "-q"], check=True)
    rectangle = repo / "shapes" / "src" / "main" / "java" / "org" / "example" / "geometry" / "Rectangle.java"
    gold = rectangle.read_text()
    # a class the workspace leaves out (it imports what no class path has): judged as an error naming why, not a crash
    broken = (
        "package org.example.geometry;\n\nimport org.nowhere.Thing;\n\npublic class Broken {\n    Thing thing;\n}\n"
    )
    commit = _commit(
        repo,
        {
            "shapes/src/main/java/org/example/geometry/Broken.java": broken,
            "shapes/src/test/java/org/example/geometry/BrokenTest.java": "package org.example.geometry;\n\npublic "
            "class BrokenTest {\n    Broken broken;\n}\n",
        },
        "geometry",
    )
    _commit(repo, {str(rectangle.relative_to(repo)): gold.replace("return width * height;", "return 0;")}, "broken")
    entry = {
        "task_id": 0,
        "class_name": "Rectangle",
        "detailed_description": "A rectangle.",
        "sketchy_description": "A rectangle.",
        "file": "geometry/shapes/src/main/java/org/example/geometry/Rectangle.java",
        "repo_metadata": {"repo_name": "geometry"},
        "evaluation_metadata": {
            "test_class_name": "RectangleTest",
            "test_file": "geometry/shapes/src/test/java/org/example/geometry/RectangleTest.java",
        },
        "ground_truth_class_body": gold,
    }
    source, mapping, out = tmp_path / "java_data.json", tmp_path / "mapping.json", tmp_path / "java.parquet"
    other = json.loads(json.dumps(entry).replace("Rectangle", "Broken"))
    other["ground_truth_class_body"] = broken
    source.write_text(json.dumps([entry, other]))
    assert (
        run_cli(
            "classbench", "locate", "--from", str(source), "--repos", str(tmp_path / "repos"), "--out", str(mapping)
        ).returncode
        == 0
    )
    assert json.loads(mapping.read_text())["repositories"]["geometry"]["commit"] == commit
    imported = run_cli(
        "classbench",
        "import",
        "--from",
        str(source),
        "--out",
        str(out),
        "--repos",
        str(tmp_path / "repos"),
        "--commits",
        str(mapping),
    )
    assert imported.returncode == 0, imported.stderr[-2000:]
    task, left_out = read_records(out, ClassBenchTask)
    assert (task.commit, task.file_path, task.test_directives) == (
        commit,
        "src/main/java/org/example/geometry/Rectangle.java",
        ["org.example.geometry.RectangleTest"],
    )
    wrong = gold.replace("return width * height;", "return width + height;")
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in (("gold", gold), ("wrong", wrong))
        )
    )
    with candidates.open("a") as f:
        f.write(json.dumps({"instance_id": left_out.task_id, "candidate_id": "broken-gold", "code": broken}) + "\n")
    results = tmp_path / "results.parquet"
    evaluated = run_cli("eval", "--dataset", str(out), "--candidates", str(candidates), "--out", str(results))
    assert evaluated.returncode == 0, evaluated.stderr[-3000:]
    verdicts = {r.candidate_id: r for r in read_records(results, Result)}
    assert {c: r.status for c, r in verdicts.items()} == {"gold": "plausible", "wrong": "wrong", "broken-gold": "error"}
    assert "its class was left out of the workspace" in verdicts["broken-gold"].reason
    assert "package org.nowhere does not exist" in verdicts["broken-gold"].reason
