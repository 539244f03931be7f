"""Bad input: one-line errors for whole-run problems, per-bug reasons for bug-level ones, never a partial file."""

import difflib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import build_ledger, run_cli

PROJECT = Path("framework/projects/Ledger")


def assert_one_line_error(completed: subprocess.CompletedProcess, *fragments: str) -> None:
    assert completed.returncode == 2
    assert "Traceback" not in completed.stderr
    lines = [line for line in completed.stderr.splitlines() if line.startswith("benchsmith: error:")]
    assert len(lines) == 1, completed.stderr
    for fragment in fragments:
        assert fragment in lines[0]


@pytest.fixture
def d4j_copy(tmp_path) -> Path:
    root = tmp_path / "d4j"
    shutil.copytree(FIXTURE_D4J, root)
    return root


def build_from(root: Path, out: Path, repos: Path, projects: str = "Ledger") -> subprocess.CompletedProcess:
    return run_cli(
        "nl2fix",
        "build",
        "--defects4j",
        str(root),
        "--repos",
        str(repos),
        "--projects",
        projects,
        "--no-scrape",
        "--out",
        str(out),
    )


def rejection(out: Path, bug: str) -> dict:
    card = json.loads(out.with_suffix(".card.json").read_text())
    return next(r for r in card["rejections"] if r["bug"] == bug)


def test_missing_defects4j_root(tmp_path, fixture_repos):
    completed = build_from(tmp_path / "nowhere", tmp_path / "o.parquet", fixture_repos)
    assert_one_line_error(completed, str(tmp_path / "nowhere"), "not a Defects4J root")
    assert not (tmp_path / "o.parquet").exists()


def test_unknown_project(tmp_path, fixture_repos):
    completed = build_from(FIXTURE_D4J, tmp_path / "o.parquet", fixture_repos, projects="Ledger,Nope")
    assert_one_line_error(completed, "unknown project(s) Nope", "known: Ledger")
    assert list(tmp_path.iterdir()) == []


def test_malformed_active_bugs_row(tmp_path, d4j_copy, fixture_repos):
    csv = d4j_copy / PROJECT / "active-bugs.csv"
    csv.write_text(csv.read_text() + "eleven,abc\n")
    completed = build_from(d4j_copy, tmp_path / "o.parquet", fixture_repos)
    assert_one_line_error(completed, f"{csv}:12: malformed row")
    assert not (tmp_path / "o.parquet").exists()


def test_project_without_a_repository(tmp_path):
    completed = build_from(FIXTURE_D4J, tmp_path / "o.parquet", tmp_path / "empty-repos")
    assert_one_line_error(completed, "Ledger: no upstream repository known")


def test_missing_patch_file_is_a_bug_level_rejection(tmp_path, d4j_copy, fixture_repos):
    (d4j_copy / PROJECT / "patches" / "1.src.patch").unlink()
    completed = build_from(d4j_copy, tmp_path / "o.parquet", fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert rejection(tmp_path / "o.parquet", "Ledger-1")["reason"] == "missing patch file"


def test_patch_that_does_not_apply_is_a_bug_level_rejection(tmp_path, d4j_copy, fixture_repos):
    patch = d4j_copy / PROJECT / "patches" / "2.src.patch"
    lines = patch.read_text().splitlines(keepends=True)
    context = next(i for i, line in enumerate(lines) if line.startswith(" ") and line.strip())
    lines[context] = " " + lines[context][1:].rstrip("\n") + " // not in the file\n"
    patch.write_text("".join(lines))
    completed = build_from(d4j_copy, tmp_path / "o.parquet", fixture_repos)
    assert completed.returncode == 0, completed.stderr
    found = rejection(tmp_path / "o.parquet", "Ledger-2")
    assert found["reason"] == "patch does not apply"
    assert found["detail"].startswith(f"{patch}: patch does not apply")
    assert "Amount.java" in found["detail"]


def test_java_that_does_not_parse_is_a_bug_level_rejection(tmp_path, d4j_copy, fixture_repos):
    bug1 = (d4j_copy / PROJECT / "active-bugs.csv").read_text().splitlines()[1].split(",")
    path = "src/main/java/org/benchsmith/ledger/TextUtils.java"
    fixed = subprocess.run(
        ["git", "-C", str(fixture_repos / "Ledger"), "show", f"{bug1[2]}:{path}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    broken = fixed + "}\n"  # one closing brace too many
    diff = difflib.unified_diff(fixed.splitlines(True), broken.splitlines(True), f"a/{path}", f"b/{path}")
    (d4j_copy / PROJECT / "patches" / "1.src.patch").write_text(f"diff --git a/{path} b/{path}\n" + "".join(diff))
    completed = build_from(d4j_copy, tmp_path / "o.parquet", fixture_repos)
    assert completed.returncode == 0, completed.stderr
    found = rejection(tmp_path / "o.parquet", "Ledger-1")
    assert found["reason"] == "parse failure"
    assert f"{path}@buggy: Java does not parse" in found["detail"]


def test_existing_output_survives_a_failed_run(tmp_path, fixture_repos):
    out = tmp_path / "o.parquet"
    assert build_ledger(out, fixture_repos).returncode == 0
    before = out.read_bytes()
    completed = build_from(tmp_path / "nowhere", out, fixture_repos)
    assert completed.returncode == 2
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "o.card.json", "o.card.md", "o.parquet"]


def test_usage_errors_exit_non_zero():
    completed = run_cli("nl2fix", "build")
    assert completed.returncode == 2
    assert "--defects4j" in completed.stderr
