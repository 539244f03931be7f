"""Where a Python repository declares its dependencies and its test dependencies, read without running anything.

:func:`runtime_requirements` reads the package's own requirements where they are static (an sdist's PKG-INFO,
``[project]``, ``[tool.poetry.dependencies]``, a setup.cfg without setup.py); ``None`` means only a build can tell.
:func:`declarations_for_tests` gathers test requirements from every format projects use: extras, requirements files
(``-r`` includes followed), PEP 735 groups (``include-group`` followed), poetry groups and dev-dependencies (their
``^``/``~`` constraints turned into PEP 440), pdm dev-dependencies, hatch environments, tox.ini ``deps`` and
``extras``, noxfile.py ``session.install(...)`` literals (parsed, never executed), setup.cfg extras and the conda
environment file the tests run in (benchsmith/sources/python/conda.py). Each declaration names where it came from, so
the card
and an error can say so; one that gives nothing to install says why, so the card can count it as left out.
"""

from __future__ import annotations

import ast
import configparser
import dataclasses
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from benchsmith.sources.python import conda as python_conda

TEST_NAMES = ("test", "tests", "testing", "dev")  # extras, groups and environments meant for running the tests
_TEST_ENV = re.compile(r"^(py\d*|pypy\d*|tests?|testing|unit|unittests?|pytest)([-_.].*)?$")
_REQUIREMENT_FILE = re.compile(r"(^|[-_/])(tests?|testing|dev|ci)([-_.]|$)")


@dataclass(frozen=True)
class DeclaredRequirements:
    source: str  # where it is declared: "pyproject.toml [tool.pdm.dev-dependencies] test"
    requirements: tuple[str, ...]  # PEP 508 strings
    left_out: str = ""  # why it gives nothing to install: a conda package with no PyPI counterpart


def declarations_for_tests(tree: Path, python: str = "") -> list[DeclaredRequirements]:
    """Every test requirement *tree* declares, one declaration per extra, group, file or environment; with *python*
    (the interpreter's version), a tox environment made for another Python (``py33``, ``py27-django``) is left
    out: its pins are that Python's (python-dateutil's ``py33`` pins ``pytest<3.3``, which no longer runs)."""
    pyproject = _toml(tree / "pyproject.toml")
    extras = declared_extras(tree)
    found = [DeclaredRequirements(f"extra {name}", tuple(extras[name])) for name in TEST_NAMES if name in extras]
    found += _requirement_files(tree, extras)
    found += _dependency_groups(pyproject)
    found += _poetry_groups(pyproject)
    found += _pdm_groups(pyproject)
    found += _hatch_envs(pyproject, extras)
    found += _tox(tree, extras, python)
    found += _nox(tree, extras)
    found += _conda(tree, extras)
    found = _without_itself(found, distribution_name(tree))
    found = [d for d in found if d.requirements or d.left_out]
    return found + extras_the_tests_import(tree, extras, found)


def _without_itself(found: list[DeclaredRequirements], name: str) -> list[DeclaredRequirements]:
    """*found* without requirements of the package itself, which its tests import from the tree: a pip-compiled
    requirements file pins the last release (MarkupSafe 2.1.5's requirements/dev.txt holds ``markupsafe==2.1.4``,
    through jinja2), which left the whole file out of the environment."""
    own = _normal(name) if name else ""

    def other(requirement: str) -> bool:
        try:
            return _normal(Requirement(requirement).name) != own
        except InvalidRequirement:
            return True

    return [dataclasses.replace(d, requirements=tuple(r for r in d.requirements if other(r))) for d in found]


