"""What Python itself, the standard library and the test runners know by name.

Paraphrasing renames repository identifiers everywhere they occur. A name that
code outside the repository looks up by its spelling (a method of ``dict``, a
unittest hook, a pytest fixture, a base-class override) must keep it; this
module holds those lists and the introspection of external base classes.
"""

from __future__ import annotations

import ast
import builtins
import collections
import collections.abc
import importlib
import inspect
import io
import sys
import textwrap
import types
from functools import cache

#: Names of receivers and argument bundles that carry no information worth hiding.
CONVENTIONAL_NAMES: frozenset[str] = frozenset({"self", "cls", "mcs", "metacls"})

_BUILTIN_TYPES: tuple[type, ...] = (
    object,
    type,
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    bytearray,
    memoryview,
    list,
    tuple,
    dict,
    set,
    frozenset,
    range,
    slice,
    BaseException,
    property,
    classmethod,
    staticmethod,
    types.FunctionType,
    types.MethodType,
    types.ModuleType,
    types.GeneratorType,
    types.CoroutineType,
    types.SimpleNamespace,
    io.IOBase,
    io.RawIOBase,
    io.BufferedIOBase,
    io.TextIOBase,
    io.TextIOWrapper,
    io.BufferedReader,
    io.BufferedWriter,
    io.BytesIO,
    io.StringIO,
    collections.OrderedDict,
    collections.defaultdict,
    collections.deque,
    collections.Counter,
    collections.ChainMap,
    collections.abc.Mapping,
    collections.abc.MutableMapping,
    collections.abc.MutableSequence,
    collections.abc.MutableSet,
    collections.abc.Generator,
    collections.abc.AsyncGenerator,
)


def _public_attributes(kinds: tuple[type, ...]) -> frozenset[str]:
    return frozenset(a for t in kinds for a in dir(t) if not (a.startswith("__") and a.endswith("__")))


#: Attribute names of builtin types (``items``, ``get``, ``append``, ``read``...). The RepoClassBench paper keeps
#: such "common identifiers" so that ``my_dict.items()`` never becomes ``my_dict.ItEms()``.
COMMON_ATTRIBUTES: frozenset[str] = _public_attributes(_BUILTIN_TYPES)

#: Names that test runners and the import system look up by their spelling.
PROTOCOL_NAMES: frozenset[str] = frozenset(
    {
        "setup",
        "teardown",
        "setup_module",
        "teardown_module",
        "setup_function",
        "teardown_function",
        "setup_class",
        "teardown_class",
        "setup_method",
        "teardown_method",
        "setUp",
        "tearDown",
        "setUpClass",
        "tearDownClass",
        "setUpModule",
        "tearDownModule",
        "asyncSetUp",
        "asyncTearDown",
        "load_tests",
        "pytestmark",
        "pytest_plugins",
        "collect_ignore",
        "collect_ignore_glob",
        "conftest",
        "test",
        "Test",
        "main",
        # the import system's finder and loader protocols (duck-typed: no base class to inspect)
        "find_spec",
        "find_module",
        "load_module",
        "exec_module",
        "create_module",
        "get_code",
        "get_source",
        "get_data",
        "get_filename",
        "get_resource_reader",
        "is_package",
        "module_repr",
        "invalidate_caches",
    }
)
PROTOCOL_PREFIXES: tuple[str, ...] = ("pytest_",)

#: Decorators (qualified names) that return the function they are given or a thin wrapper that
#: neither registers it by name nor calls it with keyword arguments of its own.
TRANSPARENT_DECORATORS: frozenset[str] = frozenset(
    {
        "builtins.property",
        "builtins.staticmethod",
        "builtins.classmethod",
        "functools.wraps",
        "functools.lru_cache",
        "functools.cache",
        "functools.cached_property",
        "functools.total_ordering",
        "functools.singledispatch",
        "functools.singledispatchmethod",
        "abc.abstractmethod",
        "abc.abstractproperty",
        "abc.abstractclassmethod",
        "abc.abstractstaticmethod",
        "contextlib.contextmanager",
        "contextlib.asynccontextmanager",
        "typing.overload",
        "typing.final",
        "typing.no_type_check",
        "typing.runtime_checkable",
        "typing_extensions.overload",
        "typing_extensions.final",
        "typing_extensions.override",
        "typing.override",
        "dataclasses.dataclass",
        "enum.unique",
        "pytest.fixture",
        "unittest.skip",
        "unittest.skipIf",
        "unittest.skipUnless",
        "unittest.expectedFailure",
        "unittest.mock.patch",
        "unittest.mock.patch.object",
        "unittest.mock.patch.dict",
        "mock.patch",
        "mock.patch.object",
        "mock.patch.dict",
    }
)
TRANSPARENT_DECORATOR_PREFIXES: tuple[str, ...] = ("pytest.mark.",)

