"""Red team for the Python class harness: hostile candidates never become plausible and change nothing.

Each hostile candidate is built so that a plausible verdict means a defence
failed: an escape attempt is the gold class only when the escape worked (it
reads the ground truth, kills the harness, finds what an earlier candidate
planted), a forgery is a wrong class whose forged report would make it pass,
and a planter rigs the candidates after it, whose verdicts are checked. Honest
gold candidates run before, between and after the hostile ones and must stay
plausible throughout.

The run is repeated without a mount namespace ("copies"), where the jail's
trees are real per-candidate copies and files are guarded by their modes only;
there, what a candidate leaves in the machine's shared /tmp is not private,
so the one attack on it is left out.
"""

from __future__ import annotations

import hashlib
import io
import os
import secrets
import signal
import sys
import tarfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from benchsmith.core.schema import ClassBenchTask, read_records
from benchsmith.runners.python.class_runner import TaskRunner, reference_solution
from benchsmith.runners.sandbox import jail as sandbox
from benchsmith.runners.sandbox import streams

LIMITS = sandbox.Limits(wall_seconds=30)
MARK = "The shoelace formula"  # the ground truth's docstring: found anywhere, the ground truth leaked
# A name of this process's own: the "copies" mode's candidates plant in the machine's /tmp, which a red team in
# another process (a second pytest-xdist worker, another checkout's run) must not find, nor clear under this one.
PLANT = f"benchsmith-redteam-plant-{secrets.token_hex(4)}"


@dataclass(frozen=True)
class Run:
    name: str
    code: str
    honest: bool = False  # a gold candidate: must be plausible
    forged: bool = False  # the verdict must say the report was forged


@pytest.fixture(scope="module")
def task(geometry_dataset) -> ClassBenchTask:
    (task,) = read_records(geometry_dataset, ClassBenchTask)
    return task


def _split(text: str) -> str:
    """*text* as a Python expression that does not contain it literally (so a candidate never finds itself)."""
    middle = len(text) // 2
    return f"({text[:middle]!r} + {text[middle:]!r})"


def escape(gold: str, attempt: str) -> str:
    """The gold class only if *attempt* (a function body returning True when the escape worked) succeeds."""
    body = textwrap.indent(textwrap.dedent(attempt).strip("\n"), "    ")
    return (
        f"def _benchsmith_attempt():\n{body}\n\n"
        "try:\n    _escaped = bool(_benchsmith_attempt())\nexcept BaseException:\n    _escaped = False\n"
        "if not _escaped:\n    raise ImportError('the defence held')\n\n" + gold
    )


def with_prelude(code: str, prelude: str) -> str:
    return textwrap.dedent(prelude).strip("\n") + "\n\n" + code


SELECTIVE = """
import os as _os
import pytest as _pytest
_CALLED, _ON_CALL = set(), []


def _note():
    _CALLED.add(_os.environ.get('PYTEST_CURRENT_TEST', '').rsplit(' ', 1)[0])
    while _ON_CALL:
        try:
            _ON_CALL.pop()()
        except Exception:
            pass


class _Flip:
    \"\"\"Failed reports become passes, only for tests that called this module: the sentinels stay honest.\"\"\"

    @_pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        if report.failed and item.nodeid in _CALLED:
            report.outcome, report.longrepr = 'passed', None
"""


def selective(wrong: str, reach: str) -> str:
    """*wrong*, noting every test that calls its area(), after *reach* (wrapped: a refusal leaves the class as it is)
    tried to turn those tests' failures into passes."""
    attempt = "try:\n" + textwrap.indent(textwrap.dedent(reach).strip("\n"), "    ") + "\nexcept Exception:\n    pass\n"
    noted = wrong.replace("        total = 0.0\n", "        _note()\n        total = 0.0\n", 1)
    assert noted != wrong
    return SELECTIVE.strip("\n") + "\n\n" + attempt + "\n" + noted


# Round 4: a PEP 562 __getattr__ planted in the test module while its body still runs; pytest calls it after the
# body and before collecting, and it rebinds every test that uses the class: to another test of the file that passes
# without it (a donor), to a partial or a callable object that does nothing, or to the donor and removes itself.
REBINDS = """
import sys as _s, functools as _ft

class _Pass:
    def __call__(self):
        return None

def _plant(mode):
    for _m in list(_s.modules.values()):
        _f = getattr(_m, "__file__", None) or ""
        if not (_f.endswith(".py") and "/tests/" in _f and "conftest" not in _f):
            continue
        def __getattr__(name, _m=_m, _done=[]):
            g = _m.__dict__
            if not _done:
                _done.append(1)
                donor = g.get("test_point_equality") or g.get("test_distance")
                for k, v in list(g.items()):
                    code = getattr(v, "__code__", None)
                    if k.startswith("test") and code is not None and {"square", "Polygon"} & set(code.co_names):
                        g[k] = {"donor": donor, "vanishing": donor, "partial": _ft.partial(lambda: None),
                                "callable": _Pass()}[MODE]
                if MODE == "vanishing":
                    g.pop("__getattr__", None)
            raise AttributeError(name)
        _m.__getattr__ = __getattr__

_plant(MODE)
"""


