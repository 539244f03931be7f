"""A repository's conda environment file read as test requirements for PyPI, without running anything.

Some projects declare part of what their suite needs only in the conda environment their CI creates (xarray's
``ci/requirements/environment.yml`` alone names iris, hypothesis and sparse). :func:`environment_file` picks the one
file a repository keeps for its tests; :func:`read_environment` turns its conda specs into PEP 508 requirements under
their PyPI names, or says why a spec has none (a C library, a package only conda-forge distributes), and hands its
``pip:`` section back as the pip arguments it already is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

# Where repositories keep the conda environment their tests run in, in order of preference.
CONDA_FOLDERS = ("", "ci", "ci/requirements", ".ci", "requirements")
# The default environment (``environment.yml``) before one named for the tests (``environment-test.yml``); any other
# qualifier names a variant (``environment-py311``, ``environment-windows``, ``min-all-deps``, ``doc``), never read.
_ENVIRONMENT_NAME = re.compile(r"environment(?:[-_](test|tests|testing|dev|ci))?\.ya?ml")

# conda-forge names whose PyPI project has another name (a PyPI project of the conda name, when there is one, is
# another project: PyPI's "iris" is not the Met Office's).
CONDA_TO_PYPI = {
    "iris": "scitools-iris",
    "pytables": "tables",
    "matplotlib-base": "matplotlib",
    "dask-core": "dask",
    "pytorch": "torch",
    "pytorch-cpu": "torch",
    "tensorflow-base": "tensorflow",
    "msgpack-python": "msgpack",
    "python-graphviz": "graphviz",
    "pyqt": "PyQt5",
    "python-eccodes": "eccodes",
    "pydot-ng": "pydot",
    "geopandas-base": "geopandas",
}
# Python packages conda-forge distributes and PyPI does not (or only as an unrelated or empty project).
CONDA_ONLY = frozenset({"cdms2", "cdat_info", "cdutil", "genutil", "esmpy", "xesmf-core", "ncl", "pyngl", "pynio"})
# What conda installs that is not a Python package: interpreters, compilers, C/Fortran libraries and tools
# (PyPI's "pandoc", "graphviz" and "hdf5", where they exist, are other projects or wrappers needing the tool).
NOT_PYTHON = frozenset(
    {
        "c-compiler",
        "cxx-compiler",
        "fortran-compiler",
        "compilers",
        "gcc",
        "gxx",
        "gfortran",
        "clang",
        "make",
        "pkg-config",
        "git",
        "nodejs",
        "pandoc",
        "graphviz",
        "openjdk",
        "ffmpeg",
        "r-base",
        "hdf4",
        "hdf5",
        "libnetcdf",
        "netcdf-fortran",
        "netcdf-c",
        "eccodes",
        "proj",
        "geos",
        "gdal",
        "libgdal",
        "udunits2",
        "cdo",
        "nco",
        "zlib",
        "sqlite",
        "openssl",
        "blas",
        "openblas",
        "mkl",
        "libblas",
        "liblapack",
        "openmpi",
        "mpich",
        "curl",
        "imagemagick",
        "poppler",
        "ghostscript",
        "texlive-core",
        "cairo",
        "pango",
        "libxml2",
        "libxslt",
        "boost",
        "eigen",
        "tbb",
        "cudatoolkit",
        "libgdal-core",
        "gtk3",
        "gtk4",
        "gobject-introspection",
        "qt",
        "qt-main",
    }
)
_NOT_INSTALLED = frozenset({"python", "pip"})  # the interpreter and the installer: every environment has them


@dataclass(frozen=True)
class CondaSpec:
    spec: str  # as the file writes it: "conda-forge::iris>=3"
    requirement: str  # PEP 508 under the PyPI name ("scitools-iris>=3"); "" when there is none
    left_out: str = ""  # why there is none
    renamed: bool = False  # PyPI knows it by another name (CONDA_TO_PYPI)


def environment_file(tree: Path) -> Path | None:
    """The conda environment file *tree* keeps for its tests: the default ``environment.yml`` (or ``.yaml``) before
    one qualified for the tests (``environment-test.yml``, ``-dev``, ``-ci``), the shallowest folder of
    :data:`CONDA_FOLDERS` first; None when it has none. Variants (another Python, OS or the minimum versions) are
    never chosen: they pin what the default leaves open."""
    found = []
    for depth, folder in enumerate(CONDA_FOLDERS):
        base = tree / folder if folder else tree
        for path in sorted(base.glob("environment*.y*ml")) if base.is_dir() else []:
            match = _ENVIRONMENT_NAME.fullmatch(path.name)
            if match and path.is_file():
                found.append((match[1] is not None, depth, path))
    return min(found)[2] if found else None


def read_environment(path: Path) -> tuple[list[CondaSpec], list[str]]:
    """The conda specs of environment file *path* as PyPI requirements (``python`` and ``pip`` left out: every
    environment has them) and the lines of its ``pip:`` section; nothing when it is not a conda environment."""
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError:
        return [], []
    dependencies = document.get("dependencies") if isinstance(document, dict) else None
    specs: list[CondaSpec] = []
    pip_lines: list[str] = []
    for entry in dependencies if isinstance(dependencies, list) else []:
        if isinstance(entry, dict):
            pip_lines += [str(line).strip() for line in entry.get("pip") or [] if str(line).strip()]
        elif isinstance(entry, (str, int, float)):
            spec = conda_spec(str(entry))
            if spec is not None:
                specs.append(spec)
    return specs, pip_lines


def conda_spec(text: str) -> CondaSpec | None:
    """One conda match spec as a PEP 508 requirement: the channel (``conda-forge::``) and build string dropped,
    ``name=1.2`` (conda's version prefix) as ``==1.2.*``, ``name 1.2.*`` as ``==1.2.*``, a bare version as ``==``;
    alternatives (``1.2|1.4``), which PEP 440 cannot say, as no constraint. None for ``python`` and ``pip``."""
    spec = text.strip()
    bare = re.sub(r"\[[^\]]*\]", "", spec.rpartition("::")[2]).strip()  # bracketed keys ([build=...]) are conda's
    match = re.match(r"([A-Za-z0-9][A-Za-z0-9_.-]*)\s*(.*)$", bare)
    if not match:
        return CondaSpec(spec, "", "not a conda package spec")
    name, constraint = canonicalize_name(match[1]), re.sub(r"\s*([<>=!~]=?)\s*", r"\1", match[2]).strip()
    if name in _NOT_INSTALLED:
        return None
    if name in NOT_PYTHON:
        return CondaSpec(spec, "", "not a Python package (a library or tool conda installs)")
    if name in CONDA_ONLY:
        return CondaSpec(spec, "", "conda-forge only: no PyPI counterpart")
    pypi = CONDA_TO_PYPI.get(name, match[1])
    constraint = re.sub(r"^(=[^=,|\s]+)=\S*$", r"\1", constraint)  # name=version=build
    version = _pep440(constraint.split()[0] if constraint else "")
    for requirement in (f"{pypi}{version}", pypi):  # a version PEP 440 cannot read loosens to the name alone
        try:
            return CondaSpec(spec, str(Requirement(requirement)), renamed=name in CONDA_TO_PYPI)
        except InvalidRequirement:
            continue
    return CondaSpec(spec, "", "not a PyPI name")


def _pep440(constraint: str) -> str:
    if not constraint or "|" in constraint:
        return ""
    parts = []
    for part in constraint.split(","):
        operator, version = re.match(r"([<>=!~]*)(.*)", part.strip()).groups()
        version = re.sub(r"\.?\*$", "", version)
        if not version:
            continue
        if operator in ("", "="):  # a bare version is exact unless starred; conda's single = is a prefix
            starred = operator == "=" or part.strip().endswith("*")
            parts.append(f"=={version}.*" if starred else f"=={version}")
        else:
            parts.append(f"{operator}{version}")
    return ",".join(parts)
