"""The servers a repository's tests expect on loopback, read from where projects declare them (read, never run).

* GitHub Actions workflows (``.github/workflows/*.yml``): a job's ``services:``, each an image (``redis:7``,
  ``postgres:16``, ``${{ matrix.db }}`` read off the job's matrix), its ``ports`` and its ``env``;
* compose files (``docker-compose.yml``, ``compose.yaml``, ... at the root and in ``tests/``, ``test/``, ``docker/``,
  ``ci/``, ``.ci/``, ``.github/``): each service's image, ports and environment;
* tox-docker's ``[docker:NAME]`` sections (``image =``, ``ports =``);
* test settings that name a server by URL on localhost: ``redis://localhost:6379/0``,
  ``postgresql://user:pw@127.0.0.1/db`` in tox's ``setenv``, pytest-env's ``env`` (pytest.ini, tox.ini, setup.cfg,
  pyproject.toml) and a workflow's ``env:``.

Only servers Debian packages are recognised (Redis and its forks, PostgreSQL, MySQL/MariaDB, memcached); each found
once per kind and port, with the first place that declares it.
"""

from __future__ import annotations

import configparser
import dataclasses
import logging
import re
import tomllib
from pathlib import Path

import yaml

from benchsmith.core.schema import Service

log = logging.getLogger(__name__)

# image name (its last path component, before the tag) -> (kind, the port the server listens on in its image)
IMAGES: dict[str, tuple[str, int]] = {
    "redis": ("redis", 6379),
    "redis-stack-server": ("redis", 6379),
    "valkey": ("redis", 6379),
    "keydb": ("redis", 6379),
    "postgres": ("postgresql", 5432),
    "postgresql": ("postgresql", 5432),
    "mysql": ("mysql", 3306),
    "mariadb": ("mysql", 3306),
    "percona": ("mysql", 3306),
    "memcached": ("memcached", 11211),
}
SCHEMES: dict[str, str] = {
    "redis": "redis",
    "rediss": "redis",
    "postgres": "postgresql",
    "postgresql": "postgresql",
    "mysql": "mysql",
    "mariadb": "mysql",
    "memcached": "memcached",
    "memcache": "memcached",
}
_DEFAULT_PORTS = {kind: port for kind, port in IMAGES.values()}
_URL = re.compile(
    r"\b(?P<scheme>[a-z]+)(?:\+[a-z0-9]+)?://(?:(?P<user>[^:@/\s'\"]*)(?::(?P<password>[^@/\s'\"]*))?@)?"
    r"(?P<host>localhost|127\.0\.0\.1)(?::(?P<port>\d+))?(?:/(?P<database>[A-Za-z0-9_\-]+))?"
)
_COMPOSE_NAMES = ("docker-compose.yml", "docker-compose.yaml", "compose.yml", "compose.yaml")
_COMPOSE_FOLDERS = ("", "tests", "test", "docker", "ci", ".ci", ".github")
# The image's own settings of the role and database its entry point creates
_ENV_SETTINGS = {
    "postgresql": {"user": ("POSTGRES_USER",), "password": ("POSTGRES_PASSWORD",), "database": ("POSTGRES_DB",)},
    "mysql": {
        "user": ("MYSQL_USER", "MARIADB_USER"),
        "password": ("MYSQL_PASSWORD", "MARIADB_PASSWORD", "MYSQL_ROOT_PASSWORD", "MARIADB_ROOT_PASSWORD"),
        "database": ("MYSQL_DATABASE", "MARIADB_DATABASE"),
    },
}


def detect_services(tree: Path) -> list[Service]:
    """Every server *tree*'s tests expect on loopback, in the order found; one per kind and port."""
    found: list[Service] = []
    for path in sorted((tree / ".github" / "workflows").glob("*.y*ml")):
        found += _from_workflow(path, tree)
    for folder in _COMPOSE_FOLDERS:
        for name in _COMPOSE_NAMES:
            path = tree / folder / name
            if path.is_file():
                found += _from_compose(path, tree)
    found += _from_tox_docker(tree)
    found += _from_settings(tree)
    unique: dict[tuple[str, int], Service] = {}
    for service in found:
        unique.setdefault((service.kind, service.port), service)
    names = {(s.kind, s.port): s.name for s in found if s.name}  # the compose name, wherever it was declared first
    return [dataclasses.replace(s, name=s.name or names.get((s.kind, s.port), "")) for s in unique.values()]


def _load_yaml(path: Path) -> object:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        log.info("%s: not read for services (%s)", path, str(exc).splitlines()[0])
        return None


def _relative(path: Path, tree: Path) -> str:
    return path.relative_to(tree).as_posix()


def _image_kind(image: str) -> tuple[str, int] | None:
    name = image.strip().split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[0].lower()
    return IMAGES.get(name)


def _host_port(ports: object, container_port: int) -> int:
    """The loopback port of a service whose container listens on *container_port*: the host side of a mapping
    (``"6380:6379"``, ``"127.0.0.1:6379:6379/tcp"``, compose's long form), else the container's own."""
    for entry in ports if isinstance(ports, list) else [ports] if ports else []:
        if isinstance(entry, dict):  # compose's long form
            published, target = entry.get("published"), entry.get("target")
            if str(target) == str(container_port) and str(published or "").isdigit():
                return int(published)
            continue
        parts = str(entry).split("/", 1)[0].split(":")
        if len(parts) >= 2 and parts[-1] == str(container_port) and parts[-2].isdigit():
            return int(parts[-2])
    return container_port