def hostile_runs(task: ClassBenchTask, paths: dict[str, Path]) -> list[Run]:
    gold = reference_solution(task).replace(MARK, "Shoelace.")  # so that the candidate's own text holds no MARK
    wrong = gold.replace("return abs(total) / 2", "return abs(total)")  # test_area fails, five directives pass
    assert wrong != gold
    empty = f"class {task.class_name}:\n    pass\n"
    tree_of = "__import__('os').path.dirname(__import__('os').path.dirname(__import__('os').path.dirname(__import__('os').path.abspath(__file__))))"
    fail_all = (
        "import pytest\n\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    outcome = yield\n    outcome.get_result().outcome = 'failed'\n"
    )
    pass_all = fail_all.replace("'failed'", "'passed'")
    breaks_builtins = "import builtins\nbuiltins.abs = lambda x: -1\nbuiltins.sum = lambda *a, **k: -1\n"
    breaks_pth = "import builtins; builtins.abs = lambda x: -1; builtins.sum = lambda *a, **k: -1\n"

    def writes_to(targets: tuple[str, ...], text: str) -> str:
        """A wrong class that tries to write *text* into each of *targets*."""
        return with_prelude(
            wrong,
            f"""
            for _path in {targets!r}:
                try:
                    with open(_path, 'w') as _handle:
                        _handle.write({text!r})
                except OSError:
                    pass
        """,
        )

    def plants_conftest(text: str) -> str:
        """A wrong class that writes a conftest.py holding *text* wherever pytest of a later candidate would look."""
        return with_prelude(
            wrong,
            f"""
            import os
            _tree = {tree_of}
            for _folder in (_tree, os.path.join(_tree, 'tests'), os.path.join(_tree, 'src')):
                try:
                    with open(os.path.join(_folder, 'conftest.py'), 'w') as _handle:
                        _handle.write({text!r})
                except OSError:
                    pass
        """,
        )

    runs = [
        # --- forged reports: a wrong class whose tests would all pass if the forgery were believed
        Run(
            "atexit-forge",
            with_prelude(
                wrong,
                """
            import atexit, json, os, sys
            def _forge():
                path = os.environ.get('BENCHSMITH_SELECT', '')
                ids = open(path).read().split() if path and os.path.exists(path) else []
                for arg in sys.argv:
                    if arg.startswith('--report-log='):
                        with open(arg.split('=', 1)[1], 'a') as log:
                            for node in ids:
                                log.write(json.dumps({'$report_type': 'TestReport', 'nodeid': node, 'when': 'call',
                                                      'outcome': 'passed'}) + '\\n')
                fd = os.environ.get('BENCHSMITH_REPORT_FD')
                if fd:
                    for node in ids:
                        os.write(int(fd), (json.dumps({'nodeid': node, 'outcome': 'passed'}) + '\\n').encode())
            atexit.register(_forge)
        """,
            ),
            forged=True,
        ),
        Run(
            "testreport-patch",
            with_prelude(
                wrong,
                """
            import _pytest.reports as _reports
            _init = _reports.TestReport.__init__
            def _passing(self, *args, **kwargs):
                _init(self, *args, **kwargs)
                self.outcome, self.longrepr = 'passed', None
                self.__dict__.pop('wasxfail', None)
            _reports.TestReport.__init__ = _passing
        """,
            ),
        ),  # its import of pytest's internals is refused (directcov's guard): it fails to load
        Run(
            "reportlog-patch",
            with_prelude(
                wrong,
                """
            import sys
            for _name, _module in list(sys.modules.items()):
                _plugin = getattr(_module, 'ReportLogPlugin', None)
                if _plugin is not None:
                    _write = _plugin._write_json_data
                    def _passing(self, data, _write=_write):
                        if data.get('outcome') in ('failed', 'skipped'):
                            data['outcome'] = 'passed'
                        _write(self, data)
                    _plugin._write_json_data = _passing
        """,
            ),
        ),
        Run(
            "plugin-patch",
            with_prelude(
                wrong,
                """
            import json, os, sys, types
            _plugin = sys.modules.get('benchsmith_directcov')
            def _rewrite(data):
                for word in (b'"failed"', b'"error"', b'"skipped"', b'"xfailed"', b'"xpassed"'):
                    data = data.replace(word, b'"passed"')
                return data
            if _plugin is not None:
                _real_write = os.write
                def _write(fd, data):
                    return _real_write(fd, _rewrite(bytes(data)))
                _fake_os = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith('__')})
                _fake_os.write = _write
                _fake_json = types.SimpleNamespace(**{k: getattr(json, k) for k in dir(json) if not k.startswith('__')})
                _fake_json.dumps = lambda *a, **k: _rewrite(json.dumps(*a, **k).encode()).decode()
                for _key, _value in list(vars(_plugin).items()):
                    if _value is os:
                        setattr(_plugin, _key, _fake_os)
                    elif _value is json:
                        setattr(_plugin, _key, _fake_json)
                    elif _value is os.write:
                        setattr(_plugin, _key, _write)
                    elif _value is json.dumps:
                        setattr(_plugin, _key, _fake_json.dumps)
        """,
            ),
        ),  # the plugin bound what it sends with at import: the wrong class is judged as it is
        Run(
            "fd-forge",
            with_prelude(
                wrong,
                """
            import json, os
            _fd = os.environ.get('BENCHSMITH_REPORT_FD')
            _path = os.environ.get('BENCHSMITH_SELECT', '')
            _ids = open(_path).read().split() if _path and os.path.exists(_path) else []
            if _fd:
                for _node in _ids:
                    os.write(int(_fd), (json.dumps({'nodeid': _node, 'outcome': 'passed'}) + '\\n').encode())
        """,
            ),
            forged=True,
        ),
        # --- skips and xfails are not passes
        Run("skip-at-import", with_prelude(wrong, "import pytest\npytest.skip('not today', allow_module_level=True)")),
        Run(
            "skip-in-method",
            wrong.replace(
                "        total = 0.0\n",
                "        import pytest\n        pytest.skip('not today')\n        total = 0.0\n",
            ),
        ),
        Run(
            "xfail-marking",
            with_prelude(
                gold,
                """
            import gc, pytest
            from _pytest.config import Config
            class _MarkAll:
                @pytest.hookimpl(trylast=True)
                def pytest_collection_modifyitems(self, items):
                    for item in items:
                        item.add_marker(pytest.mark.xfail(reason='expected to fail'))
            for _config in [o for o in gc.get_objects() if isinstance(o, Config)]:
                _config.pluginmanager.register(_MarkAll())
        """,
            ),
        ),
        # --- planting for the candidates after it (each checked by the candidate that follows)
        Run("conftest-pass-all", plants_conftest(pass_all)),
        Run("empty-after-pass-all", empty),
        Run("conftest-fail-all", plants_conftest(fail_all)),
        Run(
            "sitecustomize-and-pth",
            with_prelude(
                wrong,
                f"""
            import os, site, sys
            _tree = {tree_of}
            _places = [os.path.join(_tree, 'src'), *site.getsitepackages(), *sys.path]
            for _folder in _places:
                for _name, _text in (('sitecustomize.py', {breaks_builtins!r}), ('usercustomize.py', {breaks_builtins!r}),
                                     ('zz-benchsmith.pth', {breaks_pth!r})):
                    try:
                        with open(os.path.join(_folder, _name), 'w') as _handle:
                            _handle.write(_text)
                    except OSError:
                        pass
        """,
            ),
        ),
        Run(
            "edit-test-file",
            with_prelude(
                wrong,
                f"""
            import os
            _tree = {tree_of}
            for _root, _dirs, _files in os.walk(os.path.join(_tree, 'tests')):
                for _name in _files:
                    if _name.endswith('.py'):
                        try:
                            with open(os.path.join(_root, _name), 'a') as _handle:
                                _handle.write('\\nassert False, \"rigged\"\\n')
                        except OSError:
                            pass
        """,
            ),
        ),
        Run(
            "symlink-plant",
            with_prelude(
                wrong,
                f"""
            import os
            _tree = {tree_of}
            _canary = {str(paths["canary"])!r}
            _targets = [os.path.abspath(__file__), os.path.join(_tree, 'tests', 'test_shapes.py')]
            _targets += [os.path.join(_tree, n) for n in ('.benchsmith-select', '.benchsmith-report.jsonl', '.benchsmith-pytest.ini',
                                                        '.benchsmith-directcov.json')]
            for _target in _targets:
                try:
                    if os.path.lexists(_target):
                        os.unlink(_target)
                    os.symlink(_canary, _target)
                except OSError:
                    pass
        """,
            ),
        ),
        Run("tmp-and-shm-plant", writes_to((f"/tmp/{PLANT}", f"/dev/shm/{PLANT}"), "planted")),
        Run(
            "reads-tmp-and-shm-plant",
            escape(
                gold,
                f"""
            import os
            return any(os.path.exists(p) for p in ('/tmp/{PLANT}', '/dev/shm/{PLANT}'))
        """,
            ),
        ),
        # --- reading what the candidate must never see
        Run(
            "reads-cache-and-home",
            escape(
                gold,
                f"""
            import os
            mark = {_split(MARK)}.encode()
            own = os.path.realpath(__file__)
            roots = [{str(paths["cache"])!r}, os.path.expanduser('~'), {str(paths["home_canary"].parent)!r}]
            for root in roots:
                for folder, dirs, files in os.walk(root):
                    for name in files:
                        path = os.path.join(folder, name)
                        if os.path.realpath(path) == own or os.path.islink(path):
                            continue
                        try:
                            if os.path.getsize(path) < (4 << 20) and mark in open(path, 'rb').read():
                                return True
                        except OSError:
                            pass
            return False
        """,
            ),
        ),
        Run(
            "reads-sdist",
            escape(
                gold,
                f"""
            import os, tarfile
            mark = {_split(MARK)}.encode()
            for folder, dirs, files in os.walk(os.path.join({str(paths["cache"])!r}, 'classbench')):
                for name in files:
                    if name.endswith('.tar.gz'):
                        try:
                            with tarfile.open(os.path.join(folder, name)) as archive:
                                for member in archive.getmembers():
                                    handle = archive.extractfile(member)
                                    if handle is not None and mark in handle.read():
                                        return True
                        except (OSError, tarfile.TarError):
                            pass
            return False
        """,
            ),
        ),
        Run(
            "reads-dataset-and-canaries",
            escape(
                gold,
                f"""
            for path in ({str(paths["dataset"])!r}, {str(paths["home_canary"])!r}):
                try:
                    open(path, 'rb').read(1)
                    return True
                except OSError:
                    pass
            return False
        """,
            ),
        ),
        Run(
            "lists-base-site-packages",
            escape(
                gold,
                f"""
            import os
            return bool(os.listdir({str(paths["base_site_packages"])!r}))
        """,
            ),
        ),
        Run(
            "writes-canaries",
            writes_to((str(paths["canary"]), str(paths["home_canary"]), str(paths["dataset"])), "overwritten"),
        ),
        Run(
            "reads-harness-memory",
            escape(
                gold,
                f"""
            with open('/proc/{os.getpid()}/environ', 'rb') as handle:
                return b'BENCHSMITH_CACHE' in handle.read()
        """,
            ),
        ),
        # --- processes
        Run(
            "kills-the-harness",
            escape(
                gold,
                f"""
            import os, signal
            with open('/proc/{os.getpid()}/status') as handle:
                if 'Uid:\\t0' not in handle.read():
                    return False
            os.kill({os.getpid()}, signal.SIGKILL)
            return True
        """,
            ),
        ),
        Run(
            "kills-everything",
            with_prelude(
                wrong,
                f"""
            import os, signal
            for _pid in (os.getppid(), {os.getpid()}, -1):
                try:
                    os.kill(_pid, signal.SIGKILL)
                except OSError:
                    pass
        """,
            ),
        ),
        Run(
            "leaves-a-daemon",
            with_prelude(
                wrong,
                f"""
            import os, time
            _tree = {tree_of}
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    _end = time.time() + 25
                    while time.time() < _end:
                        for _path in (os.path.join(_tree, 'conftest.py'), os.path.join(_tree, 'tests', 'conftest.py'),
                                      '/tmp/{PLANT}-daemon'):
                            try:
                                with open(_path, 'w') as _handle:
                                    _handle.write({fail_all!r})
                            except OSError:
                                pass
                        try:
                            os.kill(-1, {int(signal.SIGKILL)})  # every process of its uid: the next candidate's too
                        except OSError:
                            pass
                        time.sleep(0.05)
                os._exit(0)
        """,
            ),
        ),
        Run(
            "os-exit-in-class-body",
            gold.replace(
                '    """A closed polygon."""\n', '    """A closed polygon."""\n    import os\n    os._exit(0)\n', 1
            ),
        ),
        Run("sys-exit-at-import", with_prelude(gold, "import sys\nsys.exit(0)")),
        # --- reaching the runner from inside (benchsmith.runners.python.directcov's guard; inverted twins; the second
        # opinion)
        Run(
            "gc-plugin-selective",
            selective(
                wrong,
                """
            import gc
            for _config in [o for o in gc.get_objects() if type(o).__name__ == 'Config']:
                _config.pluginmanager.register(_Flip())
        """,
            ),
        ),
        Run(
            "pdb-config-plugin-selective",
            selective(
                wrong,
                """
            import sys
            sys.modules['_pytest.debugging'].pytestPDB._config.pluginmanager.register(_Flip())
        """,
            ),
            forged=True,
        ),
        Run(
            "frame-walk-selective",
            selective(
                wrong,
                """
            import sys
            def _reach():
                _frame = sys._getframe()
                while _frame is not None:
                    _item = _frame.f_locals.get('item')
                    if _item is not None and hasattr(_item, 'config'):
                        _item.config.pluginmanager.register(_Flip())
                        return
                    _frame = _frame.f_back
            _ON_CALL.append(_reach)
        """,
            ),
        ),
        Run(
            "settrace-selective",
            selective(
                wrong,
                """
            import sys, threading
            def _tracer(frame, event, arg):
                if event == 'call' and frame.f_code.co_name == 'pytest_runtest_logreport':
                    _report = frame.f_locals.get('report')
                    if _report is not None and _report.failed and _report.nodeid in _CALLED:
                        _report.outcome, _report.longrepr = 'passed', None
            sys.settrace(_tracer)
            threading.settrace(_tracer)
        """,
            ),
        ),
        Run(
            "ctypes-frame-selective",
            selective(
                wrong,
                """
            import importlib
            _ctypes = importlib.import_module('ctypes')
            def _reach():
                _get = _ctypes.pythonapi.PyEval_GetFrame
                _get.restype = _ctypes.py_object
                _frame = _get()
                while _frame is not None:
                    _item = _frame.f_locals.get('item')
                    if _item is not None and hasattr(_item, 'config'):
                        _item.config.pluginmanager.register(_Flip())
                        return
                    _frame = _frame.f_back
            _ON_CALL.append(_reach)
        """,
            ),
        ),
        Run(
            "test-module-swap",
            selective(
                wrong,
                """
            import sys, types
            def _passing():
                pass
            for _name, _module in list(sys.modules.items()):
                if (getattr(_module, '__file__', '') or '').endswith('test_shapes.py'):
                    class _Fake(types.ModuleType):  # the real module's names, its tests of this class passing
                        def __getattribute__(self, attr, _real=_module):
                            names = dict(vars(_real))
                            for key, value in list(names.items()):
                                code = getattr(value, '__code__', None)
                                if key.startswith('test') and code is not None and {'square', 'Polygon'} & set(code.co_names):
                                    names[key] = _passing
                            return names if attr == '__dict__' else names[attr] if attr in names else getattr(_real, attr)
                    sys.modules[_name] = _Fake(_name)
        """,
            ),
            forged=True,
        ),
        # --- floods: the harness holds and keeps a bounded part of them (checked after the run)
        Run(
            "stdout-stderr-flood",
            wrong.replace(
                "        total = 0.0\n",
                (
                    "        import sys\n        _line = 'x' * 1023 + '\\n'\n"
                    "        for _ in range(64 * 1024):\n            sys.stdout.write(_line)\n            "
                    "sys.stderr.write(_line)\n"
                    "        total = 0.0\n"
                ),
                1,
            ),
        ),
        Run(
            "saved-fd-and-tree-flood",
            with_prelude(
                wrong,
                """
            import os, stat
            _chunk = b'y' * (1 << 20)
            _report = int(os.environ.get('BENCHSMITH_REPORT_FD', '-1'))
            for _fd in range(3, 64):
                try:
                    if _fd == _report or not stat.S_ISFIFO(os.fstat(_fd).st_mode):
                        continue
                    for _ in range(250):
                        os.write(_fd, _chunk)
                except OSError:
                    pass
            try:
                with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'flood.log'), 'wb') as _handle:
                    for _ in range(250):
                        _handle.write(_chunk)
            except OSError:
                pass
        """,
            ),
        ),
        Run(
            "closes-the-report",
            with_prelude(
                wrong,
                """
            import os
            for _fd in range(3, 256):
                try:
                    os.close(_fd)
                except OSError:
                    pass
        """,
            ),
        ),
    ]
    runs.append(
        # --- resources: three children each fill 1.5 GiB at once, 4.5 GiB of a run allowed 4 GiB (each process
        # well inside its address space). The gold class only if all three held their memory together.
        Run(
            "fork-and-fill",
            escape(
                gold,
                """
            import os, select, time
            read_end, write_end = os.pipe()
            held_end, release_end = os.pipe()
            children = []
            for _ in range(3):
                pid = os.fork()
                if pid == 0:
                    os.close(release_end)  # the parent's death ends the wait
                    held = b'x' * (1536 << 20)
                    os.write(write_end, b'1')
                    os.read(held_end, 1)  # each holds its fill until all three have filled: 4.5 GiB at once
                    os._exit(0)
                children.append(pid)
            filled, deadline = b'', time.monotonic() + 20
            while len(filled) < 3 and time.monotonic() < deadline:
                if select.select([read_end], [], [], 1)[0]:
                    filled += os.read(read_end, 3)
            os.write(release_end, b'123')
            statuses = [os.waitpid(pid, 0)[1] for pid in children]
            return len(filled) == 3 and statuses == [0, 0, 0]
            """,
            ),
        )
    )
    runs += [
        Run(
            f"rebinds-tests-{mode}",
            f"MODE = {mode!r}\n" + textwrap.dedent(REBINDS).strip("\n") + "\n\n" + empty,
            forged=True,
        )
        for mode in ("donor", "partial", "callable", "vanishing")
    ]
    assert all("raise ImportError" in r.code or r.code != gold for r in runs)
    return runs


