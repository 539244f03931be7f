"""Test dependencies wherever projects declare them (benchsmith/sources/python/deps.py), each format on a small
project."""

from pathlib import Path
from textwrap import dedent

import pytest

from benchsmith.sources.python.deps import (
    declarations_for_tests,
    poetry_constraint,
    requires_python,
    runtime_requirements,
)


def project(tmp_path: Path, **files: str) -> Path:
    for name, text in files.items():
        path = tmp_path / name.replace("__", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dedent(text))
    return tmp_path


def declared(tree: Path) -> dict[str, list[str]]:
    return {d.source: list(d.requirements) for d in declarations_for_tests(tree)}


def test_extras_in_pyproject_with_self_references(tmp_path):
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
        [project]
        name = "Demo_Pkg"
        dependencies = ["attrs>=22"]
        [project.optional-dependencies]
        socks = ["PySocks>=1.5"]
        test = ["pytest-mock", "demo-pkg[socks]"]
        docs = ["sphinx"]
    """
        },
    )
    assert declared(tree) == {"extra test": ["pytest-mock", "PySocks>=1.5"]}
    assert runtime_requirements(tree) == ("pyproject.toml [project]", ["attrs>=22"])


def test_requirements_files_follow_includes_and_skip_options(tmp_path):
    tree = project(
        tmp_path,
        **{
            "requirements-dev.txt": """
            -r requirements/base.txt
            -c constraints.txt
            -e .[extra]
            --index-url https://example.invalid/simple
            pytest>=7 --hash=sha256:abc  # the runner
            httpbin~=0.10.0 ; python_version >= "3.8"
            ./vendored/thing
        """,
            "requirements/base.txt": "trustme\n",
            "requirements/docs.txt": "sphinx\n",
            "requirements/test.in": "unpinned\n",
            "requirements/test.txt": "pinned==1.0\n",
            "setup.cfg": "[options.extras_require]\nextra = toolz\n",
        },
    )
    found = declared(tree)
    assert found["requirements-dev.txt"] == [
        "trustme",
        "toolz",
        "pytest>=7",
        'httpbin~=0.10.0 ; python_version >= "3.8"',
    ]
    assert found["requirements/test.txt"] == ["pinned==1.0"]  # the compiled .txt, not its .in
    assert "requirements/docs.txt" not in found and "requirements/test.in" not in found


def test_pep735_groups_with_include_group(tmp_path):
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
        [dependency-groups]
        coverage = ["coverage[toml]"]
        test = ["pytest", {include-group = "coverage"}]
        lint = ["ruff"]
    """
        },
    )
    assert declared(tree) == {"pyproject.toml [dependency-groups] test": ["pytest", "coverage[toml]"]}


def test_poetry_groups_and_dev_dependencies(tmp_path):
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
        [tool.poetry]
        name = "demo"
        [tool.poetry.dependencies]
        python = "^3.8"
        requests = "^2.28"
        [tool.poetry.dev-dependencies]
        pytest = "~7.1"
        [tool.poetry.group.test.dependencies]
        freezegun = {version = "^0.3.2", python = ">=3.8"}
        hypothesis = {version = "*", extras = ["cli"]}
        local = {path = "../local"}
        [tool.poetry.group.docs.dependencies]
        sphinx = "*"
    """
        },
    )
    assert declared(tree) == {
        "pyproject.toml [tool.poetry.dev-dependencies]": ["pytest>=7.1,<7.2"],
        "pyproject.toml [tool.poetry.group.test]": [
            'freezegun>=0.3.2,<0.4; python_version >= "3.8"',
            "hypothesis[cli]",
        ],
    }
    assert runtime_requirements(tree) == ("pyproject.toml [tool.poetry.dependencies]", ["requests>=2.28,<3"])
    assert requires_python(tree) == ">=3.8,<4"


@pytest.mark.parametrize(
    "spec, pep440",
    [
        ("^1.2.3", ">=1.2.3,<2"),
        ("^0.2.3", ">=0.2.3,<0.3"),
        ("^0.0.3", ">=0.0.3,<0.0.4"),
        ("^1.2", ">=1.2,<2"),
        ("~1.2.3", ">=1.2.3,<1.3"),
        ("~1", ">=1,<2"),
        ("1.2.3", "==1.2.3"),
        ("1.2.*", "==1.2.*"),
        ("*", ""),
        (">=1.2,<2", ">=1.2,<2"),
        ("~=1.4", "~=1.4"),
        ("^1.0 || ^2.0", ""),
    ],
)
def test_poetry_constraints_become_pep440(spec, pep440):
    assert poetry_constraint(spec) == pep440


def test_pdm_dev_dependencies(tmp_path):
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
        [project]
        name = "demo"
        dynamic = ["dependencies"]
        [tool.pdm.dev-dependencies]
        test = ["pytest>=7", "-e file:///${PROJECT_ROOT}/plugins/x#egg=x"]
        lint = ["flake8"]
    """
        },
    )
    assert declared(tree) == {"pyproject.toml [tool.pdm.dev-dependencies] test": ["pytest>=7"]}
    assert runtime_requirements(tree) is None  # dynamic: only a build can tell


