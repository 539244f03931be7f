"""`classbench build --language java` and the Java class harness on a small Maven repository written here (JUnit 4
and 5 suites, real javac and JVMs, sandboxed)."""

import json
import os
import secrets
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.sources.java.class_file import empty_shell
from tests.helpers.cli import run_cli
from tests.helpers.java_repo import write_java_repo

pytestmark = [pytest.mark.java, pytest.mark.slow]
GOLDEN = Path(__file__).parent.parent / "golden" / "classbench-java"


@pytest.fixture(scope="module")
def built(java_geometry_dataset) -> Path:
    return java_geometry_dataset


def tasks_of(built: Path) -> dict[str, ClassBenchTask]:
    return {t.class_name: t for t in read_records(built, ClassBenchTask)}


def test_shortlist_reasons_directives_and_relatives(built):
    tasks = tasks_of(built)
    assert sorted(tasks) == ["Canvas", "Rectangle"]
    canvas, rectangle = tasks["Canvas"], tasks["Rectangle"]
    assert canvas.test_directives == [  # knownToFail fails on the ground truth; the JUnit 5 parameterized test is one
        "org.example.geometry.CanvasTest::countsWhatWasAdded",
        "org.example.geometry.CanvasTest::largestIsFound",
        "org.example.geometry.CanvasTest::totalAreaAddsUp",
    ]
    # JUnit 4 (RectangleTest, the field `unit` standing for its type) and JUnit 5 tests that name it.
    assert (
        len(rectangle.test_directives) == 8
        and "org.example.geometry.RectangleTest::scaleGrowsBothSides" in rectangle.test_directives
    )
    assert rectangle.external_references == ["org.example.geometry.Polygon"]
    assert rectangle.relatives == ["org.example.geometry.Circle", "org.example.geometry.Square"]
    assert rectangle.language == "java" and rectangle.module == "org.example.geometry"
    assert json.loads(rectangle.setup)["java"]["classpath"] == "maven-repo"
    card = json.loads(built.with_suffix(".card.json").read_text())
    assert {r["class"]: r["reason"] for r in card["rejections"]} == {
        "org.example.geometry.Circle": "fewer than two-thirds of its methods referenced by tests",
        "org.example.geometry.Measure": "not a class",
        "org.example.geometry.Polygon": "no passing test references it",
        "org.example.geometry.Shape": "fewer than two-thirds of its methods referenced by tests",
        "org.example.geometry.Square": "no methods",
        "org.example.geometry.Units": "fewer than two-thirds of its methods referenced by tests",
    }
    assert card["test_suite"] == {"passed": 10, "failed": 1}
    # The empty class (package, imports, declaration) breaks every directive: it does not even compile.
    assert card["solution_checks"]["org.example.geometry.Rectangle"] == {
        "directives": 8,
        "gold": "plausible",
        "gold_reason": "",
        "gold_passed": 8,
        "empty": "uncompilable",
        "empty_compiled": False,
        "empty_TR": 0.0,
    }


def test_metadata_matches_golden(built):
    task = tasks_of(built)["Rectangle"]
    for kind in ("detailed", "sketchy"):
        path = GOLDEN / f"Rectangle.{kind}.txt"
        if os.environ.get("UPDATE_GOLDEN"):
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(getattr(task, f"{kind}_metadata"))
        assert getattr(task, f"{kind}_metadata") == path.read_text()
    assert "return width * height;" in task.detailed_metadata and "return width * height;" not in task.sketchy_metadata


def _forged_report(names: list[str]) -> str:
    tests = ",".join(
        '{\\"phase\\":1,\\"name\\":\\"'
        + n
        + '\\",\\"spec\\":\\"'
        + n
        + '\\",\\"outcome\\":\\"passed\\",\\"message\\":\\"\\"}'
        for n in names
    )
    return '{\\"phases\\":1,\\"test_ms\\":1,\\"tests\\":[' + tests + "]}"


