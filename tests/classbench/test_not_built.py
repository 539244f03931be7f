"""A test dependency that resolves but does not build here costs only its tests (issue 41).

The project's test extra names ``brokenext``, an sdist (built here, served by the loopback index of
tests/classbench/test_environment.py) whose C extension includes a header no package of this machine provides. uv
resolves it and fails to compile it; the environment leaves it out with the compiler's line, the rest installs, the
suite runs, and the tests that need it are counted as not runnable, by module, never as failures. The Debian package
that would provide the header is looked up in a Contents index the test serves from loopback.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import os
import shutil
import tarfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchsmith.benchmarks import EvalOptions
from benchsmith.builders.classbench.python.build import ClassBenchOptions, build, render_card
from benchsmith.core.config import cache_dir
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import BuildCard, ClassBenchTask, Result, read_records
from benchsmith.runners.python.class_runner import reference_solution
from benchsmith.scoring.evaluate import evaluate
from benchsmith.sources.system_packages import CONTENTS_URL_VARIABLE
from tests.classbench import test_environment
from tests.classbench.test_environment import OLD, PDM_PROJECT, _Index, _publish

index = test_environment.index  # the loopback package index, a fixture

BROKEN_C = "#include <Python.h>\n#include <nosuchlib/nosuch.h>\n\nint unused;\n"
CONTENTS = """\
usr/include/x86_64-linux-gnu/vendored/nosuchlib/nosuch.h   libdevel/libvendored-dev
usr/include/nosuchlib/nosuch.h                             libdevel/libnosuch-dev
usr/share/doc/libnosuch-dev/examples/nosuchlib/nosuch.h    doc/libnosuch-doc
usr/lib/x86_64-linux-gnu/pkgconfig/nosuch.pc               libdevel/libnosuch-dev
usr/bin/nosuch-config                                      libdevel/libnosuch-dev,devel/nosuch-tools
"""


@pytest.fixture(scope="module")
def contents_index(tmp_path_factory):
    """Debian's Contents index of a made-up library, served from loopback as a mirror lays it out."""
    root = tmp_path_factory.mktemp("mirror")
    folder = root / "debian" / "dists" / "bookworm" / "main"
    folder.mkdir(parents=True)
    (folder / "Contents-amd64.gz").write_bytes(gzip.compress(CONTENTS.encode()))

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    previous = os.environ.get(CONTENTS_URL_VARIABLE)
    url = f"http://127.0.0.1:{server.server_address[1]}/debian/dists/bookworm/main/Contents-amd64.gz"
    os.environ[CONTENTS_URL_VARIABLE] = url
    yield url
    server.shutdown()
    os.environ.pop(CONTENTS_URL_VARIABLE, None) if previous is None else os.environ.__setitem__(
        CONTENTS_URL_VARIABLE, previous
    )


