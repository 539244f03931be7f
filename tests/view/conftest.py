"""A run shaped as `make dataset` leaves one, made here from the repository's fixtures: the Ledger bugs judged by the
Java harness (NL2Fix, ranked), the geometry package's class judged by pytest (classbench), and the RRR agent
scripted over it, with its transcripts."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import build_ledger, run_cli

# A run `make dataset` wrote, to open instead of the one made here (its `data/datasets/` beside it).
MADE_BY_MAKE = Path(os.environ["BENCHSMITH_VIEW_RUN"]).resolve() if os.environ.get("BENCHSMITH_VIEW_RUN") else None
NL2FIX_BUGS = ("Ledger-1", "Ledger-2")  # two bugs' candidates keep the Java part of the run under half a minute


def _ok(completed) -> None:
    assert completed.returncode == 0, completed.stderr[-3000:]


@pytest.fixture(scope="session")
def view_run(tmp_path_factory, fixture_repos, geometry_dataset) -> Path:
    """``<run>/`` with ``datasets/`` beside it, the files named as the Makefile's ``dataset`` target names them; with
    ``BENCHSMITH_VIEW_RUN``, the run `make dataset` left there (``data/runs/<run>``), read as it is."""
    if MADE_BY_MAKE:
        return MADE_BY_MAKE
    root = tmp_path_factory.mktemp("view-run")
    root.chmod(0o755)  # the sandbox's user reads the workspaces under it
    datasets, run = root / "datasets", root / "run"
    datasets.mkdir()
    run.mkdir()
    nl2fix = datasets / "nl2fix.parquet"
    _ok(build_ledger(nl2fix, fixture_repos))
    _ok(run_cli("candidates", "reference", "--dataset", str(nl2fix), "--mutants", "3", "--out", str(run / "ref.jsonl")))
    with open(run / "nl2fix-candidates.jsonl", "w", encoding="utf-8") as out:
        for line in (run / "ref.jsonl").read_text(encoding="utf-8").splitlines():
            if json.loads(line)["instance_id"] in NL2FIX_BUGS:
                out.write(line + "\n")
    _ok(
        run_cli(
            "rank",
            "--dataset",
            str(nl2fix),
            "--candidates",
            str(run / "nl2fix-candidates.jsonl"),
            "--out",
            str(run / "nl2fix-ranking.parquet"),
        )
    )
    _ok(
        run_cli(
            "eval",
            "--dataset",
            str(nl2fix),
            "--candidates",
            str(run / "nl2fix-candidates.jsonl"),
            "--defects4j",
            str(FIXTURE_D4J),
            "--repos",
            str(fixture_repos),
            "--out",
            str(run / "nl2fix-results.parquet"),
        )
    )
    classbench = datasets / "classbench.parquet"
    shutil.copy(geometry_dataset, classbench)
    _ok(run_cli("describe", "--dataset", str(classbench), "--backend", "template"))
    _ok(
        run_cli(
            "candidates", "reference", "--dataset", str(classbench), "--out", str(run / "classbench-candidates.jsonl")
        )
    )
    _ok(
        run_cli(
            "eval",
            "--dataset",
            str(classbench),
            "--candidates",
            str(run / "classbench-candidates.jsonl"),
            "--out",
            str(run / "classbench-results.parquet"),
        )
    )
    _ok(run_cli("agent", "demo-script", "--dataset", str(classbench), "--out", str(run / "rrr-script.jsonl")))
    _ok(
        run_cli(
            "agent",
            "run",
            "--agent",
            "rrr",
            "--dataset",
            str(classbench),
            "--max-calls",
            "5",
            "--backend",
            "scripted",
            "--script",
            str(run / "rrr-script.jsonl"),
            "--out",
            str(run / "rrr-candidates.jsonl"),
        )
    )
    _ok(
        run_cli(
            "eval",
            "--dataset",
            str(classbench),
            "--candidates",
            str(run / "rrr-candidates.jsonl"),
            "--out",
            str(run / "rrr-results.parquet"),
        )
    )
    return run
