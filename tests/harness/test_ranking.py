"""Embedding ranking (Defects4J-NL2Fix paper, 4.4): threshold, median, tie-break, duplicates, the real MiniLM offline,
`benchsmith rank`."""

import json
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from benchsmith.cli import main
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import Candidate, RankedCandidate, read_records
from benchsmith.generation.models import embeddings
from benchsmith.generation.models.embeddings import EmbeddingCache, MiniLMEmbedder, embed_all
from benchsmith.scoring.ranking import cosine_similarities, order_group, parse_threshold, rank, resolve_threshold
from tests.helpers.cli import eval_cli

# --- ordering, on given similarities -------------------------------------------------------------------------------


def ranks(candidates: dict[str, tuple[float, str]], threshold: float) -> dict[str, int]:
    group = [Candidate("X-1", cid, code) for cid, (_, code) in candidates.items()]
    records = order_group(group, {cid: s for cid, (s, _) in candidates.items()}, threshold, "hand")
    assert [r.candidate_id for r in records] == list(candidates)  # the input's order is kept
    assert all(r.pruned == (r.rank == -1) for r in records)
    return {r.candidate_id: r.rank for r in records}


def test_threshold_prunes_below_and_keeps_equal():
    got = ranks({"low": (0.9499, "a"), "equal": (0.95, "b"), "high": (0.99, "c"), "copy": (1.0, "d")}, 0.95)
    assert got == {"low": -1, "equal": 1, "high": 2, "copy": 3}  # lowest similarity first, the buggy copy last


def test_ties_go_to_the_smaller_candidate_id_whatever_the_input_order():
    tied = {"s-7": (0.97, "x = 7;"), "s-10": (0.97, "x = 10;"), "s-2": (0.96, "x = 2;")}
    assert ranks(tied, 0.95) == {"s-2": 1, "s-10": 2, "s-7": 3}  # "s-10" < "s-7" as strings
    assert ranks(dict(reversed(tied.items())), 0.95) == {"s-7": 3, "s-10": 2, "s-2": 1}


def test_identical_code_up_to_white_space_shares_one_rank():
    got = ranks(
        {
            "a": (0.96, "int f() {\n    return 1;\n}"),
            "b": (0.97, "int f() { return 2; }"),
            "c": (0.961, "int f() {  return 1; }"),  # a again, reformatted: shown once, at a's place
            "d": (0.98, "int f() { return  1 ; }"),  # a space inside the line is a different text
            "e": (0.90, "int f() { return 2; }"),  # b again but pruned: pruning looks at its own similarity
        },
        0.95,
    )
    assert got == {"a": 1, "b": 2, "c": 1, "d": 3, "e": -1}


def test_median_threshold_and_parsing():
    assert resolve_threshold("median", [0.5, 0.9, 0.7]) == 0.7
    assert resolve_threshold("median", [0.5, 0.9, 0.7, 0.8]) == pytest.approx(0.75)
    assert resolve_threshold(0.95, [0.1]) == 0.95
    assert parse_threshold("median") == "median" and parse_threshold("0.9") == 0.9
    for bad in ("1.5", "high", "nan"):
        with pytest.raises(BenchsmithError, match="--threshold"):
            parse_threshold(bad)
    with pytest.raises(BenchsmithError, match="no candidates"):
        resolve_threshold("median", [])


def test_cosine_similarities():
    got = cosine_similarities(np.array([1.0, 0.0]), np.array([[2.0, 0.0], [0.0, 3.0], [-1.0, -1.0], [1.0, 1.0]]))
    assert got == pytest.approx([1.0, 0.0, -(2**-0.5), 2**-0.5])
    with pytest.raises(BenchsmithError, match="zero vector"):
        cosine_similarities(np.array([1.0, 0.0]), np.zeros((1, 2)))


# --- the real MiniLM, offline ---------------------------------------------------------------------------------------

PAD = """public static String pad(long number, int width) {
    String digits = Long.toString(number);
    return repeat('0', width - digits.length()) + digits;
}"""
PAD_EDITED = PAD.replace("width - digits", "width + digits")
UNRELATED = """private Map<String, Integer> countWords(List<String> lines) {
    Map<String, Integer> counts = new HashMap<>();
    for (String line : lines) {
        for (String word : line.split(" ")) {
            counts.merge(word, 1, Integer::sum);
        }
    }
    return counts;
}"""
LONG = (
    "public void configure(Settings settings) {\n"
    + "".join(f'    settings.register("option{i}", DEFAULT_VALUE_{i}, Mode.READ_WRITE);\n' for i in range(40))
    + "    settings.freeze();\n}"
)


