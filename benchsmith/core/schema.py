"""Every record benchsmith writes, and the only place Parquet columns are defined.

Each record is declared once, as a dataclass; its Arrow schema is derived from
the field types (:func:`arrow_schema`). Exports go through :func:`to_table`,
which refuses records of the wrong type and values that do not fit, and stamps
the table with ``benchsmith`` metadata (:class:`Stamp`: the record kind, the
schema version, the tool version, a hash of the content and, for a benchmark's
records, the benchmark's name). Reads go through :func:`read_records`, which
refuses files whose columns or stamp are another record's.

An *instance* is the unit a benchmark scores: an NL2Fix bug (``Cli-1``) or a
classbench task (its ``task_id``); candidates and results name it ``instance_id``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import types
import typing
from collections.abc import Iterator
from dataclasses import MISSING, dataclass, field
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from benchsmith import __version__
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.verdict import Status

VALIDATION_STATUSES = ("reproduced", "not reproduced", "not run")
RESULT_STATUSES = tuple(status.value for status in Status)  # the Result.status column's values


@dataclass(frozen=True)
class Validation:
    status: str = "not run"  # one of VALIDATION_STATUSES
    reason: str = ""

    def __post_init__(self) -> None:
        if self.status not in VALIDATION_STATUSES:
            raise ValueError(f"validation status {self.status!r} is not one of {VALIDATION_STATUSES}")


@dataclass(frozen=True)
class IssueText:
    """An issue report as a tracker gave it (markup turned into text; code blocks kept fenced)."""

    url: str
    title: str = ""
    description: str = ""
    comments: list[str] = field(default_factory=list)
    missing_reason: str = ""  # set when the tracker has no such issue (404, private, ...)
    tracker: str = ""  # "jira", "github", "sourceforge", "googlecode"
    status: str = ""  # the tracker's own status name ("Closed", "open", "Fixed", ...)
    author: str = ""
    created: str = ""  # ISO 8601, UTC where the tracker says so
    updated: str = ""
    comment_authors: list[str] = field(default_factory=list)  # parallel to comments
    comment_created: list[str] = field(default_factory=list)  # parallel to comments
    fetched_at: str = ""  # when the tracker answered (kept across cache hits), ISO 8601 UTC


@dataclass(frozen=True)
class ExtraChange:
    """A change of a lenient NL2Fix instance's fix outside its one method, which a single-method candidate cannot make.

    The fixed file, where the harness inserts candidates, already carries it.
    """

    kind: str  # one of EXTRA_CHANGE_KINDS
    # "Outer.Inner.field" (all the variables of one declaration, comma-separated), a method's signature, a type path
    name: str
    fixed_lines: list[
        int
    ]  # the changed lines, numbered in the fixed file ([] for a declaration only the buggy file has)
    buggy_lines: list[int]  # the changed lines, numbered in the buggy file ([] for one only the fixed file has)

    def __post_init__(self) -> None:
        if self.kind not in EXTRA_CHANGE_KINDS:
            raise ValueError(f"extra change kind {self.kind!r} is not one of {EXTRA_CHANGE_KINDS}")


# "field": a field declaration; "method added"/"method removed": a method or constructor only the fixed/buggy file has;
# "type": a type's other lines (its header, initializer blocks, enum constants).
EXTRA_CHANGE_KINDS = ("field", "method added", "method removed", "type")


@dataclass(frozen=True)
class NL2FixInstance:
    instance_id: str
    project: str
    bug_id: int
    report_id: str
    report_url: str
    issue_title: str
    issue_description: str
    issue_comments: list[str]
    file_path: str
    method_name: str
    method_signature: str
    method_start_line: int  # in the buggy file
    method_end_line: int
    fixed_method_start_line: int  # in the fixed file, where the harness inserts candidates
    fixed_method_end_line: int
    buggy_method: str
    buggy_method_no_comments: str
    fixed_method: str
    hunks: int
    trigger_tests: list[str]
    relevant_tests: list[str]
    revision_buggy: str
    revision_fixed: str
    validation: Validation = Validation()
    # The fix's changes besides the method (lenient selection only; [] for every strict instance): see ExtraChange.
    extra_changes: list[ExtraChange] = field(default_factory=list)
    # The fixed revision's commit date (ISO 8601): a mined project's commit-dates.csv, else the committer date of the
    # fixed revision where the repository at hand holds it (Defects4J's own projects); "" when neither says.
    fix_date: str = ""


@dataclass(frozen=True)
class Candidate:
    """One model output, as a line of candidates JSONL."""

    instance_id: str  # the benchmark instance it answers: an NL2Fix bug id or a classbench task id
    candidate_id: str
    code: str
    model: str = ""
    strategy: str = ""
    temperature: float | None = None
    sample: int | None = None
    iteration: int | None = None  # an agent's attempt (1, 2, ...): the report's pass@1 per iteration; None otherwise


@dataclass(frozen=True)
class Result:
    instance_id: str  # as in Candidate
    candidate_id: str
    status: str  # one of RESULT_STATUSES
    compiled: bool
    tests_passed: int
    tests_failed: int
    failing_tests: list[str]
    duplicate_of: str  # the candidate whose verdict this one shares; "" when run itself
    seconds: float
    log_path: str
    reason: str = ""
    runner: str = ""  # "fast" (warm JVM) or "plain"
    regression_passed: bool | None = None  # relevant tests other than the trigger tests; None when not run
    model: str = ""
    strategy: str = ""
    # sha256 of what decided the verdict (the code, the dataset row, the harness, the options): a stored verdict
    # is reused only under the same key (benchsmith/scoring/evaluate.py)
    verdict_key: str = ""
    project: str = ""  # the instance's project (NL2Fix) or repository (classbench), from its benchmark
    iteration: int | None = None  # as in Candidate
    node: str = ""  # the machine (host, or Ray node) that judged it
    # The escape and introspection primitives its code uses that the ground truth does not
    # (benchsmith.runners.sandbox.screen),
    # comma-separated: "gc,frames". A tripwire: ``report`` counts plausible verdicts that carry one apart.
    suspicious: str = ""

    def __post_init__(self) -> None:
        if self.status not in RESULT_STATUSES:
            raise ValueError(f"result status {self.status!r} is not one of {RESULT_STATUSES}")


@dataclass(frozen=True)
class Service:
    """A server a repository's tests expect on loopback (its CI's ``services:``, a compose file, its test settings),
    started from Debian's package inside each run's own network namespace (``benchsmith.runners.sandbox.services``)."""

    kind: str  # "redis", "postgresql", "mysql", "memcached"
    port: int  # where the tests expect it, on 127.0.0.1
    declared_in: str  # "file: what", e.g. ".github/workflows/ci.yml: services.redis (redis:7)"
    user: str = ""  # postgresql/mysql: the role the tests log in as ("" for the kind's default)
    password: str = ""  # accepted as given: the server trusts every loopback login
    database: str = ""  # created empty before the tests start
    name: str = ""  # its name in the compose file that declares it ("redis"), which `docker compose up` is asked for


@dataclass(frozen=True)
class TaskEnvironment:
    """How the environment a classbench task was built in was resolved, so that an evaluation a year later, here or on
    another machine, installs the same set: the lock itself, and what made it. Empty in datasets built before
    benchsmith recorded it; their evaluation resolves as of the repository's own date."""

    resolve: str = ""  # "as-of" (packages uploaded before as_of) or "latest" (the index of the build's day)
    as_of: str = ""  # RFC 3339, UTC: "2023-05-22T15:07:41Z"; "" with resolve "latest"
    python: str = ""  # the interpreter the lock was resolved for: "3.11.9"
    lock: str = ""  # the lock's text (``uv pip compile`` output): the exact set of distributions and versions
    lock_sha256: str = ""  # of the lock's text
    # The services every run of the task's tests gets, each fresh (its own empty data folder), as the build's had
    services: list[Service] = field(default_factory=list)
    # Which implementation the tests ran: "" the one the project ships (its compiled extensions built where they
    # declare some), "pure-python" its fallback (compiled modules not imported, the fallback switches it reads set)
    implementation: str = ""

    def __hash__(self) -> int:  # tasks are grouped by their environment; a list field is no key
        return hash(
            tuple(tuple(v) if isinstance(v, list) else v for v in dataclasses.astuple(self, tuple_factory=tuple))
        )