def interleaved(task: ClassBenchTask, runs: list[Run]) -> list[Run]:
    gold = reference_solution(task)
    sequence = [Run("gold-0", gold, honest=True)]
    for number, run in enumerate(runs, start=1):
        sequence.append(run)
        if not run.name.endswith(("-pass-all", "-plant")) or run.name == "symlink-plant":
            sequence.append(Run(f"gold-{number}", gold, honest=True))
    return sequence


def snapshot(*paths: Path) -> dict[str, str]:
    digests = {}
    for root in paths:
        files = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file() or p.is_symlink())
        for path in files:
            digests[str(path)] = (
                "link:" + os.readlink(path) if path.is_symlink() else hashlib.sha256(path.read_bytes()).hexdigest()
            )
    return digests


def plant_canaries(cache: Path) -> dict[str, Path]:
    """A canary owned by root outside every tree, one in $HOME, and a downloaded sdist holding the ground truth."""
    canary = cache / "redteam-canary.txt"
    canary.write_text("root's canary\n")
    canary.chmod(0o644)
    home_canary = Path.home() / f".benchsmith-redteam-canary-{os.getpid()}"
    home_canary.write_text("home canary\n")
    sdist = cache / "classbench" / "sdists" / "geometry-fixture-1.0" / "geometry-fixture-1.0.tar.gz"
    sdist.parent.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist, "w:gz") as archive:
        data = (Path(__file__).parents[2] / "data/fixtures/classbench/geometry/src/geometry/shapes.py").read_bytes()
        info = tarfile.TarInfo("geometry-fixture-1.0/src/geometry/shapes.py")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    for leftover in (Path("/tmp") / PLANT, Path("/dev/shm") / PLANT, Path("/tmp") / f"{PLANT}-daemon"):
        leftover.unlink(missing_ok=True)
    return {"cache": cache, "canary": canary, "home_canary": home_canary, "sdist": sdist}


