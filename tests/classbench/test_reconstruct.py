"""Reading a published paraphrase off its ground truth (builders/classbench/python/reconstruct.py)."""

import pytest

from benchsmith.builders.classbench.python.reconstruct import flipped_sites, read_flips
from benchsmith.core.errors import BenchsmithError

UPSTREAM = """import os


class Polygon:
    # a comment the published copy may have lost
    def area(self, size):
        return scale(size) * os.sep.count("/")


def scale(size):
    return size
"""


def test_the_flips_are_the_names_spelled_in_other_case():
    published = 'class PolYgon:\n    def ArEa(self, size):\n        return sCale(size) * os.sep.count("/")\n'
    assert read_flips(UPSTREAM, "PolYgon", published, "task") == (
        {"Polygon": "PolYgon", "area": "ArEa", "scale": "sCale"},
        set(),
    )
    assert flipped_sites(UPSTREAM, "PolYgon", {"scale", "area"}) == [(6, 8, "area"), (7, 15, "scale")]


@pytest.mark.parametrize(
    "published, upstream_token, published_token",
    [
        ('class PolYgon:\n    def ArEa(self, size):\n        return sCale(size) * os.sep.count("-")\n', '"/"', '"-"'),
        ("class PolYgon:\n    def ArEa(self, size):\n        return sCale(size)\n", "*", "the end"),
    ],
)
def test_a_ground_truth_that_is_more_than_case_flips_is_refused(published, upstream_token, published_token):
    with pytest.raises(BenchsmithError) as raised:
        read_flips(UPSTREAM, "Polygon", published, "task")
    assert str(raised.value).startswith(
        "task: the ground truth is not the upstream class with identifiers case-flipped"
    )
    assert f"upstream {upstream_token!r}, published {published_token!r}" in str(raised.value)


def test_a_name_also_spelled_as_upstream_is_told_and_one_flipped_two_ways_is_refused():
    upstream = "class A:\n    def ab(self):\n        return self.ab + self.d.ab\n"
    kept_once = "class A:\n    def aB(self):\n        return self.aB + self.d.ab\n"  # a dict's ab stays
    assert read_flips(upstream, "A", kept_once, "task") == ({"ab": "aB"}, {"ab"})
    with pytest.raises(BenchsmithError, match="task: ab is flipped two ways in the ground truth: Ab, aB"):
        read_flips(upstream, "A", "class A:\n    def aB(self):\n        return self.Ab + self.d.ab\n", "task")


def test_a_class_the_upstream_file_lacks_is_named():
    with pytest.raises(BenchsmithError, match="the upstream file has 0 module-level classes named like Square"):
        read_flips(UPSTREAM, "Square", "class Square:\n    pass\n", "task")


def test_decorators_and_strings_that_differ_only_in_case_are_read():
    upstream = (
        'import attr\n\n\n@attr.s\nclass Code:\n    """A Code object, as compiled."""\n\n'
        '    def path(self) -> "Code":\n        return self.state("snap")\n'
    )
    published = (
        '@attr.s\nclass coDE:\n    """A coDE object, as compiled."""\n\n'
        '    def pAth(self) -> "coDE":\n        return self.state("SNAp")\n'
    )
    assert read_flips(upstream, "coDE", published, "task") == ({"Code": "coDE", "path": "pAth", "snap": "SNAp"}, set())


def test_a_rebuilt_copy_flips_kept_names_through_imports_and_strings_and_still_runs(tmp_path):
    """The published copy flipped ``Module``, which the renamer keeps (astroid also reads ``ast.Module``): the
    rebuild renames it wherever it is the repository's (re-exports, ``__all__``, module attributes, patch targets)
    and the rebuilt tests pass; a name the ground truth also spells as upstream goes by reference."""
    import subprocess

    from benchsmith.builders.classbench.python.reconstruct import reconstruct
    from tests.helpers.git_history import committed
    from tests.helpers.paraphrase import run_repo_tests
    from tests.paraphrase.test_overrule import ASTROLITE, FLIPS

    history = tmp_path / "history"
    committed(history, ASTROLITE)
    copy = reconstruct(history, "HEAD", FLIPS, tmp_path / "rebuilt")
    assert copy.overruled == dict.fromkeys(FLIPS, "string")  # each spelled by a literal (a patch target, hasattr)
    assert copy.kept == {} and copy.by_reference == {}
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    subprocess.run(f"git --git-dir={tmp_path / 'rebuilt'} archive HEAD | tar -x -C {checkout}", shell=True, check=True)
    assert "from astrolite.nodes import moDuLE, COnST" in (checkout / "astrolite/__init__.py").read_text()
    assert len(run_repo_tests(checkout, tmp_path / "rebuilt.xml")) == 4  # every test of the fixture passes in the copy


def test_the_instance_fix_is_found_by_its_pull_request_and_applied_to_the_base(tmp_path):
    """RepoClassBench's copies hold the SWE-bench instance's fix (pvlib's PVSystem after #1854): the commit that
    merged the instance's pull request after the base is found by its number, and its own changes applied."""
    from benchsmith.builders.classbench.python.reconstruct import export_fixed, instance_fix
    from tests.helpers.git_history import committed

    history = tmp_path / "history"
    base = committed(history, {"shapes.py": UPSTREAM})
    (history / "notes.txt").write_text("unrelated\n")
    square = UPSTREAM.replace("def area(self, size):", "def area(self, size=1):")
    fix = committed(history, {"shapes.py": square}, "Let Polygon take a square (#42)")
    committed(history, {"shapes.py": UPSTREAM.replace("def scale", "def rescale")}, "Later work (#43)")
    assert instance_fix(history, base, "acme__shapes-42") == fix
    assert instance_fix(history, base, "acme__shapes-7") == ""
    export_fixed(history, base, fix, tmp_path / "tree")
    assert "def area(self, size=1):" in (tmp_path / "tree" / "shapes.py").read_text()
    assert "def scale" in (tmp_path / "tree" / "shapes.py").read_text()  # #43 is not the instance's
    assert (tmp_path / "tree" / "notes.txt").read_text() == "unrelated\n"  # the fix's whole change