def extras_the_tests_import(
    tree: Path, extras: dict[str, list[str]], declared: list[DeclaredRequirements]
) -> list[DeclaredRequirements]:
    """The requirements of any extra (``redis = ["redis[hiredis]>=4.4.4"]``) that provide a module the repository's
    tests or code import and that no test declaration names: the suite exercises the optional integrations too
    (litestar's conftest imports redis, its contrib modules opentelemetry), whatever the extra is called; the
    RepoClassBench paper's
    set-up installs litestar's for the same reason. One declaration per requirement, naming the extra and the first
    file that imports it (test files first), so that one which does not resolve is left out alone."""
    named = {_normal(Requirement(r).name) for d in declared for r in _valid(d.requirements)}
    imported = _imports(tree)
    found: dict[str, DeclaredRequirements] = {}
    # the extra that holds fewest requirements names the purpose best (litestar's "redis", not its "full")
    for extra, requirements in sorted(extras.items(), key=lambda item: (len(item[1]), item[0])):
        for requirement in _valid(requirements):
            name = _normal(Requirement(requirement).name)
            if name in named or name in found:
                continue
            provided = {name, name.removeprefix("python-"), name.removeprefix("py")}
            importer = next((imported[m] for m in imported if m in provided), None)
            if importer is not None:
                found[name] = DeclaredRequirements(
                    f"extra {extra}: {requirement} ({importer} imports it)", (requirement,)
                )
    return list(found.values())


def _imports(tree: Path) -> dict[str, str]:
    """Every module the tree's files import (``a.b.c`` also as ``a`` and ``a.b``, canonicalised like distribution
    names), each with the first file that imports it, test files first; the standard library and the tree's own
    modules left out."""

    own = {
        _normal(p.stem if p.suffix == ".py" else p.name)
        for root in (tree, tree / "src")
        if root.is_dir()
        for p in root.iterdir()
        if p.suffix == ".py" or (p / "__init__.py").is_file()
    }
    tests = {
        *tree.rglob("conftest.py"),
        *tree.rglob("test_*.py"),
        *tree.rglob("*_test.py"),
        *(p for folder in ("tests", "test", "testing") for p in (tree / folder).rglob("*.py")),
    }
    code = {p for p in tree.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(tree).parts)}
    found: dict[str, str] = {}
    for path in [*sorted(tests), *sorted(code - tests)]:
        try:
            module = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(module):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module
                else []
            )
            for dotted in names:
                top = dotted.split(".")[0]
                if top in sys.stdlib_module_names or _normal(top) in own:
                    continue
                parts = dotted.split(".")
                for end in range(1, len(parts) + 1):
                    found.setdefault(_normal(".".join(parts[:end])), path.relative_to(tree).as_posix())
    return found


def runtime_requirements(tree: Path) -> tuple[str, list[str]] | None:
    """``(source, requirements)`` of the package itself where they are static; ``None`` when only a build can tell."""
    info = tree / "PKG-INFO"
    text = info.read_text(errors="replace") if info.is_file() else ""
    version = re.search(r"^Metadata-Version: (\d+)\.(\d+)", text, re.M)
    # Before metadata 2.2 an sdist's PKG-INFO may leave its requirements out (setuptools kept them in egg-info)
    if (
        version
        and (int(version[1]), int(version[2])) >= (2, 2)
        and not re.search(r"^Dynamic: Requires-Dist", text, re.M | re.I)
    ):
        requires = re.findall(r"^Requires-Dist: (.+)$", text, re.M)
        return "PKG-INFO", [r.strip() for r in requires if "extra" not in _marker(r)]
    project = _toml(tree / "pyproject.toml").get("project", {})
    if project and "dependencies" not in project.get("dynamic", []):
        return "pyproject.toml [project]", _valid(project.get("dependencies", []))
    poetry = _toml(tree / "pyproject.toml").get("tool", {}).get("poetry", {})
    if "dependencies" in poetry:
        return "pyproject.toml [tool.poetry.dependencies]", _poetry_table(poetry["dependencies"])
    setup_cfg = _ini(tree / "setup.cfg")
    if setup_cfg is not None and not (tree / "setup.py").exists() and setup_cfg.has_section("options"):
        return "setup.cfg [options]", _valid(_lines(setup_cfg.get("options", "install_requires", fallback="")))
    return None


