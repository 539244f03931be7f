"""Classbench environments as of the repository's date, from a local package index (no network).

A PEP 691 JSON index, with PEP 700 upload times, serves wheels built here: two releases of ``helperlib``
uploaded a year apart, and pytest with its dependencies repacked from the running interpreter's own
installation. A PyPI-like JSON API serves the project's sdist with its upload time.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import importlib.metadata
import io
import json
import os
import shutil
import sys
import tarfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from benchsmith.benchmarks import EvalOptions
from benchsmith.builders.classbench.python.build import ClassBenchOptions, build
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import reference_solution
from benchsmith.runners.python.pytest_run import missing_imports
from benchsmith.scoring.evaluate import evaluate
from benchsmith.sources.python.repo import resolve
from tests.conftest import GEOMETRY
from tests.helpers.git_history import committed

OLD, NEW = "2024-01-10T00:00:00Z", "2025-01-10T00:00:00Z"  # helperlib 1.0 and 2.0
SDIST_UPLOADED = "2024-06-01T12:00:00Z"  # the project's release: between the two


def _wheel(name: str, version: str, files: dict[str, bytes], requires: list[str] = ()) -> tuple[str, bytes]:
    dist_info = f"{name.replace('-', '_')}-{version}.dist-info"
    metadata = (
        "\n".join(
            [
                "Metadata-Version: 2.1",
                f"Name: {name}",
                f"Version: {version}",
                *[f"Requires-Dist: {r}" for r in requires],
            ]
        )
        + "\n"
    )
    files = {
        **files,
        f"{dist_info}/METADATA": metadata.encode(),
        f"{dist_info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: benchsmith-test\nRoot-Is-Purelib: true\nTag: "
        b"py3-none-any\n",
    }
    record = (
        "".join(
            f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
            for p, d in files.items()
        )
        + f"{dist_info}/RECORD,,\n"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, data in [*files.items(), (f"{dist_info}/RECORD", record.encode())]:
            archive.writestr(path, data)
    return f"{name.replace('-', '_')}-{version}-py3-none-any.whl", buffer.getvalue()


def _repacked(name: str) -> tuple[str, bytes, list[str]]:
    """An installed pure-Python distribution as a wheel again (its files, its requirements)."""
    dist = importlib.metadata.distribution(name)
    files = {}
    for entry in dist.files or []:
        path = entry.as_posix()
        if path.startswith("..") or "__pycache__" in path or ".dist-info/" in path:
            continue
        files[path] = Path(entry.locate()).read_bytes()
    requires = [r for r in dist.requires or [] if "extra" not in r]
    entry_points = dist.read_text("entry_points.txt")  # setuptools finds its own commands there when it builds
    if entry_points:
        files[f"{dist.metadata['Name'].replace('-', '_')}-{dist.version}.dist-info/entry_points.txt"] = (
            entry_points.encode()
        )
    filename, data = _wheel(dist.metadata["Name"], dist.version, files, requires)
    return filename, data, requires


class _Index(ThreadingHTTPServer):
    files: dict[str, tuple[bytes, str, str]]  # filename -> (bytes, project, upload time)
    releases: dict[tuple[str, str], str]  # (project, version) -> sdist filename


class _Handler(BaseHTTPRequestHandler):
    server: _Index

    def log_message(self, *args):  # quiet
        pass

    def do_HEAD(self):  # uv asks before it reads a wheel's metadata; it reads the whole file without range support
        self.head = True
        self.do_GET()

    def do_GET(self):
        host = f"http://{self.server.server_address[0]}:{self.server.server_address[1]}"
        parts = [p for p in self.path.split("?")[0].split("/") if p]
        if len(parts) == 2 and parts[0] == "simple":
            project = parts[1]
            entries = [
                {
                    "filename": f,
                    "url": f"{host}/files/{f}",
                    "upload-time": t,
                    "hashes": {"sha256": hashlib.sha256(d).hexdigest()},
                }
                for f, (d, p, t) in self.server.files.items()
                # wheels, and the sdists of dependencies (a project's own release is read from the JSON API)
                if p == project and (f.endswith(".whl") or f not in self.server.releases.values())
            ]
            if not entries:
                return self._send(404, b"not found", "text/plain")
            body = {"meta": {"api-version": "1.1"}, "name": project, "files": entries}
            return self._send(200, json.dumps(body).encode(), "application/vnd.pypi.simple.v1+json")
        if len(parts) == 2 and parts[0] == "files" and parts[1] in self.server.files:
            return self._send(200, self.server.files[parts[1]][0], "application/octet-stream")
        if len(parts) == 4 and parts[0] == "pypi" and (parts[1], parts[2]) in self.server.releases:
            filename = self.server.releases[parts[1], parts[2]]
            data, _, uploaded = self.server.files[filename]
            body = {
                "urls": [
                    {
                        "packagetype": "sdist",
                        "filename": filename,
                        "url": f"{host}/files/{filename}",
                        "digests": {"sha256": hashlib.sha256(data).hexdigest()},
                        "upload_time_iso_8601": uploaded,
                    }
                ]
            }
            return self._send(200, json.dumps(body).encode(), "application/json")
        self._send(404, b"not found", "text/plain")

    def _send(self, status: int, body: bytes, kind: str):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if not getattr(self, "head", False):
            self.wfile.write(body)


def _normal(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


@pytest.fixture(scope="module")
def index():
    server = _Index(("127.0.0.1", 0), _Handler)
    server.files, server.releases = {}, {}
    for version, uploaded in (("1.0", OLD), ("2.0", NEW)):
        filename, data = _wheel("helperlib", version, {"helperlib/__init__.py": f"VERSION = {version!r}\n".encode()})
        server.files[filename] = (data, "helperlib", uploaded)
    pending, seen = ["pytest", "setuptools"], set()
    while pending:  # pytest and what it requires here (and setuptools), each uploaded long before the project
        name = _normal(pending.pop())
        if name in seen:
            continue
        seen.add(name)
        filename, data, requires = _repacked(name)
        server.files[filename] = (data, name, "2020-01-01T00:00:00Z")
        pending += [
            Requirement(r).name for r in requires if not Requirement(r).marker or Requirement(r).marker.evaluate()
        ]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host = f"http://127.0.0.1:{server.server_address[1]}"
    previous = {k: os.environ.get(k) for k in ("BENCHSMITH_INDEX_URL", "BENCHSMITH_PYPI_JSON_URL")}
    os.environ["BENCHSMITH_INDEX_URL"], os.environ["BENCHSMITH_PYPI_JSON_URL"] = f"{host}/simple", f"{host}/pypi"
    yield server
    server.shutdown()
    for key, value in previous.items():
        os.environ.pop(key, None) if value is None else os.environ.__setitem__(key, value)


def _publish(server: _Index, tmp_path: Path, name: str, pyproject: str, conftest: str, **files: str) -> str:
    """The geometry fixture as project *name* 1.0 (with *files* added): its sdist on the index, uploaded at
    SDIST_UPLOADED."""
    tree = tmp_path / f"{name}-1.0"
    shutil.copytree(GEOMETRY, tree)
    (tree / "pyproject.toml").write_text(pyproject)
    (tree / "tests" / "conftest.py").write_text(conftest)
    for path, text in files.items():
        (tree / path).write_text(text)
    (tree / "PKG-INFO").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\nRequires-Python: >=3.9\n")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(tree, arcname=tree.name)
    filename = f"{name}-1.0.tar.gz"
    server.files[filename] = (buffer.getvalue(), name, SDIST_UPLOADED)
    server.releases[name, "1.0"] = filename
    return f"pypi:{name}==1.0"


PDM_PROJECT = """\
[project]
name = "{name}"
version = "1.0"
requires-python = ">=3.9"
dependencies = []

