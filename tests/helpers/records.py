"""Hand-made records: NL2Fix instances (three Ledger bugs among them) and a classbench task."""

from __future__ import annotations

import dataclasses

from benchsmith.core.schema import ClassBenchTask, NL2FixInstance, Validation, instance_id
from tests.conftest import ROOT

CLASSBENCH_GOLDEN = ROOT / "tests" / "golden" / "classbench"


def make_instance(**changes) -> NL2FixInstance:
    base = NL2FixInstance(
        instance_id=instance_id("Cli", 3),
        project="Cli",
        bug_id=3,
        report_id="CLI-1",
        report_url="https://issues.apache.org/jira/browse/CLI-1",
        issue_title="t",
        issue_description="d",
        issue_comments=["c1", "c2"],
        file_path="src/A.java",
        method_name="f",
        method_signature="A.f()",
        method_start_line=10,
        method_end_line=12,
        fixed_method_start_line=10,
        fixed_method_end_line=12,
        buggy_method="int f() { return 2; }",
        buggy_method_no_comments="int f() { return 2; }",
        fixed_method="int f() { return 1; }",
        hunks=1,
        trigger_tests=["p.ATest::testF"],
        relevant_tests=["p.ATest"],
        revision_buggy="b" * 40,
        revision_fixed="f" * 40,
        validation=Validation("reproduced", "gold passes, buggy fails"),
    )
    return dataclasses.replace(base, **changes)


def nl2fix_instance(
    instance_id: str,
    method_name: str,
    buggy: str,
    fixed: str,
    title: str = "",
    description: str = "",
    buggy_with_comments: str | None = None,
) -> NL2FixInstance:
    project, bug = instance_id.rsplit("-", 1)
    return NL2FixInstance(
        instance_id=instance_id,
        project=project,
        bug_id=int(bug),
        report_id=f"{project.upper()}-{bug}",
        report_url=f"https://issues.example.org/{project.upper()}-{bug}",
        issue_title=title,
        issue_description=description,
        issue_comments=[],
        file_path=f"src/main/java/org/example/{project}.java",
        method_name=method_name,
        method_signature=f"{project}.{method_name}()",
        method_start_line=10,
        method_end_line=20,
        fixed_method_start_line=10,
        fixed_method_end_line=21,
        buggy_method=buggy_with_comments or buggy,
        buggy_method_no_comments=buggy,
        fixed_method=fixed,
        hunks=1,
        trigger_tests=[f"org.example.{project}Test::test{bug}"],
        relevant_tests=[f"org.example.{project}Test"],
        revision_buggy="b" * 40,
        revision_fixed="f" * 40,
    )


LEDGER_BALANCE = nl2fix_instance(
    "Ledger-3",
    "balance",
    "public long balance(String account) {\n    long total = 0;\n    for (Entry entry : entries) {\n"
    "        if (entry.account().equals(account)) {\n            total -= entry.amount();\n        }\n    }\n"
    "    return total;\n}",
    "public long balance(String account) {\n    long total = 0;\n    for (Entry entry : entries) {\n"
    "        if (entry.account().equals(account)) "
    "{\n            // credits add up\n            total += entry.amount();\n"
    "        }\n    }\n    return total;\n}",
    title="balance() returns the negated sum of an account's entries",
    description="Posting 5 and then 7 to {ACCOUNT} gives a balance of -12 instead of 12.\r\n\r\n"
    'Steps:\n```java\nledger.post("cash", 5);\nledger.post("cash", 7);\nledger.balance("cash"); // -12, costs '
    "$12\n```\n\n",
)
LEDGER_POST = nl2fix_instance(
    "Ledger-1",
    "post",
    "public void post(String account, long amount) "
    '{\n    if (amount < 0) {\n        throw new IllegalArgumentException("negative");\n'
    "    }\n    entries.add(new Entry(account, amount));\n}",
    "public void post(String account, long amount) "
    '{\n    if (amount <= 0) {\n        throw new IllegalArgumentException("not positive");\n'
    "    }\n    entries.add(new Entry(account, amount));\n}",
    title="post() accepts an amount of zero",
    description="A zero posting should be refused like a negative one.",
)
LEDGER_TOTAL = nl2fix_instance(
    "Ledger-2",
    "total",
    "public long total() "
    "{\n    long sum = 0;\n    for (Entry entry : entries) {\n        sum -= entry.amount();\n    }\n    return sum;\n}",
    "public long total() "
    "{\n    long sum = 0;\n    for (Entry entry : entries) {\n        sum += entry.amount(); // add\n    }\n    return sum;\n}",
    title="total() is negative",
    description="total() of a ledger with one posting of 3 is -3.",
)


def classbench_task() -> ClassBenchTask:
    return ClassBenchTask(
        task_id="local-geometry::src/geometry/shapes.py::Polygon",
        language="python",
        repo="tests/geometry",
        commit="",
        file_path="src/geometry/shapes.py",
        class_name="Polygon",
        module="geometry.shapes",
        ground_truth_class="class Polygon:\n    pass\n",
        imports=["from typing import List"],
        detailed_metadata=(CLASSBENCH_GOLDEN / "Polygon.detailed.txt").read_text(encoding="utf-8"),
        sketchy_metadata=(CLASSBENCH_GOLDEN / "Polygon.sketchy.txt").read_text(encoding="utf-8"),
        detailed_description="Polygon is a closed shape made of at least three points.\n\nperimeter() sums the "
        "distances.",
        sketchy_description="A polygon with a perimeter and an area.",
        test_directives=["tests/test_shapes.py::test_area"],
        external_references=["geometry.shapes.distance"],
        class_tokens=120,
        paraphrased=False,
        relatives=[],
    )