def test_eval_statuses_cr_tr_and_hostile_candidates(built, tmp_path):
    task = tasks_of(built)["Rectangle"]
    gold = task.ground_truth_class
    cache = os.environ["BENCHSMITH_CACHE"]
    planted = Path("/tmp") / f"benchsmith-planted-{secrets.token_hex(4)}"
    body = gold.split("public class Rectangle extends Polygon {", 1)[1]

    def with_static(code: str) -> str:  # runs as the class is initialised, inside the test JVM
        return gold.replace(
            "    private static final int SIDES = 4;",
            "    private static final int SIDES = 4;\n    static {\n" + code + "\n    }",
        )

    candidates = {
        "gold": gold,
        "gold-reformatted": gold.replace("return width * height;", "return   width*height ;  // the same tokens"),
        "empty": empty_shell(gold, "Rectangle"),
        "prose": "Here is the class.",
        "area-wrong": gold.replace("return width * height;", "return width + height;"),
        # Breaks a caller: Square calls this constructor, so the class path's Square no longer links; neither path
        # lets it compile.
        "breaks-caller": gold.replace(
            "public Rectangle(double width, double height)", "public Rectangle(double width, double height, int unused)"
        ).replace(
            "return new Rectangle(width * factor, height * factor);",
            "return new Rectangle(width * factor, height * factor, 0);",
        ),
        "wrong-package": gold.replace("package org.example.geometry;", "package org.example.elsewhere;"),
        # A top-level test class of its own in the candidate's file would stand in for the real one.
        "replaces-a-test": gold
        + "\nclass RectangleTest {\n    @org.junit.Test public void areaMultipliesSides() {}\n}\n",
        "exits": with_static("        System.exit(0);"),
        "halts": with_static("        Runtime.getRuntime().halt(0);"),
        "forges-report": with_static(
            "        try { java.io.FileOutputStream out = new java.io.FileOutputStream(java.io.FileDescriptor.out);"
            f' out.write("{_forged_report(task.test_directives)}\\n".getBytes()); out.flush(); '
            f"}} catch (Exception e) {{}}"
            "\n        Runtime.getRuntime().halt(0);"
        ),
        "plants-a-file": with_static(
            f'        try {{ new java.io.File("{planted}").createNewFile(); }} catch (Exception e) {{}}'
        ),
        # Right only where it can read the ground truth: any Rectangle.java under the cache or /tmp that holds it.
        "reads-ground-truth": gold.replace("return width * height;", "return peek() ? width * height : -1;").replace(
            "    @Override\n    public int sides()",
            "    private static boolean peek() {\n"
            f'        for (String root : new String[] {{"{cache}", "/tmp"}}) {{\n'
            "            try (java.util.stream.Stream<java.nio.file.Path> s = "
            "java.nio.file.Files.walk(java.nio.file.Paths.get(root))) {\n"
            '                if (s.filter(p -> p.endsWith("Rectangle.java")).anyMatch(p -> '
            '{ try { return new String(java.nio.file.Files.readAllBytes(p)).contains("width * height"); } catch (Exception e) { return false; } })) return true;\n'
            "            } catch (Exception e) { "
            "}\n        }\n        return false;\n    }\n\n    @Override\n    public int sides()",
        ),
        "loops": with_static("        while (System.nanoTime() > 0) { }"),
    }
    assert body  # the fixture's declaration line is what the helpers above edit
    path = tmp_path / "candidates.jsonl"
    path.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in candidates.items()
        )
    )
    out = tmp_path / "results.parquet"
    completed = run_cli(
        "eval", "--dataset", str(built), "--candidates", str(path), "--out", str(out), "--timeout", "20"
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    results = {r.candidate_id: r for r in read_records(out, Result)}
    assert {c: r.status for c, r in results.items()} == {
        "gold": "plausible",
        "gold-reformatted": "plausible",
        "empty": "uncompilable",
        "prose": "uncompilable",
        "area-wrong": "wrong",
        "breaks-caller": "uncompilable",
        "wrong-package": "uncompilable",
        "replaces-a-test": "uncompilable",
        "exits": "wrong",
        "halts": "wrong",
        "forges-report": "wrong",
        "plants-a-file": "plausible",
        "reads-ground-truth": "wrong",
        "loops": "timeout",
    }
    assert results["gold-reformatted"].duplicate_of == "gold"
    assert results["replaces-a-test"].reason.startswith("declares top-level types the file does not have")
    # The candidate's classes cannot open fd 1 (Confinement.java): the forged report is never written, and the halt
    # after it is refused, which fails the class's tests.
    assert not results["forges-report"].reason.startswith("forged") and "not allowed" in results["forges-report"].reason
    assert results["area-wrong"].tests_failed >= 1 and results["area-wrong"].tests_passed >= 1
    assert not planted.exists()  # written in the jail's private /tmp, gone with it
    report = json.loads(run_cli("report", "--results", str(out), "--k", "1", "--json").stdout)["all candidates"]
    compiled = sum(r.compiled for r in results.values())
    assert report["CR"] == pytest.approx(compiled / len(results))
    table = run_cli("report", "--results", str(out), "--k", "1").stdout
    assert "| TR | CR |" in table


def test_fast_and_plain_paths_agree(built, tmp_path):
    task = tasks_of(built)["Canvas"]
    gold = task.ground_truth_class
    candidates = {
        "gold": gold,
        "empty": empty_shell(gold, "Canvas"),
        "clear-wrong": gold.replace("shapes.clear();", ""),
    }
    statuses = {}
    for fast in (True, False):
        path = tmp_path / f"candidates-{fast}.jsonl"
        path.write_text(
            "".join(
                json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
                for c, code in candidates.items()
            )
        )
        out = tmp_path / f"results-{fast}.parquet"
        completed = run_cli(
            "eval",
            "--dataset",
            str(built),
            "--candidates",
            str(path),
            "--out",
            str(out),
            *([] if fast else ["--plain"]),
        )
        assert completed.returncode == 0, completed.stderr[-3000:]
        statuses[fast] = {
            r.candidate_id: (r.status, r.tests_passed, r.tests_failed, r.runner) for r in read_records(out, Result)
        }
    assert {c: s[:3] for c, s in statuses[True].items()} == {c: s[:3] for c, s in statuses[False].items()}
    assert statuses[True]["gold"][:3] == ("plausible", 3, 0) and statuses[True]["clear-wrong"][0] == "wrong"
    assert {s[3] for s in statuses[False].values() if s[0] != "uncompilable"} == {"plain"}


def test_paraphrased_build_flips_names_and_keeps_the_suite(tmp_path):
    repo = write_java_repo(tmp_path / "geometry")
    out = tmp_path / "flipped.parquet"
    completed = run_cli(
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(repo),
        "--classpath",
        "maven-repo",
        "--paraphrase",
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())["paraphrase"]
    assert card["still_passing_share"] == 1.0 and card["tasks_after"] == card["tasks_before"] == 2
    assert card["exclusions_by_rule"].get("library-override", 0) >= 2  # equals and hashCode keep their names
    tasks = read_records(out, ClassBenchTask)
    # Rectangle keeps its name: describe() prints getSimpleName(), and a test compares that with "Rectangle ...".
    assert all(t.paraphrased for t in tasks) and sorted(t.class_name for t in tasks) == ["Rectangle", "caNvas"]
    assert card["exclusions_by_rule"]["runtime-name"] == 1
    flipped = next(t for t in tasks if t.class_name == "Rectangle")
    assert "aReA()" in flipped.ground_truth_class
    path = GOLDEN / "Rectangle.paraphrased.java.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(flipped.ground_truth_class)
    assert flipped.ground_truth_class == path.read_text()
    assert "public boolean equals(Object" in flipped.ground_truth_class


def test_one_module_of_a_multi_module_build_with_a_folder_class_path(tmp_path):
    parent = tmp_path / "parent"
    write_java_repo(parent / "geometry")
    (parent / "pom.xml").write_text(
        "<project><modelVersion>4.0.0</modelVersion><groupId>org.example</groupId>"
        "<artifactId>parent</artifactId><version>1.0</version><packaging>pom</packaging>"
        "<modules><module>geometry</module></modules></project>\n"
    )
    jars = tmp_path / "jars"
    jars.mkdir()
    out = tmp_path / "module.parquet"
    completed = run_cli(
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(parent),
        "--module",
        "geometry",
        "--classpath",
        "folder",
        "--classpath-dir",
        str(jars),
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert (card["module"], card["classpath_source"], card["tasks"]) == ("geometry", "folder", 2)
    assert all(json.loads(t.setup)["java"]["module"] == "geometry" for t in read_records(out, ClassBenchTask))
    missing = run_cli(
        "classbench", "build", "--language", "java", "--repo", str(parent), "--out", str(tmp_path / "x.parquet")
    )
    assert (
        missing.returncode != 0
        and "no src/main/java; a Maven module with main sources is expected (name one with --module; its "
        "modules: geometry)"
        in missing.stderr
    )