def requires_python(tree: Path) -> str:
    """The Python versions the repository declares (``requires-python``, PKG-INFO, setup.cfg, poetry); "" if none."""
    pyproject = _toml(tree / "pyproject.toml")
    if isinstance(pyproject.get("project", {}).get("requires-python"), str):
        return pyproject["project"]["requires-python"]
    info = tree / "PKG-INFO"
    match = re.search(r"^Requires-Python: (.+)$", info.read_text(errors="replace"), re.M) if info.is_file() else None
    if match:
        return match[1].strip()
    setup_cfg = _ini(tree / "setup.cfg")
    if setup_cfg is not None and setup_cfg.has_option("options", "python_requires"):
        return setup_cfg.get("options", "python_requires").strip()
    poetry_python = pyproject.get("tool", {}).get("poetry", {}).get("dependencies", {}).get("python")
    return poetry_constraint(poetry_python) if isinstance(poetry_python, str) else ""


def declared_extras(tree: Path) -> dict[str, list[str]]:
    """Every extra declared statically (pyproject ``[project.optional-dependencies]``, PKG-INFO, setup.cfg,
    poetry extras), its self-references (``pkg[other]``) expanded."""
    raw: dict[str, list[str]] = {}
    pyproject = _toml(tree / "pyproject.toml")
    for name, requirements in pyproject.get("project", {}).get("optional-dependencies", {}).items():
        raw.setdefault(_normal(name), []).extend(r for r in requirements if isinstance(r, str))
    info = tree / "PKG-INFO"
    if info.is_file():
        for line in re.findall(r"^Requires-Dist: (.+)$", info.read_text(errors="replace"), re.M):
            match = re.search(r"""extra\s*==\s*['"]([^'"]+)['"]""", line)
            if match:
                raw.setdefault(_normal(match[1]), []).append(_without_extra_marker(line.strip()))
    setup_cfg = _ini(tree / "setup.cfg")
    if setup_cfg is not None and setup_cfg.has_section("options.extras_require"):
        for name, value in setup_cfg.items("options.extras_require"):
            raw.setdefault(_normal(name), []).extend(_lines(value))
    if setup_cfg is not None and setup_cfg.has_option("options", "tests_require"):
        raw.setdefault("test", []).extend(_lines(setup_cfg.get("options", "tests_require")))
    poetry = pyproject.get("tool", {}).get("poetry", {})
    for name, packages in poetry.get("extras", {}).items():  # poetry extras name optional main dependencies
        main = poetry.get("dependencies", {})
        raw.setdefault(_normal(name), []).extend(_poetry_table({p: main[p] for p in packages if p in main}))
    own = _normal(distribution_name(tree))
    expanded: dict[str, list[str]] = {}
    for name in raw:
        expanded[name] = _expand(name, raw, own, set())
    return expanded


def read_requirement_file(
    path: Path, tree: Path, extras: dict[str, list[str]], seen: set[Path] | None = None
) -> list[str]:
    """The requirements of a pip requirements file (``-r`` includes inside *tree* followed; options, constraints,
    editable and local paths left out; ``.[extra]`` replaced by that extra's requirements)."""
    seen = set() if seen is None else seen
    if path.resolve() in seen or not path.is_file():
        return []
    seen.add(path.resolve())
    text = path.read_text(encoding="utf-8", errors="replace").replace("\\\n", " ")
    found: list[str] = []
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        line = re.sub(r"\s--hash[= ]\S+", "", line).strip()
        found += _install_arguments(line.split() if line.startswith("-") else [line], path.parent, tree, extras, seen)
    return found


def poetry_constraint(spec: str) -> str:
    """A poetry version constraint as a PEP 440 specifier: ``^1.2`` → ``>=1.2,<2``, ``~1.2.3`` → ``>=1.2.3,<1.3``,
    ``1.2.3`` → ``==1.2.3``, ``*`` → ``""``. Alternatives (``||``), which PEP 440 cannot express, become no
    constraint: a superset of what poetry allows."""
    spec = spec.strip()
    if spec in ("", "*") or "||" in spec or "|" in spec:
        return ""
    parts = []
    for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", spec):
        part = part.strip()
        if not part:
            continue
        if part.startswith("^"):
            version = [int(x) for x in re.findall(r"\d+", part)] or [0]
            first = next((i for i, v in enumerate(version) if v != 0), len(version) - 1)
            upper = version[: first + 1]
            upper[-1] += 1
            parts += [f">={part[1:]}", f"<{'.'.join(map(str, upper))}"]
        elif part.startswith("~") and not part.startswith("~="):
            version = [int(x) for x in re.findall(r"\d+", part)] or [0]
            upper = version[:2] if len(version) > 1 else version[:1]
            upper[-1] += 1
            parts += [f">={part[1:].strip()}", f"<{'.'.join(map(str, upper))}"]
        elif re.fullmatch(r"[\d.*]+[\w.+-]*", part):
            parts.append(f"=={part}")
        elif part.startswith("="):
            parts.append(part if part.startswith("==") else f"={part}")
        else:
            parts.append(part)
    return ",".join(parts)


