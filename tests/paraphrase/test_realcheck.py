"""The RepoClassBench paper's check on a real package: tests that passed before still pass after paraphrasing.

Downloads from PyPI, so it runs only with BENCHSMITH_ONLINE=1 (about a minute).
"""

import os

import pytest

from .realcheck import check

pytestmark = [
    pytest.mark.online,
    pytest.mark.skipif(os.environ.get("BENCHSMITH_ONLINE") != "1", reason="needs PyPI (BENCHSMITH_ONLINE=1)"),
]


def test_more_itertools_still_passes(tmp_path):
    result = check("more-itertools==10.2.0", tmp_path / "work", tests=["tests"])
    assert result["passed_before"] > 500
    assert result["flipped"] >= 40
    assert result["ratio"] >= 0.95
