"""pytest plugin ``benchsmith_directcov``: exact test selection, each test's outcome, and direct coverage.

Selection: with ``BENCHSMITH_SELECT`` naming a file of node ids, only those
tests run (pytest cannot select some ids from its command line, such as a
parameter set with an empty id, ``test_x[]``).

Report: with ``BENCHSMITH_REPORT_FD`` naming an inherited descriptor (the
write end of the harness's pipe), one JSON line per test, sent when its
teardown is reported: ``{"nodeid": ..., "outcome": ...}`` where the outcome is
passed, failed, error (setup or teardown failed), skipped, xfailed or xpassed;
a module that fails to collect sends ``{"nodeid": <its id>, "outcome":
"error"}``. With ``BENCHSMITH_REPORT_COLLECTED`` set, the first line is
``{"collected": [node id, ...]}``: every test the session is about to run,
so that a run that dies part way tells which tests never reported. The descriptor is written with ``os.write``: a
sandbox uid cannot
reopen ``/dev/fd/N`` of a pipe that root made, but it can write to the
descriptor it inherited. Nothing is written to files: whatever the tests'
process can write, the candidate under test can write too. The harness does
not believe this report blindly either (``benchsmith.runners.sandbox.outcomes``): the candidate
runs in this process and can forge it.

DirectCoverage(T), as the RepoClassBench paper (E.1.2) defines it, is the set of functions and
classes invoked directly in the body of test T: here, every call event whose
caller frame runs code written in the test function's body (its own frame, or
a function, lambda, comprehension or class defined inside it; in any thread the
test starts), and, for a call
that builds an object, the constructor of the class built (``C.__init__``,
even when inherited or generated); with ``BENCHSMITH_DIRECTCOV``
set, each test's line carries ``"calls": [[file, qualname], ...]``.
Messages: a test that does not pass, and a module that fails to collect, also
send ``"message"``: the end of pytest's report of the failure (at most
``MESSAGE_LIMIT`` characters), which agents show the model as feedback. It is
only ever shown, never believed: outcomes decide verdicts.

Guard: with ``BENCHSMITH_CANDIDATE`` naming the candidate's module, an audit
hook (which nothing can remove) refuses, while code of that module is on the
stack, what a forger needs to reach this process's runner: walking the heap
(``gc.get_objects``, referrers), handing out frames (``sys._getframe`` and
``inspect.currentframe`` called from it, tracebacks' and generators' frames,
every thread's frames), trace, profile and monitoring hooks, ``ctypes``, new
code objects and ``marshal``, rewriting a function's code or defaults; in every
thread but the main one the same is refused whoever asks (:func:`_thread_refusal`:
a builtin a thread calls for the candidate has none of its frames above it). Code it
compiles counts as its own (a false file name buys nothing), and importing
pytest's internals, pluggy or this plugin from its module fails. The hook is
installed when pytest loads this plugin, before the project's conftests and
before any test module imports the candidate's. It is a wall against the
direct routes, not a proof: the process is the candidate's, and outcomes are
still held against sentinels from outside (``benchsmith.runners.sandbox.outcomes``).

Loaded into the repository's own pytest with ``-p benchsmith_directcov``.
Standard library only: it runs inside the repository's environment.
"""

from __future__ import annotations

import ast
import builtins
import hashlib
import itertools
import json
import marshal
import operator
import os
import sys
import threading
import types
from collections.abc import Callable

import pytest

# Refused wherever the candidate's code is on the stack: nothing honest in a class under repair needs them.
_ANYWHERE = frozenset(
    {
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys._current_exceptions",
        "sys.settrace",
        "sys.setprofile",
        "sys.monitoring.register_callback",
        "sys.monitoring.use_tool_id",
        "sys.monitoring.set_events",
        "sys.monitoring.set_local_events",
        "code.__new__",
        "function.__new__",
        "sys.addaudithook",
    }
)
# ctypes' events are refused when the candidate's frame calls into ctypes (its own wrappers may come between).
# Refused when the candidate's own frame asks, or one of the helpers that hand frames back (inspect.currentframe,
# traceback.walk_stack, ...) right above it: the standard library calls them for itself too (warnings.warn, logging,
# formatting a traceback or a stack), handing no frame back.
_DIRECT = frozenset({"sys._getframe", "sys._getframemodulename", "object.__getattr__", "marshal.loads", "marshal.load"})
_CHANGES = frozenset({"compile", "object.__setattr__", "object.__delattr__"})  # judged by what they change
_FRAME_HELPERS = frozenset(
    {
        ("inspect.py", "currentframe"),
        ("inspect.py", "stack"),
        ("inspect.py", "trace"),
        ("inspect.py", "getouterframes"),
        ("inspect.py", "getinnerframes"),
        ("traceback.py", "walk_stack"),
        ("traceback.py", "walk_tb"),
    }
)
_FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
_FUNCTION_ATTRIBUTES = frozenset({"__code__", "__defaults__", "__kwdefaults__"})
_DEFAULTS = frozenset({"__defaults__", "__kwdefaults__"})
_IMPORTING_BYTECODE = ("<frozen importlib._bootstrap_external>", "_compile_bytecode")
_RUNNER_MODULES = frozenset({"_pytest", "pluggy", "py", "_py", "benchsmith_directcov", "ctypes", "_ctypes"})
# What tests assert and raise with (red team round 6: pytest.raises made to suppress, in pytest's namespace, in the
# module that defines its context manager, or as that class's __exit__). Setting a module's or a class's attribute
# raises no audit event (only __doc__, __name__, __module__, __qualname__ and __bases__ of a class do), so these
# packages' modules and classes, as they are when this plugin loads, are checked once at collection, before and after
# each test's call, and at the end of the session: a tripwire.
_ASSERTING = frozenset({"pytest", "_pytest", "pluggy", "unittest"})


def _namespaces() -> list[tuple[str, object, dict]]:
    """Each loaded module of :data:`_ASSERTING` packages and each class defined in one: its name, its namespace and
    the functions, classes, modules and descriptors in it now, by identity."""
    kinds = (types.FunctionType, types.BuiltinFunctionType, type, types.ModuleType, staticmethod, classmethod, property)
    found = []
    for name, module in list(sys.modules.items()):
        if not isinstance(module, types.ModuleType) or name.split(".", 1)[0] not in _ASSERTING:
            continue
        namespaces = [(name, vars(module))]
        namespaces += [
            (f"{name}.{value.__qualname__}", value.__dict__)
            for value in list(vars(module).values())
            if isinstance(value, type) and value.__dict__.get("__module__") == name
        ]
        for label, namespace in namespaces:
            found.append((label, namespace, {k: v for k, v in namespace.items() if isinstance(v, kinds)}))
    return found


def _frozen(namespaces: list[tuple[str, object, dict]]) -> tuple[tuple, tuple, tuple, tuple, tuple]:
    """The entries of *namespaces* as four parallel tuples (label, namespace, key, value) and their :func:`_grouped`
    form: immutable, so that nothing running later can edit what is compared (a list or a dict in this module's reach
    could be emptied), and flat, so that comparing them is one pass in C (:func:`_replaced`), not a loop in Python per
    namespace."""
    labels, spaces, keys, values = [], [], [], []
    for label, namespace, held in namespaces:
        for key, value in held.items():
            labels.append(label)
            spaces.append(namespace)
            keys.append(key)
            values.append(value)
    return _refrozen(tuple(labels), tuple(spaces), tuple(keys), tuple(values))


def _refrozen(labels: tuple, spaces: tuple, keys: tuple, values: tuple) -> tuple[tuple, tuple, tuple, tuple, tuple]:
    """*labels*, *spaces*, *keys* and *values* with, fifth, what :func:`_replaced` compares: for each namespace (each
    run of entries of one), an ``operator.itemgetter`` of its keys, and all their values in that order. One getter
    reads a namespace's entries in one C call; a getter of one key is given it twice (it would return the value bare,
    not in a tuple)."""
    getters, holders, expected = [], [], []
    start = 0
    while start < len(spaces):
        end = start + 1
        while end < len(spaces) and spaces[end] is spaces[start]:
            end += 1
        names, held = keys[start:end], values[start:end]
        if len(names) == 1:
            names, held = names * 2, held * 2
        getters.append(operator.itemgetter(*names))
        holders.append(spaces[start])
        expected += held
        start = end
    return labels, spaces, keys, values, (tuple(getters), tuple(holders), tuple(expected))


def _replaced(
    frozen: tuple[tuple, tuple, tuple, tuple, tuple],
    _any=any,
    _map=map,
    _zip=zip,
    _is_not=operator.is_not,
    _chain=itertools.chain.from_iterable,
    _call=getattr(operator, "call", None) or (lambda getter, namespace: getter(namespace)),  # operator.call: 3.11 on
) -> str:
    """Which entry of *frozen* its namespace no longer holds, by identity ("" when none): ``module.name`` or
    ``module.Class.name``. Everything it calls is bound here, when the plugin loads: replacing a builtin or an
    ``operator`` function later changes nothing. It runs twice for every test (about 3,700 entries): each namespace's
    entries are read by one getter (:func:`_refrozen`), a fifth less time than a lookup call per entry."""
    labels, spaces, keys, values, (getters, holders, expected) = frozen
    try:
        if not _any(_map(_is_not, _chain(_map(_call, getters, holders)), expected)):
            return ""
    except Exception:  # a name deleted (KeyError), or whatever a key planted in the namespace raised
        pass
    for label, space, key, value in _zip(labels, spaces, keys, values):  # which one, for the message
        try:
            if space.get(key) is not value:
                return f"{label}.{key}"
        except Exception:
            return f"{label}.{key}"
    return "pytest's namespaces (one changed while it was read)"