[tool.pdm.dev-dependencies]
test = ["helperlib"]
lint = ["flake8"]
"""


def test_an_sdist_builds_as_of_its_upload_and_the_lock_is_reproducible(index, tmp_path):
    spec = _publish(
        index,
        tmp_path,
        "pdmdemo",
        PDM_PROJECT.format(name="pdmdemo"),
        "import helperlib\n\nHELPER = helperlib.VERSION\n",
    )
    card = build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "pdmdemo.parquet")).to_dict()
    resolution = card["resolution"]
    assert card["tasks"] == 1 and card["environment"]["helperlib"] == "1.0"  # 2.0 came after the release
    assert resolution["as_of"] == SDIST_UPLOADED and resolution["mode"] == "as-of"
    assert "pyproject.toml [tool.pdm.dev-dependencies] test" in resolution["declarations"]
    assert [d["source"] for d in resolution["dropped"]] == ["benchsmith: per-test timeouts"]  # not on this index
    lock = Path(resolution["lock"])
    assert "helperlib==1.0" in lock.read_text() and "pdmdemo==" not in lock.read_text()
    # a Python before 3.12 made every environment with setuptools, which suites of their day import (pkg_resources)
    assert resolution["python"].startswith("3.11") and "setuptools==" in lock.read_text()
    assert "benchsmith: setuptools, in every environment before Python 3.12" in resolution["declarations"]
    first = lock.read_bytes()

    shutil.rmtree(lock.parent)  # an emptied environment cache resolves the same lock again
    again = resolve(spec)
    assert Path(again.resolution["lock"]).read_bytes() == first and again.installed == card["environment"]

    latest = resolve(spec, mode="latest")
    assert latest.installed["helperlib"] == "2.0" and latest.resolution["as_of"] is None
    assert resolve(spec, as_of="2025-06-01").installed["helperlib"] == "2.0"


def test_eval_installs_the_lock_the_dataset_was_built_with(index, tmp_path):
    # The project's own date would give helperlib 1.0; built --as-of a later day, it has 2.0, which its tests demand.
    spec = _publish(
        index,
        tmp_path,
        "asofdemo",
        PDM_PROJECT.format(name="asofdemo"),
        "import helperlib\n\nassert helperlib.VERSION == '2.0', helperlib.VERSION\n",
    )
    out = tmp_path / "out" / "asofdemo.parquet"
    card = build(ClassBenchOptions(repo=spec, out=out, as_of="2025-06-01")).to_dict()
    (task,) = read_records(out, ClassBenchTask)
    recorded = task.environment
    assert (recorded.resolve, recorded.as_of) == ("as-of", "2025-06-01T00:00:00Z")
    assert recorded.lock == Path(card["resolution"]["lock"]).read_text() and "helperlib==2.0" in recorded.lock
    assert recorded.lock_sha256 == card["resolution"]["lock_sha256"]

    # A year later: the environment cache is gone and the index offers a newer helperlib, which the lock keeps out.
    shutil.rmtree(cache_dir("classbench", "envs"))
    filename, data = _wheel("helperlib", "3.0", {"helperlib/__init__.py": b"VERSION = '3.0'\n"})
    index.files[filename] = (data, "helperlib", "2026-01-10T00:00:00Z")
    try:
        candidates = tmp_path / "candidates.jsonl"
        candidates.write_text(
            json.dumps({"instance_id": task.task_id, "candidate_id": "gold", "code": reference_solution(task)}) + "\n"
        )
        evaluate(EvalOptions(dataset=out, candidates=candidates, out=tmp_path / "results.parquet", workers=1))
    finally:
        del index.files[filename]
    (result,) = read_records(tmp_path / "results.parquet", Result)
    assert result.status == "plausible", result.reason
    again = resolve(spec, locked=recorded)
    assert again.resolution["lock_sha256"] == recorded.lock_sha256 and again.installed["helperlib"] == "2.0"
    assert Path(again.resolution["lock"]).read_text() == recorded.lock

    tampered = dataclasses.replace(recorded, lock=recorded.lock.replace("helperlib==2.0", "helperlib==3.0"))
    with pytest.raises(BenchsmithError, match="does not match its sha256"):
        resolve(spec, locked=tampered)


def test_the_conda_environment_s_packages_are_installed_under_their_pypi_names(index, tmp_path):
    # As xarray's tests need iris, which only its conda environment file names (PyPI's "iris" is another project),
    # and cdms2, which only conda-forge distributes: one left out with its reason, the others still resolved.
    environment_yml = (
        "name: condademo-tests\nchannels: [conda-forge]\ndependencies:\n  - python=3.11\n  - pip\n"
        "  - conda-forge::iris\n  - cdms2\n  - no-such-conda-name\n  - helperlib>=1\n"
    )
    spec = _publish(
        index,
        tmp_path,
        "condademo",
        PDM_PROJECT.format(name="condademo").replace('test = ["helperlib"]', "test = []"),
        "import iris\nimport helperlib\n",
        **{"environment.yml": environment_yml},
    )
    filename, data = _wheel("scitools-iris", "3.4", {"iris/__init__.py": b"MET_OFFICE = True\n"})
    index.files[filename] = (data, "scitools-iris", OLD)
    try:
        resolved = resolve(spec)
    finally:
        del index.files[filename]
    assert resolved.installed["scitools-iris"] == "3.4" and resolved.installed["helperlib"] == "1.0"  # as of its date
    assert {"environment.yml: conda-forge::iris (on PyPI scitools-iris)", "environment.yml: helperlib>=1"} <= set(
        resolved.resolution["declarations"]
    )
    dropped = {d["source"]: d["reason"] for d in resolved.resolution["dropped"]}
    assert dropped["environment.yml: cdms2"] == "conda-forge only: no PyPI counterpart"
    assert "no-such-conda-name" in dropped["environment.yml: no-such-conda-name"]  # uv's reason, alone left out


def test_a_test_module_that_cannot_be_collected_does_not_stop_the_others(index, tmp_path):
    # As tomlkit's suite reads a git submodule that its commit's archive leaves out.
    spec = _publish(
        index,
        tmp_path,
        "brokendemo",
        PDM_PROJECT.format(name="brokendemo"),
        "import helperlib\n",
        **{"tests/test_submodule.py": "CASES = open('tests/toml-test/files').read()\n"},
    )
    card = build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "broken.parquet")).to_dict()
    assert card["tasks"] == 1 and card["test_suite"] == {"passed": 8, "error": 1}


def test_a_missing_import_is_named_with_the_file_that_imports_it(index, tmp_path):
    spec = _publish(
        index,
        tmp_path,
        "missingdemo",
        PDM_PROJECT.format(name="missingdemo"),
        "import helperlib\nimport undeclared_module\n",
    )
    with pytest.raises(
        BenchsmithError, match=r"tests/conftest.py imports undeclared_module, which the environment lacks"
    ):
        build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "missing.parquet"))


def test_missing_imports_are_read_from_pytest_output(tmp_path):
    log = f"""\
