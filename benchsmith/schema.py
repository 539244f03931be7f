"""Every record benchsmith writes, and the only place Parquet columns are defined.

Each record is a dataclass; its Arrow schema is declared next to it. Exports go
through :func:`to_table`, which refuses records of the wrong type and values
that do not fit the declared columns, and reads go through :func:`read_records`,
which refuses files whose columns differ from the schema.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from benchsmith.errors import BenchsmithError

VALIDATION_STATUSES = ("reproduced", "not reproduced", "not run")
RESULT_STATUSES = ("plausible", "wrong", "uncompilable", "timeout", "error")


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


ISSUE_SCHEMA = pa.schema(
    [
        ("url", pa.string()),
        ("title", pa.string()),
        ("description", pa.string()),
        ("comments", pa.list_(pa.string())),
        ("missing_reason", pa.string()),
        ("tracker", pa.string()),
        ("status", pa.string()),
        ("author", pa.string()),
        ("created", pa.string()),
        ("updated", pa.string()),
        ("comment_authors", pa.list_(pa.string())),
        ("comment_created", pa.list_(pa.string())),
        ("fetched_at", pa.string()),
    ]
)


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


_VALIDATION_TYPE = pa.struct([("status", pa.string()), ("reason", pa.string())])

NL2FIX_SCHEMA = pa.schema(
    [
        ("instance_id", pa.string()),
        ("project", pa.string()),
        ("bug_id", pa.int32()),
        ("report_id", pa.string()),
        ("report_url", pa.string()),
        ("issue_title", pa.string()),
        ("issue_description", pa.string()),
        ("issue_comments", pa.list_(pa.string())),
        ("file_path", pa.string()),
        ("method_name", pa.string()),
        ("method_signature", pa.string()),
        ("method_start_line", pa.int32()),
        ("method_end_line", pa.int32()),
        ("fixed_method_start_line", pa.int32()),
        ("fixed_method_end_line", pa.int32()),
        ("buggy_method", pa.string()),
        ("buggy_method_no_comments", pa.string()),
        ("fixed_method", pa.string()),
        ("hunks", pa.int32()),
        ("trigger_tests", pa.list_(pa.string())),
        ("relevant_tests", pa.list_(pa.string())),
        ("revision_buggy", pa.string()),
        ("revision_fixed", pa.string()),
        ("validation", _VALIDATION_TYPE),
    ]
)

@dataclass(frozen=True)
class Candidate:
    """One model output, as a line of candidates JSONL."""

    instance_id: str
    candidate_id: str
    code: str
    model: str = ""
    strategy: str = ""
    temperature: float | None = None
    sample: int | None = None


@dataclass(frozen=True)
class Result:
    instance_id: str
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
    # is reused only under the same key (harness/evaluate.py)
    verdict_key: str = ""

    def __post_init__(self) -> None:
        if self.status not in RESULT_STATUSES:
            raise ValueError(f"result status {self.status!r} is not one of {RESULT_STATUSES}")


RESULT_SCHEMA = pa.schema(
    [
        ("instance_id", pa.string()),
        ("candidate_id", pa.string()),
        ("status", pa.string()),
        ("compiled", pa.bool_()),
        ("tests_passed", pa.int32()),
        ("tests_failed", pa.int32()),
        ("failing_tests", pa.list_(pa.string())),
        ("duplicate_of", pa.string()),
        ("seconds", pa.float64()),
        ("log_path", pa.string()),
        ("reason", pa.string()),
        ("runner", pa.string()),
        ("regression_passed", pa.bool_()),
        ("model", pa.string()),
        ("strategy", pa.string()),
        ("verdict_key", pa.string()),
    ]
)

@dataclass(frozen=True)
class ClassBenchTask:
    task_id: str
    language: str
    repo: str  # the SPEC it was built from
    commit: str
    file_path: str
    class_name: str
    module: str
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


CLASSBENCH_SCHEMA = pa.schema(
    [
        ("task_id", pa.string()),
        ("language", pa.string()),
        ("repo", pa.string()),
        ("commit", pa.string()),
        ("file_path", pa.string()),
        ("class_name", pa.string()),
        ("module", pa.string()),
        ("ground_truth_class", pa.string()),
        ("imports", pa.list_(pa.string())),
        ("detailed_metadata", pa.string()),
        ("sketchy_metadata", pa.string()),
        ("detailed_description", pa.string()),
        ("sketchy_description", pa.string()),
        ("test_directives", pa.list_(pa.string())),
        ("external_references", pa.list_(pa.string())),
        ("class_tokens", pa.int32()),
        ("paraphrased", pa.bool_()),
        ("relatives", pa.list_(pa.string())),
        ("description_backend", pa.string()),
        ("description_model", pa.string()),
        ("description_prompt_hash", pa.string()),
    ]
)


@dataclass(frozen=True)
class RankedCandidate:
    """A candidate's place in its instance's ranked list (seed 001, section 4.4): ``benchsmith rank``."""

    instance_id: str
    candidate_id: str
    similarity: float  # cosine between the embeddings of the buggy method and the candidate
    rank: int  # 1 = shown first within its instance and run (model, strategy); identical code shares a rank; -1 when pruned
    pruned: bool  # below the similarity threshold
    embedder: str  # "minilm:sentence-transformers/all-MiniLM-L6-v2", "openai:text-embedding-ada-002"


RANKED_CANDIDATE_SCHEMA = pa.schema(
    [
        ("instance_id", pa.string()),
        ("candidate_id", pa.string()),
        ("similarity", pa.float64()),
        ("rank", pa.int32()),
        ("pruned", pa.bool_()),
        ("embedder", pa.string()),
    ]
)


def task_id(repo_key: str, file_path: str, class_name: str) -> str:
    """The one place classbench task identifiers are made: ``pypi-click-8.1.7::src/click/testing.py::CliRunner``."""
    return f"{repo_key}::{file_path}::{class_name}"


SCHEMAS: dict[type, pa.Schema] = {
    NL2FixInstance: NL2FIX_SCHEMA, Result: RESULT_SCHEMA, ClassBenchTask: CLASSBENCH_SCHEMA, IssueText: ISSUE_SCHEMA,
    RankedCandidate: RANKED_CANDIDATE_SCHEMA,
}  # fmt: skip


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


def dataset_kind(path: Path) -> str:
    """``"classbench"`` or ``"nl2fix"``, from a dataset file's columns; an unreadable file is an error naming it."""
    try:
        names = pq.read_schema(path).names
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such dataset file") from None
    except (pa.ArrowInvalid, OSError) as exc:
        raise BenchsmithError(f"{path}: not a readable dataset ({exc})") from None
    if names == CLASSBENCH_SCHEMA.names:
        return "classbench"
    if names == NL2FIX_SCHEMA.names:
        return "nl2fix"
    raise BenchsmithError(f"{path}: neither an NL2Fix nor a classbench dataset (columns {names})")