#: Class decorators and bases whose generated ``__init__`` takes the class-body fields by name.
FIELD_CLASS_DECORATORS: frozenset[str] = frozenset({"dataclasses.dataclass"})
FIELD_CLASS_BASES: frozenset[str] = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple"})

#: Bases that add no attribute a subclass could collide with.
HARMLESS_BASES: frozenset[str] = frozenset(
    {
        "builtins.object",
        "abc.ABC",
        "typing.Generic",
        "typing.Protocol",
        "typing_extensions.Protocol",
    }
)

#: Annotations that say nothing about the object's type.
UNINFORMATIVE_TYPES: frozenset[str] = frozenset({"typing.Any", "builtins.object", "typing_extensions.Any"})

#: External callables that pass their keyword arguments on to another callable.
FORWARDING_CALLS: frozenset[str] = frozenset(
    {
        "functools.partial",
        "functools.partialmethod",
        "dataclasses.replace",
        "copy.replace",
        "attr.evolve",
        "attrs.evolve",
        "attr.assoc",
    }
)

#: Callables whose string arguments name attributes (the last component of the callee's name).
DYNAMIC_LOOKUP_CALLS: frozenset[str] = frozenset(
    {
        "getattr",
        "hasattr",
        "setattr",
        "delattr",
        "attrgetter",
        "methodcaller",
        "getattr_static",
        "__getattribute__",
        "__getattr__",
        "__setattr__",
        "__delattr__",
    }
)

#: Callables whose string arguments list field names (``namedtuple("P", "x y")``).
FIELD_LIST_CALLS: frozenset[str] = frozenset(
    {"namedtuple", "NamedTuple", "Enum", "IntEnum", "Flag", "IntFlag", "StrEnum", "TypedDict", "make_dataclass"}
)

#: Standard-library modules never imported for introspection (they act on import).
_NO_IMPORT = frozenset({"antigravity", "this", "tkinter", "turtle", "turtledemo", "idlelib"})


def is_protocol_name(name: str) -> bool:
    return name in PROTOCOL_NAMES or name.startswith(PROTOCOL_PREFIXES)


def is_transparent_decorator(qualified: str) -> bool:
    return qualified in TRANSPARENT_DECORATORS or qualified.startswith(TRANSPARENT_DECORATOR_PREFIXES)


def _importable_stdlib(module: str) -> bool:
    top = module.split(".")[0]
    return top in sys.stdlib_module_names and top not in _NO_IMPORT


def _instance_attributes(kind: type) -> frozenset[str]:
    """``self.X`` names the class and its bases assign in their source: instance attributes ``dir()`` misses
    (``textwrap.TextWrapper`` sets ``initial_indent`` in ``__init__``). Reads source only; runs nothing."""
    names: set[str] = set()
    for klass in getattr(kind, "__mro__", ()):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(klass)))
        except (OSError, TypeError, SyntaxError):
            continue
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    names.add(target.attr)
    return frozenset(names)


def _attributes(kind: type) -> frozenset[str]:
    return frozenset(dir(kind)) | _instance_attributes(kind)


@cache
def stdlib_module_attributes(module: str) -> frozenset[str]:
    """Public attribute names of the classes a standard-library module defines (empty otherwise)."""
    if not _importable_stdlib(module):
        return frozenset()
    try:
        target = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - not a module (``from os import path`` names an attribute)
        return frozenset()
    classes = [v for v in vars(target).values() if isinstance(v, type)]
    return frozenset(a for c in classes for a in _attributes(c) if not a.startswith("__"))


@cache
def external_class_attributes(qualified: str) -> frozenset[str] | None:
    """The attribute names of an external class, or None when it cannot be inspected safely.

    Only builtins and standard-library classes are inspected (importing a standard-library
    module runs no third-party code); anything else is opaque to the caller.
    """
    module, _, rest = qualified.rpartition(".")
    if not module:
        return None
    if module == "builtins":
        target = getattr(builtins, rest, None)
        return _attributes(target) if isinstance(target, type) else None
    if not _importable_stdlib(module):
        return None
    # The class may sit inside the module's dotted path (``collections.abc.Mapping``) or be nested.
    parts = qualified.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except Exception:  # noqa: BLE001 - an unimportable module is simply opaque
            continue
        for attribute in parts[split:]:
            target = getattr(target, attribute, None)
        target = getattr(target, "__origin__", target)  # typing.Iterator -> collections.abc.Iterator
        return _attributes(target) if isinstance(target, type) else None
    return None