# (file name, box): the audit hook appends to box whether the file is the candidate's
_OWN_QUERY = "benchsmith_directcov.own"
# (file name, box): the audit hook appends to box the file's real path, as it was when first asked
_REAL_QUERY = "benchsmith_directcov.realpath"


def _install_guard(candidate: str) -> Callable[[str], bool]:
    """Install the audit hook and the import guard; return the function that tells whether a file name is the
    candidate's. The set of its file names lives only in the hook's closure, which nothing can reach (audit hooks
    cannot be listed): the plugin's module is in sys.modules and its functions' globals and closures are readable,
    so a set kept there could be emptied, and the hook would then refuse nothing (red team round 7)."""
    import _thread

    getframe, get_ident = sys._getframe, _thread.get_ident
    own = {candidate, os.path.realpath(candidate)}  # file names whose code counts as the candidate's
    # Each file name's real path, resolved once: the checks before each test ask for the same few names (its code's,
    # its module's, its decorators'), and resolving one took a stat per folder of it. Kept here for the reason the
    # set above is: nothing outside the hook can reach it to plant an answer.
    resolved: dict[str, str] = {}
    busy: set[int] = set()  # threads inside the hook: its own sys._getframe must not judge itself
    in_thread = _thread_refusal(threading.main_thread().ident, _install_guard.__code__.co_filename)

    def candidate_frames(frame, depth):
        while frame is not None and depth:
            if frame.f_code.co_filename in own:
                return True
            frame, depth = frame.f_back, depth - 1
        return False

    def refuse(event: str):
        raise RuntimeError(f"benchsmith: {event} is refused to the candidate's code")

    def hook(
        event,
        args,
        _ANYWHERE=_ANYWHERE,
        _DIRECT=_DIRECT,
        _CHANGES=_CHANGES,
        _IMPORTING_BYTECODE=_IMPORTING_BYTECODE,
        _FRAME_ATTRIBUTES=_FRAME_ATTRIBUTES,
        _FRAME_HELPERS=_FRAME_HELPERS,
        _FUNCTION_ATTRIBUTES=_FUNCTION_ATTRIBUTES,
        _DEFAULTS=_DEFAULTS,
        _is_file_with=_is_file_with,
        _code_file=_code_file,
        basename=os.path.basename,
        sep=os.sep,
        RuntimeError=RuntimeError,
        _OWN_QUERY=_OWN_QUERY,
        _REAL_QUERY=_REAL_QUERY,
        _str=str,
        _list=list,
        _realpath=os.path.realpath,
    ):
        if event == _OWN_QUERY:
            if len(args) == 2 and isinstance(args[1], list):
                args[1].append(args[0] in own)
            return
        if event == _REAL_QUERY:
            ident = get_ident()
            if len(args) != 2 or type(args[0]) is not _str or type(args[1]) is not _list or ident in busy:
                return
            busy.add(ident)
            try:
                real = resolved.get(args[0]) if args[0].startswith(sep) else None
                if real is None:
                    real = _realpath(args[0])
                    if args[0].startswith(sep) and not candidate_frames(getframe(1), -1):
                        resolved[args[0]] = real  # what the candidate's code asks is answered, never kept
                args[1].append(real)
            finally:
                busy.discard(ident)
            return
        if (
            event not in _ANYWHERE
            and event not in _DIRECT
            and event not in _CHANGES
            and not event.startswith("ctypes.")
        ):
            return
        ident = get_ident()
        if ident in busy:
            return
        busy.add(ident)
        try:
            try:
                caller = getframe(1)  # the frame whose call raised the event (C functions have none)
            except ValueError:  # a thread whose only code is a C function's (_thread.start_new_thread(gc.get_objects))
                caller = None
            if (
                event == "code.__new__"
                and caller is not None
                and _IMPORTING_BYTECODE == (caller.f_code.co_filename, caller.f_code.co_name)
            ):
                return  # Python 3.8 unmarshalling a cached module; later ones raise marshal.loads there, allowed too
            if event == "compile":
                source, filename = args
                if (
                    filename not in own
                    and (candidate_frames(caller, -1) or in_thread(event, args, caller))
                    and not _is_file_with(filename, source)
                ):
                    own.add(filename)  # code it makes under another name stays its own
                return
            if event == "object.__getattr__" and args[1] not in _FRAME_ATTRIBUTES:
                return
            if event.startswith("ctypes."):  # from its own code through ctypes' wrappers; a library's use is its own
                while caller is not None and f"{sep}ctypes{sep}" in caller.f_code.co_filename:
                    caller = caller.f_back
                if caller is not None and caller.f_code.co_filename in own:
                    refuse(event)
                return
            if event in _DIRECT:
                helper = (basename(caller.f_code.co_filename), caller.f_code.co_name) if caller else ("", "")
                if caller is not None and (
                    caller.f_code.co_filename in own or (helper in _FRAME_HELPERS and candidate_frames(caller, 4))
                ):
                    refuse(event)
                return
            if event in _CHANGES and args[1] == "__bases__":
                # A class's bases decide which method an inherited test runs. The candidate's own code may not rewrite
                # them; a library may, for a class it makes while the candidate imports it (typing.NamedTuple).
                if caller is not None and caller.f_code.co_filename in own:
                    refuse(event)
                return
            if event in _CHANGES and args[1] not in _FUNCTION_ATTRIBUTES:
                return
            if event in _CHANGES and args[1] in _DEFAULTS and _code_file(args[0]) in own:
                return  # its own function's defaults (a NamedTuple's, made while it imports): values it could write
            if candidate_frames(caller, -1) or in_thread(event, args, caller):
                refuse(event)
        finally:
            busy.discard(ident)

    # The plugin asks the hook rather than holding the set itself: a set in a module global or a default argument is
    # the candidate's to empty, and the guard with it.
    def is_own(path: str, _audit=sys.audit, _query=_OWN_QUERY) -> bool:
        answer: list[bool] = []
        _audit(_query, path, answer)
        return answer[0] if answer else True  # no answer: the hook is not ours, and nothing counts as honest

    def guarded_import(
        name,
        globals=None,
        locals=None,
        fromlist=(),
        level=0,
        *,
        _real=builtins.__import__,
        _own=is_own,
        _RUNNER_MODULES=_RUNNER_MODULES,
    ):
        importer = (globals or {}).get("__file__") if isinstance(globals, dict) else None
        if level == 0 and name.split(".")[0] in _RUNNER_MODULES and isinstance(importer, str) and _own(importer):
            raise ImportError(f"benchsmith: importing {name} is refused to the candidate's module")
        return _real(name, globals, locals, fromlist, level)

    sys.addaudithook(hook)
    builtins.__import__ = guarded_import
    return is_own


def _thread_refusal(main: int, plugin: str) -> Callable[[str, tuple, object], bool]:
    """What the audit hook refuses whatever the stack holds (for ``compile``: what counts as the candidate's): in
    every thread but the main one, the events of :data:`_ANYWHERE`, a function's code rewritten, and the defaults of
    a function of a file rewritten; anywhere, this plugin's functions' code or defaults rewritten by another's code.

    The hook judges an event by the candidate's frames on the stack, and a thread has a stack of its own: a builtin a
    standard-library thread calls for the candidate (``ThreadPoolExecutor().submit(gc.get_objects)``,
    ``Thread(target=setattr, args=(f, "__defaults__", ...))``) has none of its frames above it, and Python raises no
    audit event when a thread starts (red team round 7). Marking the threads the candidate starts would leave a pool
    the tests started earlier, which runs whatever is submitted to it, and a thread started through a fresh copy of
    ``_thread``; so no thread but the main one, where pytest runs every test, is trusted with them. Honest threads keep
    what they do: the tracer or profiler ``threading`` installs as one starts (coverage's, this plugin's), and this
    plugin's own profiler removing itself; imports (a file compiled from its own text); the defaults of a function
    made from generated source (``collections.namedtuple``, ``dataclasses``, whose code files are ``<...>``). Code
    compiled in such a thread from anything but a file's own text counts as the candidate's, as when its own frame
    compiles it: a code object claiming a test file's name, made in a pool, would pass every check of the test."""
    bootstrap = threading.Thread._bootstrap_inner.__code__  # type: ignore[attr-defined]

    def refused(
        event,
        args,
        caller,
        _get_ident=threading.get_ident,
        _ANYWHERE=_ANYWHERE,
        _DEFAULTS=_DEFAULTS,
        _FUNCTION_ATTRIBUTES=_FUNCTION_ATTRIBUTES,
        _code_file=_code_file,
        _str=str,
    ) -> bool:
        written = event in ("object.__setattr__", "object.__delattr__") and args[1] in _FUNCTION_ATTRIBUTES
        caller_file = caller.f_code.co_filename if caller is not None else None
        if written and _code_file(args[0]) == plugin and caller_file != plugin:
            return True  # the plugin's checks bind what they use as defaults: only the plugin writes them (configure)
        if _get_ident() == main:
            return False
        if event in ("sys.settrace", "sys.setprofile"):
            return caller is None or (caller.f_code is not bootstrap and caller_file != plugin)
        if written and args[1] in _DEFAULTS:
            code_file = _code_file(args[0])
            return not (isinstance(code_file, _str) and code_file.startswith("<"))
        return written or event in _ANYWHERE or event == "compile"

    return refused


def _no_candidate(filename) -> bool:
    return False


def _code_file(function):
    """The file name of *function*'s code (None when it has none); read inside the hook, which ignores its own
    events."""
    code = getattr(function, "__code__", None)
    return getattr(code, "co_filename", None)