@pytest.fixture
def planted():
    paths = plant_canaries(Path(os.environ["BENCHSMITH_CACHE"]))
    yield paths
    paths["home_canary"].unlink(missing_ok=True)
    for leftover in (Path("/tmp") / PLANT, Path("/dev/shm") / PLANT, Path("/tmp") / f"{PLANT}-daemon"):
        leftover.unlink(missing_ok=True)  # without a mount namespace, what the candidates planted in /tmp stays


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["jail", "copies"])
def test_hostile_candidates_never_pass_and_change_nothing(mode, task, geometry_dataset, planted, tmp_path, monkeypatch):
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the red team checks what a sandbox uid can reach")
    if mode == "jail" and not sandbox.isolation()["mount_namespace"]:
        pytest.skip(sandbox.missing_layers())
    if mode == "copies":
        layers = {**sandbox.isolation(), "mount_namespace": False, "pid_namespace": False, "private_tmp": False}
        monkeypatch.setattr(sandbox, "isolation", lambda: layers)
    paths = {
        **planted,
        "dataset": geometry_dataset,
        "base_site_packages": Path(sys.base_prefix)
        / "lib"
        / f"python{sys.version_info[0]}.{sys.version_info[1]}"
        / "site-packages",
    }
    runs = hostile_runs(task, paths)
    if mode == "copies":  # the machine's /tmp is shared between the runs of one uid: only a mount namespace hides it
        runs = [r for r in runs if "tmp-and-shm" not in r.name]
    pristine = Path(os.environ["BENCHSMITH_CACHE"]) / "classbench" / "sources"
    guarded = [geometry_dataset, pristine, planted["sdist"], planted["canary"], planted["home_canary"]]
    before = snapshot(*guarded)
    verdicts = {}
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, LIMITS, tmp_path / "logs")
        try:
            for run in interleaved(task, runs):
                verdicts[run.name] = (run, runner.evaluate(run.code, run.name))
        finally:
            runner.close()
        # Every candidate ran as the uid of the runner's lane, and no process can change its uid: any of them still
        # alive would be there. (The slot's other lanes are for other kinds of runs.)
        alive = sandbox.living_processes(sandbox.sandbox_uid(slot, runner.lane))
    assert alive == []
    wrongly = {
        name: (v.status, v.reason) for name, (run, v) in verdicts.items() if run.honest and v.status != "plausible"
    }
    assert wrongly == {}, "an honest gold candidate was not plausible"
    passed = {name: v.reason for name, (run, v) in verdicts.items() if not run.honest and v.status == "plausible"}
    assert passed == {}, "a hostile candidate was judged plausible"
    unforged = {
        name: v.reason for name, (run, v) in verdicts.items() if run.forged and not v.reason.startswith("forged")
    }
    assert unforged == {}, "a forged report was not caught as forged"
    # A module that dies on import silences the sentinels' file with the rest: a crash, not a forgery.
    assert "(missing)" in verdicts["sys-exit-at-import"][1].reason
    if sandbox.isolation()["run_cgroup"]:  # the bound it reached is named in its verdict
        assert verdicts["fork-and-fill"][1].reason.startswith("the run reached its memory bound"), verdicts[
            "fork-and-fill"
        ][1].reason
    for name, (run, verdict) in verdicts.items():
        assert set(verdict.failing_tests) <= set(task.test_directives), (name, verdict.failing_tests)
        assert verdict.tests_passed + verdict.tests_failed == len(task.test_directives), (name, verdict)
    assert snapshot(*guarded) == before
    logs = sorted((tmp_path / "logs").glob("*.log"))
    assert logs and max(p.stat().st_size for p in logs) <= streams.LOG_BYTES + 200, "a candidate's log outgrew its cap"
    assert not (Path("/tmp") / PLANT).exists() or mode == "copies"
    assert not (Path("/dev/shm") / PLANT).exists() or mode == "copies"
    assert not (Path("/tmp") / f"{PLANT}-daemon").exists() or mode == "copies"


