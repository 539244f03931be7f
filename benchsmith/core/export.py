"""Export records to Parquet through the schema module (stamped), with dataset cards beside a dataset.

Every Parquet file declares its Hugging Face ``datasets`` features (the
``huggingface`` schema metadata key, which :func:`benchsmith.core.schema.to_table` writes),
so ``datasets.load_dataset("parquet", data_files=...)`` loads it with the
record's own types, whichever command wrote it.

Beside a dataset (:func:`write_dataset`) go its card, as ``<stem>.card.json``
and ``<stem>.card.md``, and the folder's Hugging Face dataset card,
``README.md``: YAML front matter (``configs``, ``dataset_info``, ``license``
and, under ``benchsmith``, each dataset's stamp, sources and counts) then the
Markdown cards. Hugging Face reads only a folder's ``README.md``, and several
datasets can share a folder (``nl2fix.parquet`` and ``classbench.parquet``),
so the folder card lists one config per dataset, named after its file's stem:
``load_dataset(folder, "nl2fix")``. Writing one dataset keeps the other
datasets' configs whose files are still there. A ``README.md`` that benchsmith
did not write (no ``benchsmith`` key) is left alone, with a warning.

The Parquet file and its cards are written under temporary names and renamed
only once all are complete, so a failed or interrupted export leaves no
partial output.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from contextlib import ExitStack
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from benchsmith.core.atomic import atomic_path
from benchsmith.core.errors import BenchsmithError
from benchsmith.core.schema import STAMP_KEY, Stamp, hf_yaml_features, to_table

log = logging.getLogger(__name__)

HUB_CARD = "README.md"
SPLIT = "test"  # benchmarks are evaluation sets: each dataset is one test split


@dataclasses.dataclass(frozen=True)
class HubSource:
    """Where a dataset's rows come from, for the Hugging Face card."""

    name: str  # "Defects4J", "Cli", "pypi:click==8.1.7"
    url: str = ""
    revision: str = ""  # a commit, a version; "" when not known
    license: str = "unknown"  # a Hugging Face licence id ("apache-2.0", "mit"), "other" or "unknown"


def card_paths(out: Path) -> tuple[Path, Path]:
    return out.with_suffix(".card.json"), out.with_suffix(".card.md")


def hub_card_path(out: Path) -> Path:
    return Path(out).parent / HUB_CARD


def write_records(out: Path, records: list, record_type: type, benchmark: str = "") -> None:
    """Write *records* to *out* as stamped Parquet declaring its features, atomically.

    When the folder's Hugging Face card lists *out* (a dataset rewritten in place, as ``describe`` does), its
    entry is brought up to date in the same all-or-nothing write: the hash and sizes change, the rest stays.
    """
    out = Path(out)
    table = to_table(records, record_type, benchmark)
    front, _ = _read_hub_card(hub_card_path(out))
    listed = front is not None and out.stem in (front.get("benchsmith") or {})
    with ExitStack() as stack:
        parquet_tmp = stack.enter_context(atomic_path(out))
        pq.write_table(table, parquet_tmp)
        if listed:
            old = front["benchsmith"][out.stem]
            entry = _hub_entry(
                out,
                table,
                record_type,
                parquet_tmp.stat().st_size,
                [HubSource(**s) for s in old.get("sources", [])],
                old.get("counts", {}),
            )
            markdown = _read_text(card_paths(out)[1])
            card_tmp = stack.enter_context(atomic_path(hub_card_path(out)))
            card_tmp.write_text(_hub_card_text(out.parent, front, out.stem, entry, markdown), encoding="utf-8")


def write_dataset(
    records: list,
    record_type: type,
    out: Path,
    card: dict,
    card_markdown: str,
    benchmark: str = "",
    sources: list[HubSource] = (),
    counts: dict | None = None,
) -> None:
    """Write *records* to *out* as Parquet, its card beside it and the folder's Hugging Face card, all or nothing.

    *sources* and *counts* go into the Hugging Face card's front matter (licences, revisions, statistics).
    """
    out = Path(out)
    table = to_table(records, record_type, benchmark)
    card_json, card_md = card_paths(out)
    front, _ = _read_hub_card(hub_card_path(out))
    with ExitStack() as stack:
        parquet_tmp = stack.enter_context(atomic_path(out))
        json_tmp = stack.enter_context(atomic_path(card_json))
        md_tmp = stack.enter_context(atomic_path(card_md))
        pq.write_table(table, parquet_tmp)
        json_tmp.write_text(json.dumps(card, indent=2, sort_keys=False) + "\n", encoding="utf-8")
        md_tmp.write_text(card_markdown, encoding="utf-8")
        if front is None:
            log.warning(
                "%s: not a card benchsmith wrote; left alone (the Parquet file still declares its features)",
                hub_card_path(out),
            )
            return
        entry = _hub_entry(out, table, record_type, parquet_tmp.stat().st_size, list(sources), counts or {})
        hub_tmp = stack.enter_context(atomic_path(hub_card_path(out)))
        hub_tmp.write_text(_hub_card_text(out.parent, front, out.stem, entry, card_markdown), encoding="utf-8")


