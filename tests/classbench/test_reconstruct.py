"""Reading a published paraphrase off its ground truth (builders/classbench/reconstruct.py)."""

import pytest

from benchsmith.errors import BenchsmithError
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
    assert read_flips(UPSTREAM, "PolYgon", published, "task") == {"Polygon": "PolYgon", "area": "ArEa", "scale": "sCale"}
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


def test_one_name_spelled_two_ways_is_refused():
    upstream = "class A:\n    def f(self):\n        return self.f\n"
    with pytest.raises(BenchsmithError, match="f is spelled both F and f"):
        read_flips(upstream, "A", "class A:\n    def F(self):\n        return self.f\n", "task")


def test_a_class_the_upstream_file_lacks_is_named():
    with pytest.raises(BenchsmithError, match="the upstream file has 0 module-level classes named like Square"):
        read_flips(UPSTREAM, "Square", "class Square:\n    pass\n", "task")
