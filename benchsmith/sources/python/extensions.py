"""Compiled extension modules of a repository, built for its environment and put beside their sources.

Tests import the package from their copy of the tree, not from the environment (so that removing a class really
removes it). A package with a C, Cython or Rust extension (MarkupSafe's ``_speedups``, multidict's ``_multidict``,
pyrsistent's ``pvectorc``) then finds no compiled module there: it falls back to its pure-Python code, or its tests
of the extension are skipped or fail, and the build measures another program than the one the project ships. So
the package is built once, as a wheel, by its own build backend (uv, in isolation, with build requirements
resolved as of the environment's date), and the wheel's compiled modules are copied into the pristine tree at the
place their import name says, as ``setup.py build_ext --inplace`` would. Every copy of the tree has them then.
A build that fails is no error: the card says which extension is missing and why.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import tempfile
import tomllib
import zipfile
from pathlib import Path

log = logging.getLogger(__name__)

# Build back-ends that exist to compile extensions; setuptools says so in setup.py.
_NATIVE_BACKENDS = ("maturin", "mesonpy", "scikit_build_core", "setuptools_rust", "pybind11", "enscons", "cmake")
_SETUP_PY_EXTENSION = re.compile(r"\b(ext_modules|Extension\s*\(|cythonize|build_ext|cffi_modules|rust_extensions)\b")
_COMPILED = re.compile(r"\.(so|pyd)$")
MARKER = "benchsmith-extensions.json"  # in the environment's folder: the extensions already put into the tree


def declares_extensions(tree: Path) -> bool:
    """Whether *tree*'s build declares compiled extension modules (read, never run)."""
    setup = tree / "setup.py"
    if setup.is_file() and _SETUP_PY_EXTENSION.search(setup.read_text(errors="replace")):
        return True
    try:
        pyproject = tomllib.loads((tree / "pyproject.toml").read_text(errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        return (tree / "Cargo.toml").is_file()
    backend = str(pyproject.get("build-system", {}).get("build-backend", ""))
    return any(name in backend for name in _NATIVE_BACKENDS) or (tree / "Cargo.toml").is_file()


_EXTENSION_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".pyx")


def compiled_modules_of(tree: Path, import_root: str, modules: set[str]) -> set[str]:
    """Of *modules* (import names a test could not import), those that are compiled modules of *tree* itself: a C,
    C++ or Cython source at the place the name says (``multidict/_multidict.c`` for ``multidict._multidict``), or a
    compiled file there. A build that tests the pure-Python fallback imports none of them, by choice."""
    found = set()
    for module in modules:
        place = tree / import_root / Path(*module.split("."))
        siblings = place.parent.glob(f"{place.name}.*") if place.parent.is_dir() else ()
        if any(s.suffix in _EXTENSION_SOURCES or _COMPILED.search(s.name) for s in siblings):
            found.add(module)
    return found


def build_extensions(
    tree: Path, import_root: str, env: Path, uv: str, index: str, as_of: str | None, seconds: int = 900
) -> dict:
    """Build *tree*'s wheel for the interpreter of *env* and copy its compiled modules under *tree*/*import_root*;
    ``{"built": [relative paths], "error": one line}`` (nothing when the tree declares no extension). Done once per
    environment: *env*'s marker says what was copied, and a tree that still holds those files is not built again."""
    if not declares_extensions(tree):
        return {}
    marker = env / MARKER
    if marker.is_file():
        record = json.loads(marker.read_text())
        if all((tree / path).is_file() for path in record.get("built", [])):
            return record
    python = env / "bin" / "python"
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "tree"
        shutil.copytree(tree, copy, symlinks=True)  # builds write into their tree (build/, egg-info)
        dated = ["--exclude-newer", as_of] if as_of else []
        command = [
            uv,
            "build",
            "--wheel",
            "--quiet",
            "--no-config",
            "--python",
            str(python),
            "--default-index",
            index,
            *dated,
            "--out-dir",
            str(Path(scratch) / "dist"),
            str(copy),
        ]
        try:
            completed = subprocess.run(command, capture_output=True, text=True, timeout=seconds)
        except subprocess.TimeoutExpired:
            record = {"built": [], "error": f"the wheel build did not finish in {seconds} s"}
        else:
            wheels = sorted((Path(scratch) / "dist").glob("*.whl"))
            (env / "benchsmith-extensions.log").write_text(completed.stdout + completed.stderr)
            if completed.returncode != 0 or not wheels:
                lines = [line.strip() for line in completed.stderr.splitlines() if re.search(r"error", line, re.I)]
                reason = lines[0][:200] if lines else f"status {completed.returncode}"
                record = {
                    "built": [],
                    "error": f"the wheel build failed ({reason}); see {env / 'benchsmith-extensions.log'}",
                }
            else:
                record = {"built": _copy_compiled(wheels[0], tree / import_root, tree)}
                if not record["built"]:
                    record["error"] = f"{wheels[0].name} holds no compiled module (a pure-Python fallback build)"
    if record.get("error"):
        log.warning("%s: compiled extensions not built: %s", tree.name, record["error"])
    marker.write_text(json.dumps(record, indent=2))
    return record


def _copy_compiled(wheel: Path, destination: Path, tree: Path) -> list[str]:
    """Copy the wheel's compiled modules to the same import path under *destination*; their paths in *tree*."""
    copied = []
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.namelist():
            if not _COMPILED.search(member) or member.split("/")[0].endswith((".data", ".dist-info")):
                continue
            target = destination / member
            if not target.parent.is_dir():  # a module of a package the tree does not hold (a vendored library)
                continue
            with archive.open(member) as source, target.open("wb") as out:
                shutil.copyfileobj(source, out)
            target.chmod(0o755)
            copied.append(target.relative_to(tree).as_posix())
    return sorted(copied)


# Environment variables by which packages choose their pure-Python twin over their compiled modules at import:
# MULTIDICT_NO_EXTENSIONS, YARL_NO_EXTENSIONS, FROZENLIST_NO_EXTENSIONS, AIOHTTP_NO_EXTENSIONS, MSGPACK_PUREPYTHON,
# PYRSISTENT_NO_C_EXTENSION, ... (read off the code, never a list of packages)
_SWITCH = re.compile(
    r"^[A-Z][A-Z0-9_]*?_?(NO_?(C_?)?EXT(ENSION)?S?|PURE_?PYTHON|PURE|NO_?CEXT|NO_?SPEEDUPS|NO_?CYTHON|"
    r"DISABLE_?(C_?)?EXT(ENSION)?S?|WITHOUT_?(C_?)?EXT(ENSION)?S?)$"
)
_READ_ENVIRON = re.compile(
    r"""(?:os\.environ\.get|os\.getenv|environ\.get|getenv)\(\s*['"]([A-Z0-9_]+)['"]"""
    r"""|(?:os\.)?environ\[\s*['"]([A-Z0-9_]+)['"]\s*\]"""
    r"""|['"]([A-Z0-9_]+)['"]\s+(?:not\s+)?in\s+(?:os\.)?environ\b"""
)


_NOT_THE_PACKAGE = (
    "tests",
    "test",
    "testing",
    "docs",
    "doc",
    "build",
    "benchmarks",
    "bench",
    "tools",
    "scripts",
    ".tox",
)
_SCRIPTS = ("setup.py", "conftest.py", "noxfile.py", "fabfile.py", "tasks.py")  # build and test scripts beside it


def fallback_switches(tree: Path, import_root: str) -> dict[str, str]:
    """The environment variables *tree*'s package code reads to select its pure-Python fallback, each set to ``1``:
    ``{"MULTIDICT_NO_EXTENSIONS": "1"}``. Read from the package's modules (not its build scripts or tests)."""
    root = tree / import_root if import_root else tree
    switches: dict[str, str] = {}
    for path in sorted(root.rglob("*.py")):
        relative = path.relative_to(root).parts
        if relative[0] in _NOT_THE_PACKAGE or (len(relative) == 1 and path.name in _SCRIPTS):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in _READ_ENVIRON.finditer(text):
            name = next(group for group in match.groups() if group)
            if _SWITCH.match(name):
                switches[name] = "1"
    return dict(sorted(switches.items()))