def test_hatch_environments(tmp_path):
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
        [project]
        name = "demo"
        [project.optional-dependencies]
        cli = ["click"]
        [tool.hatch.envs.default]
        dependencies = ["pytest", "pytest-cov"]
        [tool.hatch.envs.hatch-test]
        extra-dependencies = ["pytest-asyncio"]
        features = ["cli"]
        [tool.hatch.envs.docs]
        dependencies = ["mkdocs"]
    """
        },
    )
    assert declared(tree) == {
        "pyproject.toml [tool.hatch.envs.default]": ["pytest", "pytest-cov"],
        "pyproject.toml [tool.hatch.envs.hatch-test]": ["pytest-asyncio", "click"],
    }


def test_tox_deps_extras_references_and_substitutions(tmp_path):
    tree = project(
        tmp_path,
        **{
            "tox.ini": """
            [base]
            deps = mock
            [testenv]
            extras = test
            deps =
                -r{toxinidir}/requirements/ci.txt
                {[base]deps}
                pytest>=6
                py38: pytest<7
                {env:EXTRA_DEP:}
                {posargs}
            [testenv:lint]
            deps = flake8
        """,
            "requirements/ci.txt": "coverage\n",
            "setup.cfg": "[options.extras_require]\ntest = responses\n",
        },
    )
    found = declared(tree)
    assert found["tox.ini [testenv]"] == ["coverage", "mock", "pytest>=6", "responses"]
    assert "tox.ini [testenv:lint]" not in found


def test_tox_environments_of_another_python_are_left_out(tmp_path):
    """python-dateutil 2.9.0's ``py33`` environment pins pytest<3.3 for Python 3.3; resolved for 3.11 with the rest,
    it installed a pytest that cannot start there, and the suite collected nothing."""
    tree = project(
        tmp_path,
        **{
            "tox.ini": """
            [testenv]
            deps = -rrequirements-dev.txt
            [testenv:py33]
            deps =
                -rrequirements/3.3/requirements-dev.txt
                -crequirements/3.3/constraints.txt
            [testenv:py311-django]
            deps = django
            [testenv:py3]
            deps = hypothesis
            [testenv:pypy39]
            deps = cffi
        """,
            "requirements-dev.txt": "pytest >= 3.0\n",
            "requirements/3.3/requirements-dev.txt": "pytest<3.3\n",
        },
    )
    found = {d.source: list(d.requirements) for d in declarations_for_tests(tree, "3.11.7")}
    assert found == {
        "requirements-dev.txt": ["pytest >= 3.0"],
        "tox.ini [testenv]": ["pytest >= 3.0"],
        "tox.ini [testenv:py311-django]": ["django"],
        "tox.ini [testenv:py3]": ["hypothesis"],
    }
    assert "tox.ini [testenv:py33]" in declared(tree)  # without the interpreter's version, every environment


def test_nox_session_installs_are_read_without_running(tmp_path):
    tree = project(
        tmp_path,
        **{
            "noxfile.py": """
            import nox
            raise SystemExit("a noxfile is parsed, never run")
            TEST_DEPS = ["pytest", "hypothesis>=6"]

            @nox.session(python=["3.10", "3.11"])
            def tests(session):
                session.install("-r", "requirements/tests.txt")
                session.install(*TEST_DEPS, ".[speedups]")
                session.install("-e", ".")
                session.run("pytest")

            @nox.session
            def lint(session):
                session.install("ruff")
        """,
            "requirements/tests.txt": "freezegun\n",
            "pyproject.toml": '[project]\nname = "demo"\n[project.optional-dependencies]\nspeedups = ["ujson"]\n',
        },
    )
    assert declared(tree)["noxfile.py session tests"] == ["freezegun", "pytest", "hypothesis>=6", "ujson"]
    assert "noxfile.py session lint" not in declared(tree)


def test_setup_cfg_extras_tests_require_and_python_requires(tmp_path):
    tree = project(
        tmp_path,
        **{
            "setup.cfg": """
        [metadata]
        name = demo
        [options]
        python_requires = >=3.7
        install_requires =
            six
        tests_require = nose
        [options.extras_require]
        testing =
            pytest
            pytest-xdist
    """
        },
    )
    assert declared(tree) == {"extra test": ["nose"], "extra testing": ["pytest", "pytest-xdist"]}
    assert runtime_requirements(tree) == ("setup.cfg [options]", ["six"])
    assert requires_python(tree) == ">=3.7"


def test_sdist_metadata_gives_runtime_requirements_and_extras(tmp_path):
    tree = project(
        tmp_path,
        **{
            "PKG-INFO": """\
        Metadata-Version: 2.2
        Name: requests
        Requires-Python: >=3.7
        Requires-Dist: idna<4,>=2.5
        Requires-Dist: PySocks!=1.5.7,>=1.5.6; extra == "socks"
        Requires-Dist: pytest>=7; python_version >= "3.8" and extra == "test"
    """
        },
    )
    assert runtime_requirements(tree) == ("PKG-INFO", ["idna<4,>=2.5"])
    assert declared(tree) == {"extra test": ['pytest>=7; python_version >= "3.8"']}
    assert requires_python(tree) == ">=3.7"
    (tree / "PKG-INFO").write_text((tree / "PKG-INFO").read_text().replace("2.2", "2.1"))
    assert runtime_requirements(tree) is None  # older sdists may keep requirements in egg-info only: a build tells
    (tree / "PKG-INFO").write_text((tree / "PKG-INFO").read_text().replace("2.2", "2.1"))
    assert runtime_requirements(tree) is None  # older sdists may keep requirements in egg-info only: a build tells


def test_extras_that_provide_what_the_tests_import(tmp_path):
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
            [project]
            name = "web"
            [project.optional-dependencies]
            redis = ["redis[hiredis]>=4.4.4"]
            jwt = ["python-jose", "cryptography"]
            otel = ["opentelemetry-instrumentation-asgi"]
            full = ["web[redis,jwt,otel]", "pyyaml"]
            docs = ["sphinx"]
            [tool.pdm.dev-dependencies]
            dev-contrib = ["httpx-sse"]
            linting = ["ruff"]
        """,
            "web/__init__.py": "",
            "tests/conftest.py": "import redis\nimport web\nimport os\n",
            "tests/unit/test_token.py": "def test_it():\n    from jose import jwt\n",
            "web/contrib.py": "from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware\n",
            "tests/unit/test_yaml.py": "import yaml\n",
        },
    )
    assert declared(tree) == {
        "pyproject.toml [tool.pdm.dev-dependencies] dev-contrib": ["httpx-sse"],
        "extra redis: redis[hiredis]>=4.4.4 (tests/conftest.py imports it)": ["redis[hiredis]>=4.4.4"],
        "extra jwt: python-jose (tests/unit/test_token.py imports it)": ["python-jose"],
        "extra otel: opentelemetry-instrumentation-asgi (web/contrib.py imports it)": [
            "opentelemetry-instrumentation-asgi"
        ],
        "extra full: pyyaml (tests/unit/test_yaml.py imports it)": ["pyyaml"],
    }


