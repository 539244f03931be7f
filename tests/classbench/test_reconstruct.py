"""Reading a published paraphrase off its ground truth (builders/classbench/reconstruct.py)."""

import pytest

from benchsmith.core.errors import BenchsmithError
from builders.classbench.reconstruct import flipped_sites, read_flips

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
    assert read_flips(UPSTREAM, "PolYgon", published, "task") == ({"Polygon": "PolYgon", "area": "ArEa", "scale": "sCale"}, set())
    assert flipped_sites(UPSTREAM, "PolYgon", {"scale", "area"}) == [(6, 8, "area"), (7, 15, "scale")]


@pytest.mark.parametrize("published, upstream_token, published_token", [
    ('class PolYgon:\n    def ArEa(self, size):\n        return sCale(size) * os.sep.count("-")\n', '"/"', '"-"'),
    ('class PolYgon:\n    def ArEa(self, size):\n        return sCale(size)\n', "*", "the end"),
])
def test_a_ground_truth_that_is_more_than_case_flips_is_refused(published, upstream_token, published_token):
    with pytest.raises(BenchsmithError) as raised:
        read_flips(UPSTREAM, "Polygon", published, "task")
    assert str(raised.value).startswith("task: the ground truth is not the upstream class with identifiers case-flipped")
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
    upstream = ('import attr\n\n\n@attr.s\nclass Code:\n    """A Code object, as compiled."""\n\n'
                '    def path(self) -> "Code":\n        return self.state("snap")\n')  # fmt: skip
    published = ('@attr.s\nclass coDE:\n    """A coDE object, as compiled."""\n\n'
                 '    def pAth(self) -> "coDE":\n        return self.state("SNAp")\n')  # fmt: skip
    assert read_flips(upstream, "coDE", published, "task") == ({"Code": "coDE", "path": "pAth", "snap": "SNAp"}, set())