# Red team round 6: tests that truly pass because the candidate changed what they call besides its class, where no
# twin sees it (the twin of a directive that passes fails, as it should). The class drops its check of the number of
# points, so test_too_few_points must fail; `pytest.raises` becomes contextlib.suppress, on the pytest module (an
# attribute of a module: no audit event) or as the test module's own name `pytest` (a name its source binds), rebound
# at the class's first call. Before, both were plausible, unflagged.
UNCHECKED = '        if len(points) < self.sides_minimum:\n            raise ValueError("a polygon needs at least three points")\n'
SUPPRESSING_RAISES = """
import contextlib as _cl
import pytest as _pt
_pt.raises = lambda *a, **k: _cl.suppress(BaseException)
"""
REBOUND_PYTEST = """
import contextlib as _cl, sys as _s, types as _ty

def _rebind():
    for _m in list(_s.modules.values()):
        _f = getattr(_m, "__file__", None) or ""
        if _f.endswith("test_shapes.py") and "pytest" in vars(_m):
            _real = vars(_m)["pytest"]
            _fake = _ty.SimpleNamespace(**{k: getattr(_real, k) for k in dir(_real) if not k.startswith("__")})
            _fake.raises = lambda *a, **k: _cl.suppress(BaseException)
            vars(_m)["pytest"] = _fake
"""

