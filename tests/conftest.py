import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "data" / "fixtures"
FIXTURE_D4J = FIXTURES / "defects4j"

# `make test` runs the suite on two pytest-xdist workers with ``--dist loadfile``: a test module stays on one worker, so
# its module fixtures (a mined history, a built Java suite: up to a minute) are built once, not once on each worker.
# Modules whose tests cannot run beside each other's share a unit of work here, run one after another on one worker:
SHARED_GROUPS = {
    # Ray's clusters: one at a time, so two heads never contend for Ray's ports, its /tmp/ray session folder or the
    # machine's two cores, and the test that waits for a cluster that never starts waits for that alone.
    "tests/harness/test_ray.py": "ray",
    "tests/harness/test_ray_start.py": "ray",
    "tests/serve/test_ray.py": "ray",
    # Redis started inside runs: test_two_runs_side_by_side_... checks that no run left a dump.rdb in any run's
    # services folder in /tmp, which another module's Redis, running meanwhile, could have written.
    "tests/harness/test_services.py": "redis",
    "tests/classbench/test_services.py": "redis",
    # The view's modules share view_run, a session fixture that builds, judges and ranks a whole run (50 to 90 s under
    # load): on one worker it is built once.
    "tests/view/test_view_browser.py": "view",
    "tests/view/test_view_inputs.py": "view",
    "tests/view/test_view_scale.py": "view",
}


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent without it
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadfile`` with :data:`SHARED_GROUPS`' modules as one file each group. (xdist's own ``loadgroup``
    marks groups by suffixing the tests' ids, which pytest 9.2's structured ids no longer let it do.)"""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class Grouped(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return SHARED_GROUPS.get(module, module)

    return Grouped(config, log)


@pytest.fixture(autouse=True, scope="session")
def _isolated_cache():
    """Every test run starts from an empty benchsmith cache of its own.

    It lies outside pytest's private (0700) temporary folders so that the
    harness's unprivileged sandbox user can read the workspaces in it.
    """
    previous = os.environ.get("BENCHSMITH_CACHE")
    cache = Path(tempfile.mkdtemp(prefix="benchsmith-test-cache-"))
    cache.chmod(0o755)
    os.environ["BENCHSMITH_CACHE"] = str(cache)
    # Java's central class path resolves nothing over the network unless a test asks it to, serving a Maven
    # repository on loopback (tests/classbench/test_maven_central.py) or naming the online marker.
    offline = os.environ.get("BENCHSMITH_OFFLINE")
    os.environ["BENCHSMITH_OFFLINE"] = "1"
    yield
    if offline is None:
        os.environ.pop("BENCHSMITH_OFFLINE", None)
    else:
        os.environ["BENCHSMITH_OFFLINE"] = offline
    shutil.rmtree(cache, ignore_errors=True)
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


GEOMETRY = FIXTURES / "classbench" / "geometry"


def run_benchsmith(*args: str) -> subprocess.CompletedProcess:
    """The ``benchsmith`` command line, in a process of its own, from the project's root."""
    return subprocess.run([sys.executable, "-m", "benchsmith.cli", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="session")
def geometry_dataset(tmp_path_factory) -> Path:
    """The classbench dataset built from the bundled geometry package (one task: Polygon)."""
    out = tmp_path_factory.mktemp("classbench") / "geometry.parquet"
    completed = run_benchsmith("classbench", "build", "--repo", str(GEOMETRY), "--out", str(out))
    assert completed.returncode == 0, completed.stderr
    return out


@pytest.fixture(scope="session")
def java_geometry_dataset(tmp_path_factory) -> Path:
    """The classbench-java dataset built from the Maven repository of tests/helpers/java_repo.py (Canvas, Rectangle)."""
    from tests.helpers.java_repo import write_java_repo

    root = tmp_path_factory.mktemp("java-classbench")
    repo = write_java_repo(root / "geometry", git=True)
    commit = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    out = root / "geometry.parquet"
    completed = run_benchsmith(
        "classbench",
        "build",
        "--language",
        "java",
        "--repo",
        str(repo),
        "--commit",
        commit,
        "--classpath",
        "maven-repo",
        "--out",
        str(out),
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return out


@pytest.fixture
def hf_load(tmp_path, monkeypatch):
    """The real ``datasets.load_dataset``, offline, with its cache under *tmp_path*."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    import datasets
    import huggingface_hub.constants

    # datasets reads the variables when first imported: an earlier test may have imported it already
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)

    def load(*args, **kwargs):
        return datasets.load_dataset(*args, cache_dir=str(tmp_path / "hf-cache"), **kwargs)

    return load


def hf_expected_features(record_type: type):
    """The features ``datasets`` itself derives from a record's Arrow schema (no benchsmith metadata involved)."""
    import datasets

    from benchsmith.core.schema import arrow_schema

    return datasets.Features.from_arrow_schema(arrow_schema(record_type))
