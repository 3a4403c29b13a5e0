"""What a forgotten user leaves on disk in the PostgreSQL + Chroma server deployment.

A throwaway cluster and Chroma server (tests/pg_cluster.py) get one canary user (its id
and a word of every record are a random token) among other users; then the user's rows
are deleted and the erasure steps run one by one. After each step the cluster directory
(table/index files under base/, WAL under pg_wal/) and the Chroma server's directory are
searched for the token: how many files hold it, and how many copies.

    .venv/bin/python benchmarks/postgres_erasure.py [--users 20] [--messages 500]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test servers

from pg_cluster import ChromaServer, PostgresCluster  # noqa: E402

from memfold.embed import HashingEmbedder  # noqa: E402
from memfold.models import ArchiveItem, Message, ProfileFact  # noqa: E402
from memfold.stores.chroma import ChromaVectorIndex  # noqa: E402
from memfold.stores.postgres import postgres_stores  # noqa: E402
from memfold.stores.postgres import connect  # noqa: E402

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def copies(directory: Path, needle: bytes) -> tuple[int, int]:
    """(files holding ``needle``, copies of it) under ``directory``."""
    found = [p.read_bytes().count(needle) for p in directory.rglob("*") if p.is_file()]
    return sum(1 for n in found if n), sum(found)


def fill(stores, user: str, word: str, messages: int) -> None:
    rows = [Message(msg_id=f"m{n}", user_id=user, text=f"{word} said thing number {n}",
                    ts=T0 + timedelta(minutes=n)) for n in range(messages)]
    # hashed ids, as memfold's own (retrieval.indexing.item_id): the user id is not in them
    items = [ArchiveItem(item_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{user}:{n}").hex, user_id=user,
                         kind="message", text=m.text, key_text=m.text, sources=[m.msg_id])
             for n, m in enumerate(rows)]
    with stores.db.transaction():
        stores.log.append(rows)
        stores.archive.add(items)
        stores.profile.upsert(ProfileFact(user_id=user, key="nick", value=f"{word} nick",
                                          sources=["m1"]))
    stores.index.upsert(items, HashingEmbedder().embed([i.key_text for i in items]))


def report(step: str, cluster: PostgresCluster, chroma: ChromaServer, needle: bytes) -> None:
    cluster.admin("CHECKPOINT")  # what the server holds in memory reaches the files first
    base, wal = copies(cluster.data / "base", needle), copies(cluster.data / "pg_wal", needle)
    server = copies(chroma.root, needle)
    print(f"{step:<34} base/ {base[0]:>2} files {base[1]:>5} copies | pg_wal/ {wal[0]:>2} files "
          f"{wal[1]:>5} copies | chroma {server[0]:>2} files {server[1]:>4} copies", flush=True)


def vacuum_stopped_chroma(chroma: ChromaServer) -> None:
    """The operator's step: `chroma vacuum` on the server's directory while it is stopped."""
    chroma.process.terminate()
    chroma.process.wait(timeout=30)
    cli = Path(sys.executable).parent / "chroma"
    done = subprocess.run([str(cli), "vacuum", "--path", str(chroma.root / "data"), "--force"],
                          capture_output=True, text=True, timeout=300)
    print("chroma vacuum:", done.returncode, done.stdout[-300:].strip(), done.stderr[-300:].strip())


def run(users: int, messages: int) -> None:
    cluster, chroma = PostgresCluster.start(), ChromaServer.start()
    try:
        canary = f"zq{uuid.uuid4().hex[:16]}"
        stores = postgres_stores(connect(cluster.conninfo(cluster.new_schema()), vacuum_full=False),
                                 ChromaVectorIndex(client=chroma.client()))
        for n in range(users):
            fill(stores, f"user{n}", f"user{n}", messages)
            if n == users // 2:
                fill(stores, canary, canary, messages)
        erase_step_by_step(stores, cluster, chroma, canary)
    finally:
        chroma.stop()
        cluster.stop()


def erase_step_by_step(stores, cluster: PostgresCluster, chroma: ChromaServer, canary: str) -> None:
    needle = canary.encode()
    report("stored", cluster, chroma, needle)
    with stores.db.transaction():
        for store in (stores.log, stores.profile):
            store.delete_user(canary)
        stores.index.delete(stores.archive.delete_user(canary))
    report("deleted (committed)", cluster, chroma, needle)
    stores.index.purge_log()
    report("Chroma: empty collection dropped", cluster, chroma, needle)
    for full, name in ((False, "VACUUM"), (True, "VACUUM FULL")):
        started = time.perf_counter()
        stores.db.vacuum_user_tables(full=full)
        report(f"{name} ({time.perf_counter() - started:.2f} s)", cluster, chroma, needle)
    for _ in range(3):
        cluster.admin("SELECT pg_switch_wal()")
        cluster.admin("CHECKPOINT")
    report("3x pg_switch_wal + CHECKPOINT", cluster, chroma, needle)
    time.sleep(30)
    report("30 s later", cluster, chroma, needle)
    print(f"rows: {stores.log.count()} messages, {stores.archive.count()} archive rows")
    holding = [str(f.relative_to(chroma.root)) for f in chroma.root.rglob("*")
               if f.is_file() and needle in f.read_bytes()]
    print("chroma files holding it:", holding)
    stores.close()
    vacuum_stopped_chroma(chroma)
    report("Chroma stopped + `chroma vacuum`", cluster, chroma, needle)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--users", type=int, default=20)
    parser.add_argument("--messages", type=int, default=500)
    args = parser.parse_args()
    run(args.users, args.messages)
