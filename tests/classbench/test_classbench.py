"""`classbench build` and the class harness on the bundled geometry package (a real pytest run, sandboxed)."""

import hashlib
import json
import os
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import reference_solution
from benchsmith.sources.python.removal import remove_class
from tests.conftest import GEOMETRY
from tests.helpers.cli import run_cli

GOLDEN = Path(__file__).parent.parent / "golden" / "classbench"
TASK = "::src/geometry/shapes.py::Polygon"


@pytest.fixture(scope="module")
def built(geometry_dataset) -> Path:
    return geometry_dataset


def test_shortlist_directives_and_card(built):
    (task,) = read_records(built, ClassBenchTask)
    assert task.task_id.endswith(TASK) and task.class_name == "Polygon" and task.module == "geometry.shapes"
    assert task.test_directives == [
        "tests/test_shapes.py::test_area",
        "tests/test_shapes.py::test_degenerate",
        "tests/test_shapes.py::test_label",
        "tests/test_shapes.py::test_opacity_is_clamped",
        "tests/test_shapes.py::test_perimeter",
        "tests/test_shapes.py::test_too_few_points",
    ]
    assert task.imports == ["from typing import List", "from .util import TOLERANCE, clamp, distance"]
    # the annotations and defaults of its signatures are in its body too: List[Point], name=DEFAULT_NAME
    assert task.external_references == [".util.TOLERANCE", ".util.clamp", ".util.distance", "DEFAULT_NAME", "Point"]
    card = json.loads(built.with_suffix(".card.json").read_text())
    assert card["solution_checks"] == {
        "geometry.shapes.Polygon": {
            "directives": 6,
            "unstable_ids_dropped": 0,
            "failing_on_the_original_dropped": 0,
            "flaky_dropped": 0,
            "refused_to_candidates_dropped": 0,
            "passing_with_ground_truth": 6,
            "passing_with_empty_class": 0,
        }
    }
    assert {r["class"]: r["reason"] for r in card["rejections"]} == {
        "geometry.shapes.Point": "no external reference",  # its methods name only itself
        "geometry.units.Length": "fewer than 2 directly covered methods",  # no test covers it
    }
    assert card["test_suite"] == {"passed": 8}


def test_metadata_matches_golden(built):
    (task,) = read_records(built, ClassBenchTask)
    for kind in ("detailed", "sketchy"):
        path = GOLDEN / f"Polygon.{kind}.txt"
        if os.environ.get("UPDATE_GOLDEN"):
            path.write_text(getattr(task, f"{kind}_metadata"))
        assert getattr(task, f"{kind}_metadata") == path.read_text()
    assert "Function body:" not in task.sketchy_metadata


def test_removal_matches_golden():
    removed = remove_class((GEOMETRY / "src/geometry/shapes.py").read_text(), "Polygon").text
    path = GOLDEN / "shapes.without-Polygon.py.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(removed)
    assert removed == path.read_text()


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return digest.hexdigest()


def test_eval_statuses_tr_and_hostile_candidates(built, tmp_path):
    (task,) = read_records(built, ClassBenchTask)
    gold = reference_solution(task)
    sentinel = Path(os.environ["BENCHSMITH_CACHE"]) / "outside.txt"
    sentinel.write_text("keep")
    candidates = {
        "gold": gold,
        "gold-reformatted": gold.replace("    def area(self) -> float:", "    def area(self)->float:  # same tokens"),
        "empty": "class Polygon:\n    pass\n",
        "prose": "Here is the class:",
        "area-wrong": gold.replace("return abs(total) / 2", "return abs(total)"),
        "loops-on-import": "while True:\n    pass\n\nclass Polygon:\n    pass\n",
        "deletes-outside": f"import os\ntry:\n    os.remove({str(sentinel)!r})\nexcept OSError:\n    pass\n\n" + gold,
        "fakes-success": "print('6 passed in 0.01s')\nimport os\nos._exit(0)\n\nclass Polygon:\n    pass\n",
        "imports-missing": "import shapely_not_installed\n\n" + gold,
        # 440 threads kept alive, as suites whose clients leak threads leave them: with glibc's default malloc arenas
        # (64 MiB of address space each, up to 8 per core) a 4 GiB run cannot start the 390th; with at most 4 it can
        "keeps-threads": (
            "import threading\n\n_held = threading.Event()\nfor _ in range(440):\n"
            "    threading.Thread(target=lambda: (bytearray(64), _held.wait()), daemon=True).start()\n\n" + gold
        ),
    }
    path = tmp_path / "candidates.jsonl"
    path.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in candidates.items()
        )
    )
    pristine = Path(os.environ["BENCHSMITH_CACHE"]) / "classbench" / "sources"
    before = tree_digest(pristine)
    out = tmp_path / "results.parquet"
    completed = run_cli(
        "eval", "--dataset", str(built), "--candidates", str(path), "--out", str(out), "--timeout", "20"
    )
    assert completed.returncode == 0, completed.stderr
    results = {r.candidate_id: r for r in read_records(out, Result)}
    assert {c: r.status for c, r in results.items()} == {
        "gold": "plausible",
        "gold-reformatted": "plausible",
        "empty": "wrong",
        "prose": "uncompilable",
        "area-wrong": "wrong",
        "loops-on-import": "timeout",
        "deletes-outside": "plausible",
        "fakes-success": "wrong",
        "imports-missing": "wrong",
        "keeps-threads": "plausible",
    }
    # Nothing collected: the reason names the import that failed, and the file that made it.
    assert (
        "src/geometry/shapes.py imports shapely_not_installed (loaded from tests/test_shapes.py), which the "
        "environment lacks"
    ) in results["imports-missing"].reason
    assert results["gold-reformatted"].duplicate_of == "gold"
    assert (results["area-wrong"].tests_passed, results["area-wrong"].tests_failed) == (5, 1)  # only test_area
    assert results["prose"].reason.startswith("does not parse")
    assert sentinel.read_text() == "keep"  # the candidate could not delete it: plausible, but harmless
    assert tree_digest(pristine) == before
    report = json.loads(run_cli("report", "--results", str(out), "--k", "1", "--json").stdout)["all candidates"]
    assert report["TR"] == pytest.approx((1 + 1 + 0 + 0 + 5 / 6 + 0 + 1 + 0 + 0 + 1) / 10)


def test_paraphrased_build_keeps_the_suite_passing(tmp_path):
    out = tmp_path / "geometry-paraphrased.parquet"
    completed = run_cli("classbench", "build", "--repo", str(GEOMETRY), "--paraphrase", "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    (task,) = read_records(out, ClassBenchTask)
    card = json.loads(out.with_suffix(".card.json").read_text())["paraphrase"]
    assert card["still_passing_after"] == card["tests_passing_before"] == 8
    assert task.paraphrased and task.class_name == card["mapping"]["Polygon"] != "Polygon"
    assert task.class_name.lower() == "polygon"
    assert f"class {task.class_name}" in task.ground_truth_class
    assert len(task.test_directives) == 6