# --- the formats ---------------------------------------------------------------------------------------------------


def _requirement_files(tree: Path, extras: dict[str, list[str]]) -> list[DeclaredRequirements]:
    candidates = [
        *tree.glob("*requirements*.txt"),
        *tree.glob("*requirements*.in"),
        *tree.glob("requirements/*.txt"),
        *tree.glob("requirements/*.in"),
        *tree.glob("tests/requirements*.txt"),
        *tree.glob("test/requirements*.txt"),
    ]
    chosen: dict[Path, Path] = {}
    for path in sorted(set(candidates)):
        relative = path.relative_to(tree).as_posix()
        stem = path.with_suffix("")
        if not (
            _REQUIREMENT_FILE.search(stem.relative_to(tree).as_posix().lower())
            or relative in ("requirements.txt", "requirements.in")
        ):
            continue
        if path.suffix == ".in" and stem.with_suffix(".txt").is_file():
            continue  # pip-tools: the compiled .txt beside it holds the versions of the repository's own date
        chosen[stem] = path
    return [
        DeclaredRequirements(p.relative_to(tree).as_posix(), tuple(read_requirement_file(p, tree, extras)))
        for p in chosen.values()
    ]


def _dependency_groups(pyproject: dict) -> list[DeclaredRequirements]:
    groups = pyproject.get("dependency-groups", {})

    def members(name: str, seen: frozenset[str]) -> list[str]:
        found: list[str] = []
        for item in groups.get(name, []):
            if isinstance(item, str):
                found.append(item)
            elif isinstance(item, dict) and item.get("include-group") not in seen | {None}:
                found += members(item["include-group"], seen | {item["include-group"]})
        return found

    return [
        DeclaredRequirements(f"pyproject.toml [dependency-groups] {g}", tuple(_valid(members(g, frozenset({g})))))
        for g in groups
        if _group_for_tests(g)
    ]


def _poetry_groups(pyproject: dict) -> list[DeclaredRequirements]:
    poetry = pyproject.get("tool", {}).get("poetry", {})
    found = []
    if "dev-dependencies" in poetry:
        found.append(
            DeclaredRequirements(
                "pyproject.toml [tool.poetry.dev-dependencies]", tuple(_poetry_table(poetry["dev-dependencies"]))
            )
        )
    for name, group in poetry.get("group", {}).items():
        if _group_for_tests(name) and isinstance(group, dict):
            found.append(
                DeclaredRequirements(
                    f"pyproject.toml [tool.poetry.group.{name}]", tuple(_poetry_table(group.get("dependencies", {})))
                )
            )
    return found


def _pdm_groups(pyproject: dict) -> list[DeclaredRequirements]:
    groups = pyproject.get("tool", {}).get("pdm", {}).get("dev-dependencies", {})
    return [
        DeclaredRequirements(
            f"pyproject.toml [tool.pdm.dev-dependencies] {name}",
            tuple(_valid(r for r in requirements if isinstance(r, str) and "${" not in r)),
        )
        for name, requirements in groups.items()
        if _group_for_tests(name)
    ]


def _hatch_envs(pyproject: dict, extras: dict[str, list[str]]) -> list[DeclaredRequirements]:
    envs = pyproject.get("tool", {}).get("hatch", {}).get("envs", {})
    found = []
    for name, env in envs.items():
        if not isinstance(env, dict) or not (name in ("default", "hatch-test") or _normal(name) in TEST_NAMES):
            continue
        requirements = [*env.get("dependencies", []), *env.get("extra-dependencies", [])]
        requirements += [r for feature in env.get("features", []) for r in extras.get(_normal(feature), [])]
        found.append(DeclaredRequirements(f"pyproject.toml [tool.hatch.envs.{name}]", tuple(_valid(requirements))))
    return found