def _is_file_with(filename, source) -> bool:
    """Whether *filename* is a file holding *source* (importlib compiling a module: its code is that file's)."""
    try:
        with open(filename, "rb") as handle:
            data = handle.read()
    except (OSError, TypeError, ValueError):
        return False
    if isinstance(source, str):
        source = source.encode("utf-8", errors="surrogateescape")
    return isinstance(source, (bytes, bytearray)) and bytes(source) == data


# A task whose directives leave hundreds of threads alive (litestar's test clients) runs out of a run's address space at
# glibc's 8 MiB of stack per thread; the harness gives its runs smaller thread stacks
# (benchsmith.runners.python.class_runner).
if os.environ.get("BENCHSMITH_THREAD_STACK", "").isdigit():
    threading.stack_size(int(os.environ["BENCHSMITH_THREAD_STACK"]))


class _NoCompiledModules:
    """A meta path finder that refuses compiled modules under a folder (``BENCHSMITH_PURE_PYTHON``, the tree's import
    root): the package's own ``try: from ._speedups import ... except ImportError`` then takes its pure-Python twin,
    as on a machine where the extension was never built. Not a guard: it selects the implementation under test."""

    def __init__(self, root: str):
        self.root = os.path.realpath(root) + os.sep

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if (
            spec is not None
            and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader)
            and os.path.realpath(spec.origin or "").startswith(self.root)
        ):
            raise ModuleNotFoundError(
                f"No module named {name!r} (benchsmith: this run tests the pure-Python fallback)", name=name
            )
        return None


if os.environ.get("BENCHSMITH_PURE_PYTHON"):
    sys.meta_path.insert(0, _NoCompiledModules(os.environ["BENCHSMITH_PURE_PYTHON"]))

# whether a file name is the candidate's (its module, or code it compiled under another name)
_is_own = (
    _install_guard(os.environ["BENCHSMITH_CANDIDATE"]) if os.environ.get("BENCHSMITH_CANDIDATE") else _no_candidate
)


def _resolved(path, _audit=sys.audit, _query=_REAL_QUERY, _realpath=os.path.realpath, _str=str, _sep=os.sep):
    """*path*'s real path, as the audit hook first resolved it (a name the checks see before every test: its code's,
    its module's); resolved here each time where there is no hook, or for a name that is no plain absolute path (a
    relative one depends on the working folder, which a test may change)."""
    if type(path) is not _str or not path.startswith(_sep):
        return _realpath(path)
    answer: list[str] = []
    _audit(_query, path, answer)
    return answer[0] if answer else _realpath(path)


# The test files of a candidate's run, read before any project or candidate code runs: what each binds at module level
# and where each test is defined. A test module is refused (TAMPERED) when its namespace holds a name its source never
# binds (a planted PEP 562 __getattr__ runs after the body, before collection), and a test when what pytest collected
# under its name is not a plain function whose code was compiled from that file at that name and line (another test
# of the file, a functools.partial, a callable object); checked at collection and again right before the test runs.
_MODULE_NAMES = frozenset(
    {
        "__name__",
        "__doc__",
        "__package__",
        "__loader__",
        "__spec__",
        "__file__",
        "__cached__",
        "__builtins__",
        "__annotations__",
        # warnings.warn keeps its registry in the globals of the module a warning is attributed to: a package
        # warning with a stacklevel that names the test's frame (pg8000's DB-API extensions) writes it there
        "__warningregistry__",
    }
)
_LOOKUP_HOOKS = frozenset({"__getattr__", "__dir__"})  # PEP 562: a module's attribute lookups go through them


class _TestFile:
    def __init__(self, path: str, tree: ast.Module) -> None:
        self.path = os.path.realpath(path)
        self.lines: dict[str, int] = {}  # qualified name -> the line its code starts at (its first decorator's)
        self.classes: dict[str, tuple | None] = {}  # qualified name -> its bases' dotted names (None: computed)
        self.decorators: dict[str, tuple[str, ...]] = {}  # qualified name -> the names its decorators start with
        self.members: dict[str, frozenset[str]] = {}  # a class's qualified name -> the names its body binds
        # qualified name -> what its mock.patch decorators name (:func:`_patch_spec`); None: patched by assignment
        self.patches: dict[str, tuple | None] = {}
        # every name bound anywhere in it; a star import or globals() writes: only the lookup hooks are judged
        # and every attribute name it assigns or deletes on anything (``cls.server = ...`` in a setUpClass)
        # and how often each name is bound where imports and module-level functions count (:func:`_scan`)
        self.bound, self.dynamic, self.counts, self.attributes = _scan(tree)
        self._define(tree.body, "")
        self.imports = _import_specs(tree, self.counts)  # (name, module, attribute or None): what its imports bind
        self.imported = _imported(self.imports)  # name -> what a module-level import bound it to, where loaded by now
        self._functions()

    def _functions(self) -> None:
        # module-level functions bound once and undecorated: their names must hold them (a helper every test calls)
        self.functions = {
            name: line
            for name, line in self.lines.items()
            if "." not in name and self.counts.get(name) == 1 and not self.decorators.get(name)
        }

    def joined(self, tail: ast.Module) -> None:
        """Add *tail*, the rest of a file whose first part this is (a sentinel carrier: a test file's text, then the
        run's sentinels), parsed at its own lines: this becomes what parsing the whole file gives. Every fact is
        made statement by statement (names bound and counted, definitions in order, later ones in their place), but
        for the imports and functions that count on a name being bound once, which are judged again."""
        bound, dynamic, counts, attributes = _scan(tail)
        self.bound, self.dynamic, self.attributes = (
            self.bound | bound,
            self.dynamic or dynamic,
            self.attributes | attributes,
        )
        self.counts = {**self.counts, **{name: self.counts.get(name, 0) + n for name, n in counts.items()}}
        self._define(tail.body, "")
        # an import of the first part still counts where the tail binds its name nowhere; the tail's own after it
        kept = tuple(spec for spec in self.imports if self.counts.get(spec[0]) == 1)
        self.imports = kept + _import_specs(tail, self.counts)
        self.imported = _imported(self.imports)
        self._functions()

    def _define(self, body: list, prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                self.lines[prefix + node.name] = first
                self.decorators[prefix + node.name] = tuple(filter(None, map(_root_name, node.decorator_list)))
                self.patches[prefix + node.name] = tuple(filter(None, map(_patch_spec, node.decorator_list)))
            elif isinstance(node, ast.ClassDef):
                self.classes[prefix + node.name] = _base_names(node)
                self.decorators[prefix + node.name] = tuple(filter(None, map(_root_name, node.decorator_list)))
                self.patches[prefix + node.name] = tuple(filter(None, map(_patch_spec, node.decorator_list)))
                self.members[prefix + node.name] = _class_body_names(node)
                self._define(node.body, f"{prefix}{node.name}.")
                for statement in node.body:  # ``test_x = unittest.skip(...)(test_x)``: a decorator written late
                    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                        for target in ast.walk(statement):
                            key = f"{prefix}{node.name}.{getattr(target, 'id', '')}"
                            if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store) and key in self.lines:
                                self.decorators[key] = (*self.decorators.get(key, ()), "=")
                                if any(map(_patch_spec, ast.walk(statement))):
                                    self.patches[key] = None  # ``test_x = mock.patch(...)(test_x)``: not counted

    def rebound(self, namespace: dict) -> list[str]:
        """Names its imports bound that now hold something else."""
        return sorted(name for name, value in self.imported.items() if namespace.get(name, value) is not value)

    def replaced(self, namespace: dict, _realpath=_resolved, _function=types.FunctionType) -> list[str]:
        """Module-level functions of the file (bound once, undecorated) whose names now hold something else."""
        replaced, paths = [], {}  # paths: each code file's real path, found once (every test of a file is one)
        for name, line in self.functions.items():
            value = namespace.get(name)
            code = getattr(value, "__code__", None) if type(value) is _function else None
            if code is not None and code.co_filename not in paths:
                paths[code.co_filename] = _realpath(code.co_filename)
            if code is None or (paths[code.co_filename], code.co_name, code.co_firstlineno) != (
                self.path,
                name,
                line,
            ):
                replaced.append(name)
        return sorted(replaced)

    def intruders(self, namespace: dict, _allowed=_MODULE_NAMES, _hooks=_LOOKUP_HOOKS) -> list[str]:
        names = set(namespace) - self.bound - _allowed
        names = {n for n in names if not n.startswith("@")}  # pytest's assertion rewriting binds @py_builtins
        return sorted(names & _hooks if self.dynamic else names)


def _class_body_names(node: ast.ClassDef) -> frozenset[str]:
    """The names a class statement's body binds (its methods, nested classes, assignments, imports), not looking
    into the functions it defines, whose names are their locals."""
    names: set[str] = set()
    pending: list[ast.AST] = list(node.body)
    while pending:
        sub = pending.pop()
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
            pending += [*sub.decorator_list, *getattr(sub, "bases", ())]
            continue
        if isinstance(sub, ast.Lambda):
            continue
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.add(sub.id)
        elif isinstance(sub, ast.alias):
            names.add((sub.asname or sub.name).split(".")[0])
        pending += list(ast.iter_child_nodes(sub))
    private = {f"_{node.name.lstrip('_')}{n}" for n in names if n.startswith("__") and not n.endswith("__")}
    return frozenset(names | private)  # a private name is held under its mangled one


_NEW = "new"  # a patch decorator that writes no replacement: mock makes one (mock.DEFAULT stands for it)


