"""Shared fixtures: the tricky fixture repository and a pytest runner for it."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TINYREPO = HERE / "fixtures" / "tinyrepo"
GOLDEN = HERE / "golden"
GOLDEN_SEED = 7

# The fixture repository's own tests run only in subprocesses, on copies.
collect_ignore = ["fixtures", "golden", "realcheck.py"]


def run_repo_tests(repo: Path, junit: Path) -> set[str]:
    """Run a repository's pytest suite in a subprocess; the ids of the tests that passed."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
                   cwd=repo, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)  # fmt: skip
    cases = ET.parse(junit).getroot().iter("testcase")
    return {f"{c.get('classname')}::{c.get('name')}" for c in cases if not len(c)}


@pytest.fixture(scope="session")
def paraphrased(tmp_path_factory):
    """The fixture repository paraphrased once with the golden seed: (output folder, report)."""
    from paraphrase.run import paraphrase_classes

    out = tmp_path_factory.mktemp("paraphrased") / "tinyrepo"
    report = paraphrase_classes(TINYREPO, out, seed=GOLDEN_SEED)
    return out, report