# The same reached through pytest's internals: the context manager's class gets an __exit__ that suppresses, or its
# module a suppressing class under that class's name (pytest.raises looks it up there at each call).
SUPPRESSING_EXIT = """
import pytest as _pt
try:
    type(_pt.raises(ValueError)).__exit__ = lambda self, *a: True
except Exception:
    pass
"""
SUPPRESSING_CLASS = """
import pytest as _pt, sys as _s
_cls = type(_pt.raises(ValueError))

class _Suppress:
    def __init__(self, *a, **k):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        return True

try:
    setattr(_s.modules[_cls.__module__], _cls.__name__, _Suppress)
except Exception:
    pass
"""


# The same, changed while the test runs and put back before the next test: the class, on the path only
# test_too_few_points and its twin take, replaces the maker of pytest's reports (TestReport.from_item_and_call, a
# classmethod of _pytest.reports) with one that puts the real one back as it makes that test's report, and flips it:
# the directive's failure becomes a pass, its twin's pass a failure, so they agree. No check before a test sees it
# (it is gone by then); the check after each test's call, before its report is made, does.
SWAPPED_REPORT_MAKER = """
import sys as _s


def _swap_report_maker():
    _cls = _s.modules["_pytest.reports"].TestReport
    _real = _cls.__dict__["from_item_and_call"]

    def _made(cls, item, call):
        setattr(_cls, "from_item_and_call", _real)
        report = _real.__func__(cls, item, call)
        if report.when == "call" and report.failed:
            report.outcome, report.longrepr = "passed", None
        elif report.when == "call" and report.passed:
            report.outcome, report.longrepr = "failed", "failed"
        return report

    setattr(_cls, "from_item_and_call", classmethod(_made))
"""