@dataclass(frozen=True)
class ClassBenchTask:
    task_id: str
    language: str
    repo: str  # the SPEC it was built from
    commit: str
    file_path: str
    class_name: str
    module: str  # python: the dotted module; java: the package
    ground_truth_class: str
    imports: list[str]  # import statements removed with the class (only it used them)
    detailed_metadata: str
    sketchy_metadata: str
    detailed_description: str
    sketchy_description: str
    test_directives: list[str]  # EXPECTED_TO_PASS: pytest node ids
    external_references: list[str]
    class_tokens: int
    paraphrased: bool
    relatives: list[str]
    # Who wrote the descriptions: "template" (offline renderer of the metadata), "openai", "replay"; "" until described.
    description_backend: str = ""
    description_model: str = ""
    description_prompt_hash: str = ""  # sha256 of the prompt templates used, so a changed prompt re-describes
    # How to set the task's repository up, as JSON text: for a task imported from the published RepoClassBench
    # files, the entry's own details (its task id, repo_metadata and the rest of evaluation_metadata); "" for built
    # tasks.
    setup: str = ""
    environment: TaskEnvironment = field(default_factory=TaskEnvironment)  # the build's resolution, for eval


@dataclass(frozen=True)
class RankedCandidate:
    """A candidate's place in its instance's ranked list (Defects4J-NL2Fix paper, section 4.4): ``benchsmith rank``."""

    instance_id: str
    candidate_id: str
    similarity: float  # cosine between the embeddings of the buggy method and the candidate
    # 1 = shown first within its instance and run (model, strategy); identical code shares a rank; -1 when pruned
    rank: int
    pruned: bool  # below the similarity threshold
    embedder: str  # "minilm:sentence-transformers/all-MiniLM-L6-v2", "openai:text-embedding-ada-002"


