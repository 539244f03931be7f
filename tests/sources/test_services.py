"""Where repositories declare the servers their tests expect (benchsmith/sources/services.py), on trees written here."""

from __future__ import annotations

from pathlib import Path

from benchsmith.core.schema import Service
from benchsmith.sources.services import detect_services


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_workflow_services_with_ports_env_and_a_matrix_image(tmp_path):
    tree = _write(
        tmp_path,
        {
            ".github/workflows/ci.yml": """
jobs:
  tests:
    strategy:
      matrix:
        python: ["3.11"]
        db: ["postgres:15", "postgres:16"]
    services:
      database:
        image: ${{ matrix.db }}
        env:
          POSTGRES_USER: app
          POSTGRES_PASSWORD: secret
          POSTGRES_DB: appdb
        ports: ["5433:5432"]
      cache:
        image: docker.io/library/memcached:1.6
      other:
        image: elasticsearch:8
  lint:
    runs-on: ubuntu-latest
""",
            ".github/workflows/docs.yml": "jobs: [not, a, mapping]\n",
        },
    )
    assert detect_services(tree) == [
        Service(
            "postgresql",
            5433,
            ".github/workflows/ci.yml: jobs.tests.services.database (postgres:15)",
            user="app",
            password="secret",
            database="appdb",
        ),
        Service(
            "memcached", 11211, ".github/workflows/ci.yml: jobs.tests.services.cache (docker.io/library/memcached:1.6)"
        ),
    ]


def test_compose_tox_docker_and_urls_in_test_settings(tmp_path):
    tree = _write(
        tmp_path,
        {
            "tests/docker-compose.yml": """
services:
  db:
    image: mariadb:11
    environment:
      - MARIADB_ROOT_PASSWORD=root
      - MARIADB_DATABASE=shop
    ports:
      - target: 3306
        published: 3307
  web:
    build: .
""",
            "tox.ini": """
[tox]
envlist = py311

[testenv]
docker = redis
setenv =
    REDIS_URL = redis://localhost:6380/1
    OTHER = http://localhost:8000/

[docker:redis]
image = redis:7
ports = 6380:6379/tcp
""",
            "pyproject.toml": '[tool.pytest.ini_options]\nenv = ["DATABASE_URL=postgresql+psycopg://u:p@127.0.0.1/t"]\n',
        },
    )
    assert detect_services(tree) == [
        Service(
            "mysql",
            3307,
            "tests/docker-compose.yml: services.db (mariadb:11)",
            password="root",
            database="shop",
            name="db",
        ),
        Service("redis", 6380, "tox.ini: [docker:redis] (redis:7)"),
        Service(
            "postgresql",
            5432,
            "pyproject.toml: [tool.pytest.ini_options] env (postgresql+psycopg://u:p@127.0.0.1/t)",
            user="u",
            password="p",
            database="t",
        ),
    ]


def test_a_repository_that_declares_none(tmp_path):
    tree = _write(tmp_path, {"tox.ini": "[testenv]\nsetenv =\n    URL = redis://cache.example.org:6379\n"})
    assert detect_services(tree) == []