def _settings(kind: str, environment: object) -> dict[str, str]:
    if isinstance(environment, list):  # compose's ["POSTGRES_USER=x", ...]
        environment = dict(str(item).split("=", 1) for item in environment if "=" in str(item))
    if not isinstance(environment, dict):
        return {}
    settings = {}
    for field_name, names in _ENV_SETTINGS.get(kind, {}).items():
        value = next((str(environment[n]) for n in names if environment.get(n) not in (None, "")), "")
        if value and "${{" not in value:
            settings[field_name] = value
    return settings


def _service(kind: str, port: int, where: str, **settings: str) -> Service:
    return Service(
        kind, port, where, **{k: v for k, v in settings.items() if k in ("user", "password", "database", "name")}
    )


def _from_workflow(path: Path, tree: Path) -> list[Service]:
    data = _load_yaml(path)
    jobs = data.get("jobs") if isinstance(data, dict) else None
    found = []
    for job_name, job in (jobs or {}).items() if isinstance(jobs, dict) else ():
        if not isinstance(job, dict):
            continue
        matrix = (job.get("strategy") or {}).get("matrix") if isinstance(job.get("strategy"), dict) else None
        services = job.get("services")
        for name, spec in (services or {}).items() if isinstance(services, dict) else ():
            spec = {"image": spec} if isinstance(spec, str) else spec
            if not isinstance(spec, dict):
                continue
            image = _matrix_value(str(spec.get("image", "")), matrix)
            kind = _image_kind(image)
            if kind is None:
                continue
            where = f"{_relative(path, tree)}: jobs.{job_name}.services.{name} ({image})"
            found.append(
                _service(kind[0], _host_port(spec.get("ports"), kind[1]), where, **_settings(kind[0], spec.get("env")))
            )
        for env in (
            data.get("env"),
            job.get("env"),
            *(s.get("env") for s in job.get("steps") or [] if isinstance(s, dict)),
        ):
            if isinstance(env, dict):
                found += _from_text(
                    "\n".join(f"{k}={v}" for k, v in env.items()), f"{_relative(path, tree)}: jobs.{job_name} env"
                )
    return found


def _matrix_value(image: str, matrix: object) -> str:
    """``${{ matrix.db }}`` read off the job's matrix (its first value); the image itself otherwise."""
    expression = re.fullmatch(r"\$\{\{\s*matrix\.([\w-]+)\s*\}\}", image.strip())
    if not expression or not isinstance(matrix, dict):
        return image
    values = matrix.get(expression.group(1))
    values = values if isinstance(values, list) else [values]
    return next((str(v) for v in values if isinstance(v, str) and _image_kind(v)), image)


def _from_compose(path: Path, tree: Path) -> list[Service]:
    data = _load_yaml(path)
    services = data.get("services") if isinstance(data, dict) else None
    found = []
    for name, spec in (services or {}).items() if isinstance(services, dict) else ():
        if not isinstance(spec, dict) or not isinstance(spec.get("image"), str):
            continue
        kind = _image_kind(spec["image"])
        if kind is None:
            continue
        where = f"{_relative(path, tree)}: services.{name} ({spec['image']})"
        settings = {**_settings(kind[0], spec.get("environment")), "name": str(name)}
        found.append(_service(kind[0], _host_port(spec.get("ports"), kind[1]), where, **settings))
    return found


def _ini(path: Path) -> configparser.ConfigParser | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(path.read_text(encoding="utf-8", errors="replace"))
    except configparser.Error:
        return None
    return parser


def _from_tox_docker(tree: Path) -> list[Service]:
    parser = _ini(tree / "tox.ini") if (tree / "tox.ini").is_file() else None
    found = []
    for section in parser.sections() if parser else ():
        if not section.startswith("docker:"):
            continue
        kind = _image_kind(parser.get(section, "image", fallback=""))
        if kind is None:
            continue
        ports = parser.get(section, "ports", fallback="").split()
        environment = dict(
            line.split("=", 1) for line in parser.get(section, "environment", fallback="").splitlines() if "=" in line
        )
        where = f"tox.ini: [{section}] ({parser.get(section, 'image')})"
        found.append(_service(kind[0], _host_port(ports, kind[1]), where, **_settings(kind[0], environment)))
    return found


def _from_settings(tree: Path) -> list[Service]:
    """Server URLs on localhost in the test settings: tox's ``setenv`` and pytest-env's ``env``."""
    found = []
    for name in ("tox.ini", "pytest.ini", "setup.cfg"):
        parser = _ini(tree / name) if (tree / name).is_file() else None
        for section in parser.sections() if parser else ():
            for key in ("setenv", "env"):
                if parser.has_option(section, key):
                    found += _from_text(parser.get(section, key), f"{name}: [{section}] {key}")
    try:
        pyproject = tomllib.loads((tree / "pyproject.toml").read_text(errors="replace"))
    except (OSError, tomllib.TOMLDecodeError):
        pyproject = {}
    env = pyproject.get("tool", {}).get("pytest", {}).get("ini_options", {}).get("env")
    if isinstance(env, list):
        found += _from_text("\n".join(map(str, env)), "pyproject.toml: [tool.pytest.ini_options] env")
    return found


def _from_text(text: str, where: str) -> list[Service]:
    found = []
    for match in _URL.finditer(text):
        kind = SCHEMES.get(match["scheme"])
        if kind is None:
            continue
        port = int(match["port"]) if match["port"] else _DEFAULT_PORTS[kind]
        settings = {"user": match["user"] or "", "password": match["password"] or ""}
        if kind != "redis":  # redis://host/0 names a database number, not one to create
            settings["database"] = match["database"] or ""
        found.append(_service(kind, port, f"{where} ({match.group(0)})", **settings))
    return found