@dataclass
class PythonBuildFacts:
    """What a Python classbench build records of its repository: its environment and its suite's run."""

    license: str
    environment: dict[str, str]  # distribution -> version installed
    # how the environment was resolved (uv, as of, Python, lock digest) and what it lost: "dropped" (declarations that
    # did not resolve), "not_built" (distributions that did not build, each with its first compiler line, the system
    # file missing and the Debian package providing it), "system_packages" (installed with --system-deps),
    # "unimportable" (installed, but raising on import)
    resolution: dict
    suite_run: dict  # collected, runs of pytest, units that died, tests run again after an exhausted resource
    not_collected: list
    # tests that need a module the environment lacks: {"tests", "modules_not_collected", "by_module": {module:
    # {"tests", "modules_not_collected": [files], "left_out": the distribution and why}}}; never failures
    not_runnable: dict = field(default_factory=dict)
    # The services the tests expect ("detected", each with where it is declared), those started for every run
    # ("started"), and why none were ("not_started")
    services: dict = field(default_factory=dict)


@dataclass
class JavaBuildFacts:
    """What a Java classbench build records of its module: the class path, the release and what was left out."""

    module: str
    classpath_source: str
    release: str
    test_runtime: str
    libraries: list[str]
    excluded_test_classes: list[str]
    excluded_main_classes: list[str]
    missing_artifacts: list[str]
    missing_parent_pom: str
    missing_bom_imports: list[str]
    sibling_modules: list[str]
    generated_files: list[str]
    # group:artifact:version[:classifier] of each jar Maven resolved (the central class path), as each task's setup
    # records them; and how the class path was had: online or offline, the sources tried before it and why not
    resolved_coordinates: list[str] = field(default_factory=list)
    classpath_notes: list[str] = field(default_factory=list)
    # The tests the suite run reported: {"reported", "source found", "source not found"} → tests (a card older than
    # the report's mapping has neither)
    suite_tests: dict[str, int] = field(default_factory=dict)
    tests_without_source: dict[str, str] = field(default_factory=dict)  # test as reported → why its body is not found
    compiler: str = ""  # the javac that compiled the module (a JDK newer than PATH's for a newer release)