def _patch_spec(node: ast.AST) -> tuple | None:
    """What a ``mock.patch`` decorator names (None when *node* is no such call): ``(target, attributes, new)``, where
    the target is ``patch``'s dotted string less its last part, or the dotted name ``patch.object`` and
    ``patch.multiple`` are given as a tuple of its parts, the attributes are the names patched (a frozenset), and new
    is ``(value,)`` for a literal replacement, :data:`_NEW` for none, None for one the text does not give. A target or
    an attribute the text does not write literally is None: only the count of such decorators is checked."""
    if not isinstance(node, ast.Call):
        return None
    parts: list[str] = []
    func = node.func
    while isinstance(func, ast.Attribute):
        parts.insert(0, func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.insert(0, func.id)
    kind = parts[-1] if parts[-1:] == ["patch"] else (parts[-1] if parts[-2:-1] == ["patch"] else "")
    if kind not in ("patch", "object", "multiple"):
        return None  # patch.dict's wrapper applies no patchers, and is not counted with them
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    args = list(node.args)
    names = ("target", "new") if kind == "patch" else ("target", "attribute", "new")
    given = dict(zip(names, args))
    given.update({k: v for k, v in keywords.items() if k in names})
    target, attributes = None, None
    new = given.get("new")
    literal = (new.value,) if isinstance(new, ast.Constant) else (_NEW if new is None else None)
    written = given.get("target")
    if kind == "patch":
        if isinstance(written, ast.Constant) and isinstance(written.value, str) and "." in written.value:
            target, attribute = written.value.rsplit(".", 1)
            attributes = frozenset({attribute})
    else:
        if isinstance(written, ast.Constant) and isinstance(written.value, str):
            target = written.value
        else:
            dotted: list[str] = []
            while isinstance(written, ast.Attribute):
                dotted.insert(0, written.attr)
                written = written.value
            target = (written.id, *dotted) if isinstance(written, ast.Name) else None
        if kind == "object":
            attribute = given.get("attribute")
            if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
                attributes = frozenset({attribute.value})
        else:  # patch.multiple(target, name=value, ...): one patcher, the others its additional_patchers
            attributes = frozenset(k for k in keywords if k not in ("target", "spec", "create", "spec_set", "autospec"))
            attributes = attributes if all(k.arg for k in node.keywords) else None
            literal = None
    return (target, attributes, literal)


def _root_name(node: ast.expr) -> str | None:
    """The name an expression starts from (``mock.patch.object(...)``: ``mock``)."""
    while isinstance(node, (ast.Call, ast.Attribute, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _base_names(node: ast.ClassDef) -> tuple[tuple[str, ...], ...] | None:
    """The dotted names a class statement's bases are written as (``unittest.TestCase``: ``("unittest",
    "TestCase")``), ``object`` for none; None where a base is computed (a call, a subscript), which no name gives."""
    names = []
    for base in node.bases:
        parts = []
        while isinstance(base, ast.Attribute):
            parts.insert(0, base.attr)
            base = base.value
        if not isinstance(base, ast.Name):
            return None
        names.append((base.id, *parts))
    return tuple(names) or (("object",),)


def _named(namespace: dict, dotted: tuple[str, ...]):
    """What *dotted* names in a module whose globals are *namespace* (a builtin when the module binds no such name)."""
    value = namespace.get(dotted[0], getattr(builtins, dotted[0], None))
    for part in dotted[1:]:
        value = getattr(value, part, None)
    return value


_DYNAMIC_NAMES = frozenset({"globals", "vars", "setattr", "__import__"})
# match statements' captures (Python 3.10 on: before it, ast has no such nodes)
_MATCH_NAMED = tuple(getattr(ast, name) for name in ("MatchAs", "MatchStar") if hasattr(ast, name))
_MATCH_MAPPING = tuple(getattr(ast, name) for name in ("MatchMapping",) if hasattr(ast, name))


def _scan(tree: ast.Module) -> tuple[set[str], bool, dict[str, int], frozenset[str]]:
    """One pass over every node of *tree* (it runs in every candidate's run, before the first test: three passes of
    ``ast.walk`` took longer than parsing the files): the names bound anywhere in it (assigned or deleted, defined,
    imported, caught, captured by a match, declared global); whether it may write its names otherwise (a star import,
    ``globals``, ``vars``, ``setattr``, ``__import__``); and how often each name is bound where :func:`_imported`
    counts (definitions, assignments and deletions, imports, global declarations); and the attribute names it assigns
    or deletes."""
    bound: set[str] = set()
    attributes: set[str] = set()
    counts: dict[str, int] = {}
    dynamic = False
    node_type, name_type, alias_type, stored = ast.AST, ast.Name, ast.alias, (ast.Store, ast.Del)
    defining = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    pending: list = list(tree.body)
    while pending:
        node = pending.pop()
        kind = type(node)
        if kind is name_type:  # most nodes, and none below them matters
            if node.id in _DYNAMIC_NAMES:
                dynamic = True
            if isinstance(node.ctx, stored):
                bound.add(node.id)
                counts[node.id] = counts.get(node.id, 0) + 1
            continue
        if kind is alias_type:
            name = (node.asname or node.name).split(".")[0]
            bound.add(name)
            counts[name] = counts.get(name, 0) + 1
            continue
        if isinstance(node, defining):
            bound.add(node.name)
            counts[node.name] = counts.get(node.name, 0) + 1
        elif isinstance(node, ast.ExceptHandler):
            if node.name:
                bound.add(node.name)
        elif isinstance(node, ast.Global):
            bound.update(node.names)
            for name in node.names:
                counts[name] = counts.get(name, 0) + 1
        elif isinstance(node, ast.ImportFrom):
            dynamic = dynamic or any(alias.name == "*" for alias in node.names)
        elif isinstance(node, _MATCH_NAMED):
            if node.name:
                bound.add(node.name)
        elif isinstance(node, _MATCH_MAPPING):
            if node.rest:
                bound.add(node.rest)
        elif kind is ast.Attribute and isinstance(node.ctx, stored):
            attributes.add(node.attr)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                pending += [child for child in value if isinstance(child, node_type)]
            elif isinstance(value, node_type):
                pending.append(value)
    return bound, dynamic, counts, frozenset(attributes)


def _import_specs(tree: ast.Module, counts: dict[str, int]) -> tuple[tuple[str, str, str | None], ...]:
    """The module-level imports of *tree* as ``(name bound, module, attribute)`` (``import a.b as c``: ``("c", "a.b",
    None)``; ``from a import b``: ``("b", "a", "b")``), relative imports left out; a name bound anywhere else in the
    file (*counts*: how often each name is bound, :func:`_scan`) is left out too."""
    specs = []
    for node in tree.body:
        for alias in node.names if isinstance(node, (ast.Import, ast.ImportFrom)) else ():
            name = (alias.asname or alias.name).split(".")[0]
            if counts.get(name) != 1 or alias.name == "*":
                continue
            if isinstance(node, ast.Import):
                specs.append((name, alias.name if alias.asname else name, None))
            elif node.level == 0 and node.module:
                specs.append((name, node.module, alias.name))
    return tuple(specs)


def _imported(specs: tuple[tuple[str, str, str | None], ...]) -> dict:
    """What the imports *specs* (:func:`_import_specs`) bind, resolved in the modules loaded now (the standard
    library's and pytest's, before any project or candidate code)."""
    bound = {}
    for name, module, attribute in specs:
        if attribute is None:
            value = sys.modules.get(module)
        elif module in sys.modules:
            value = vars(sys.modules[module]).get(attribute, sys.modules.get(f"{module}.{attribute}"))
        else:
            value = None
        if value is not None:
            bound[name] = value
    return bound


# What the plugin reads off a test file (a _TestFile but where it is and what its imports bound now) depends only on the
# file's bytes, this plugin's and the interpreter's: the harness writes it once per task, as root, into a folder of the
# interpreter's that every run reads only (BENCHSMITH_TEST_FACTS, benchsmith.runners.python.class_runner), each file's
# under :func:`_facts_name` of its bytes. Parsing the run's test files took about 50 ms of every candidate's run.
_UNSHARED = frozenset({"path", "imported"})


def _own_digest(_path=globals().get("__file__")) -> bytes:
    try:
        with open(_path, "rb") as handle:
            return hashlib.sha256(handle.read()).digest()
    except (OSError, TypeError):
        return b""  # no file of its own (exec'd from a string): no facts are read or written


_DIGEST = _own_digest()  # of this plugin's file, as the harness reads it


def _facts_name(data: bytes, _digest=_DIGEST, _sha256=hashlib.sha256) -> str:
    """The file name of the facts of a test file holding *data*, for this plugin (the harness names it alike)."""
    return _sha256(_digest + data).hexdigest() + ".marshal"


def _read_test_file(
    path: str,
    data: bytes,
    _facts=os.environ.get("BENCHSMITH_TEST_FACTS") if _DIGEST else None,
    _name=_facts_name,
    _join=os.path.join,
    _loads=marshal.loads,
    _open=open,
    _dict=dict,
    _realpath=os.path.realpath,
    _imported=_imported,
    _parse=ast.parse,
    _file=_TestFile,
    head: int = 0,
):
    """The test file at *path*, holding *data*: from its facts, where the harness wrote them, else parsed here.
    With *head*, the length of a test file's text that *data* begins with (a sentinel carrier, :func:`_test_files`),
    the facts of that text and the rest parsed (:meth:`_TestFile.joined`): parsing a carrier whole took most of the
    plugin's start. What it calls is bound here, when the plugin loads: inherited tests' files are read after the
    candidate's code ran."""

    def facts_of(text):
        try:
            with _open(_join(_facts, _name(text)), "rb") as handle:
                facts = _loads(handle.read())
        except (OSError, ValueError, EOFError, TypeError):
            return None
        if type(facts) is not _dict:
            return None
        entry = _file.__new__(_file)
        vars(entry).update(facts)
        entry.path = _realpath(path)
        entry.imported = _imported(entry.imports)
        return entry

    if _facts:
        entry = facts_of(data)
        if entry is not None:
            return entry
        first = data[:head]
        # at a line's end (the harness ends a text without a newline before the rest), and no byte that a coding
        # declaration of the first part could read otherwise
        at_line_end = first.endswith(b"\n") or data[head : head + 1] == b"\n"
        if 0 < head < len(data) and at_line_end and data[head:].isascii():
            entry = facts_of(first)
            if entry is not None:
                # the rest at its own lines: as many empty ones before it as the first part ends
                entry.joined(_parse(b"\n" * first.count(b"\n") + data[head:]))
                return entry
    return _file(path, _parse(data))


def _write_facts(folder: str, paths: list[str]) -> None:
    """Write the facts of each test file of *paths* into *folder* (run by the harness, as root, on the repository's
    own files: ``python benchsmith_directcov.py FOLDER FILE...``), but for a file whose facts are there already (by
    :func:`_facts_name`, the one place that names them). A file that does not parse, or whose facts marshal cannot
    hold, gets none: runs parse it themselves."""
    for path in paths:
        try:
            with open(path, "rb") as handle:
                data = handle.read()
            if os.path.isfile(os.path.join(folder, _facts_name(data))):
                continue
            entry = _TestFile(path, ast.parse(data))
            blob = marshal.dumps({key: value for key, value in vars(entry).items() if key not in _UNSHARED})
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        target = os.path.join(folder, _facts_name(data))
        staging = f"{target}.{os.getpid()}"
        with open(staging, "wb") as handle:
            handle.write(blob)
        os.chmod(staging, 0o644)
        os.replace(staging, target)


def _carriers() -> dict[str, int]:
    """The run's sentinel carriers (BENCHSMITH_CARRIERS, the harness's): each one's real path, and the length of the
    test file's text it begins with (:func:`_read_test_file`)."""
    try:
        heads = json.loads(os.environ.get("BENCHSMITH_CARRIERS") or "{}")
    except ValueError:
        return {}
    if type(heads) is not dict:
        return {}
    return {os.path.realpath(path): head for path, head in heads.items() if type(path) is str and type(head) is int}


# read-only, read before any project or candidate code: a carrier's class twins are inherited tests, whose file is
# read again as their class's source (_unchanged_source)
_CARRIERS = types.MappingProxyType(_carriers())


def _test_files(_heads=_CARRIERS) -> dict[str, _TestFile]:
    path = os.environ.get("BENCHSMITH_SELECT")
    if not path or not os.environ.get("BENCHSMITH_CANDIDATE"):
        return {}
    files = {}
    with open(path, encoding="utf-8") as handle:
        for relative in {line.split("::", 1)[0] for line in handle.read().splitlines() if "::" in line}:
            try:
                with open(relative, "rb") as source:
                    entry = _read_test_file(relative, source.read(), head=_heads.get(os.path.realpath(relative), 0))
            except (OSError, SyntaxError, ValueError):
                continue
            files[entry.path] = entry
    return files


# A test method a test class inherits (unittest suites share their tests through base classes, in the same file or in
# another: transitions' TestAsync runs test_core.py's TestCore tests) is defined where its class is, in a file read only
# when a test needs it. Such a file must hold the repository's own text: not the candidate's, and unchanged since before
# this process started (its inode's change time, which no write, rename or link leaves as it was, is older than a file
# made when this plugin loaded; checked on the file the function's code came from).
_SOURCES: dict[str, _TestFile | None] = {}


def _loaded_at() -> int:
    import tempfile

    try:
        with tempfile.TemporaryFile() as probe:
            return os.fstat(probe.fileno()).st_ctime_ns
    except OSError:
        return 0  # nowhere to write: no file counts as older, and an inherited test is refused


def _unchanged(path: str, _stat=os.stat, _own=_is_own, _loaded_at=_loaded_at()) -> bool:
    """Whether *path* is not the candidate's and no one changed it since the plugin loaded."""
    try:
        return not _own(path) and _stat(path).st_ctime_ns < _loaded_at
    except (OSError, ValueError):
        return False


def _unchanged_source(
    path: str, _sources=_SOURCES, _unchanged=_unchanged, _read=_read_test_file, _heads=_CARRIERS
) -> _TestFile | None:
    """*path* read as a test file, if it is :func:`_unchanged`."""
    if path in _sources:
        return _sources[path]
    found = None
    try:
        if _unchanged(path):
            with open(path, "rb") as handle:
                found = _read(path, handle.read(), head=_heads.get(path, 0))
    except (OSError, SyntaxError, ValueError):
        found = None
    _sources[path] = found
    return found


def _class_identity(cls, _realpath=_resolved, _source=_unchanged_source, _modules=sys.modules, _named=_named):
    """Why *cls* is not the class a file of the repository's own defines at its name with the bases its class
    statement names ("" when it is), with its module, that file's real path and what the file holds."""
    module = _modules.get(getattr(cls, "__module__", None))
    path = _realpath(getattr(module, "__file__", None) or "")
    source = _source(path)
    if source is None:
        return f"{cls.__qualname__} is not from a file of the repository's own", module, path, None
    holder = module
    for part in cls.__qualname__.split("."):
        holder = getattr(holder, part, None)
    if holder is not cls or cls.__qualname__ not in source.classes:
        return f"{cls.__qualname__} is not the class {path} defines", module, path, None
    bases = source.classes[cls.__qualname__]
    if bases is not None and (
        len(bases) != len(cls.__bases__)
        or any(_named(vars(module), dotted) is not base for dotted, base in zip(bases, cls.__bases__))
    ):
        return f"{cls.__qualname__}'s bases are not those {path} names", module, path, None
    return "", module, path, source


def _inherited_definition(
    item, held, function, name, checked: dict, _realpath=_resolved, _identity=_class_identity, _id=id
):
    """Where *function* (*held* for *name* in a class of the MRO of *item*'s class, or wrapped in what is held there)
    is defined by a class of the repository:
    ``("", module namespace, file, qualified name)``, else the reason first. Every class from the test's own down to
    the one that holds the method must be what its module binds at its name, in a file of the repository's own whose
    class statement there names the bases it has now (:func:`_class_identity`, once per class in a pass of the checks,
    *checked*); the function must be compiled from that file, at that name and line, with that module's globals."""
    mro = item.cls.__mro__
    owner = next((cls for cls in mro if name in vars(cls)), None)
    if owner is None or vars(owner)[name] is not held:
        return "its class does not hold it", None, None, ""
    for cls in mro[: mro.index(owner) + 1]:
        key = ("identity", _id(cls))
        if key not in checked:
            checked[key] = _identity(cls)
        refused, module, path, source = checked[key]
        if refused:
            return refused, None, None, ""
    # the loop ended on the owner: module, path and source are its
    qualified = f"{owner.__qualname__}.{name}"
    code = function.__code__
    if _realpath(code.co_filename) != path or code.co_name != name:
        return f"{qualified} is not compiled from {path}", None, None, ""
    if source.lines.get(qualified) != code.co_firstlineno:
        return f"{qualified} does not start where {path} defines it", None, None, ""
    if function.__globals__ is not vars(module):
        return f"{qualified} runs with other globals", None, None, ""
    return "", vars(module), source, qualified


# Decorators that wrap a test (unittest.mock.patch, hypothesis' given, freezegun's freeze_time) hand pytest a function
# of their own, which calls the test's through its closure; functools.wraps names the test's in ``__wrapped__``.
_WRAPPERS = 8


def _layers(function, _function=types.FunctionType) -> list:
    """*function* and the functions it wraps, outermost first (at most :data:`_WRAPPERS` peeled)."""
    layers = [function]
    while len(layers) <= _WRAPPERS:
        inner = getattr(layers[-1], "__wrapped__", None)
        inner = getattr(inner, "__func__", inner)
        if type(inner) is not _function:
            break
        layers.append(inner)
    return layers


def _encloses(outer, inner) -> bool:
    for cell in outer.__closure__ or ():
        try:
            if cell.cell_contents is inner:
                return True
        except ValueError:  # an empty cell
            continue
    return False


def _decorator_files(
    namespace: dict, names: tuple[str, ...], _realpath=_resolved, _modules=sys.modules, _kind=types.ModuleType
) -> set[str]:
    """The files of the modules the decorators named *names* come from, as *namespace* binds them."""
    found = set()
    for name in names:
        value = namespace.get(name)
        module = value if isinstance(value, _kind) else _modules.get(getattr(value, "__module__", None))
        path = getattr(module, "__file__", None)
        if isinstance(path, str):
            found.add(_realpath(path))
    return found


def _patchings_refusal(
    layers: list,
    specs: list,
    namespace: dict,
    _realpath=os.path.realpath,
    _unchanged=_unchanged,
    _function=types.FunctionType,
    _len=len,
    _type=type,
    _list=list,
    _named=_named,
    _modules=sys.modules,
) -> str:
    """Why the patchers mock.patch's wrappers among *layers* apply are not those *specs* name (:func:`_patch_spec`: the
    definition's and its classes' patch decorators, as its file writes them; *namespace*: the globals a
    ``patch.object`` target is named in), "" when they are. A wrapper applies every patcher in its ``patchings``, a list
    anyone can extend, and each patcher's target, attribute and replacement are plain attributes (red team round 7:
    ``unittest.TestCase.assertEqual`` patched to do nothing while one test runs): the count must be the decorators',
    and each patcher must patch what one of them names, through mock's own getter, with the literal value it writes
    when it writes one. A replacement the text computes cannot be checked from it."""
    patchers = []
    for layer in layers[:-1]:
        held = getattr(layer, "patchings", None)
        if held is not None:
            patchers += _list(held) if _type(held) is _list else [held]
    if not patchers and not specs:
        return ""
    if _len(patchers) != _len(specs):
        return f"its wrapper applies {_len(patchers)} patchers, where its file writes {_len(specs)} patch decorators"
    if any(spec is None for spec in specs):
        return ""  # patched by assignment in the class body: only counted
    pending = _list(specs)
    for patcher in patchers:
        kind = _type(patcher)
        module = _modules.get(getattr(kind, "__module__", None))
        if kind.__name__ != "_patch" or not _unchanged(_realpath(getattr(module, "__file__", None) or "")):
            return f"its wrapper applies a {kind.__name__}, not a patcher of mock's"
        for method in ("__enter__", "__exit__"):  # what the wrapper calls (a class can claim any module in its body)
            code = getattr(getattr(kind, method, None), "__code__", None)
            if code is None or not _unchanged(_realpath(code.co_filename)):
                return f"its patcher's {method} is not mock's"
        getter = getattr(patcher, "getter", None)
        behind = getattr(getter, "func", getter)  # partial(pkgutil.resolve_name, target), or lambda: target
        code = getattr(behind, "__code__", None)
        if code is not None and not _unchanged(_realpath(code.co_filename)):
            return f"its patcher of {getattr(patcher, 'attribute', '?')} gets its target with {code.co_filename}'s code"
        if getter is not behind:
            target = (getattr(getter, "args", None) or (None,))[0]
        else:
            cells = getattr(getter, "__closure__", None) or ()
            target = cells[0].cell_contents if _len(cells) == 1 and _type(getter) is _function else None
        extra = getattr(patcher, "additional_patchers", None)
        extra = [] if extra is None else extra
        if _type(extra) is not _list or any(_type(p) is not kind for p in extra):
            return "its patcher enters more than patchers of its own kind (additional_patchers)"
        attributes = frozenset([getattr(patcher, "attribute", None), *(getattr(p, "attribute", None) for p in extra)])
        # exact strings: a str subclass can compare equal to a name and patch another
        if any(_type(name) is not str for name in attributes) or (isinstance(target, str) and _type(target) is not str):
            return "its patcher names its target or attribute with something other than a string"
        for spec in pending:
            written, names, new = spec
            if written is not None and (
                (target != written) if isinstance(written, str) else (target is not _named(namespace, written))
            ):
                continue
            if names is not None and attributes != names:
                continue
            if new is _NEW and patcher.new is not getattr(module, "DEFAULT", None):  # what mock compares with
                continue
            if _type(new) is tuple and (_type(patcher.new) is not _type(new[0]) or patcher.new != new[0]):
                continue
            pending.remove(spec)
            break
        else:
            return f"its wrapper patches {target}.{sorted(a for a in attributes if a)}, which no decorator of its names"
    return ""


def _around(defined: str) -> list[str]:
    """The qualified names of each class around *defined* (outermost first), then *defined*'s own."""
    parts = defined.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts) + 1)]