@pytest.fixture(scope="session")
def minilm():
    """The real model, loaded once per session while every outgoing connection is refused: loading needs no network."""
    real_connect = socket.socket.connect

    def refuse(sock, address):
        raise OSError(f"the embedder tried the network: {address}")

    socket.socket.connect = refuse
    try:
        embedder = MiniLMEmbedder()
        embedder.embed(["warm up"])
    finally:
        socket.socket.connect = real_connect
    return embedder


def cosine(a, b) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_similarity_of_java_methods(minilm):
    pad, same, edited, unrelated = minilm.embed([PAD, PAD, PAD_EDITED, UNRELATED])
    assert cosine(pad, same) == pytest.approx(1.0, abs=1e-6)
    assert len(pad) == 384
    one_token = cosine(pad, edited)
    assert 0.9 < one_token < 1.0 - 1e-4
    assert cosine(pad, unrelated) < one_token - 0.3


# sentence-transformers 6.2.0 on torch 2.13.0, CPU, normalize_embeddings=True: [PAD, UNRELATED, LONG, LONG edited
# past 256 word pieces], each truncated to what the model reads. Recorded once where torch was installed; the numpy
# encoder must give the same vectors without it.
GOLDEN = Path(__file__).parent / "golden" / "minilm_sentence_transformers.npy"


def test_the_numpy_encoder_gives_sentence_transformers_vectors(minilm):
    golden = np.load(GOLDEN)
    model = embeddings._minilm_model()
    edited = LONG.replace("settings.freeze();", "settings.thaw();")
    assert np.abs(model.encode([PAD, UNRELATED, LONG, edited]) - golden).max() < 1e-6
    assert np.allclose(minilm.embed([PAD])[0], golden[0], atol=1e-6)  # a short text is one window: the model's vector


def test_a_method_longer_than_the_model_reads_is_embedded_whole(minilm):
    model = embeddings._minilm_model()
    windows = embeddings._windows(model.tokenizer, LONG, model.max_seq_length - 2)
    assert len(windows) >= 2
    assert "".join("".join(piece for piece, _ in windows).split()) == "".join(LONG.split())  # nothing lost
    for piece, count in windows:
        assert len(model.tokenizer.encode(piece, add_special_tokens=False).ids) == count <= model.max_seq_length - 2
    # An edit past the model's 256 word pieces: the truncating model cannot see it, the windowed embedding can.
    edited = LONG.replace("settings.freeze();", "settings.thaw();")
    truncated = np.load(GOLDEN)[2:]
    assert cosine(truncated[0], truncated[1]) == pytest.approx(1.0, abs=1e-6)
    whole, whole_edited = minilm.embed([LONG, edited])
    assert cosine(whole, whole_edited) < 1.0 - 1e-4


class Counting:
    """The real embedder, recording what it is asked to embed."""

    def __init__(self, embedder) -> None:
        self.inner, self.asked = embedder, []
        self.name, self.model, self.revision = embedder.name, embedder.model, embedder.revision

    def embed(self, texts):
        self.asked.extend(texts)
        return self.inner.embed(texts)


def test_embeddings_are_cached_on_disk(minilm, monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path))
    counting = Counting(minilm)
    first = embed_all(counting, [PAD, UNRELATED, PAD], batch_size=1)
    assert counting.asked == [PAD, UNRELATED] and np.array_equal(first[0], first[2])
    again = embed_all(Counting(minilm), [UNRELATED, PAD])
    assert np.array_equal(again, first[[1, 0]])
    embeddings._STORES.clear()  # a new process: it reads the cache from disk
    rerun = Counting(minilm)
    assert np.array_equal(embed_all(rerun, [PAD, UNRELATED]), first[:2])
    assert rerun.asked == []

    folder = EmbeddingCache(minilm).folder
    assert folder.parent == tmp_path / "embeddings" and folder.name.startswith("minilm-")
    segments = sorted(folder.glob("segment-*.npz"))
    assert len(segments) == 2  # one per batch embedded, each holding its vectors as one array
    for segment in segments:
        segment.write_bytes(b"not a numpy file")
    embeddings._STORES.clear()
    with pytest.raises(BenchsmithError, match="corrupt embedding cache segment"):
        embed_all(rerun, [PAD])


def test_many_segments_are_merged_into_one_array(minilm, monkeypatch, tmp_path):
    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path))
    monkeypatch.setattr(embeddings, "SEGMENTS_BEFORE_MERGE", 3)
    texts = [f"int f{n}() {{ return {n}; }}" for n in range(5)]
    first = embed_all(minilm, texts, batch_size=1)  # a segment per text; the fourth makes them merge
    folder = EmbeddingCache(minilm).folder
    assert len(list(folder.glob("segment-*.npz"))) == 2  # the merged four, and the fifth
    embeddings._STORES.clear()
    rerun = Counting(minilm)
    assert np.array_equal(embed_all(rerun, texts), first) and rerun.asked == []