def _broken_sdist(server: _Index, tmp_path: Path) -> None:
    """``brokenext`` 1.0, an sdist whose extension includes ``nosuchlib/nosuch.h``, on the index."""
    tree = tmp_path / "brokenext-1.0"
    (tree / "brokenext").mkdir(parents=True)
    (tree / "setup.py").write_text(
        "from setuptools import Extension, setup\n\n"
        "setup(name='brokenext', version='1.0', packages=['brokenext'],\n"
        "      ext_modules=[Extension('brokenext._c', ['brokenext/_c.c'])])\n"
    )
    (tree / "brokenext" / "__init__.py").write_text("from brokenext._c import unused\n")
    (tree / "brokenext" / "_c.c").write_text(BROKEN_C)
    (tree / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: brokenext\nVersion: 1.0\n")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        archive.add(tree, arcname=tree.name)
    server.files["brokenext-1.0.tar.gz"] = (buffer.getvalue(), "brokenext", OLD)


TESTS_THAT_NEED_IT = {
    "tests/test_needs_it.py": "import brokenext\n\n\ndef test_a():\n    assert brokenext\n\n\ndef test_b():\n    pass\n"
    "",
    "tests/test_skipped_whole.py": "import pytest\n\npytest.importorskip('brokenext')\n\n\ndef test_c():\n    pass\n",
    "tests/test_partly.py": (
        "import pytest\n\n\ndef test_skips_without_it():\n    pytest.importorskip('brokenext')\n\n\n"
        "def test_imports_it_inside():\n    import brokenext  # noqa: F401\n\n\n"
        "def test_needs_nothing():\n    assert 1 + 1 == 2\n"
    ),
}


def test_a_test_extra_that_does_not_build_is_left_out_and_costs_only_its_tests(index, contents_index, tmp_path):
    _broken_sdist(index, tmp_path)
    pyproject = PDM_PROJECT.format(name="notbuiltdemo") + '\n[project.optional-dependencies]\ntest = ["brokenext"]\n'
    spec = _publish(index, tmp_path, "notbuiltdemo", pyproject, "import helperlib\n", **TESTS_THAT_NEED_IT)
    card = build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "notbuilt.parquet")).to_dict()

    (left_out,) = card["resolution"]["not_built"]
    assert left_out["requirement"] == "brokenext==1.0"
    assert left_out["error"] == "brokenext/_c.c:2:10: fatal error: nosuchlib/nosuch.h: No such file or directory"
    assert left_out["missing"] == "the header nosuchlib/nosuch.h"
    assert left_out["debian_package"] == "libnosuch-dev"  # the standard place's -dev package, looked up
    assert "brokenext" in left_out["modules"]
    # a missing header is no matter of the interpreter: no older Python was tried for it
    assert "python_refused" not in card["resolution"] and card["resolution"]["python"].startswith("3.11")
    lock = Path(card["resolution"]["lock"]).read_text()
    assert "# benchsmith: not built here, left out: brokenext==1.0 (brokenext/_c.c:2:10: fatal error" in lock
    assert "\nbrokenext==" not in lock and "helperlib==1.0" in lock  # the rest installed
    assert card["environment"]["helperlib"] == "1.0" and "brokenext" not in card["environment"]

    # the geometry suite's 8 and test_needs_nothing pass; what needs brokenext is not runnable, never failed
    assert card["test_suite"] == {"passed": 9, "not runnable": 4}
    assert card["not_runnable"]["tests"] == 2 and card["not_runnable"]["modules_not_collected"] == 2
    lost = card["not_runnable"]["by_module"]["brokenext"]
    assert lost["tests"] == 2
    assert lost["modules_not_collected"] == ["tests/test_needs_it.py", "tests/test_skipped_whole.py"]
    assert lost["left_out"].startswith("brokenext==1.0: does not build here (brokenext/_c.c:2:10: fatal error")
    assert lost["left_out"].endswith("the Debian package libnosuch-dev provides the header nosuchlib/nosuch.h")
    assert card["tasks"] == 1  # the classes the other tests cover still become tasks
    # judged from the dataset's lock in an emptied cache: the left-out line is a comment, nothing tries to build it
    shutil.rmtree(cache_dir("classbench", "envs"))
    (task,) = read_records(tmp_path / "out" / "notbuilt.parquet", ClassBenchTask)
    assert "# benchsmith: not built here, left out: brokenext==1.0" in task.environment.lock
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text(
        json.dumps({"instance_id": task.task_id, "candidate_id": "gold", "code": reference_solution(task)}) + "\n"
    )
    dataset = tmp_path / "out" / "notbuilt.parquet"
    evaluate(EvalOptions(dataset=dataset, candidates=candidates, out=tmp_path / "results.parquet", workers=1))
    (result,) = read_records(tmp_path / "results.parquet", Result)
    assert result.status == "plausible", result.reason
    rendered = render_card(BuildCard.from_dict(card))
    assert "Not built, left out: brokenext==1.0 (brokenext/_c.c:2:10: fatal error: nosuchlib/nosuch.h" in rendered
    assert (
        "| brokenext | 2 | tests/test_needs_it.py, tests/test_skipped_whole.py | brokenext==1.0: does not" in rendered
    )


def test_a_dependency_the_package_imports_that_does_not_build_stops_in_one_line(index, contents_index, tmp_path):
    _broken_sdist(index, tmp_path)
    pyproject = PDM_PROJECT.format(name="ownimportdemo").replace("dependencies = []", 'dependencies = ["brokenext"]')
    own = (
        "import brokenext  # noqa: F401\n\n"
        + (
            Path(__file__).resolve().parents[2] / "data/fixtures/classbench/geometry/src/geometry/__init__.py"
        ).read_text()
    )
    spec = _publish(
        index, tmp_path, "ownimportdemo", pyproject, "import helperlib\n", **{"src/geometry/__init__.py": own}
    )
    with pytest.raises(BenchsmithError) as raised:
        build(ClassBenchOptions(repo=spec, out=tmp_path / "out" / "ownimport.parquet"))
    message = str(raised.value)
    assert "\n" not in message
    assert (
        "its own code needs brokenext==1.0 at import (geometry/__init__.py imports brokenext), which does not "
        "build here: brokenext/_c.c:2:10: fatal error: nosuchlib/nosuch.h: No such file or directory; the Debian "
        "package libnosuch-dev provides the header nosuchlib/nosuch.h (--system-deps installs it)" in message
    )
