import json
import shutil

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.paraphrase.python.run import paraphrase_classes, parse_class_specs, report_path
from tests.helpers.paraphrase import TINYREPO


def test_prints_the_count_and_writes_the_report_beside_the_output(tmp_path, capsys):
    out = tmp_path / "para"
    report = paraphrase_classes(TINYREPO, out, seed=1, classes=["tinycodec/core.py::Encoder"])
    line = capsys.readouterr().out
    assert f"flipped {len(report.mapping)} names" in line
    data = json.loads(report_path(out).read_text())
    assert report_path(out) == tmp_path / "para.paraphrase.json"
    assert data["flipped"] == len(report.mapping) and data["mapping"] == report.mapping
    assert data["classes"] == ["tinycodec/core.py::Encoder"]
    assert data["excluded"]["get"] == {"rule": "common-attribute", "detail": "also an attribute of builtin types"}
    assert set(data["exclusion_counts"]) <= set(data["rules"])
    assert "FancyEncoder" not in report.mapping  # only the identifiers of the classes asked for


def test_class_specs():
    assert parse_class_specs(["a/b.py::X,c.py::Outer.Inner", " d.py::Y "]) == [
        ("a/b.py", "X"),
        ("c.py", "Outer.Inner"),
        ("d.py", "Y"),
    ]
    with pytest.raises(BenchsmithError, match="expected path/to/file.py::ClassName"):
        parse_class_specs(["a/b.py:X"])


def test_missing_repository(tmp_path):
    with pytest.raises(BenchsmithError, match="nope: repository directory does not exist"):
        paraphrase_classes(tmp_path / "nope", tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_file_that_does_not_parse_is_named(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(TINYREPO, repo)
    (repo / "tinycodec" / "broken.py").write_text("def f(:\n    pass\n")
    with pytest.raises(BenchsmithError, match=r"tinycodec/broken.py: does not parse as Python \(line 1"):
        paraphrase_classes(repo, tmp_path / "out")
    assert not (tmp_path / "out").exists() and not report_path(tmp_path / "out").exists()


def test_existing_output_and_output_inside_the_repository(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    with pytest.raises(BenchsmithError, match="output already exists"):
        paraphrase_classes(TINYREPO, tmp_path / "out")
    repo = tmp_path / "repo"
    shutil.copytree(TINYREPO, repo)
    with pytest.raises(BenchsmithError, match="must lie outside the repository"):
        paraphrase_classes(repo, repo / "para")


def test_unknown_class(tmp_path):
    with pytest.raises(BenchsmithError, match="tinycodec/core.py::Nope: no such class"):
        paraphrase_classes(TINYREPO, tmp_path / "out", classes=["tinycodec/core.py::Nope"])