def _patch_specs(source: _TestFile, defined: str, _around=_around) -> list:
    """The patch decorators a test's wrapper must apply: its definition's, and, as mock decorates a class's methods
    whose names start with ``test``, those of each class around it."""
    names = _around(defined)
    if not defined.rsplit(".", 1)[-1].startswith("test"):
        names = names[-1:]  # mock.patch on a class wraps only its test methods
    specs: list = []
    for name in names:
        written = source.patches.get(name, ())
        specs += [None] if written is None else written
    return specs


# What Python, abc, typing and unittest's and pytest's decorators put in a class besides what its body binds (pytest
# and unittest name theirs: ``_UnitTestCase__pytest_class_setup``, ``__unittest_skip__``)
_CLASS_NAMES = frozenset(
    {
        "__module__",
        "__qualname__",
        "__doc__",
        "__dict__",
        "__weakref__",
        "__firstlineno__",
        "__static_attributes__",
        "__annotations__",
        "__annotate__",
        "__annotate_func__",
        "__annotations_cache__",
        "__orig_bases__",
        "__parameters__",
        "__type_params__",
        "__classcell__",
        "__slots__",
        "__abstractmethods__",
        "_abc_impl",
        "pytestmark",
        "_classSetupFailed",  # unittest.TestCase.__init_subclass__ and its suites set these three
        "_class_cleanups",
        "tearDown_exceptions",
    }
)