def _tox(tree: Path, extras: dict[str, list[str]], python: str = "") -> list[DeclaredRequirements]:
    config, where = _ini(tree / "tox.ini"), "tox.ini"
    if config is None:  # tox 4 reads the same ini text from pyproject.toml (tqdm's test requirements are only there)
        legacy = _toml(tree / "pyproject.toml").get("tool", {}).get("tox", {}).get("legacy_tox_ini")
        config, where = (
            (_ini_text(legacy), "pyproject.toml [tool.tox] legacy_tox_ini") if isinstance(legacy, str) else (None, "")
        )
    if config is None:
        return []
    found = []
    for section in config.sections():
        name = (
            section.removeprefix("testenv:")
            if section.startswith("testenv:")
            else ("" if section == "testenv" else None)
        )
        if name is None or (name and not _TEST_ENV.match(name)) or python and not _tox_env_runs_on(name, python):
            continue
        requirements: list[str] = []
        for line in _lines(_tox_references(config, config.get(section, "deps", fallback=""), set())):
            if re.match(r"^[\w!,{}.-]+:\s", line):
                continue  # factor-conditional ("py38: pytest<7"): belongs to one environment of the matrix
            line = line.replace("{toxinidir}/", "").replace("{toxinidir}", ".")
            if "{" in line:
                continue  # a substitution tox fills in at run time (an environment variable, a posarg)
            requirements += _install_arguments(
                line.split() if line.startswith("-") else [line], tree, tree, extras, set()
            )
        for extra in _lines(config.get(section, "extras", fallback="").replace(",", "\n")):
            requirements += extras.get(_normal(extra), [])
        found.append(DeclaredRequirements(f"{where} [{section}]", tuple(requirements)))
    return found


def _tox_env_runs_on(name: str, python: str) -> bool:
    """Whether tox environment *name* can be the one of Python *python* ("3.11.7"): none of its factors names
    another version (tox's ``py3``, ``py311``, ``py3.11``, ``pypy39``)."""
    version = python.split(".")
    for factor in re.split(r"[-_]", name):
        match = re.fullmatch(r"(?:py|pypy)(\d)\.?(\d*)", factor)
        if match and (match[1] != version[0] or match[2] and match[2] != version[1]):
            return False
    return True


def _tox_references(config: configparser.ConfigParser, value: str, seen: set[str]) -> str:
    """``{[section]deps}`` replaced by that section's deps (the one substitution that names requirements)."""

    def replace(match: re.Match) -> str:
        section, key = match[1], match[2]
        if section in seen or not config.has_option(section, key):
            return ""
        return _tox_references(config, config.get(section, key), seen | {section})

    return re.sub(r"\{\[([^\]]+)\]([\w-]+)\}", replace, value)