ImportError while importing test module '{tmp_path}/tests/test_a.py'.
Traceback:
/usr/lib/python3.11/importlib/__init__.py:126: in import_module
    return _bootstrap._gcd_import(name[level:], package, level)
tests/test_a.py:1: in <module>
    from pkg import compat
src/pkg/compat.py:3: in <module>
    import anyio
E   ModuleNotFoundError: No module named 'anyio'
"""
    (found,) = missing_imports(log, tmp_path)
    assert (found.module, found.importer, found.through) == ("anyio", "src/pkg/compat.py", "tests/test_a.py")


def test_an_unmet_requires_python_stops_in_one_line(tmp_path):
    tree = tmp_path / "future"
    shutil.copytree(GEOMETRY, tree)
    (tree / "pyproject.toml").write_text('[project]\nname = "future"\nversion = "1"\nrequires-python = ">=4.0"\n')
    with pytest.raises(BenchsmithError) as raised:
        resolve(str(tree))
    message = str(raised.value)
    assert "requires Python >=4.0; no interpreter here matches (found " in message and "\n" not in message


def test_an_extra_the_tests_import_is_installed_and_the_package_finds_its_own_metadata(index, tmp_path):
    # As litestar's tests/conftest.py imports redis, which only its "redis" extra declares, and litestar reads its
    # own version with importlib.metadata when imported.
    pyproject = PDM_PROJECT.format(name="extrasdemo").replace('test = ["helperlib"]', "test = []")
    pyproject += '\n[project.optional-dependencies]\nfancy = ["helperlib"]\ndocs = ["sphinx"]\n'
    # attrs reads its summary, authors and URLs from its metadata (only its sdist's PKG-INFO has Requires-Python here);
    # pytest-mypy-plugins runs the environment's mypy by name, as in an activated environment
    spec = _publish(
        index,
        tmp_path,
        "extrasdemo",
        pyproject,
        "import importlib.metadata\n\nimport helperlib\n\n"
        "assert importlib.metadata.version('extrasdemo') == '1.0'\n"
        "assert importlib.metadata.metadata('extrasdemo')['Requires-Python'] == '>=3.9'\n",
        **{
            "tests/test_tools.py": "import os, shutil, subprocess, sys\n\n\ndef "
            "test_the_environment_s_tools_come_first():\n"
            "    assert shutil.which('pytest') == os.path.join(sys.prefix, 'bin', 'pytest')\n"
            "    subprocess.run(['pytest', '--version'], check=True)\n"
            "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n"
            "    import geometry\n"
            "    assert os.environ['MYPYPATH'] == os.path.dirname(geometry.__path__[0])\n"
        },
    )
    card = build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "extras.parquet")).to_dict()
    assert card["tasks"] == 1 and card["environment"]["helperlib"] == "1.0"
    assert card["test_suite"] == {
        "passed": 9
    }  # run as the sandbox's uid, the environment's scripts and interpreter too
    assert "extra fancy: helperlib (tests/conftest.py imports it)" in card["resolution"]["declarations"]
    assert not any("sphinx" in d for d in card["resolution"]["declarations"])  # an extra no test imports stays out
    assert "extrasdemo==" not in Path(card["resolution"]["lock"]).read_text()  # metadata only, never the code


SPEED_C = """\
#include <Python.h>
static PyObject *doubled(PyObject *self, PyObject *arg) { return PyNumber_Add(arg, arg); }
static PyMethodDef methods[] = {{"doubled", doubled, METH_O, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_speed", "", -1, methods};
PyMODINIT_FUNC PyInit__speed(void) { return PyModule_Create(&module); }
"""


def test_a_compiled_extension_is_built_into_the_tree_the_tests_import(index, tmp_path):
    # As MarkupSafe's _speedups, multidict's _multidict, pyrsistent's pvectorc: tests import the package from their
    # copy of the tree, where only the build puts the compiled module; without it its tests cannot import it.
    pyproject = (
        PDM_PROJECT.format(name="extdemo") + '\n[build-system]\nrequires = ["setuptools"]\n'
        'build-backend = "setuptools.build_meta"\n'
    )
    spec = _publish(
        index,
        tmp_path,
        "extdemo",
        pyproject,
        "import helperlib\n",
        **{
            "setup.py": "from setuptools import Extension, setup\n\n"
            "setup(packages=['geometry'], package_dir={'': 'src'},\n"
            "      ext_modules=[Extension('geometry._speed', ['src/geometry/_speed.c'])])\n",
            "src/geometry/_speed.c": SPEED_C,
            "tests/test_speed.py": "from geometry._speed import doubled\n\n\ndef test_doubled():\n    assert "
            "doubled(21) == 42\n",
        },
    )
    card = build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "extdemo.parquet")).to_dict()
    (built,) = card["resolution"]["compiled_extensions"]["built"]
    assert built.startswith("src/geometry/_speed.") and built.endswith(".so")
    assert (
        card["test_suite"] == {"passed": 9}
        # run as the sandbox's uid, the environment's scripts and interpreter too and card["tasks"] == 1  # test_doubled
        # among them, collected and passing
    )
    assert resolve(spec).resolution["compiled_extensions"] == card["resolution"]["compiled_extensions"]  # built once


SHAPES = {
    "pyproject.toml": '[project]\nname = "shapes"\nversion = "1.0"\nrequires-python = ">=3.9"\ndependencies = []\n',
    "shapes/__init__.py": "",
    "shapes/util.py": "def scale(size):\n    return size * size\n",
    "shapes/polygon.py": (
        "from shapes.util import scale\n\n\n"
        "class Polygon:\n"
        "    def __init__(self, sides, size):\n        self.sides = sides\n        self.size = size\n"
        "        self.labels = {'kind': 'polygon'}\n\n"
        "    def area(self):\n        return scale(self.size) * self.sides\n\n"
        "    def get(self, key):\n        return self.labels.get(key)\n"
    ),
    "tests/test_polygon.py": (
        "from shapes.polygon import Polygon\nfrom shapes.util import scale\n\n\n"
        "def test_area():\n    assert Polygon(3, 2).area() == 12\n\n\n"
        "def test_get():\n    settings = {'kind': 'settings'}\n"
        "    assert Polygon(3, 2).get('kind') == 'polygon' and settings.get('kind') == 'settings'\n\n\n"
        "def test_scale():\n    assert scale(3) == 9\n"
    ),
}


def test_a_published_paraphrased_task_is_rebuilt_from_its_upstream_commit(index, tmp_path):
    """RepoClassBench's flipped copies are not public: the flips its ground truth spells are applied to the upstream
    base commit (``get``, which dicts have too, by reference), and the ground truth passes in the rebuilt copy."""
    from benchsmith.builders.classbench.published import import_published

    base = committed(tmp_path / "repos" / "acme__shapes", SHAPES)
    ground_truth = (
        "class PolYgon:\n"
        "    def __init__(self, sides, size):\n        self.sides = sides\n        self.size = size\n"
        "        self.LaBels = {'kind': 'polygon'}\n\n"
        "    def ArEa(self):\n        return sCale(self.size) * self.sides\n\n"
        "    def gEt(self, key):\n        return self.LaBels.get(key)\n"
    )
    entry = {
        "task_id": "acme__shapes-1_PolYgon",
        "class_name": "PolYgon",
        "file": "acme__shapes-1/shapes/polygon.py",
        "sketchy_description": "A polygon.",
        "detailed_description": "A polygon that measures itself.",
        "repo_metadata": {
            "commit_id": "f" * 40,
            "issue_id": "acme__shapes-1",
            "setup_details": {
                "repo": "acme/shapes",
                "instance_id": "acme__shapes-1",
                "base_commit": base,
                "version": "1.0",
                "environment_setup_commit": base,
            },
        },
        "evaluation_metadata": {
            "test_directives": ["tests/test_polygon.py::test_area", "tests/test_polygon.py::test_get"]
        },
        "ground_truth_class_body": ground_truth,
    }
    source = tmp_path / "python_data.json"
    source.write_text(json.dumps([entry]))
    out = tmp_path / "published.parquet"
    summary = import_published(str(source), out, repos=tmp_path / "repos")
    assert not summary.not_buildable, summary.not_buildable
    (how,) = summary.reconstructed.values()
    assert (how["base_commit"], how["tasks"], how["flips_kept"]) == (base, 1, {})
    assert how["renamed_by_reference"] == {"get": 2}  # its definition and the test's call; settings.get stays
    assert not summary.not_buildable
    (task,) = read_records(out, ClassBenchTask)
    assert task.repo == how["history"] and task.commit == how["commit"] != "f" * 40
    assert task.imports == ["from shapes.util import sCale"]  # the rebuilt module imports the flipped helper
    candidates = tmp_path / "candidates.jsonl"
    wrong = reference_solution(task).replace("* self.sides", "+ self.sides")
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": task.task_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in (("gold", reference_solution(task)), ("wrong", wrong))
        )
    )
    evaluate(EvalOptions(dataset=out, candidates=candidates, out=tmp_path / "results.parquet", workers=1))
    verdicts = {r.candidate_id: (r.status, r.reason) for r in read_records(tmp_path / "results.parquet", Result)}
    assert verdicts["gold"][0] == "plausible", verdicts["gold"][1]
    assert verdicts["wrong"][0] == "wrong"


REGISTRY = {
    "pyproject.toml": '[project]\nname = "registry"\nversion = "1.0"\nrequires-python = ">=3.9"\n',
    "shapes/__init__.py": "",
    "shapes/registry.py": "SEEN = []\n",
    "shapes/polygon.py": "class Polygon:\n    def __init__(self, sides):\n        self.sides = sides\n\n"
    "    def angles(self):\n        return self.sides\n",
    "shapes/square.py": "class Square:\n    sides = 4\n",
    # test_seen and test_square lean on what test_register leaves behind, as litestar's pydantic v1 tests lean on an
    # extractor an earlier test's app registers: run as a task's directives alone they fail, the repository's own code
    # included
    "tests/test_polygon.py": (
        "from shapes import registry\nfrom shapes.polygon import Polygon\nfrom shapes.square import Square\n\n\n"
        "def test_register():\n    registry.SEEN.append(Polygon)\n\n\n"
        "def test_angles():\n    assert Polygon(5).angles() == 5\n\n\n"
        "def test_seen():\n    assert Polygon in registry.SEEN and Polygon(3).angles() == 3\n\n\n"
        "def test_square():\n    assert Polygon in registry.SEEN and Square.sides == 4\n"
    ),
}


def _registry_entry(commit: str, name: str, directives: list[str]) -> dict:
    """A published RepoClassBench entry (python_data.json's shape) for class *name* of REGISTRY at *commit*."""
    file = f"shapes/{name.lower()}.py"
    setup = {
        "repo": "acme/registry",
        "instance_id": "acme__registry-1",
        "base_commit": commit,
        "version": "1.0",
        "environment_setup_commit": commit,
    }
    return {
        "task_id": f"acme__registry-1_{name}",
        "class_name": name,
        "file": f"acme__registry-1/{file}",
        "sketchy_description": "A shape.",
        "detailed_description": "A shape, registered.",
        "repo_metadata": {"commit_id": commit, "issue_id": "acme__registry-1", "setup_details": setup},
        "evaluation_metadata": {"test_directives": directives},
        "ground_truth_class_body": REGISTRY[file].split("\n\n\n")[0],
    }


def test_published_directives_that_fail_on_the_repositorys_own_code_are_dropped(index, tmp_path):
    """A published task at a commit of the supplied history keeps the directives that pass on that commit's own code,
    run as a task's directives are; the others are counted in the card, and a task left with none is not built."""
    from benchsmith.builders.classbench.published import import_published

    commit = committed(tmp_path / "repos" / "acme__registry", REGISTRY)
    tests = "tests/test_polygon.py"
    source = tmp_path / "python_data.json"
    source.write_text(
        json.dumps(
            [
                _registry_entry(commit, "Polygon", [f"{tests}::test_angles", f"{tests}::test_seen"]),
                _registry_entry(commit, "Square", [f"{tests}::test_square"]),
            ]
        )
    )
    out = tmp_path / "published.parquet"
    summary = import_published(str(source), out, repos=tmp_path / "repos")
    polygon_id, square_id = "acme__registry::shapes/polygon.py::Polygon", "acme__registry::shapes/square.py::Square"
    assert not summary.reconstructed  # the commit is the history's own: nothing to rebuild, its code to run
    assert summary.directives_dropped[polygon_id] == {
        "dropped": 1,
        "of": 2,
        "outcomes": {"failed": 1},
        "directives": [f"{tests}::test_seen"],
    }
    assert summary.not_buildable == {
        square_id: f"none of its 1 directives passes on the repository's own code at {commit[:12]} here (failed 1)"
    }
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert card["directives_dropped_on_the_original"][polygon_id]["dropped"] == 1
    polygon = next(t for t in read_records(out, ClassBenchTask) if t.task_id == polygon_id)
    assert polygon.test_directives == [f"{tests}::test_angles"]
    candidates = tmp_path / "candidates.jsonl"
    wrong = reference_solution(polygon).replace("return self.sides", "return self.sides + 1")
    candidates.write_text(
        "".join(
            json.dumps({"instance_id": polygon_id, "candidate_id": c, "code": code}) + "\n"
            for c, code in (("gold", reference_solution(polygon)), ("wrong", wrong))
        )
    )
    evaluate(EvalOptions(dataset=out, candidates=candidates, out=tmp_path / "results.parquet", workers=1))
    verdicts = {
        r.candidate_id: (r.status, r.reason)
        for r in read_records(tmp_path / "results.parquet", Result)
        if r.instance_id == polygon_id
    }
    assert verdicts["gold"][0] == "plausible", verdicts["gold"][1]
    assert verdicts["wrong"][0] == "wrong"


def test_an_old_repository_gets_a_python_of_its_day(tmp_path, monkeypatch):
    """A repository dated before the running Python's first release is built with the newest interpreter here that
    was out by then (its packages of the day may not support a newer one); a recent one keeps the running Python."""
    import platform

    from benchsmith.sources.python import environment as python_env

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text('[project]\nname = "old"\nrequires-python = ">=3.6"\n')
    here = tuple(int(x) for x in platform.python_version().split(".")[:2])
    older = {Path(f"/opt/python{minor}/bin/python3"): f"3.{minor}.9" for minor in (6, 7, 8, 9)}
    monkeypatch.setattr(python_env, "_interpreters", lambda: {**older, Path("/usr/bin/python3.99"): "3.99.0"})
    monkeypatch.setattr(python_env, "runnable_by_others", lambda path: True)  # the dates decide here
    from datetime import date, timedelta

    adopted = date.fromisoformat(python_env.PYTHON_RELEASED[here]) + python_env.PYTHON_ADOPTED_AFTER
    # 3.9 came out in October 2020, and counts from April 2021; 3.8 from April 2020
    assert python_env._interpreter(tree, "old", as_of="2021-06-01T00:00:00Z") == (
        Path("/opt/python9/bin/python3"),
        "3.9.9",
    )
    assert python_env._interpreter(tree, "old", as_of="2021-01-01T00:00:00Z") == (
        Path("/opt/python8/bin/python3"),
        "3.8.9",
    )
    assert python_env._interpreter(tree, "old", as_of="2019-01-01T00:00:00Z") == (
        Path("/opt/python7/bin/python3"),
        "3.7.9",
    )
    assert python_env._interpreter(tree, "old", as_of=f"{adopted}T12:00:00Z")[1] == platform.python_version()
    assert (
        python_env._interpreter(tree, "old", as_of=f"{adopted - timedelta(days=2)}T12:00:00Z")[1]
        != platform.python_version()
    )
    assert python_env._interpreter(tree, "old", as_of=None)[1] == platform.python_version()


def test_a_tree_exported_from_git_keeps_the_version_its_tag_gives(tmp_path):
    """setuptools-scm reads the version from git, which an exported tree lacks: the nearest tag's is recorded, and
    a build of the tree is told it (pytest's and pvlib's requirements are known only once built)."""

    from benchsmith.sources.python import environment as python_env
    from benchsmith.sources.python import repo as python_repo

    history = tmp_path / "history"
    committed(history, {"setup.py": "from setuptools import setup\nsetup()\n"}, "one", tag="v1.2.3")
    committed(history, {}, "two")
    key, tree, _ = python_repo.source_tree(str(history), "HEAD")
    assert (tree / python_env.SCM_VERSION).read_text() == "1.2.3"
    assert python_env.build_environ(tree)["SETUPTOOLS_SCM_PRETEND_VERSION"] == "1.2.3"


def test_an_interpreter_the_sandbox_uid_can_run_comes_first(tmp_path, monkeypatch):
    """pyenv's Python under a /root of mode 0700 cannot be run by the sandbox's uid: the build's test runs started the
    system's libpython and standard library instead, and the environment's scripts could not be run. One that the
    uid can run, of the same minor version, is chosen; with none, the newest as before."""
    from benchsmith.sources.python import environment as python_env

    hidden, shared = tmp_path / "home", tmp_path / "usr"
    for folder in (hidden, shared):
        (folder / "bin").mkdir(parents=True)
        (folder / "bin" / "python3").write_text("")
        (folder / "bin" / "python3").chmod(0o755)
    hidden.chmod(0o700)
    shared.chmod(0o755)
    tmp_path.chmod(0o755)
    assert not python_env.runnable_by_others(hidden / "bin" / "python3")
    assert python_env.runnable_by_others(shared / "bin" / "python3") == all(
        f.stat().st_mode & 0o001 for f in shared.resolve().parents
    )
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text('[project]\nname = "demo"\nrequires-python = ">=3.9"\n')
    runnable = {shared / "bin" / "python3"}
    monkeypatch.setattr(python_env, "runnable_by_others", lambda path: path in runnable)
    monkeypatch.setattr(
        python_env,
        "_interpreters",
        lambda: {hidden / "bin" / "python3": "3.11.7", shared / "bin" / "python3": "3.11.2"},
    )
    assert python_env._interpreter(tree, "demo") == (shared / "bin" / "python3", "3.11.2")
    assert python_env._interpreter(tree, "demo", recorded="3.11.7") == (shared / "bin" / "python3", "3.11.2")
    runnable.clear()
    assert python_env._interpreter(tree, "demo") == (hidden / "bin" / "python3", "3.11.7")


def test_older_pythons_follow_the_python_of_the_day(tmp_path, monkeypatch):
    from benchsmith.sources.python import environment as python_env

    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pyproject.toml").write_text('[project]\nname = "old"\nrequires-python = ">=3.7"\n')
    found = {
        Path(f"/opt/python{minor}{patch}/bin/python3"): f"3.{minor}.{patch}"
        for minor in (6, 7, 8, 9, 10)
        for patch in (1, 9)
    }
    monkeypatch.setattr(python_env, "_interpreters", lambda: {**found, Path("/usr/bin/python3.99"): "3.99.0"})
    # as of March 2023: 3.10 is the Python of the day (3.11 counts from April), then 3.9, 3.8, 3.7 (not 3.6: excluded)
    choices = python_env._interpreter_choices(tree, "old", as_of="2023-03-08T00:00:00Z")
    assert [version for _, version in choices] == ["3.10.9", "3.9.9", "3.8.9", "3.7.9"]
    assert python_env._interpreter_choices(tree, "old", recorded="3.8.1", as_of="2023-03-08T00:00:00Z") == [
        (Path("/opt/python89/bin/python3"), "3.8.9")
    ]  # a recorded Python is the only choice


def test_an_environment_an_sdist_refuses_is_built_on_an_older_python(tmp_path, monkeypatch):
    """numba's and llvmlite's setup.py of March 2023 refuse Python 3.10: the lock of that day installs on 3.9.
    Only a build failure moves on to an older Python; an index that cannot be reached does not."""
    from benchsmith.sources.python import environment as python_env

    tree = tmp_path / "tree"
    tree.mkdir()
    choices = [
        (Path("/opt/python310/bin/python3"), "3.10.9"),
        (Path("/opt/python39/bin/python3"), "3.9.9"),
        (Path("/opt/python38/bin/python3"), "3.8.9"),
        (Path("/opt/python37/bin/python3"), "3.7.9"),
    ]
    monkeypatch.setattr(python_env, "_interpreter_choices", lambda *args: choices)
    refusal = (
        'old: uv pip sync failed: File "<string>", line 52, in _guard_py_ver RuntimeError: Cannot install on '
        "Python version 3.10.9; only versions >=3.6,<3.10 are supported. hint: Build failures usually indicate "
        "a problem with the package or the build environment"
    )
    tried, told = [], []

    def install(key, tree, as_of, locked, env, interpreter, refused, system_deps=False, older_python_left=False):
        told.append(older_python_left)  # the last Python tried leaves out what does not build instead of failing
        tried.append(interpreter[1])
        if interpreter[1] == "3.10.9":
            raise BenchsmithError(refusal)
        return env / "bin" / "python", {}, {"python": interpreter[1], "python_refused": list(refused)}

    monkeypatch.setattr(python_env, "_install", install)
    _, _, resolution = python_env._built_environment("old", tree, "2023-03-08T00:00:00Z", None, tmp_path / "env")
    assert tried == ["3.10.9", "3.9.9"] and resolution["python"] == "3.9.9" and told == [True, True]
    assert resolution["python_refused"] == [{"python": "3.10.9", "reason": refusal[-400:]}]

    tried.clear()
    unreachable = (
        "old: uv pip sync failed: error: Failed to fetch: `https://pypi.org/simple/numba/` (connection refused)"
    )
    monkeypatch.setattr(
        python_env,
        "_install",
        lambda *args: tried.append(args[5][1]) or (_ for _ in ()).throw(BenchsmithError(unreachable)),
    )
    with pytest.raises(BenchsmithError, match="connection refused"):
        python_env._built_environment("old", tree, "2023-03-08T00:00:00Z", None, tmp_path / "env")
    assert tried == ["3.10.9"]
    tried.clear()
    monkeypatch.setattr(python_env, "_install", install)
    with pytest.raises(BenchsmithError, match="Cannot install on Python"):  # a recorded Python is never replaced
        python_env._built_environment("old", tree, "2023-03-08T00:00:00Z", None, tmp_path / "env", python="3.10")
    assert tried == ["3.10.9"] and told[-1] is False  # the one Python asked for is the last


def _python_3_8() -> str:
    from benchsmith.sources.python import environment as python_env

    found = [str(p) for p, v in python_env._interpreters().items() if v.startswith("3.8.")]
    if not found:
        pytest.skip("no Python 3.8 here")
    return found[0]


@pytest.mark.parametrize("interpreter", ["running", "3.8"])
def test_a_distribution_that_cannot_import_here_is_left_out(tmp_path, interpreter):
    """One raising something else than ImportError (a system library missing, an extension built for another numpy)
    is uninstalled and recorded, so that importorskip skips its tests; one missing an optional module of its own
    (ImportError) and one that imports stay. The probe runs in the environment's Python, 3.8 too (litestar's)."""
    import subprocess

    from benchsmith.sources.python import environment as python_env

    python = sys.executable if interpreter == "running" else _python_3_8()

    wheels = {
        "brokenlib": b"raise RuntimeError('Cannot find the ecCodes library')\n",
        "needsextra": b"import not_installed_anywhere\n",
        "finelib": b"VALUE = 1\n",
    }
    paths = []
    for name, text in wheels.items():
        filename, data = _wheel(name, "1.0", {f"{name}/__init__.py": text})
        (tmp_path / filename).write_bytes(data)
        paths.append(str(tmp_path / filename))
    filename, data = _wheel(
        "flatlib", "1.0", {"flatlib.py": b"raise OSError('libflat.so: cannot open')\n"}
    )  # one module
    (tmp_path / filename).write_bytes(data)
    paths.append(str(tmp_path / filename))
    env = tmp_path / "env"
    python_env._uv("probe", "venv", "--quiet", "--python", python, str(env))
    python_env._uv("probe", "pip", "install", "--quiet", "--offline", "--python", str(env / "bin/python"), *paths)
    dropped = python_env._drop_unimportable("probe", env / "bin" / "python")
    assert dropped == {
        "brokenlib": "import brokenlib: RuntimeError: Cannot find the ecCodes library",
        "flatlib": "import flatlib: OSError: libflat.so: cannot open",
    }
    left = {
        p["name"]
        for p in json.loads(
            subprocess.run(
                [python_env.uv_bin(), "pip", "list", "--format", "json", "--python", str(env / "bin/python")],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
    }
    assert {"needsextra", "finelib"} <= left and "brokenlib" not in left


def test_a_python_named_for_the_build_is_the_one_used_and_one_missing_is_refused(index, tmp_path):
    # `classbench build --python X.Y`, as a benchmark's set-up names one (the RepoClassBench paper's litestar: 3.8).
    # A minor version newer than benchsmith's own, so that the default could not pass for it (and pytest needs nothing
    # more there than the local index serves).
    from benchsmith.sources.python import environment as python_env

    here = sys.version_info[1]
    newer = sorted(
        {
            int(v.split(".")[1])
            for v in python_env._interpreters().values()
            if v.startswith("3.") and int(v.split(".")[1]) > here
        }
    )
    assert newer, "this machine has pyenv's Pythons newer than benchsmith's own"
    minor = f"3.{newer[0]}"
    tree = tmp_path / "geometry"
    shutil.copytree(GEOMETRY, tree)
    out = tmp_path / "out" / "geometry.parquet"
    card = build(ClassBenchOptions(repo=str(tree), out=out, python=minor)).to_dict()
    assert card["resolution"]["python"].startswith(f"{minor}.")
    (task,) = read_records(out, ClassBenchTask)
    assert task.environment.python.startswith(f"{minor}.")
    with pytest.raises(BenchsmithError, match=r"--python 3\.99: no Python 3\.99 here \(found .*3\.\d+\.\d+"):
        build(ClassBenchOptions(repo=str(tree), out=tmp_path / "refused.parquet", python="3.99"))
    assert not (tmp_path / "refused.parquet").exists()


def test_two_benchsmith_versions_sharing_a_cache_keep_their_own_environments(index, tmp_path, monkeypatch):
    # One version's environment is never rebuilt in place by another's (it may be judging in it at that moment).
    from benchsmith.sources.python import environment as python_env

    tree = tmp_path / "geometry"
    shutil.copytree(GEOMETRY, tree)
    first = resolve(str(tree))
    folder = Path(first.python).parent.parent
    manifest = (folder / "benchsmith-env.json").read_bytes()
    monkeypatch.setattr(python_env, "ENV_FORMAT", python_env.ENV_FORMAT + 1)
    second = resolve(str(tree))
    assert Path(second.python).parent.parent != folder
    assert (folder / "benchsmith-env.json").read_bytes() == manifest and Path(first.python).exists()
    assert json.loads(manifest)["format"] == python_env.ENV_FORMAT - 1


def test_published_directives_that_cannot_be_checked_are_kept_and_said_so(tmp_path):
    # A repository whose environment cannot be made here (no Python satisfies it): its tasks keep their directives as
    # published, and the import says why under a heading of its own.
    from tests.conftest import run_benchsmith

    files = {**REGISTRY, "pyproject.toml": REGISTRY["pyproject.toml"].replace(">=3.9", ">=4.0")}
    commit = committed(tmp_path / "repos" / "acme__registry", files)
    source = tmp_path / "python_data.json"
    source.write_text(json.dumps([_registry_entry(commit, "Polygon", ["tests/test_polygon.py::test_angles"])]))
    out = tmp_path / "published.parquet"
    completed = run_benchsmith(
        "classbench", "import", "--from", str(source), "--repos", str(tmp_path / "repos"), "--out", str(out)
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    lines = completed.stdout.splitlines()
    heading = lines.index(
        "the directives of 1 tasks were not checked on their repository's own code (kept as published):"
    )
    assert lines[heading + 1].startswith("  acme__registry::shapes/polygon.py::Polygon: ")
    assert "requires Python >=4.0" in lines[heading + 1]
    (task,) = read_records(out, ClassBenchTask)
    assert task.test_directives == ["tests/test_polygon.py::test_angles"]