def _library(path: str, _prefixes=tuple({os.path.realpath(p) + os.sep for p in (sys.prefix, sys.base_prefix)})) -> bool:
    return path.startswith(_prefixes)


def _source_of(module, files, _realpath=_resolved, _source=_unchanged_source, _library=_library) -> tuple:
    """*module*'s file (its real path, "" for none) and that file read as a test file: the run's own facts, else the
    file as it was when the plugin loaded; None for a library's, a changed one's or none."""
    path = _realpath(getattr(module, "__file__", None) or "")
    return path, files.get(path) or (None if not path or _library(path) else _source(path))


def _class_contents(
    cls,
    files,
    _realpath=_resolved,
    _function=types.FunctionType,
    _source_of=_source_of,
    _unchanged=_unchanged,
    _layers=_layers,
    _encloses=_encloses,
    _names=_CLASS_NAMES,
    _asserting=_ASSERTING,
    _patchings_refusal=_patchings_refusal,
    _patch_specs=_patch_specs,
) -> str:
    """Why *cls* (a class a class test runs in: its own, or one it inherits from, in a file of the repository's) does
    not hold what its class statement defines ("" when it does). A test class's attributes are written with no audit
    event: an ``assertEqual`` or ``run`` of its own put in a base class, or its ``make`` helper replaced, decide what
    every test of it does (red team round 7). A name its body never binds is refused (unless the file writes that
    attribute somewhere, or builds names dynamically), and a function its body defines with ``def`` must still be
    that function, compiled from that file at that name and line, wrapped only by what its decorators make and
    applying only the patchers its file writes (:func:`_patchings_refusal`; a class test's own method is checked
    here, with the others)."""
    module = sys.modules.get(getattr(cls, "__module__", None))
    if module is None or module.__name__.split(".", 1)[0] in _asserting or module.__name__ == "builtins":
        return ""  # unittest's classes are held as they were loaded (_ASSERTING)
    path, source = _source_of(module, files)
    qualified = cls.__qualname__
    if source is None or qualified not in source.members:
        return ""  # a library's class, or one no class statement makes: the tripwire's limit
    held = vars(cls)
    if not source.dynamic:
        extra = sorted(
            name
            for name in held
            if name not in source.members[qualified]
            and name not in source.attributes
            and name not in _names
            and "pytest" not in name
            and not name.startswith("__unittest")
        )
        if extra:
            # a base class's file may write it on the class a test runs in: rq's RQTestCase.setUpClass, in
            # tests/__init__.py, sets cls.connection on each subclass (22 of rq's classes were refused for it)
            written = set()
            for base in getattr(cls, "__mro__", ())[1:]:
                _, base_source = _source_of(sys.modules.get(getattr(base, "__module__", None)), files)
                if base_source is not None:
                    written.update(base_source.attributes)
            extra = [name for name in extra if name not in written]
        if extra:
            return f"its class {qualified} holds names its class statement never binds: {extra[0]}"
    prefix = qualified + "."
    for key, line in source.lines.items():
        if not key.startswith(prefix) or "." in key[len(prefix) :]:
            continue
        name = key[len(prefix) :]
        stored = f"_{cls.__name__.lstrip('_')}{name}" if name.startswith("__") and not name.endswith("__") else name
        if stored not in held:
            return f"{key}, which {path} defines, was removed from its class"
        value = held[stored]
        value = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
        layers = _layers(value)
        patched = _patchings_refusal(layers, _patch_specs(source, key), vars(module))
        if patched:
            return f"{key}: {patched}"
        if source.decorators.get(key):
            # what its decorators made of it (unittest.skip's wrapper encloses no test, a fixture is an object of
            # pytest's): only that none of its functions is the candidate's or a file changed since the plugin
            # loaded
            for layer in layers:
                code = getattr(layer, "__code__", None)
                if code is not None and not _unchanged(_realpath(code.co_filename)):
                    return f"{key} runs code of {code.co_filename}, not what {path} defines"
            continue
        inner = layers[-1]
        if type(inner) is not _function:
            return f"{key} is a {type(inner).__name__}, not the function {path} defines"
        code = inner.__code__
        if (_realpath(code.co_filename), code.co_name, code.co_firstlineno) != (path, name, line):
            return f"{key} runs {code.co_name} of {code.co_filename}, not what {path} defines"
        for outer, wrapped in zip(layers, layers[1:]):  # a class decorator's wrappers (mock.patch on the class)
            if not _encloses(outer, wrapped) or not _unchanged(_realpath(outer.__code__.co_filename)):
                return f"{key} is wrapped in {outer.__qualname__}, not by a decorator of the file"
    return ""


