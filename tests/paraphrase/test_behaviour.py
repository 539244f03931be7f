"""The paraphrased fixture repository still passes its own (also paraphrased) tests."""

import shutil

from benchsmith.paraphrase.python.run import paraphrase_classes
from tests.helpers.paraphrase import TINYREPO, run_repo_tests


def test_tests_that_passed_before_pass_after(paraphrased, tmp_path):
    original = tmp_path / "original"
    shutil.copytree(TINYREPO, original, ignore=shutil.ignore_patterns("__pycache__"))
    before = run_repo_tests(original, tmp_path / "before.xml")
    out, report = paraphrased
    after = run_repo_tests(out, tmp_path / "after.xml")
    assert len(before) == 13  # every fixture test passes on the original
    assert before <= after
    assert len(report.mapping) >= 30


def test_same_seed_same_output(paraphrased, tmp_path):
    out, report = paraphrased
    again = tmp_path / "again"
    second = paraphrase_classes(TINYREPO, again, seed=report.seed)
    assert second.mapping == report.mapping
    for rel in report.files_changed:
        assert (again / rel).read_bytes() == (out / rel).read_bytes()


def test_different_seed_different_flips(paraphrased, tmp_path):
    out, report = paraphrased
    other = paraphrase_classes(TINYREPO, tmp_path / "other", seed=report.seed + 1)
    assert other.mapping.keys() == report.mapping.keys()  # the same names are safe to flip...
    assert other.mapping != report.mapping  # ...to other spellings
    assert (tmp_path / "other" / "tinycodec/core.py").read_text() != (out / "tinycodec/core.py").read_text()