# --- the folder's Hugging Face dataset card -------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def _read_hub_card(path: Path) -> tuple[dict | None, str]:
    """The front matter and body of a folder card benchsmith wrote; ``{}`` when there is none, None when not ours."""
    text = _read_text(path)
    if not text:
        return {}, ""
    if not text.startswith("---\n") or "\n---\n" not in text[3:]:
        return None, text
    header, body = text[4:].split("\n---\n", 1)
    try:
        front = yaml.safe_load(header)
    except yaml.YAMLError as exc:
        raise BenchsmithError(f"{path}: unreadable YAML front matter ({exc})") from None
    if not isinstance(front, dict) or not isinstance(front.get("benchsmith"), dict):
        return None, text
    return front, body


def _hub_entry(
    out: Path, table: pa.Table, record_type: type, download_size: int, sources: list[HubSource], counts: dict
) -> dict:
    stamp = Stamp(**json.loads(table.schema.metadata[STAMP_KEY]))
    return {
        "configs": {"config_name": out.stem, "data_files": [{"split": SPLIT, "path": out.name}]},
        "dataset_info": {
            "config_name": out.stem,
            "features": hf_yaml_features(record_type),
            "splits": [{"name": SPLIT, "num_bytes": table.nbytes, "num_examples": table.num_rows}],
            "download_size": download_size,
            "dataset_size": table.nbytes,
        },
        "benchsmith": {
            **dataclasses.asdict(stamp),
            "rows": table.num_rows,
            "sources": [dataclasses.asdict(s) for s in sources],
            "counts": counts,
        },
    }


def _hub_card_text(folder: Path, front: dict, config: str, entry: dict, markdown: str) -> str:
    """The folder card with *config*'s entry put in (replacing its old one) and configs whose files went dropped."""
    ours = dict(front.get("benchsmith") or {})
    configs = {c["config_name"]: c for c in front.get("configs", []) if isinstance(c, dict) and "config_name" in c}
    infos = {i["config_name"]: i for i in front.get("dataset_info", []) if isinstance(i, dict) and "config_name" in i}
    ours[config], configs[config], infos[config] = entry["benchsmith"], entry["configs"], entry["dataset_info"]
    kept = sorted(
        name
        for name in ours
        if name == config
        or (name in configs and all((folder / f["path"]).exists() for f in configs[name].get("data_files", [])))
    )
    licences = sorted({s["license"] for name in kept for s in ours[name].get("sources") or [{"license": "unknown"}]})
    header = {
        **{k: v for k, v in front.items() if k not in ("license", "configs", "dataset_info", "benchsmith")},
        "license": licences[0] if len(licences) == 1 else licences,
        "configs": [configs[name] for name in kept if name in configs],
        "dataset_info": [infos[name] for name in kept if name in infos],
        "benchsmith": {name: ours[name] for name in kept},
    }
    body = ["# Datasets", "", "| config | records | rows | sources |", "| --- | --- | ---: | --- |"]
    for name in kept:
        sources = ", ".join(
            " ".join(filter(None, [s["name"], s["revision"], f"({s['license']})"])) for s in ours[name]["sources"]
        )
        body.append(f"| {name} | {ours[name]['record']} | {ours[name]['rows']} | {sources or 'none recorded'} |")
    body += [
        "",
        'Load one with `datasets.load_dataset("<this folder>", "<config>")`, or any file with '
        '`datasets.load_dataset("parquet", data_files="<file>.parquet")`.',
        "",
    ]
    for name in kept:
        text = markdown if name == config else _read_text(folder / f"{name}.card.md")
        body += [f"<!-- config: {name} -->", "", text.rstrip("\n"), ""]
    dumped = yaml.safe_dump(header, sort_keys=False, allow_unicode=True, default_flow_style=False, width=120)
    return f"---\n{dumped}---\n\n" + "\n".join(body)