def instance_id(project: str, bug_id: int) -> str:
    """The one place NL2Fix instance identifiers are made: ``Cli-1``."""
    return f"{project}-{bug_id}"


def to_table(records: list, record_type: type) -> pa.Table:
    """Convert *records* to an Arrow table with *record_type*'s declared schema."""
    schema = SCHEMAS[record_type]
    _check_schema_matches_dataclass(record_type, schema)
    rows = []
    for record in records:
        if not isinstance(record, record_type):
            raise BenchsmithError(f"export: expected {record_type.__name__} records, got {type(record).__name__}")
        rows.append(dataclasses.asdict(record))
    try:
        return pa.Table.from_pylist(rows, schema=schema)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise BenchsmithError(f"export: a {record_type.__name__} does not fit its schema: {exc}") from exc


def read_records(path: Path, record_type: type[R]) -> list[R]:
    """Read a Parquet file written by :func:`to_table` back into records."""
    schema = SCHEMAS[record_type]
    try:
        table = pq.read_table(path)
    except FileNotFoundError:
        raise BenchsmithError(f"{path}: no such dataset file") from None
    except pa.ArrowInvalid as exc:
        raise BenchsmithError(f"{path}: not a readable Parquet file: {exc}") from exc
    if table.schema.names != schema.names:
        raise BenchsmithError(f"{path}: columns {table.schema.names} are not those of {record_type.__name__}")
    records = []
    for row in table.to_pylist():
        if record_type is NL2FixInstance:
            row["validation"] = Validation(**row["validation"])
        records.append(record_type(**row))
    return records


def _check_schema_matches_dataclass(record_type: type, schema: pa.Schema) -> None:
    names = [f.name for f in dataclasses.fields(record_type)]
    if names != schema.names:
        raise AssertionError(f"schema of {record_type.__name__} differs from its dataclass: {names} vs {schema.names}")
