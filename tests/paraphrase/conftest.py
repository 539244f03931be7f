"""Shared fixtures: the tricky fixture repository, paraphrased once."""

from __future__ import annotations

import pytest

from tests.helpers.paraphrase import GOLDEN_SEED, TINYREPO

# The fixture repository's own tests run only in subprocesses, on copies.
collect_ignore = ["fixtures", "golden", "java", "realcheck.py", "realcheck_java.py"]


@pytest.fixture(scope="session")
def paraphrased(tmp_path_factory):
    """The fixture repository paraphrased once with the golden seed: (output folder, report)."""
    from benchsmith.paraphrase.python.run import paraphrase_classes

    out = tmp_path_factory.mktemp("paraphrased") / "tinyrepo"
    report = paraphrase_classes(TINYREPO, out, seed=GOLDEN_SEED)
    return out, report
