"""Workspaces from the defects4j command (through the stand-in) validate like the git ones."""

import json
import os
import tempfile
from pathlib import Path

from tests.builders.test_nl2fix import run_cli
from tests.builders.test_sources import install_stand_in
from tests.conftest import FIXTURE_D4J


def test_validation_through_defects4j_workspaces(ledger_dataset, fixture_repos, tmp_path):
    cache = Path(tempfile.mkdtemp(prefix="benchsmith-d4j-cache-", dir=os.environ["BENCHSMITH_CACHE"]))
    cache.chmod(0o755)
    env = {**install_stand_in(tmp_path, fixture_repos), "BENCHSMITH_CACHE": str(cache)}
    out = tmp_path / "report.json"
    completed = run_cli("validate", "--dataset", str(ledger_dataset), "--defects4j", str(FIXTURE_D4J),
                        "--out", str(out), "--timeout", "60", env=env)  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    report = json.loads(out.read_text())
    assert report["summary"]["reproduced"] == 6, report
    manifests = sorted((cache / "workspaces" / "Ledger").glob("*/workspace.json"))
    assert len(manifests) == 6
    manifest = json.loads(manifests[0].read_text())
    assert manifest["source_dir"] == "src/main/java" and manifest["test_dir"] == "src/test/java"
    assert not any("junit" in lib for lib in manifest["libraries"])


def test_validation_report_on_git_workspaces(ledger_dataset, fixture_repos, tmp_path):
    out = tmp_path / "report.json"
    completed = run_cli("validate", "--dataset", str(ledger_dataset), "--defects4j", str(FIXTURE_D4J),
                        "--repos", str(fixture_repos), "--out", str(out), "--timeout", "60")  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    report = json.loads(out.read_text())
    assert report["summary"] == {"instances": 6, "reproduced": 6, "not reproduced by reason": {}}
    assert all(v["status"] == "reproduced" for v in report["instances"].values())
    assert "6 of 6 instances reproduced" in completed.stdout