def _class_refusal(item, files, checked: dict, _contents=_class_contents, _id=id) -> str:
    """Why a class *item*'s test runs in does not hold what its class statement defines (:func:`_class_contents`),
    "" when each does. *checked* holds each class's answer by its id for one pass of the checks (the collection, or
    the checks before one test's call): a class is read once per pass, however many of its tests there are."""
    for cls in getattr(item.cls, "__mro__", ()):
        key = ("contents", _id(cls))  # by id: a class's metaclass could make it equal to another
        if key not in checked:
            checked[key] = _contents(cls, files)
        if checked[key]:
            return f"{item.nodeid}: {checked[key]}"
    return ""


def _refusal(
    item,
    files,
    checked: dict | None = None,
    _realpath=_resolved,
    _function=types.FunctionType,
    _inherited=_inherited_definition,
    _unchanged=_unchanged,
    _layers=_layers,
    _encloses=_encloses,
    _decorator_files=_decorator_files,
    _class=pytest.Class,
    _class_refusal=_class_refusal,
    _patchings_refusal=_patchings_refusal,
    _patch_specs=_patch_specs,
    _module=types.ModuleType,
    _around=_around,
) -> str:
    """Why *item* is not a test its file defines, or runs with what its file imported changed ("" when neither).
    *checked*: what this pass of the checks (the collection's, or one test's before its call) found of each class."""
    if not files:
        return ""  # no candidate, or no selection: nothing to judge the tests by
    module = getattr(item, "module", None)
    held = vars(module).get("__file__") if isinstance(module, _module) else None
    entry = files.get(_realpath(held)) if type(held) is str else None
    if entry is None:
        # A module's ``__file__`` is written with no audit event: one that names no test file of the run (pointed
        # elsewhere after pytest imported it) would otherwise be judged by no facts, and pass every check.
        named = held if type(held) is str else type(held).__name__
        return f"{item.nodeid}: its module's file, {named}, is not one of the run's test files"
    intruders = entry.intruders(vars(module))
    if intruders:
        return f"{item.nodeid}: its module holds names its source never binds: {', '.join(intruders[:5])}"
    rebound = entry.rebound(vars(module))
    if rebound:
        return f"{item.nodeid}: its module's {', '.join(rebound[:5])} no longer hold what its imports bound"
    replaced = entry.replaced(vars(module))
    if replaced:
        return f"{item.nodeid}: its module's {', '.join(replaced[:5])} no longer hold the functions its file defines"
    function = getattr(item, "obj", None)
    function = getattr(function, "__func__", function)
    if type(function) is not _function:
        return f"{item.nodeid} is a {type(function).__name__}, not the function its file defines"
    layers = _layers(function)
    for outer, inner in zip(layers, layers[1:]):
        if not _encloses(outer, inner):
            return f"{item.nodeid} runs {outer.__qualname__}, which names {inner.__qualname__} but does not enclose it"
    function = layers[-1]
    code = function.__code__
    classes = [node.name for node in item.listchain() if isinstance(node, _class)]
    name = getattr(item, "originalname", None) or item.name.split("[", 1)[0]
    qualified = ".".join([*classes, name])
    inherited, source = "no class", None
    if (_realpath(code.co_filename), code.co_name, code.co_firstlineno) == (
        entry.path,
        name,
        entry.lines.get(qualified),
    ):
        if function.__globals__ is not vars(module):
            return f"{item.nodeid} runs its function with other globals"
        namespace, source, defined = vars(module), entry, qualified
    elif item.cls is not None:
        checked = {} if checked is None else checked
        inherited, namespace, source, defined = _inherited(item, layers[0], function, name, checked)
    if source is None:
        return (
            f"{item.nodeid} runs {code.co_name} of {code.co_filename}:{code.co_firstlineno}, not the {qualified} "
            f"its file defines at line {entry.lines.get(qualified)} ({inherited})"
        )
    # a decorator of the definition, or of a class around it (mock.patch on a class wraps each of its tests)
    decorators = [name for around in _around(defined) for name in source.decorators.get(around, ())]
    wrapping = _decorator_files(namespace, tuple(decorators))
    for outer in layers[:-1]:
        path = _realpath(outer.__code__.co_filename)
        if path not in wrapping or not _unchanged(path):
            return f"{item.nodeid} runs {outer.__qualname__} of {path}, where no decorator of {defined} comes from"
    if item.cls is not None:  # its method's patchers are checked with the rest of its class's (_class_contents)
        return _class_refusal(item, files, {} if checked is None else checked)
    patched = _patchings_refusal(layers, _patch_specs(source, defined), namespace)
    return f"{item.nodeid}: {patched}" if patched else ""


_files = types.MappingProxyType(_test_files())  # read-only: emptying it would leave nothing to check


def _held(frozen=_frozen(_namespaces() if _files else [])):
    """The :func:`_frozen` snapshot of :data:`_ASSERTING` packages' namespaces the checks compare with: taken when the
    plugin loads, and set once more at configure (:func:`pytest_configure`). It is this function's default: reassigning
    a function's defaults raises an audit event, which the guard refuses to the candidate's code."""
    return frozen


def _pytests_own(value, owned) -> bool:
    module = getattr(value, "__module__", None)
    code = getattr(value, "__code__", None)
    in_package = isinstance(module, str) and module.split(".", 1)[0] in _ASSERTING
    return in_package and (code is None or not owned(code.co_filename))


@pytest.hookimpl(trylast=True)
def pytest_configure(
    config, _held=_held, _own=_is_own, _ours=_pytests_own, _zip=zip, _tuple=tuple, _refrozen=_refrozen
):
    """pytest's own plugins patch its classes as they configure (legacypath: ``Config._getini_unknown_type``): what
    they set, pytest's own functions, is taken as it stands now."""
    labels, spaces, keys, values, _ = _held()
    if not keys:
        return
    now = [space.get(key, value) for space, key, value in _zip(spaces, keys, values)]
    taken = _tuple(
        current if current is not value and _ours(current, _own) else value for current, value in _zip(now, values)
    )
    _held.__defaults__ = (_refrozen(labels, spaces, keys, taken),)


_collected: dict[str, object] = {}  # node id -> the function collected for it, which the test must still run


MESSAGE_LIMIT = 2000
TAMPERED = "benchsmith::tampered"  # a record naming no test: the candidate took a collected test's place
_outcomes: dict[str, str] = {}
_messages: dict[str, str] = {}
_calls: dict[str, list[list[str]]] = {}


def _report_fd() -> int | None:
    value = os.environ.get("BENCHSMITH_REPORT_FD", "")
    return int(value) if value.isdigit() else None


# What sending needs is bound here, at import, before any project or candidate code: replacing this module's names
# (os, json, the environment's descriptor number) later changes nothing.
def _send(record: dict, _fd=_report_fd(), _write=os.write, _dumps=json.dumps) -> None:
    if _fd is None:
        return
    data = (_dumps(record) + "\n").encode("utf-8", errors="surrogateescape")
    while data:  # a pipe takes at most its buffer's worth per call
        data = data[_write(_fd, data) :]


def _forgery(message: str, _send=_send) -> None:
    """Report the run as a forgery (:data:`TAMPERED`), saying why. Every check that finds one says so: state kept here
    to say it once could be reached and set by the candidate (a default list is readable), so the harness counts the
    records as one and takes the first reason (``benchsmith.runners.python.class_runner``)."""
    _send({"nodeid": TAMPERED, "outcome": "error", "message": message})


def pytest_collection_modifyitems(
    config,
    items,
    _forgery=_forgery,
    _own=_is_own,
    _files=_files,
    _held=_held,
    _replaced=_replaced,
    _refusal=_refusal,
    _layers=_layers,
    _collected=_collected,
    _select=os.environ.get("BENCHSMITH_SELECT"),  # read at import, before any candidate code can point it elsewhere
):
    # Only the tests that run are judged: one the selection leaves out (a method unittest.skip wraps, whose wrapper
    # encloses nothing, beside the directives of its class) decides nothing, and refusing it made an honest run forged.
    if _select:
        with open(_select, encoding="utf-8") as handle:
            wanted = set(handle.read().splitlines())
        deselected = [item for item in items if item.nodeid not in wanted]
        if deselected:
            config.hook.pytest_deselected(items=deselected)
            items[:] = [item for item in items if item.nodeid in wanted]
    for item in items:  # a test module the candidate replaced (sys.modules) holds tests made of its code
        function = getattr(item, "obj", None)
        codes = [getattr(f, "__code__", None) for f in _layers(getattr(function, "__func__", function))]
        if any(code is not None and _own(code.co_filename) for code in codes):
            _forgery(f"{item.nodeid} runs the candidate's code")
            break
    checked: dict = {}  # each class read once for the whole collection
    for item in items:
        refused = _refusal(item, _files, checked)
        if refused:
            _forgery(refused)
            break
        function = getattr(item, "obj", None)
        _collected[item.nodeid] = getattr(function, "__func__", function)
    # Once for the whole collection, after the loop above (no code of the candidate's runs between its items): what
    # the tests will run with is the same for all of them here.
    replaced = _replaced(_held())
    if replaced:
        _forgery(f"the tests were collected with {replaced} replaced")


def _message(report) -> str:
    try:
        text = report.longreprtext
    except Exception:  # a report object of another make: no message, the outcome is what counts
        return ""
    return text[-MESSAGE_LIMIT:]  # the end: where the assertion or the exception is


def pytest_collection_finish(session, _send=_send):
    if os.environ.get("BENCHSMITH_REPORT_COLLECTED"):
        _send({"collected": [item.nodeid for item in session.items]})