def test_the_package_itself_is_no_test_requirement(tmp_path):
    # MarkupSafe 2.1.5's pip-compiled requirements/dev.txt pins markupsafe==2.1.4 (through jinja2): resolved for 2.1.5's
    # tests it left the whole file out
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": '[project]\nname = "MarkupSafe"\nversion = "2.1.5"\n',
            "requirements/dev.txt": "jinja2==3.1.3\nmarkupsafe==2.1.4\n    # via jinja2\npytest==7.4.4\n",
        },
    )
    assert declared(tree)["requirements/dev.txt"] == ["jinja2==3.1.3", "pytest==7.4.4"]


def test_tox_configuration_inside_pyproject(tmp_path):
    # tqdm declares its test requirements only in [tool.tox] legacy_tox_ini (pytest-asyncio among them)
    tree = project(
        tmp_path,
        **{
            "pyproject.toml": """
        [project]
        name = "demo"
        [tool.tox]
        legacy_tox_ini = \"\"\"
        [core]
        deps=
            pytest
            pytest-asyncio
            git+https://github.com/casperdcl/nbval
        [testenv]
        deps=
            {[core]deps}
            numpy
            tf: tensorflow
        [testenv:check]
        deps = twine
        \"\"\"
    """
        },
    )
    assert declared(tree) == {
        "pyproject.toml [tool.tox] legacy_tox_ini [testenv]": ["pytest", "pytest-asyncio", "numpy"]
    }