# --- rank() and the command line on the Ledger fixture --------------------------------------------------------------


def write_candidates(path, ledger_instances):
    one, eight = ledger_instances["Ledger-1"], ledger_instances["Ledger-8"]
    rows = [
        ("Ledger-1", "gold", one.fixed_method, "m"),
        ("Ledger-1", "gold-spaced", one.fixed_method.replace("\n    ", "\n        "), "m"),
        ("Ledger-1", "buggy", one.buggy_method_no_comments, "m"),
        ("Ledger-1", "prose", "Sure! Here is the fixed method.", "m"),
        ("Ledger-1", "undefined", one.fixed_method.replace("digits.length()", "digitz.length()"), "m"),
        ("Ledger-1", "other-gold", one.fixed_method, "o"),
        ("Ledger-8", "gold", eight.fixed_method, "m"),
        ("Ledger-8", "buggy", eight.buggy_method_no_comments, "m"),
    ]
    path.write_text(
        "".join(
            json.dumps({"instance_id": i, "candidate_id": c, "code": code, "model": m}) + "\n" for i, c, code, m in rows
        )
    )
    return path


def test_rank_orders_each_run_of_each_bug(minilm, ledger_dataset, ledger_instances, tmp_path):
    records = rank(ledger_dataset, write_candidates(tmp_path / "c.jsonl", ledger_instances), minilm, 0.95)
    got = {(r.instance_id, r.candidate_id): r for r in records}
    assert [key for key in got] == [
        ("Ledger-1", c) for c in ("gold", "gold-spaced", "buggy", "prose", "undefined", "other-gold")
    ] + [("Ledger-8", "gold"), ("Ledger-8", "buggy")]
    assert got[("Ledger-1", "buggy")].similarity == pytest.approx(1.0, abs=1e-6)
    assert got[("Ledger-1", "prose")].pruned and got[("Ledger-1", "prose")].similarity < 0.5
    assert got[("Ledger-1", "gold-spaced")].rank == got[("Ledger-1", "gold")].rank
    assert got[("Ledger-1", "buggy")].rank == 3  # gold (and its reformatting), undefined, then the unchanged code
    assert got[("Ledger-1", "other-gold")].rank == 1  # another run (model "o") has its own list
    assert (got[("Ledger-8", "gold")].rank, got[("Ledger-8", "buggy")].rank) == (1, 2)
    assert {r.embedder for r in records} == {"minilm:sentence-transformers/all-MiniLM-L6-v2"}

    by_median = rank(ledger_dataset, tmp_path / "c.jsonl", minilm, "median")
    median = float(np.median([r.similarity for r in records]))
    assert [r.similarity for r in by_median] == [r.similarity for r in records]
    assert [r.pruned for r in by_median] == [r.similarity < median for r in records]


