"""The tricky fixture repository of the paraphrase tests, its golden files, and a runner for its own tests."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

FOLDER = Path(__file__).parents[1] / "paraphrase"
TINYREPO = FOLDER / "fixtures" / "tinyrepo"
GOLDEN = FOLDER / "golden"
GOLDEN_SEED = 7


def run_repo_tests(repo: Path, junit: Path) -> set[str]:
    """Run a repository's pytest suite in a subprocess; the ids of the tests that passed."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"],
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=120,
    )
    cases = ET.parse(junit).getroot().iter("testcase")
    return {f"{c.get('classname')}::{c.get('name')}" for c in cases if not len(c)}
