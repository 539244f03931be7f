"""One registry mechanism for everything pluggable: benchmarks, model backends, agents, embedders.

An entry is a name and a lazy ``"module:attr"`` target, imported only when the name is asked for, so listing a
registry imports none of its implementations. Implementations register where they live; a third-party package adds
its own through a Python entry point in the registry's group (``benchsmith.benchmarks``, ``benchsmith.backends``,
``benchsmith.agents``, ``benchsmith.embedders``), as pytest and lm-evaluation-harness plugins do::

    [project.entry-points."benchsmith.benchmarks"]
    my-benchmark = "my_package.benchmark:MyBenchmark"

What a target loads to is checked against the registry's base class: a class must subclass it, an object must be an
instance of it, and a factory (a plain function) must return one. A misspelt name is an error that suggests the
closest registered names.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Generic, TypeVar

from benchsmith.core.errors import BenchsmithError

T = TypeVar("T")


@dataclass(frozen=True)
class Entry:
    """A registered name: where its implementation lives, a line of help, and what the registry wants to know of it
    without importing it (a backend's options, a benchmark's record type)."""

    name: str
    target: str  # "module:attr"
    help: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    plugin: str = ""  # the distribution that declared it through an entry point; "" for benchsmith's own


def load_target(target: str) -> Any:
    """The object a ``"module:attr"`` target names (``attr`` may be dotted)."""
    module_name, _, attribute = target.partition(":")
    if not module_name or not attribute:
        raise BenchsmithError(f"{target!r}: not a 'module:attr' target")
    value: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        value = getattr(value, part)
    return value


class Registry(Generic[T]):
    """Names → implementations of *base*, built in or added by plugins through the entry point *group*.

    *base* may be given as a ``"module:attr"`` target, resolved at the first check, so that a registry in a package's
    ``__init__`` does not import the module holding its base class. *verb* words the list of choices in errors.
    """

    def __init__(self, kind: str, group: str, base: type | str | None = None, verb: str = "choose from") -> None:
        self.kind = kind  # "benchmark", "model backend": what errors call an entry
        self.group = group
        self._base = base
        self._verb = verb
        self._entries: dict[str, Entry] = {}
        self._loaded: dict[str, Any] = {}
        self._plugins_read = False

    # -- declaring -----------------------------------------------------------------------------------------------
    def add(self, name: str, target: str, help: str = "", **extra: Any) -> None:
        """Register *target* ("module:attr") as *name*; the same name for another target is an error."""
        existing = self._entries.get(name)
        if existing is not None and existing.target != target:
            raise BenchsmithError(f"{self.kind} {name!r} is registered already ({existing.target})")
        self._entries[name] = Entry(name, target, help, dict(extra))

    def put(self, name: str, value: T, help: str = "") -> T:
        """Register an implementation made already (a benchmark instance registering itself when its module loads)."""
        self._check(name, value)
        existing = self._loaded.get(name)
        if existing is not None and not isinstance(existing, type) and type(existing) is not type(value):
            raise BenchsmithError(f"{self.kind} {name!r} is registered already ({type(existing).__name__})")
        self._loaded[name] = value
        if name not in self._entries:
            self._entries[name] = Entry(name, f"{type(value).__module__}:{type(value).__qualname__}", help)
        return value

    def remove(self, name: str) -> None:
        self._entries.pop(name, None)
        self._loaded.pop(name, None)

    # -- asking --------------------------------------------------------------------------------------------------
    def entries(self) -> dict[str, Entry]:
        """Every entry, benchsmith's own first (in the order registered), then the plugins'."""
        self._read_plugins()
        return dict(self._entries)

    def names(self) -> list[str]:
        return list(self.entries())

    def __contains__(self, name: object) -> bool:
        return name in self.entries()

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def entry(self, name: str) -> Entry:
        entries = self.entries()
        if name not in entries:
            raise self.unknown(name)
        return entries[name]

    def is_loaded(self, name: str) -> bool:
        return name in self._loaded

    def load(self, name: str) -> Any:
        """What *name*'s target names, imported now and checked against the base (a class, an object, a factory)."""
        if name in self._loaded:
            return self._loaded[name]
        entry = self.entry(name)
        try:
            value = load_target(entry.target)
        except (ImportError, AttributeError) as exc:
            raise BenchsmithError(f"{self.kind} {name!r}: cannot load {entry.target} ({exc})") from None
        if name in self._loaded:  # importing the module registered the implementation itself (``put``)
            return self._loaded[name]
        self._check(name, value)
        self._loaded[name] = value
        return value

    def create(self, name: str, *args: Any, **kwargs: Any) -> T:
        """An implementation made by *name*'s class or factory (an object target is returned as it is)."""
        value = self.load(name)
        if not callable(value) or (
            self.base is not None and not isinstance(value, type) and isinstance(value, self.base)
        ):
            return value
        made = value(*args, **kwargs)
        if self.base is not None and not isinstance(made, self.base):
            raise BenchsmithError(
                f"{self.kind} {name!r}: {self.entry(name).target} made a {type(made).__name__}, "
                f"not a {self.base.__name__}"
            )
        return made

    def unknown(self, name: str) -> BenchsmithError:
        """The one-line error for a name nobody registered, with the closest registered names."""
        names = self.names()
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        return BenchsmithError(f"unknown {self.kind} {name!r} ({self._verb} {', '.join(names)}){hint}")

    # -- inside --------------------------------------------------------------------------------------------------
    @property
    def base(self) -> type | None:
        if isinstance(self._base, str):
            self._base = load_target(self._base)
        return self._base

    def _check(self, name: str, value: Any) -> None:
        base = self.base
        if base is None:
            return
        if isinstance(value, type):
            try:
                is_subclass = issubclass(value, base)
            except TypeError:  # a protocol with data members: the object the class makes is checked instead
                return
            if not is_subclass:
                raise BenchsmithError(
                    f"{self.kind} {name!r}: {value.__module__}.{value.__qualname__} is not a "
                    f"subclass of {base.__module__}.{base.__qualname__}"
                )
        elif not isinstance(value, base) and not inspect.isfunction(value):
            raise BenchsmithError(
                f"{self.kind} {name!r}: a {type(value).__name__}, not a {base.__qualname__}, "
                "a subclass of it or a factory of one"
            )

    def _read_plugins(self) -> None:
        if self._plugins_read:
            return
        self._plugins_read = True
        for point in sorted(entry_points(group=self.group), key=lambda p: p.name):
            if point.name in self._entries:
                continue  # benchsmith's own names are not shadowed by a plugin
            dist = getattr(point, "dist", None)
            plugin = dist.name if dist is not None else "a plugin"
            self._entries[point.name] = Entry(point.name, point.value, f"from {plugin}", {}, plugin)