@pytest.mark.java
def test_rank_then_report_end_to_end(minilm, ledger_dataset, ledger_instances, fixture_repos, tmp_path, capsys):
    candidates = write_candidates(tmp_path / "candidates.jsonl", ledger_instances)
    ranking = tmp_path / "ranking.parquet"
    assert (
        main(
            [
                "rank",
                "--dataset",
                str(ledger_dataset),
                "--candidates",
                str(candidates),
                "--out",
                str(ranking),
                "--threshold",
                "0.95",
            ]
        )
        == 0
    )
    assert "8 candidates ranked, 7 above the threshold, 1 pruned" in capsys.readouterr().out
    assert pq.read_schema(ranking).names == ["instance_id", "candidate_id", "similarity", "rank", "pruned", "embedder"]
    ranked = {(r.instance_id, r.candidate_id): r for r in read_records(ranking, RankedCandidate)}

    results = tmp_path / "results.parquet"
    completed = eval_cli(ledger_dataset, candidates, results, fixture_repos)
    assert completed.returncode == 0, completed.stderr
    assert main(["report", "--results", str(results), "--ranking", str(ranking), "--k", "1,2", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["m"]["ranking"]
    # Ledger-1 (model m): gold and gold-spaced plausible; undefined and prose do not compile; buggy is last.
    # r.pass@1 over all: gold unless the uncompilable "undefined" is less similar; over compiling ones: gold.
    gold_first = ranked[("Ledger-1", "gold")].rank == 1
    assert run["r.pass@k"]["r.pass@1"] == {"all": (1.0 + gold_first) / 2, "compiling": 1.0, "instances": 2}
    assert run["r.pass@k"]["r.pass@2"] == {"all": 1.0, "compiling": 1.0, "instances": 2}
    # pass@1 of the compiling ones: Ledger-1 2 of 3 (gold, gold-spaced, buggy), Ledger-8 1 of 2.
    assert run["pass@k compiling"]["pass@1"]["value"] == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert run["embedder"] == ["minilm:sentence-transformers/all-MiniLM-L6-v2"]

    assert main(["report", "--results", str(results), "--ranking", str(ranking), "--k", "1,2"]) == 0
    table = capsys.readouterr().out
    assert "| project | instances | solved | pass@1 | r.pass@1 | r.pass@1 compiling | pass@2 |" in table
    assert "| compiling only | 100.00% (58.33%) | 100.00% (100.00%) |" in table


def test_rank_refuses_bad_input(ledger_dataset, tmp_path, capsys):
    out = tmp_path / "ranking.parquet"
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text('{"instance_id": "Nope-1", "candidate_id": "a", "code": "x"}\n')
    good = tmp_path / "good.jsonl"
    good.write_text('{"instance_id": "Ledger-1", "candidate_id": "a", "code": "x"}\n')
    not_nl2fix = tmp_path / "ranking-as-dataset.parquet"
    pq.write_table(pq.read_table(ledger_dataset).select(["instance_id"]), not_nl2fix)
    cases = [
        (["--dataset", str(ledger_dataset), "--candidates", str(unknown)], "unknown instance 'Nope-1'"),
        (["--dataset", str(not_nl2fix), "--candidates", str(good)], "are not those of NL2FixInstance"),
        (["--dataset", str(tmp_path / "missing.parquet"), "--candidates", str(good)], "no such dataset file"),
        (["--dataset", str(ledger_dataset), "--candidates", str(good), "--threshold", "2"], "--threshold 2"),
    ]
    for arguments, message in cases:
        assert main(["rank", *arguments, "--out", str(out)]) == 2, message
        assert message in capsys.readouterr().err
        assert not out.exists()


def test_the_openai_embedder_goes_through_the_openai_backend(ledger_dataset, ledger_instances, tmp_path, monkeypatch):
    from tests.helpers.openai_server import OpenAIServer, embedding_of

    monkeypatch.setenv("BENCHSMITH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    for name in ("AZURE_OPENAI_ENDPOINT", "AZURE_OPENAI_API_KEY", "OPENAI_API_VERSION"):
        monkeypatch.delenv(name, raising=False)
    candidates = write_candidates(tmp_path / "c.jsonl", ledger_instances)
    with OpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        records = rank(ledger_dataset, candidates, "openai", -1.0)
        assert {r.body["model"] for r in server.requests} == {"text-embedding-ada-002"}
        sent = len(server.requests)
        assert [r.similarity for r in rank(ledger_dataset, candidates, "openai", -1.0)] == [
            r.similarity for r in records
        ]
        assert len(server.requests) == sent  # the rerun embeds nothing
    codes = {
        (json.loads(line)["instance_id"], json.loads(line)["candidate_id"]): json.loads(line)["code"]
        for line in candidates.read_text().splitlines()
    }
    for record in records:
        buggy = embedding_of(ledger_instances[record.instance_id].buggy_method_no_comments)
        assert record.similarity == pytest.approx(
            cosine(buggy, embedding_of(codes[(record.instance_id, record.candidate_id)])), abs=1e-6
        )
        assert record.embedder == "openai:text-embedding-ada-002" and not record.pruned


def test_embedding_beside_a_thread_that_forks_does_not_hang():
    """OpenBLAS's fork handler waits for its worker threads: an agent's oracle starting a sandbox while its tools
    embedded on two BLAS threads hung `agent run` for good. The encoder keeps BLAS on one thread."""
    code = (
        "import subprocess, threading, time\n"
        "from benchsmith.generation.models.embeddings import _minilm_model\n"
        "model, stop, counts = _minilm_model(), time.time() + 8, [0, 0]\n"
        "def embed():\n"
        "    while time.time() < stop:\n"
        "        model.encode(['def f(x):\\n    return x + 1'] * 4); counts[0] += 1\n"
        "def fork():\n"
        "    while time.time() < stop:\n"
        "        subprocess.Popen(['true'], preexec_fn=lambda: None).wait(); counts[1] += 1\n"
        "threads = [threading.Thread(target=embed, daemon=True), threading.Thread(target=fork, daemon=True)]\n"
        "[t.start() for t in threads]; [t.join(60) for t in threads]\n"
        "print(counts[0] > 0 and counts[1] > 0 and not any(t.is_alive() for t in threads))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr[-2000:]