@dataclass
class BuildCard:
    """A classbench build's card, ``<out>.card.json``, in both languages: what was built and every class left out with
    its reason; *facts* hold what only one language records. :meth:`to_dict` writes it, flat, and
    :meth:`from_dict` reads it back."""

    dataset: str  # "RepoClassBench (python)", "RepoClassBench (java)"
    tool: str
    built_at: str
    repo: str
    commit: str
    facts: PythonBuildFacts | JavaBuildFacts
    test_suite: dict[str, int]  # outcome -> tests
    classes: int
    tasks: int
    directives: int
    rejection_reasons: dict[str, int]
    rejections: list[dict]
    solution_checks: dict[str, dict]
    no_relatives: bool
    seconds: float
    paraphrase: dict = field(default_factory=lambda: {"run": False})

    def to_dict(self) -> dict:
        flat = {name.name: getattr(self, name.name) for name in dataclasses.fields(self) if name.name != "facts"}
        head = {key: flat.pop(key) for key in ("dataset", "tool", "built_at", "repo", "commit")}
        return {**head, **dataclasses.asdict(self.facts), **flat}

    @classmethod
    def from_dict(cls, card: dict, where: str = "card") -> BuildCard:
        kind = JavaBuildFacts if "classpath_source" in card else PythonBuildFacts
        wanted = [  # fields added later have defaults: a card written before them still reads
            f.name
            for f in (*dataclasses.fields(kind), *dataclasses.fields(cls))
            if f.name not in ("facts", "paraphrase") and f.default is MISSING and f.default_factory is MISSING
        ]
        defaulted = {
            f.name
            for f in dataclasses.fields(kind)
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
        }
        missing = [name for name in wanted if name not in card and name not in defaulted]
        if missing:
            raise BenchsmithError(f"{where}: not a classbench build card (no {', '.join(missing)})")
        facts = kind(**{f.name: card[f.name] for f in dataclasses.fields(kind) if f.name in card})
        common = {f.name: card[f.name] for f in dataclasses.fields(cls) if f.name != "facts" and f.name in card}
        return cls(facts=facts, **common)

    @classmethod
    def read(cls, path: Path) -> BuildCard:
        """The card a build wrote at *path* (``<dataset>.card.json``)."""
        try:
            return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")), str(path))
        except FileNotFoundError:
            raise BenchsmithError(f"{path}: no such card") from None
        except json.JSONDecodeError as exc:
            raise BenchsmithError(f"{path}: not JSON: {exc}") from None


def task_id(repo_key: str, file_path: str, class_name: str) -> str:
    """The one place classbench task identifiers are made: ``pypi-click-8.1.7::src/click/testing.py::CliRunner``."""
    return f"{repo_key}::{file_path}::{class_name}"