def test_what_a_test_imports_stays_as_it_imported_it(task, tmp_path):
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the red team checks what a sandbox uid can reach")
    gold = reference_solution(task)
    assert UNCHECKED in gold
    unchecked = gold.replace(UNCHECKED, "")
    rebinding = unchecked.replace(
        "        self.points = list(points)\n", "        _rebind()\n        self.points = list(points)\n"
    )
    swapping = gold.replace(
        UNCHECKED, "        if len(points) < self.sides_minimum:\n            _swap_report_maker()\n"
    )
    runs = [
        Run("gold-before", gold, honest=True),
        Run("unchecked", unchecked),
        Run("pytest-raises-suppresses", with_prelude(unchecked, SUPPRESSING_RAISES), forged=True),
        Run("module-pytest-rebound", with_prelude(rebinding, REBOUND_PYTEST), forged=True),
        Run("raises-class-exit-suppresses", with_prelude(unchecked, SUPPRESSING_EXIT), forged=True),
        Run("raises-module-class-suppresses", with_prelude(unchecked, SUPPRESSING_CLASS), forged=True),
        Run("report-maker-swapped-while-it-runs", with_prelude(swapping, SWAPPED_REPORT_MAKER), forged=True),
        Run("gold-after", gold + "\n", honest=True),
    ]
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, LIMITS, tmp_path / "logs")
        try:
            verdicts = {run.name: (run, runner.evaluate(run.code, run.name)) for run in runs}
        finally:
            runner.close()
    assert {name: v.status for name, (run, v) in verdicts.items() if run.honest} == {
        "gold-before": "plausible",
        "gold-after": "plausible",
    }
    assert verdicts["unchecked"][1].failing_tests == ["tests/test_shapes.py::test_too_few_points"]
    for name, (run, verdict) in verdicts.items():
        if run.forged:
            assert verdict.status != "plausible", (name, verdict)
            assert verdict.reason.startswith("forged"), (name, verdict.reason)
    # seen only by the check after the test's call (before it, the plugin of d5bbee7 judged it plausible, 6 of 6)
    assert "was replaced while it ran" in verdicts["report-maker-swapped-while-it-runs"][1].reason


