"""The paraphrased fixture repository, pinned file by file (read and checked by hand)."""

import json

import pytest

from tests.helpers.paraphrase import GOLDEN, TINYREPO

GOLDEN_FILES = sorted(
    p.relative_to(GOLDEN / "tinyrepo").as_posix().removesuffix(".golden")
    for p in (GOLDEN / "tinyrepo").rglob("*.golden")
)


@pytest.mark.parametrize("rel", GOLDEN_FILES)
def test_paraphrased_file_matches_golden(paraphrased, rel):
    out, _ = paraphrased
    assert (out / rel).read_text() == (GOLDEN / "tinyrepo" / f"{rel}.golden").read_text()


def test_only_the_golden_files_changed(paraphrased):
    _, report = paraphrased
    assert report.files_changed == GOLDEN_FILES


def test_unchanged_files_are_byte_identical(paraphrased):
    out, _ = paraphrased
    for source in TINYREPO.rglob("*"):
        rel = source.relative_to(TINYREPO).as_posix()
        if source.is_file() and rel not in GOLDEN_FILES and "__pycache__" not in rel:
            assert (out / rel).read_bytes() == source.read_bytes(), rel


def test_mapping_and_exclusions_match_golden(paraphrased):
    _, report = paraphrased
    golden = json.loads((GOLDEN / "tinyrepo.report.json").read_text())
    assert report.mapping == golden["mapping"]
    assert {n: e.rule for n, e in report.excluded.items()} == golden["excluded"]
