"""Red team round 7 against ``benchsmith serve``: bodies that are valid in size and type but deep or wide, over the
geometry classbench fixture alone (no JVM needed to answer them)."""

from __future__ import annotations

import httpx
import pytest

from tests.helpers.serve import Server, write_tokens


@pytest.fixture(scope="module")
def geometry_server(tmp_path_factory, geometry_dataset, fixture_repos):
    folder = tmp_path_factory.mktemp("serve7")
    tokens = write_tokens(folder / "tokens.txt")
    running = Server([geometry_dataset], folder / "store", folder / "tokens.txt", fixture_repos).start()
    yield running, tokens
    running.stop()


def test_deep_and_wide_bodies_get_a_4xx_and_the_server_goes_on(geometry_server):
    server, tokens = geometry_server
    headers = {"Authorization": f"Bearer {tokens[0]}", "Content-Type": "application/json"}

    def post(content: bytes, path: str) -> httpx.Response:
        return httpx.post(f"{server.url}{path}", content=content, headers=headers, timeout=60)

    # JSON nested far past Python's recursion limit, well within --max-body
    deep = post(b"[" * 200_000 + b"]" * 200_000, "/v1/judge")
    assert 400 <= deep.status_code < 500, deep.text
    deep_object = post(b'{"a":' * 100_000 + b"1" + b"}" * 100_000, "/v1/jobs")
    assert 400 <= deep_object.status_code < 500, deep_object.text
    # many long job ids: the store looks each up
    wide = post(b'{"job_ids": [' + b",".join([b'"' + b"j" * 7000 + b'"'] * 1000) + b'], "wait": 0}', "/v1/jobs/results")
    assert wide.status_code in (200, 413, 422), wide.text
    # a number Python parses slowly (int of 4300+ digits is refused by Python 3.11's limit, as a ValueError)
    big = post(b'{"job_ids": ["a"], "wait": ' + b"9" * 100_000 + b"}", "/v1/jobs/results")
    assert 400 <= big.status_code < 500, big.text
    assert server.alive()
    assert httpx.get(f"{server.url}/v1/health").json()["status"] == "ok"