# Red team round 7: the plugin's own state, reached through sys.modules. Every set, dict and list in its module's
# globals, its functions' defaults and closures is emptied, and every private function of the module is rebound to
# one that finds nothing. On the plugin of 2c78e17, the guard's set of the candidate's file names was such a set:
# emptied, the guard refused nothing, and a class that is the gold only where sys._getframe works was plausible.
VANDAL = """
import sys as _s


def _vandalise():
    plugin = _s.modules.get("benchsmith_directcov")

    def empty(value):
        if isinstance(value, (set, dict, list)):
            try:
                value.clear()
            except Exception:
                pass

    for name, value in list(vars(plugin).items()):
        empty(value)
        for held in getattr(value, "__defaults__", None) or ():
            empty(held)
        for cell in getattr(value, "__closure__", None) or ():
            try:
                empty(cell.cell_contents)
            except ValueError:
                pass
        if name.startswith("_") and callable(value) and not isinstance(value, type):
            setattr(plugin, name, lambda *args, **kwargs: "")


_vandalise()
"""


def test_the_plugins_own_state_is_out_of_the_candidates_reach(task, tmp_path):
    if not sandbox.isolation()["unprivileged_uid"]:
        pytest.skip("needs root: the red team checks what a sandbox uid can reach")
    gold = reference_solution(task)
    unchecked = gold.replace(UNCHECKED, "")
    runs = [
        Run("gold-before", gold, honest=True),
        Run(
            "frames-after-vandalising",
            with_prelude(escape(gold, "import sys\nreturn sys._getframe(0) is not None\n"), VANDAL),
        ),
        Run("raises-suppressed-after-vandalising", with_prelude(unchecked, VANDAL + SUPPRESSING_RAISES), forged=True),
        Run("tests-rebound-after-vandalising", with_prelude("MODE = 'donor'\n" + REBINDS + "\n\n" + unchecked, VANDAL)),
        Run("gold-after", gold + "\n", honest=True),
    ]
    with sandbox.leased_slot() as slot:
        runner = TaskRunner(task, slot, LIMITS, tmp_path / "logs")
        try:
            verdicts = {run.name: (run, runner.evaluate(run.code, run.name)) for run in runs}
        finally:
            runner.close()
    statuses = {name: verdict.status for name, (run, verdict) in verdicts.items()}
    assert statuses["gold-before"] == "plausible", verdicts["gold-before"][1].reason
    assert statuses["gold-after"] == "plausible", verdicts["gold-after"][1].reason
    for name in ("frames-after-vandalising", "raises-suppressed-after-vandalising", "tests-rebound-after-vandalising"):
        assert statuses[name] != "plausible", (name, verdicts[name][1].reason)
