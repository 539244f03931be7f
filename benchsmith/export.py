"""Export records to Parquet through the schema module (stamped), with a dataset card beside a dataset.

The Parquet file and both card files (``<stem>.card.json``, ``<stem>.card.md``)
are written under temporary names and renamed only once all three are
complete, so a failed or interrupted export leaves no partial output.
"""

from __future__ import annotations

import json
from contextlib import ExitStack
from pathlib import Path

import pyarrow.parquet as pq

from benchsmith.atomic import atomic_path
from benchsmith.schema import to_table


def card_paths(out: Path) -> tuple[Path, Path]:
    return out.with_suffix(".card.json"), out.with_suffix(".card.md")


def write_records(out: Path, records: list, record_type: type, benchmark: str = "") -> None:
    """Write *records* to *out* as stamped Parquet, atomically."""
    table = to_table(records, record_type, benchmark)
    with atomic_path(Path(out)) as tmp:
        pq.write_table(table, tmp)


def write_dataset(records: list, record_type: type, out: Path, card: dict, card_markdown: str,
                  benchmark: str = "") -> None:  # fmt: skip
    """Write *records* to *out* as Parquet and the card beside it, all or nothing."""
    table = to_table(records, record_type, benchmark)
    card_json, card_md = card_paths(Path(out))
    with ExitStack() as stack:
        parquet_tmp = stack.enter_context(atomic_path(Path(out)))
        json_tmp = stack.enter_context(atomic_path(card_json))
        md_tmp = stack.enter_context(atomic_path(card_md))
        pq.write_table(table, parquet_tmp)
        json_tmp.write_text(json.dumps(card, indent=2, sort_keys=False) + "\n", encoding="utf-8")
        md_tmp.write_text(card_markdown, encoding="utf-8")
