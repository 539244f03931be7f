"""``benchsmith nl2fix build`` fills the issue columns through the scrapers, and counts what is missing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from benchsmith.core.schema import NL2FixInstance, read_records
from tests.conftest import FIXTURE_D4J
from tests.helpers.trackers import github_issue_path, json_reply, serve_jira

pytestmark = pytest.mark.timeout(120)

ROOT = Path(__file__).resolve().parents[2]


def build(out: Path, repos: Path) -> subprocess.CompletedProcess:
    command = [
        sys.executable,
        "-m",
        "benchsmith.cli",
        "nl2fix",
        "build",
        "--defects4j",
        str(FIXTURE_D4J),
        "--repos",
        str(repos),
        "--projects",
        "Ledger",
        "--workers",
        "1",
        "--out",
        str(out),
    ]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=100)


def jira_issue(key: str, summary: str, description: str, comments: list[str]) -> dict:
    return {
        "key": key,
        "fields": {
            "summary": summary,
            "description": description,
            "status": {"name": "Closed"},
            "comment": {
                "comments": [{"body": body, "author": {"displayName": "dev"}} for body in comments],
                "total": len(comments),
                "startAt": 0,
                "maxResults": len(comments),
            },
        },
    }


def github_issue(server, number: int, title: str, body: str) -> dict:
    url = f"{server.base}{github_issue_path('benchsmith', 'ledger', number)}"
    return {
        "url": url,
        "number": number,
        "title": title,
        "body": body,
        "state": "closed",
        "comments": 0,
        "user": {"login": "reporter"},
        "created_at": "2020-01-01T00:00:00Z",
        "updated_at": "2020-01-02T00:00:00Z",
    }


def test_the_build_fills_issue_columns_and_a_rebuild_sends_no_request(trackers, tmp_path, fixture_repos):
    # Selected Ledger bugs: 1, 3, 9 on Jira; 2, 8, 10 on GitHub. Jira's LEDGER-9 is gone, GitHub's #10 deleted.
    refunds = jira_issue(
        "LEDGER-1", "Balance ignores refunds", "{code}\nledger.refund(5);\n{code}", ["Confirmed", "Fixed"]
    )
    serve_jira(trackers, "LEDGER-1", refunds)
    serve_jira(trackers, "LEDGER-3", jira_issue("LEDGER-3", "Rounding *error*", "Off by one cent.", []))
    # Ledger-7 is a near miss (its fix adds a helper method): the lenient rule, the default, keeps it.
    serve_jira(
        trackers,
        "LEDGER-7",
        jira_issue("LEDGER-7", "Self transfers", "A transfer to the same account moves money.", []),
    )
    trackers.add("/jira/rest/api/2/issue/LEDGER-9", json_reply({"errorMessages": ["Issue Does Not Exist"]}, 404))
    for number, title in ((2, "Negative amounts accepted"), (8, "Report header wrong")):
        trackers.add(
            github_issue_path("benchsmith", "ledger", number),
            json_reply(github_issue(trackers, number, title, f"**{title}** in `Ledger`")),
        )
    trackers.add(github_issue_path("benchsmith", "ledger", 10), json_reply({"message": "This issue was deleted"}, 410))

    out = tmp_path / "nl2fix.parquet"
    completed = build(out, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    instances = {i.instance_id: i for i in read_records(out, NL2FixInstance)}
    assert instances["Ledger-1"].issue_title == "Balance ignores refunds"
    assert instances["Ledger-1"].issue_description == "```\nledger.refund(5);\n```"
    assert instances["Ledger-1"].issue_comments == ["Confirmed", "Fixed"]
    assert (instances["Ledger-3"].issue_title, instances["Ledger-3"].issue_description) == (
        "Rounding *error*",
        "Off by one cent.",
    )
    assert instances["Ledger-2"].issue_description == "Negative amounts accepted in `Ledger`"
    assert instances["Ledger-9"].issue_title == "" and instances["Ledger-10"].issue_title == ""
    card = json.loads(out.with_suffix(".card.json").read_text())
    assert instances["Ledger-7"].issue_title == "Self transfers"
    assert card["issue_text"] == {
        "requested": True,
        "filled": 5,
        "missing": {"not found (HTTP 404)": 1, "deleted (HTTP 410)": 1},
    }
    assert (
        "Filled for 5 instances; missing: {'not found (HTTP 404)': 1, 'deleted (HTTP 410)': 1}."
        in out.with_suffix(".card.md").read_text()
    )

    sent = trackers.hits()
    assert sent == 7  # one request per instance: the seven selected bugs
    completed = build(tmp_path / "again.parquet", fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert trackers.hits() == sent
    assert read_records(tmp_path / "again.parquet", NL2FixInstance) == list(instances.values())

    # A corrupt cache entry is an error naming it, not an issue quietly counted as missing.
    body = next(Path(os.environ["BENCHSMITH_CACHE"], "issues").rglob("*.body"))
    body.write_bytes(b"garbage")
    completed = build(tmp_path / "third.parquet", fixture_repos)
    assert completed.returncode == 2
    assert f"benchsmith: error: {body.with_suffix('.json')}: corrupt cache entry" in completed.stderr
    assert not (tmp_path / "third.parquet").exists() and trackers.hits() == sent
