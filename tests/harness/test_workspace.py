"""Workspaces from the defects4j command (through the stand-in) validate like the git ones."""

import json
import os
import tempfile
from pathlib import Path

import pytest

from benchsmith.runners.java.defects4j_workspace import class_source_file, java_public_view
from tests.conftest import FIXTURE_D4J
from tests.helpers.cli import install_stand_in, run_cli

pytestmark = pytest.mark.java  # runs JVMs: needs a JDK, JUnit 4 and the sandbox


def test_validation_through_defects4j_workspaces(ledger_dataset, fixture_repos, tmp_path):
    cache = Path(tempfile.mkdtemp(prefix="benchsmith-d4j-cache-", dir=os.environ["BENCHSMITH_CACHE"]))
    cache.chmod(0o755)
    env = {**install_stand_in(tmp_path, fixture_repos), "BENCHSMITH_CACHE": str(cache)}
    out = tmp_path / "report.json"
    completed = run_cli(
        "validate",
        "--dataset",
        str(ledger_dataset),
        "--defects4j",
        str(FIXTURE_D4J),
        "--out",
        str(out),
        "--timeout",
        "60",
        env=env,
    )
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
    completed = run_cli(
        "validate",
        "--dataset",
        str(ledger_dataset),
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(fixture_repos),
        "--out",
        str(out),
        "--timeout",
        "60",
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(out.read_text())
    assert report["summary"] == {"instances": 6, "reproduced": 6, "not reproduced by reason": {}}
    assert all(v["status"] == "reproduced" for v in report["instances"].values())
    assert "6 of 6 instances reproduced" in completed.stdout


def test_the_public_view_holds_no_class_compiled_from_the_fixed_file(ledger_instances, ledger_workspace):
    """Not the file's class, nor its nested or anonymous classes, nor another top-level class the file declares."""
    instance = ledger_instances["Ledger-1"]
    workspace = ledger_workspace("Ledger-1")
    view = java_public_view(workspace, instance.file_path)
    package = Path(instance.file_path).relative_to(workspace.source_dir).parent
    from_the_file = [
        p.relative_to(workspace.classes)
        for p in (workspace.classes / package).glob("*.class")
        if class_source_file(p) == Path(instance.file_path).name
    ]
    assert from_the_file and all(not (view.classes / p).exists() for p in from_the_file)
    others = [
        p.relative_to(workspace.classes)
        for p in workspace.classes.rglob("*.class")
        if class_source_file(p) != Path(instance.file_path).name
    ]
    assert others and all((view.classes / p).is_file() for p in others)
    assert not (view.tree / instance.file_path).exists() and (workspace.tree / instance.file_path).is_file()
    assert (workspace.root.stat().st_mode & 0o777) == 0o700  # the ground truth is root's alone


def test_a_rebuilt_workspace_gets_a_new_public_view(ledger_instances, ledger_workspace):
    """A view links the files of one build: after a rebuild (a new manifest) the old view is dropped, not reused."""
    from benchsmith.core.atomic import write_text_atomic

    instance = ledger_instances["Ledger-2"]
    workspace = ledger_workspace("Ledger-2")
    before = java_public_view(workspace, instance.file_path)
    assert java_public_view(workspace, instance.file_path).root == before.root  # the same build: the same view
    manifest = workspace.root / "workspace.json"
    write_text_atomic(manifest, manifest.read_text())  # what a rebuild leaves: a new manifest file
    after = java_public_view(workspace, instance.file_path)
    assert after.root != before.root and not before.root.exists() and (after.root / ".complete").is_file()


def test_a_workspace_whose_library_is_gone_is_rebuilt(ledger_instances, ledger_workspace, tmp_path):
    """The cache key names the project and the fixed revision, not the Defects4J root: a workspace another root made
    (a mined project's earlier output) may name jars that are gone; it is rebuilt rather than handed to javac."""
    workspace = ledger_workspace("Ledger-2")
    manifest = workspace.root / "workspace.json"
    record = json.loads(manifest.read_text())
    gone = str(tmp_path / "elsewhere" / "lib" / "gone-1.0.jar")
    manifest.write_text(json.dumps({**record, "libraries": [*record["libraries"], gone]}))
    rebuilt = ledger_workspace("Ledger-2")
    assert gone not in rebuilt.libraries and list(rebuilt.libraries) == record["libraries"]
    assert gone not in json.loads(manifest.read_text())["libraries"]


@pytest.mark.parametrize("older", [6, 7, 8])
def test_a_workspace_of_an_older_format_that_would_be_built_the_same_is_kept_and_its_manifest_completed(
    ledger_workspace, older
):
    """A format step that adds nothing for this bug (Ledger has no Gradle build, no compile-errors/ diffs, no Ant
    build) keeps the workspace: no rebuild, the fields added since recorded as a rebuild would record them."""
    workspace = ledger_workspace("Ledger-3")
    manifest = workspace.root / "workspace.json"
    current = json.loads(manifest.read_text())
    added_since = {7: [], 8: ["junit_hamcrest"], 9: ["more_source_dirs", "more_test_dirs", "test_release"]}
    dropped = [name for step in range(older + 1, 10) for name in added_since.get(step, [])]
    manifest.write_text(json.dumps({**{k: v for k, v in current.items() if k not in dropped}, "format": older}))
    kept_mark = workspace.root / "kept"
    kept_mark.write_text("")
    again = ledger_workspace("Ledger-3")
    assert kept_mark.is_file(), "rebuilt"
    assert json.loads(manifest.read_text()) == current and again == workspace
    kept_mark.unlink()


def test_a_workspace_of_a_format_with_no_step_to_the_current_one_is_rebuilt(ledger_workspace):
    workspace = ledger_workspace("Ledger-3")
    manifest = workspace.root / "workspace.json"
    current = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**current, "format": 5}))
    (workspace.root / "kept").write_text("")
    again = ledger_workspace("Ledger-3")
    assert not (workspace.root / "kept").exists() and again == workspace
    assert json.loads(manifest.read_text()) == current