def pytest_sessionfinish(session, exitstatus, _send=_send, _forgery=_forgery, _held=_held, _replaced=_replaced):
    replaced = _replaced(_held())  # what the last test left (the checks after each call see what it changed there)
    if replaced:
        _forgery(f"the session ended with {replaced} replaced")
    # A trusted run's last word: every test has reported; what still runs is the interpreter's exit, which threads
    # a suite left behind can hold for good (pykka's actors). The harness then stops the process soon after.
    if os.environ.get("BENCHSMITH_REPORT_COLLECTED"):
        _send({"finished": int(exitstatus)})


# A trusted run of the build (never a candidate's): read here, at import, before any project code can set it
_TRUSTED_RUN = bool(os.environ.get("BENCHSMITH_REPORT_COLLECTED"))


def pytest_collectreport(report, _send=_send, _message=_message, _trusted=_TRUSTED_RUN):
    if report.failed:
        _send({"nodeid": report.nodeid, "outcome": "error", "message": _message(report)})
    elif _trusted and report.skipped and report.nodeid:
        # a module skipped whole while collecting (``pytest.importorskip`` at its top) holds tests that never
        # reach the report otherwise: the build counts them, by the reason
        _send({"nodeid": report.nodeid, "outcome": "skipped", "message": _message(report)})


def _test_code(item):
    """The code of the test's own body, inside whatever decorators wrap it."""
    function = getattr(item, "obj", None)
    return getattr(_layers(getattr(function, "__func__", function))[-1], "__code__", None)


def _candidates_hook(manager, _own=_is_own, _layers=_layers, _vars=vars, _list=list) -> str:
    """The first hook implementation registered with pytest whose code is the candidate's ("" when none): a plugin
    of its own would make or rewrite reports. A tripwire: the candidate reaches pytest's plugin manager only through
    the heap or a frame the guard refuses it, and a callback the main thread runs later with none of its frames on
    the stack (a finalizer driving a pipeline of builtins) slipped past the guard that way (docs/sandbox.md)."""
    files: dict[str, str] = {}  # each code file once: a run has some 200 hook implementations from a few dozen files
    for name, caller in _list(_vars(getattr(manager, "hook", None) or object()).items()):
        for implementation in getattr(caller, "get_hookimpls", _list)():
            function = getattr(implementation, "function", None)
            for layer in _layers(getattr(function, "__func__", function)):
                code = getattr(layer, "__code__", None)
                if code is not None:
                    files.setdefault(code.co_filename, name)
    for filename, name in files.items():
        if _own(filename):
            return f"{name} implemented by the candidate's code"
    return ""


def pytest_plugin_registered(plugin, manager, _hook=_candidates_hook, _forgery=_forgery):
    found = _hook(manager)
    if found:
        _forgery(f"a plugin was registered with {found}")


def _replaced_around(
    item, after: bool, _held=_held, _replaced=_replaced, _forgery=_forgery, _hook=_candidates_hook
) -> None:
    """Send a forgery when pytest's, pluggy's or unittest's namespaces differ from :func:`_held` before *item*'s call
    (what the collection, the tests before it and its setup may have changed) or *after* it, before its report is
    made (what its call changed: a report maker replaced while the test runs, to put itself back once it has made
    that test's report, would be seen by no check before the next test)."""
    replaced = _replaced(_held()) or _hook(getattr(getattr(item, "config", None), "pluginmanager", None))
    if replaced:
        said = f"{replaced} was replaced while it ran" if after else f"it runs with {replaced} replaced"
        _forgery(f"{item.nodeid}: {said}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(
    item, _around=_replaced_around, _forgery=_forgery, _files=_files, _collected=_collected, _refusal=_refusal
):
    # what it reads is bound here, when the plugin loads: the candidate can rebind the module's names, not these
    if _files and item.nodeid not in _collected:
        _forgery(f"{item.nodeid} runs, but no test was collected under its name")
    elif _files:
        function = getattr(item, "obj", None)
        function = getattr(function, "__func__", function)
        refused = _refusal(item, _files)
        module = getattr(item, "module", None)
        bound = vars(module).get(function.__name__, function) if module is not None and item.cls is None else function
        if not refused and (function is not _collected[item.nodeid] or bound is not function):
            refused = f"{item.nodeid}: its function was rebound after collection"
        if refused:
            _forgery(refused)
    _around(item, False)
    code = _test_code(item)
    if code is None or not os.environ.get("BENCHSMITH_DIRECTCOV"):
        yield
        _around(item, True)
        return
    calls: set[tuple[str, str]] = set()
    body = _codes_within(code)
    recording = [True]

    def profiler(frame, event, arg):
        if not recording[0]:  # a thread the test started outlived it
            sys.setprofile(None)
            return
        if event == "call" and frame.f_back is not None and frame.f_back.f_code in body:
            target = frame.f_code
            calls.add((target.co_filename, _qualname(target)))
            if target.co_name in _CONSTRUCTORS and target.co_argcount:
                constructed = _constructed_class(frame, target)
                if constructed is not None:
                    calls.add(constructed)

    # Threads the test starts are profiled too: a test client serves the handlers written in the test's body from a
    # thread of its own (an anyio portal), and what they call is no less written there.
    previous, previous_threads = sys.getprofile(), getattr(threading, "_profile_hook", None)
    sys.setprofile(profiler)
    threading.setprofile(profiler)
    try:
        yield
    finally:
        recording[0] = False
        threading.setprofile(previous_threads)
        sys.setprofile(previous)
        while True:  # a thread may still be adding its last call
            try:
                _calls[item.nodeid] = [list(c) for c in sorted(calls)]
                break
            except RuntimeError:
                continue
    _around(item, True)


# Invoked in the body of T (the RepoClassBench paper's DirectCoverage) is read off the text: a call written anywhere in
# the test function, including in the functions, lambdas, comprehensions and classes written inside it (a route
# handler the test defines and a client then calls, a generator expression), is direct; a call from a helper defined
# elsewhere is not.
_CONSTRUCTORS = frozenset({"__init__", "__new__"})


_DEFINED_AT: dict = {}  # file -> {first line of a function's code: its qualified name}, for Pythons before 3.11


def _qualname(code) -> str:
    """*code*'s qualified name (``Request.json``). Before Python 3.11 a code object holds only its bare name
    (``json``), which no class can be told by: litestar's suite on 3.8 attributed no call to any class. There it
    is read off the file's definitions, by the line the code starts at (its first decorator's, or its ``def``'s)."""
    name = getattr(code, "co_qualname", None)
    if name is not None:
        return name
    lines = _DEFINED_AT.get(code.co_filename)
    if lines is None:
        lines = _DEFINED_AT[code.co_filename] = _definitions(code.co_filename)
    return lines.get(code.co_firstlineno, code.co_name)


def _definitions(filename: str) -> dict:
    try:
        with open(filename, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):  # no source (a frozen or generated module): bare names, as before
        return {}
    found: dict = {}
    pending = [(tree, "")]
    while pending:
        node, prefix = pending.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                pending.append((child, f"{prefix}{child.name}."))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for line in [child.lineno, *(decorator.lineno for decorator in child.decorator_list)]:
                    found.setdefault(line, f"{prefix}{child.name}")
                pending.append((child, f"{prefix}{child.name}.<locals>."))
            else:  # an if, try or with block: its definitions belong to the same scope
                pending.append((child, prefix))
    return found


def _codes_within(code) -> frozenset:
    found, pending = set(), [code]
    while pending:
        each = pending.pop()
        if each not in found:
            found.add(each)
            pending += [c for c in each.co_consts if isinstance(c, type(code))]
    return frozenset(found)


def _constructed_class(frame, target):
    """(file, ``Class.__init__``) of the class a constructor call builds, when the running ``__init__`` or ``__new__``
    is not the class's own: a class called in the test's body is invoked there, its constructor with it, whether the
    constructor is inherited or generated (a dataclass's ``__init__`` has no file)."""
    try:
        first = frame.f_locals.get(target.co_varnames[0])
        cls = first if target.co_name == "__new__" and isinstance(first, type) else type(first)
        module = sys.modules.get(cls.__module__)
        filename = getattr(module, "__file__", None)
        qualname = f"{cls.__qualname__}.__init__"
    except Exception:  # an object of any make: no record rather than a failed test
        return None
    if not isinstance(filename, str) or (filename, qualname) == (target.co_filename, _qualname(target)):
        return None
    return filename, qualname


def _phase_outcome(report) -> str:
    """What one phase says of the test; a skip or an expected failure is no pass (see
    ``benchsmith.runners.sandbox.outcomes``)."""
    xfail = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if xfail else "passed"
        if report.skipped:
            return "xfailed" if xfail else "skipped"
        return "failed"
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if xfail else "skipped"
    return "passed"


def pytest_runtest_logreport(
    report,
    _send=_send,
    _phase_outcome=_phase_outcome,
    _message=_message,
    _outcomes=_outcomes,
    _messages=_messages,
    _calls=_calls,
    _trusted=_TRUSTED_RUN,
):
    outcome = _phase_outcome(report)
    if report.when == "setup" or _outcomes.get(report.nodeid, "passed") == "passed":
        _outcomes[report.nodeid] = outcome  # the first phase that does not pass decides
        if report.failed or (_trusted and report.skipped):  # a trusted run's skips say why (a missing module)
            _messages[report.nodeid] = _message(report)
    if report.when == "teardown":
        record = {"nodeid": report.nodeid, "outcome": _outcomes.pop(report.nodeid, outcome)}
        if report.nodeid in _calls:
            record["calls"] = _calls.pop(report.nodeid)
        if report.nodeid in _messages:
            record["message"] = _messages.pop(report.nodeid)
        _send(record)


if __name__ == "__main__":
    _write_facts(sys.argv[1], sys.argv[2:])
