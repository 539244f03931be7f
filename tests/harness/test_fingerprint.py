import shutil

import pytest

from benchsmith.core.errors import BenchsmithError
from benchsmith.scoring.fingerprint import ROOT, VERDICT_SOURCES, harness_fingerprint


def copy_sources(tmp_path):
    for relative in VERDICT_SOURCES:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / relative, tmp_path / relative)
    return tmp_path


def test_the_fingerprint_is_the_sources_and_nothing_else(tmp_path):
    root = copy_sources(tmp_path)
    assert harness_fingerprint(root) == harness_fingerprint() == harness_fingerprint(root)
    (root / "benchsmith" / "runners" / "unrelated.py").write_text("x = 1\n")
    assert harness_fingerprint(root) == harness_fingerprint()


@pytest.mark.parametrize("relative", VERDICT_SOURCES)
def test_any_change_to_a_source_changes_the_fingerprint(tmp_path, relative):
    root = copy_sources(tmp_path)
    with (root / relative).open("ab") as handle:
        handle.write(b"\n")
    assert harness_fingerprint(root) != harness_fingerprint()


def test_a_missing_source_is_an_error_naming_it(tmp_path):
    root = copy_sources(tmp_path)
    (root / "benchsmith" / "runners" / "java" / "insertion.py").unlink()
    with pytest.raises(
        BenchsmithError, match=r"benchsmith/runners/java/insertion.py: cannot read a file the harness fingerprint needs"
    ):
        harness_fingerprint(root)
