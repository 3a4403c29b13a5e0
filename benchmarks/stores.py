"""Store-layer throughput: DuckDB writes/reads, Chroma upsert/query, erasure cost.

    PYTHONPATH=src .venv/bin/python benchmarks/stores.py [--rows 5000]

Prints the figures and writes benchmarks/results/stores.json. Uses the HashingEmbedder
(vectors only need the right shape here), a fresh temporary store directory per run.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from memfold.embed import HashingEmbedder
from memfold.models import ArchiveItem, Message, ProfileFact
from memfold.stores import Stores, open_stores
from memfold.stores.sync import sync_index

T0 = datetime(2023, 5, 8, tzinfo=timezone.utc)
RESULTS = Path(__file__).parent / "results" / "stores.json"


def _timed(work: Callable[[], Any]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _messages(user: str, rows: int) -> list[Message]:
    return [Message(msg_id=f"m{n}", user_id=user, text=f"{user} said sentence number {n} today",
                    ts=T0 + timedelta(minutes=n)) for n in range(rows)]


def _items(user: str, rows: int) -> list[ArchiveItem]:
    return [ArchiveItem(item_id=f"{user}:{n}", user_id=user, kind="message", text=f"turn {n}",
                        key_text=f"{user} said sentence number {n} today", sources=[f"m{n}"],
                        occurred_at=T0 + timedelta(minutes=n)) for n in range(rows)]


def _write(stores: Stores, rows: int) -> dict[str, float]:
    out: dict[str, float] = {}
    for user in ("ana", "bob"):
        def batch(u: str = user) -> None:
            with stores.db.transaction():
                stores.log.append(_messages(u, rows))
                stores.archive.add(_items(u, rows))
        out[f"ingest_{user}_s"] = _timed(batch)
    out["reingest_identical_s"] = _timed(lambda: stores.log.append(_messages("ana", rows)))
    out["sync_index_s"] = _timed(lambda: sync_index(stores, HashingEmbedder()))
    out["sync_index_noop_s"] = _timed(lambda: sync_index(stores, HashingEmbedder()))
    upserts = [ProfileFact(user_id="ana", key=f"k{n % 50}", value=f"v{n}", sources=[f"m{n}"])
               for n in range(500)]
    out["profile_upsert_ms_each"] = _timed(lambda: [stores.profile.upsert(f) for f in upserts]) * 2
    return out


def _read(stores: Stores) -> dict[str, float]:
    query = HashingEmbedder().embed(["ana said sentence number 17"])[0]
    latencies = [_timed(lambda: stores.index.query("ana", query, k=10)) * 1000 for _ in range(50)]
    kinds = [_timed(lambda: stores.index.query("ana", query, k=10, kinds=["message"])) * 1000
             for _ in range(50)]
    return {
        "index_query_k10_median_ms": statistics.median(latencies),
        "index_query_k10_kinds_median_ms": statistics.median(kinds),
        "log_list_all_s": _timed(lambda: stores.log.list("ana")),
        "log_list_last10_ms": _timed(lambda: stores.log.list("ana", newest_first=True, limit=10)) * 1000,
    }


def _forget(stores: Stores) -> dict[str, float]:
    def delete() -> None:
        with stores.db.transaction():
            stores.log.delete_user("bob")
            doomed = stores.archive.delete_user("bob")
        stores.index.delete(doomed)
    return {
        "forget_delete_s": _timed(delete),
        "forget_rewrite_duckdb_s": _timed(stores.db.rewrite_file),  # type: ignore[attr-defined]
        "forget_purge_chroma_s": _timed(stores.index.purge_log),  # type: ignore[attr-defined]
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=5000, help="messages (and archive rows) per user")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        stores = open_stores(Path(tmp) / "store")
        figures = {"rows_per_user": args.rows, **_write(stores, args.rows), **_read(stores),
                   **_forget(stores)}
        figures["disk_bytes_after_forget"] = sum(
            p.stat().st_size for p in (Path(tmp) / "store").rglob("*") if p.is_file())
        stores.close()
    figures["machine"] = f"{platform.machine()} python {platform.python_version()}"
    for name, value in figures.items():
        print(f"{name:36s} {value:.4f}" if isinstance(value, float) else f"{name:36s} {value}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