def json_objects(path: Path, what: str) -> Iterator[tuple[str, dict]]:
    """The objects of a JSON Lines file, each with ``path:line`` for messages; blank lines are skipped.

    *what* names the file in errors ("candidates", "replay"): a missing or
    unreadable file, a line that is not JSON or not an object.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such {what} file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BenchsmithError(f"{path}: cannot read {what} file: {exc}") from None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise BenchsmithError(f"{where}: not JSON: {exc}") from None
        if not isinstance(row, dict):
            raise BenchsmithError(f"{where}: expected a JSON object")
        yield where, row


def read_candidates(path: Path) -> list[Candidate]:
    """Candidates JSONL; a malformed line is an error naming the file and line."""
    names = {f.name for f in dataclasses.fields(Candidate)}
    candidates = []
    for where, row in json_objects(path, "candidates"):
        missing = [k for k in ("instance_id", "candidate_id", "code") if not isinstance(row.get(k), str)]
        if missing:
            raise BenchsmithError(f"{where}: missing or non-string {', '.join(missing)}")
        candidates.append(Candidate(**{k: v for k, v in row.items() if k in names}))
    return candidates


R = TypeVar("R")


def instance_id(project: str, bug_id: int) -> str:
    """The one place NL2Fix instance identifiers are made: ``Cli-1``."""
    return f"{project}-{bug_id}"


# 1: the first wave's files, unstamped. 2: stamped; Result gained ``project``.
# 3: NL2FixInstance gained ``extra_changes`` (the lenient selection's near misses).
# 4: Result gained ``iteration`` (an agent's attempt).
# 5: Result gained ``node`` (the machine that judged it).
# 6: ClassBenchTask gained ``setup`` (a published task's setup details).
# 7: ClassBenchTask gained ``environment`` (the lock and the as-of date its environment was resolved with).
# 8: Result gained ``suspicious``. 9: TaskEnvironment gained ``services`` and ``implementation``.
SCHEMA_VERSION = 9
STAMP_KEY = b"benchsmith"

_ARROW_TYPES: dict[type, pa.DataType] = {str: pa.string(), int: pa.int32(), float: pa.float64(), bool: pa.bool_()}


@functools.cache
def arrow_schema(record_type: type) -> pa.Schema:
    """The Arrow schema of a record dataclass, derived from its field types, in field order."""
    return pa.schema(
        [
            (name, _arrow_type(kind, f"{record_type.__name__}.{name}"))
            for name, kind in _field_types(record_type).items()
        ]
    )


@functools.cache  # read_records asks once per row: get_type_hints re-evaluates every annotation each time
def _field_types(record_type: type) -> dict[str, object]:
    hints = typing.get_type_hints(record_type)
    return {f.name: hints[f.name] for f in dataclasses.fields(record_type)}


def _arrow_type(kind: object, where: str) -> pa.DataType:
    if kind in _ARROW_TYPES:
        return _ARROW_TYPES[kind]
    arguments = typing.get_args(kind)
    if isinstance(kind, types.UnionType) and len(arguments) == 2 and type(None) in arguments:
        return _arrow_type(next(a for a in arguments if a is not type(None)), where)  # nullable, as every column
    if typing.get_origin(kind) is list and len(arguments) == 1:
        return pa.list_(_arrow_type(arguments[0], where))
    if dataclasses.is_dataclass(kind):
        return pa.struct(list(arrow_schema(kind)))
    raise TypeError(f"{where}: no Arrow type for {kind!r}")


@dataclass(frozen=True)
class Stamp:
    """The ``benchsmith`` metadata of every Parquet file benchsmith writes."""

    record: str  # the record dataclass's name: "NL2FixInstance", "Result", ...
    schema_version: int
    tool_version: str
    content_sha256: str  # of the rows, as canonical JSON: equal content, equal hash
    benchmark: str = ""  # the benchmark the records belong to ("nl2fix", "classbench"); "" for others

    def encode(self) -> bytes:
        return json.dumps(dataclasses.asdict(self), sort_keys=True).encode()


def content_hash(rows: list[dict]) -> str:
    return hashlib.sha256(json.dumps(rows, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def to_table(records: list, record_type: type, benchmark: str = "") -> pa.Table:
    """*records* as an Arrow table with *record_type*'s derived schema, a :class:`Stamp` and the Hugging Face
    features it declares (:func:`hf_metadata`)."""

    rows = []
    for record in records:
        if not isinstance(record, record_type):
            raise BenchsmithError(f"export: expected {record_type.__name__} records, got {type(record).__name__}")
        rows.append(dataclasses.asdict(record))
    stamp = Stamp(record_type.__name__, SCHEMA_VERSION, __version__, content_hash(rows), benchmark)
    metadata = {STAMP_KEY: stamp.encode(), HF_METADATA_KEY: hf_metadata(record_type)}
    schema = arrow_schema(record_type).with_metadata(metadata)
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise BenchsmithError(f"export: a {record_type.__name__} does not fit its schema: {exc}") from exc


def read_stamp(path: Path) -> Stamp | None:
    """The stamp of a Parquet file; None for a file benchsmith did not stamp (or an older benchsmith wrote)."""
    try:
        metadata = pq.read_schema(path).metadata or {}
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such file") from None
    except (pa.ArrowInvalid, OSError) as exc:
        raise BenchsmithError(f"{path}: not a readable Parquet file ({exc})") from None
    if STAMP_KEY not in metadata:
        return None
    try:
        return Stamp(**json.loads(metadata[STAMP_KEY]))
    except (ValueError, TypeError) as exc:
        raise BenchsmithError(f"{path}: unreadable benchsmith metadata ({exc})") from None


def read_records(path: Path, record_type: type[R]) -> list[R]:
    """Read a Parquet file written by :func:`to_table` back into records."""
    stamp = read_stamp(path)
    if stamp is not None and stamp.record != record_type.__name__:
        raise BenchsmithError(f"{path}: holds {stamp.record} records, not {record_type.__name__}")
    table = pq.read_table(path)
    names = arrow_schema(record_type).names
    # A file an older benchsmith wrote lacks the columns added since; those with a default read as it.
    defaulted = {
        f.name
        for f in dataclasses.fields(record_type)
        if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
    }
    if [n for n in names if n in table.schema.names] != table.schema.names or set(names) - set(
        table.schema.names
    ) - defaulted:
        raise BenchsmithError(f"{path}: columns {table.schema.names} are not those of {record_type.__name__}")
    return [_record(record_type, row) for row in table.to_pylist()]


def _record(record_type: type[R], row: dict) -> R:
    for name, kind in _field_types(record_type).items():
        if dataclasses.is_dataclass(kind) and isinstance(row.get(name), dict):
            row[name] = _record(kind, row[name])
        elif typing.get_origin(kind) is list and isinstance(row.get(name), list):
            (item,) = typing.get_args(kind)
            if dataclasses.is_dataclass(item):
                row[name] = [_record(item, value) if isinstance(value, dict) else value for value in row[name]]
    return record_type(**row)


def record_from_dict(record_type: type[R], row: dict) -> R:
    """A record from ``dataclasses.asdict`` output (a cache entry, a Parquet row), nested records rebuilt."""
    return _record(record_type, dict(row))


# --- Hugging Face ``datasets`` features ------------------------------------------------------------------------------
# ``datasets`` reads a Parquet file's features from the schema metadata key ``huggingface``
# (``{"info": {"features": Features.to_dict()}}``) and a dataset card's from ``dataset_info.features`` (the
# ``Features._to_yaml_list()`` form). Both are generated here from the derived Arrow schema, so benchsmith needs no
# ``datasets`` at run time; tests/test_hf_features.py checks them against the real package for every record type.

HF_METADATA_KEY = b"huggingface"

_HF_DTYPES: dict[pa.DataType, str] = {
    pa.string(): "string",
    pa.int32(): "int32",
    pa.float64(): "float64",
    pa.bool_(): "bool",
}


def hf_feature(arrow_type: pa.DataType) -> dict:
    """One column's feature as ``datasets.Features.to_dict()`` writes it (``datasets`` 4 or newer: ``List``)."""
    if pa.types.is_struct(arrow_type):
        return {f.name: hf_feature(f.type) for f in arrow_type}
    if pa.types.is_list(arrow_type):
        return {"feature": hf_feature(arrow_type.value_type), "_type": "List"}
    if arrow_type in _HF_DTYPES:
        return {"dtype": _HF_DTYPES[arrow_type], "_type": "Value"}
    raise TypeError(f"no Hugging Face feature for the Arrow type {arrow_type}")


def hf_features(record_type: type) -> dict:
    """The ``datasets`` features of a record's columns, as ``Features.to_dict()``."""
    return {f.name: hf_feature(f.type) for f in arrow_schema(record_type)}


def hf_metadata(record_type: type) -> bytes:
    """The value of the ``huggingface`` Parquet metadata key that declares *record_type*'s features."""
    return json.dumps({"info": {"features": hf_features(record_type)}}).encode()


def hf_yaml_features(record_type: type) -> list[dict]:
    """The features as a dataset card's ``dataset_info.features`` lists them (``Features._to_yaml_list()``)."""
    return [{"name": f.name, **_hf_yaml(f.type)} for f in arrow_schema(record_type)]


def _hf_yaml(arrow_type: pa.DataType) -> dict:
    if pa.types.is_struct(arrow_type):
        return {"struct": [{"name": f.name, **_hf_yaml(f.type)} for f in arrow_type]}
    if pa.types.is_list(arrow_type):
        inner = _hf_yaml(arrow_type.value_type)
        return {"list": inner["dtype"] if "dtype" in inner else inner.get("struct", inner)}
    return {"dtype": hf_feature(arrow_type)["dtype"]}
