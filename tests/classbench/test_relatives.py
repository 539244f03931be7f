"""Relatives (RepoClassBench paper, RQ2): recorded by default, left out with ``classbench build --no-relatives``."""

from pathlib import Path

import pytest

from benchsmith import cli
from benchsmith.builders.classbench.python.build import ClassBenchOptions, _task, analyse_repository
from benchsmith.sources.python.repo import Repository

FAMILY = """\
class Shape:
    def area(self):
        return 0


class Polygon(Shape):
    def corners(self):
        return 0


class Triangle(Polygon):
    def corners(self):
        return 3


class Circle(Shape):
    def area(self):
        return 3.14
"""


@pytest.fixture
def family(tmp_path) -> tuple[Repository, list]:
    """A repository where Triangle's relatives (descendants of its grandparent Shape, not Polygon) are Circle."""
    tree = tmp_path / "tree"
    (tree / "src" / "shapes").mkdir(parents=True)
    (tree / "src" / "shapes" / "__init__.py").write_text("")
    (tree / "src" / "shapes" / "family.py").write_text(FAMILY)
    repo = Repository("local", "", "local-family", tree, "src", Path("python3"), {}, "shapes")
    return repo, analyse_repository(repo)


def triangle_task(family, **options):
    repo, classes = family
    triangle = next(c for c in classes if c.name == "Triangle")
    return _task(repo, ClassBenchOptions(repo="local", out=Path("unused"), **options), triangle, classes, ["t::t"])


def test_relatives_are_recorded_by_default(family):
    assert triangle_task(family).relatives == ["shapes.family.Circle"]


def test_no_relatives_leaves_them_out(family):
    assert triangle_task(family, no_relatives=True).relatives == []


@pytest.mark.parametrize(
    "module, function, language",
    [
        ("benchsmith.builders.classbench.python.build", "build", "python"),
        ("benchsmith.builders.classbench.java.build", "build_java", "java"),
    ],
)
def test_the_command_line_passes_no_relatives_on(monkeypatch, tmp_path, module, function, language):
    import importlib

    seen = []

    def fake_build(options):
        seen.append(options)
        raise SystemExit(0)

    monkeypatch.setattr(importlib.import_module(module), function, fake_build)
    out = str(tmp_path / "c.parquet")
    for extra in ([], ["--no-relatives"]):
        with pytest.raises(SystemExit):
            cli.main(["classbench", "build", "--repo", "x", "--language", language, "--out", out, *extra])
    assert [options.no_relatives for options in seen] == [False, True]
