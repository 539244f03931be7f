"""The Ledger fixture is real: its bugs compile and its trigger tests fail only on the buggy versions."""

import subprocess

import pytest

from tests.conftest import FIXTURES

pytestmark = pytest.mark.java  # compiles the fixture with javac and runs its tests under JUnit


def test_fixture_bugs_reproduce_with_a_real_jdk_and_junit():
    completed = subprocess.run(["bash", str(FIXTURES / "verify_fixture.sh")], capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-2000:]