def _nox(tree: Path, extras: dict[str, list[str]]) -> list[DeclaredRequirements]:
    path = tree / "noxfile.py"
    if not path.is_file():
        return []
    try:
        module = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return []
    constants: dict[str, list[str]] = {}
    for node in module.body:  # module-level lists of strings, which sessions often unpack: session.install(*DEPS)
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple)):
            strings = [e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
            for target in node.targets:
                if isinstance(target, ast.Name):
                    constants[target.id] = strings
    found = []
    for node in module.body:
        if (
            not isinstance(node, ast.FunctionDef)
            or not _is_session(node)
            or "test" not in node.name
            and not _TEST_ENV.match(node.name)
        ):
            continue
        requirements: list[str] = []
        for call in ast.walk(node):
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "install":
                arguments: list[str] = []
                for arg in call.args:
                    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                        arguments.append(arg.value)
                    elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
                        arguments += constants.get(arg.value.id, [])
                requirements += _install_arguments(arguments, tree, tree, extras, set())
        found.append(DeclaredRequirements(f"noxfile.py session {node.name}", tuple(requirements)))
    return found


def _conda(tree: Path, extras: dict[str, list[str]]) -> list[DeclaredRequirements]:
    """The conda environment file's packages under their PyPI names, one declaration each (so that one which does not
    resolve, a conda name PyPI does not know, is left out alone), and its ``pip:`` section as one; a package with no
    PyPI counterpart as a declaration with nothing to install and the reason."""
    path = python_conda.environment_file(tree)
    if path is None:
        return []
    where = path.relative_to(tree).as_posix()
    specs, pip_lines = python_conda.read_environment(path)
    found = []
    for spec in specs:
        source = f"{where}: {spec.spec}" + (f" (on PyPI {Requirement(spec.requirement).name})" if spec.renamed else "")
        found.append(DeclaredRequirements(source, (spec.requirement,) if spec.requirement else (), spec.left_out))
    requirements = [
        r
        for line in pip_lines
        for r in _install_arguments(line.split() if line.startswith("-") else [line], path.parent, tree, extras, set())
    ]
    return found + ([DeclaredRequirements(f"{where} pip", tuple(requirements))] if requirements else [])


def _is_session(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name == "session":
            return True
    return False


# --- helpers -------------------------------------------------------------------------------------------------------


def _install_arguments(
    arguments: list[str], base: Path, tree: Path, extras: dict[str, list[str]], seen: set[Path]
) -> list[str]:
    """``pip install`` arguments (from a requirements line, tox deps or a nox session) → requirements."""
    found: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        value = arguments[index + 1] if index + 1 < len(arguments) else ""
        option = re.match(r"^(-r|--requirement|-c|--constraint|-e|--editable)(?:=|\s*)(.*)$", argument)
        if option:
            name, attached = option[1], option[2]
            target = attached or value
            index += 1 if attached else 2
            if name in ("-r", "--requirement") and target:
                path = (base / target).resolve()
                if path.is_relative_to(tree.resolve()):
                    found += read_requirement_file(path, tree, extras, seen)
            elif name in ("-e", "--editable"):
                found += _self_extras(target, extras)
            continue  # constraints files constrain, they do not require
        index += 1
        if argument.startswith("-"):
            continue  # another pip option (-U, --pre, --index-url ...); a value that follows parses as no requirement
        if argument.startswith((".", "/")) or argument.startswith("file:"):
            found += _self_extras(argument, extras)
            continue
        found += _valid([argument])
    return found


def _self_extras(target: str, extras: dict[str, list[str]]) -> list[str]:
    """``.[test,docs]`` (the project itself with extras) → those extras' requirements; other paths → nothing."""
    match = re.fullmatch(r"\.?/?\[([^\]]*)\]", target.strip().removeprefix("."))
    if not match:
        return []
    return [r for extra in match[1].split(",") for r in extras.get(_normal(extra), [])]


def _expand(name: str, raw: dict[str, list[str]], own: str, seen: set[str]) -> list[str]:
    """An extra's requirements, ``own[other]`` replaced by extra *other*'s."""
    found: list[str] = []
    for requirement in raw.get(name, []):
        try:
            parsed = Requirement(requirement)
        except InvalidRequirement:
            continue
        if own and _normal(parsed.name) == own:
            for extra in sorted(parsed.extras):
                if _normal(extra) not in seen | {name}:
                    found += _expand(_normal(extra), raw, own, seen | {name})
        else:
            found.append(requirement)
    return found


def _poetry_table(table: dict) -> list[str]:
    """Poetry's ``name = "^1.2"`` / ``name = {version = ..., extras = [...], python = ..., markers = ...}`` entries."""
    found = []
    for name, value in table.items():
        if _normal(name) == "python":
            continue
        for entry in value if isinstance(value, list) else [value]:
            if isinstance(entry, str):
                entry = {"version": entry}
            if not isinstance(entry, dict) or any(k in entry for k in ("git", "path", "url", "file")):
                continue  # a source benchsmith does not resolve from an index
            extras = f"[{','.join(entry['extras'])}]" if entry.get("extras") else ""
            markers = [entry["markers"]] if entry.get("markers") else []
            if entry.get("python"):
                python = poetry_constraint(entry["python"])
                markers += [f'python_version {op} "{v}"' for op, v in re.findall(r"([<>=!~]=?)([\d.*]+)", python)]
            requirement = f"{name}{extras}{poetry_constraint(str(entry.get('version', '*')))}"
            found += _valid([requirement + (f"; {' and '.join(markers)}" if markers else "")])
    return found


def _valid(requirements) -> list[str]:
    """The PEP 508 requirements among *requirements*, without direct references to local files."""
    found = []
    for requirement in requirements:
        try:
            parsed = Requirement(requirement)
        except InvalidRequirement:
            continue
        if parsed.url and parsed.url.startswith("file:"):
            continue
        found.append(requirement.strip())
    return found


def _without_extra_marker(requirement: str) -> str:
    """``pytest>=7; python_version >= "3.8" and extra == "test"`` → ``pytest>=7; python_version >= "3.8"``."""
    head, _, marker = requirement.partition(";")
    marker = re.sub(r"""\s*(and\s+)?\(?\s*extra\s*==\s*['"][^'"]+['"]\s*\)?(\s+and)?""", " ", marker).strip()
    return f"{head.strip()}; {marker}" if marker else head.strip()


def _marker(requirement: str) -> str:
    return requirement.partition(";")[2]


def distribution_name(tree: Path) -> str:
    """The distribution's name as the tree declares it: pyproject (PEP 621, poetry), PKG-INFO (the sdist's own or an
    egg-info's) or setup.cfg; "" when none says."""
    pyproject = _toml(tree / "pyproject.toml")
    name = pyproject.get("project", {}).get("name") or pyproject.get("tool", {}).get("poetry", {}).get("name")
    if name:
        return name
    for info in (tree / "PKG-INFO", *tree.glob("*.egg-info/PKG-INFO"), *tree.glob("src/*.egg-info/PKG-INFO")):
        match = re.search(r"^Name: (.+)$", info.read_text(errors="replace"), re.M) if info.is_file() else None
        if match:
            return match[1].strip()
    setup_cfg = _ini(tree / "setup.cfg")
    return setup_cfg.get("metadata", "name", fallback="") if setup_cfg is not None else ""


def distribution_version(tree: Path) -> str:
    """The version the tree declares statically (pyproject, poetry, PKG-INFO, setup.cfg); "0" when only a build
    (setuptools-scm, a version read from a module) could tell."""
    pyproject = _toml(tree / "pyproject.toml")
    version = pyproject.get("project", {}).get("version") or pyproject.get("tool", {}).get("poetry", {}).get("version")
    if isinstance(version, str) and version:
        return version
    info = tree / "PKG-INFO"
    match = re.search(r"^Version: (.+)$", info.read_text(errors="replace"), re.M) if info.is_file() else None
    if match:
        return match[1].strip()
    setup_cfg = _ini(tree / "setup.cfg")
    version = setup_cfg.get("metadata", "version", fallback="") if setup_cfg is not None else ""
    return version if re.fullmatch(r"[0-9][0-9A-Za-z.+!-]*", version) else "0"


def _group_for_tests(name: str) -> bool:
    """A dependency group for running the tests: one of TEST_NAMES, or made of one (``dev-contrib``, ``test-extras``;
    ``pdm install --dev`` installs every group, and projects split their test needs across several)."""
    return any(part in TEST_NAMES for part in _normal(name).split("-"))


def _normal(name: str) -> str:
    return canonicalize_name(name.strip())


def _lines(value: str) -> list[str]:
    return [line.strip() for line in re.sub(r"(^|\s)#.*$", "", value, flags=re.M).splitlines() if line.strip()]


def _toml(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError:
        return {}


def _ini(path: Path) -> configparser.ConfigParser | None:
    if not path.is_file():
        return None
    return _ini_text(path.read_text(encoding="utf-8", errors="replace"))


def _ini_text(text: str) -> configparser.ConfigParser | None:
    config = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        config.read_string(text)
    except configparser.Error:
        return None
    return config
