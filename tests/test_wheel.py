"""The wheel: one import namespace. Built from this tree, it puts nothing but ``benchsmith`` at the top of
site-packages (the owner's top folders builders/, scrapers/, paraphrase/ inside it), and installed into a fresh
virtual environment it runs the command line and a fixture build from outside the tree."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from benchsmith.core.schema import NL2FixInstance, read_records
from tests.conftest import FIXTURE_D4J, ROOT


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(ROOT),
        ],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (found,) = out.glob("benchsmith-*.whl")
    return found


def test_the_wheel_holds_benchsmith_alone_at_the_top(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names} == {"benchsmith", wheel.name.split("-py3")[0] + ".dist-info"}
    for mapped in ("builders/nl2fix.py", "scrapers/jira.py", "paraphrase/flip.py", "builders/classbench/java/build.py"):
        assert f"benchsmith/{mapped}" in names
    for data in (
        "runners/java/BenchsmithRunner.java",
        "paraphrase/java/ParaphraseResolver.java",
        "generation/prompts/templates/zero-shot.txt",
    ):
        assert f"benchsmith/{data}" in names


def test_the_installed_wheel_runs_from_outside_the_tree(wheel, tmp_path, fixture_repos):
    env_dir = tmp_path / "venv"
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    installed = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    assert sorted(p.name for p in site.iterdir() if not p.name.startswith(("_", "."))) == [
        "benchsmith",
        wheel.name.split("-py3")[0] + ".dist-info",
    ]
    # the dependencies from this environment (a path line, so none of its .pth files, the editable finder among them)
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    where = subprocess.run(
        [str(python), "-c", "import benchsmith.builders.nl2fix as m; print(m.__file__)"],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(site)
    helped = subprocess.run(
        [str(env_dir / "bin" / "benchsmith"), "--help"], cwd=elsewhere, capture_output=True, text=True
    )
    assert helped.returncode == 0 and "classbench" in helped.stdout
    out = tmp_path / "nl2fix.parquet"
    built = subprocess.run(
        [
            str(env_dir / "bin" / "benchsmith"),
            "nl2fix",
            "build",
            "--defects4j",
            str(FIXTURE_D4J),
            "--repos",
            str(fixture_repos),
            "--projects",
            "Ledger",
            "--no-scrape",
            "--out",
            str(out),
        ],
        cwd=elsewhere,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr[-2000:]
    assert len(read_records(out, NL2FixInstance)) == 7
