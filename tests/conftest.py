import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "data" / "fixtures"
FIXTURE_D4J = FIXTURES / "defects4j"


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache(tmp_path_factory):
    """Every test run starts from an empty benchsmith cache of its own."""
    previous = os.environ.get("BENCHSMITH_CACHE")
    os.environ["BENCHSMITH_CACHE"] = str(tmp_path_factory.mktemp("cache"))
    yield
    if previous is None:
        os.environ.pop("BENCHSMITH_CACHE", None)
    else:
        os.environ["BENCHSMITH_CACHE"] = previous


def _load_make_fixture():
    spec = importlib.util.spec_from_file_location("make_fixture", FIXTURES / "make_fixture.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["make_fixture"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def fixture_repos(tmp_path_factory) -> Path:
    """A folder holding the Ledger project's upstream history as ``<dir>/Ledger``."""
    repos = tmp_path_factory.mktemp("repos")
    _load_make_fixture().build_fixture_repo(repos)
    return repos