def test_the_conda_environment_of_the_tests_under_pypi_names(tmp_path):
    # As xarray's ci/requirements/environment.yml, the only place it names iris, hypothesis and sparse: conda names
    # that PyPI spells otherwise are renamed, conda-only and non-Python packages declared with the reason.
    tree = project(
        tmp_path,
        **{
            "ci/requirements/environment.yml": """
            name: demo-tests
            channels: [conda-forge, nodefaults]
            dependencies:
              - python=3.10
              - pip
              - conda-forge::iris>=3.4  # PyPI's "iris" is another project
              - cdms2
              - hdf5
              - dask-core
              - numpy<1.24
              - pandas=1.5
              - pytables 3.7.*
              - scipy 1.9.3 py310h_0
              - hypothesis
              - nbconvert[execute]!=6.0.0
              - pip:
                - -r ../../requirements-pip.txt
                - sparse>=0.13
        """,
            "ci/requirements/environment-py311.yml": "dependencies:\n  - pint\n",  # a variant: never read
            "ci/requirements/min-all-deps.yml": "dependencies:\n  - numpy=1.21\n",
            "requirements-pip.txt": "toolz\n",
        },
    )
    found = {d.source: (list(d.requirements), d.left_out) for d in declarations_for_tests(tree)}
    where = "ci/requirements/environment.yml"
    assert found == {
        f"{where}: conda-forge::iris>=3.4 (on PyPI scitools-iris)": (["scitools-iris>=3.4"], ""),
        f"{where}: cdms2": ([], "conda-forge only: no PyPI counterpart"),
        f"{where}: hdf5": ([], "not a Python package (a library or tool conda installs)"),
        f"{where}: dask-core (on PyPI dask)": (["dask"], ""),
        f"{where}: numpy<1.24": (["numpy<1.24"], ""),
        f"{where}: pandas=1.5": (["pandas==1.5.*"], ""),  # conda's single = is a version prefix
        f"{where}: pytables 3.7.* (on PyPI tables)": (["tables==3.7.*"], ""),
        f"{where}: scipy 1.9.3 py310h_0": (["scipy==1.9.3"], ""),  # the build string is conda's
        f"{where}: hypothesis": (["hypothesis"], ""),
        f"{where}: nbconvert[execute]!=6.0.0": (["nbconvert!=6.0.0"], ""),  # bracketed match-spec keys are conda's
        f"{where} pip": (["toolz", "sparse>=0.13"], ""),
    }


def test_the_default_conda_environment_before_one_for_the_tests_and_the_root_first(tmp_path):
    tree = project(
        tmp_path,
        **{
            "ci/environment.yml": "dependencies:\n  - pytest-cov\n",
            "environment-dev.yml": "dependencies:\n  - pytest-xdist\n",
            "environment-docs.yml": "dependencies:\n  - sphinx\n",
        },
    )
    assert declared(tree) == {"ci/environment.yml: pytest-cov": ["pytest-cov"]}
    (tree / "environment.yaml").write_text("name: x\ndependencies:\n  - pytest-mock\n")
    assert declared(tree) == {"environment.yaml: pytest-mock": ["pytest-mock"]}
    (tree / "environment.yaml").write_text("dependencies: [unclosed\n")  # not YAML: nothing, no failure
    assert declared(tree) == {}
