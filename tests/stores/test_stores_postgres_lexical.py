"""BM25 computed by PostgreSQL (stores/postgres_lexical.py) against the in-process index
(retrieval/lexical.py) built from the same archive: the same rows in the same order with
the same scores, for both rankings (a row's own key and its window), through appends,
replacements, deletes and a backfill; what one process writes or removes is what another
finds next; and a user's search sees nothing of another user's rows, statistics included."""

from __future__ import annotations

import random
from datetime import timedelta

import psycopg
import pytest
from pg_cluster import PostgresCluster
from stores_helpers import at, item

from memfold.bm25 import LexicalHits
from memfold.errors import StoreCorruptError
from memfold.models import ArchiveItem
from memfold.retrieval.lexical import LexicalIndex
from memfold.stores import Stores
from memfold.stores.memory import InMemoryVectorIndex
from memfold.stores.postgres import MIGRATIONS, connect, postgres_stores

WORDS = ("lisbon trip hotel flight cheap pottery class loved garden dog walk park rain sunny "
         "book novel piano concert sister wedding cake recipe bike ride museum paint").split()
KINDS = ("message",) * 6 + ("document", "fact", "event", "episode", "summary")
SUBJECTS = (None, "Ana", "Bob", "Émile")


def _open(cluster: PostgresCluster, schema: str, **options: object) -> Stores:
    return postgres_stores(connect(cluster.conninfo(schema)), InMemoryVectorIndex(), **options)  # type: ignore[arg-type]


def _corpus(rng: random.Random, user: str, n: int, start: int = 0) -> list[ArchiveItem]:
    """Rows of every kind; times a few minutes to a few hours apart (the window gap is 2 h),
    some without a time; a few speakers, one with a non-ASCII name."""
    rows, minutes = [], start * 90
    for i in range(start, start + n):
        minutes += rng.choice((1, 3, 10, 60, 130, 600))
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 8)))
        rows.append(ArchiveItem(
            item_id=f"{user}:{i}", user_id=user, kind=rng.choice(KINDS), text=text, key_text=text,
            sources=[f"{user}-m{i}"], subject=rng.choice(SUBJECTS),
            occurred_at=None if rng.random() < 0.1 else at(minutes)))
    return rows


def _queries(rng: random.Random, count: int = 25) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) + "?"
            for _ in range(count)] + ["the of and", "unknownword"]


def assert_same_ranking(found: list[tuple[str, float]], expected: list[tuple[str, float]]) -> None:
    """Same rows with the same scores (float32 in-process, float8 in SQL), each list best
    first: so the same order, rows with equal scores in either order."""
    assert dict(found) == pytest.approx(dict(expected), rel=1e-5)
    scores = [score for _, score in found]
    assert scores == sorted(scores, reverse=True)


def assert_same_hits(found: LexicalHits, expected: LexicalHits, *, complete: bool = True) -> None:
    """``complete``: every hit is listed; else the last place may be one of several tied
    rows, and the lists are compared by their scores place by place."""
    for got, want in ((found.own, expected.own), (found.window, expected.window)):
        if complete:
            assert_same_ranking(got, want)
        else:
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-5)
            assert [i for i, _ in got[:-1]] == [i for i, _ in want[:-1]] or _tied(want)
    assert found.subjects == expected.subjects


def _tied(hits: list[tuple[str, float]]) -> bool:
    scores = [s for _, s in hits]
    return len(set(round(s, 4) for s in scores)) < len(scores)


def _compare(stores: Stores, user: str, queries: list[str], k: int = 500) -> int:
    """Check every query against a fresh in-process index; returns the hits compared."""
    reference = LexicalIndex(stores.archive)
    compared = 0
    for query in queries:
        expected, every = reference.search(user, query, k), reference.search(user, query, 10**6)
        complete = k >= max(len(every.own), len(every.window))
        assert_same_hits(stores.lexical.search(user, query, k), expected, complete=complete)
        compared += len(expected.own) + len(expected.window)
    return compared


def test_postgres_bm25_ranks_as_the_in_process_index(pg_cluster: PostgresCluster) -> None:
    rng = random.Random(19)
    with _open(pg_cluster, pg_cluster.new_schema()) as stores:
        for batch in range(4):  # appends in batches: windows linked across batch boundaries
            stores.archive.add(_corpus(rng, "ana", 40, start=40 * batch))
        queries = _queries(rng)
        assert _compare(stores, "ana", queries) > 500
        for k in (1, 5, 20):
            _compare(stores, "ana", queries, k)
        described = stores.lexical.describe("ana", ["ana:3", "ana:7", "bob:1", "nope"])
        assert described == LexicalIndex(stores.archive).describe("ana", ["ana:3", "ana:7"])


def test_replacements_and_deletes_relink_the_windows_as_a_rebuild_would(
        pg_cluster: PostgresCluster) -> None:
    rng = random.Random(7)
    with _open(pg_cluster, pg_cluster.new_schema()) as stores:
        stores.archive.add(_corpus(rng, "ana", 120))
        replaced = [row.model_copy(update={"key_text": "brand new words: kayak fjord"})
                    for row in stores.archive.get("ana", ["ana:10", "ana:50", "ana:51"])]
        stores.archive.add(replaced)  # re-added rows move to the end, as in the archive
        stores.archive.delete_by_source("ana", ["ana-m20", "ana-m21", "ana-m80"])
        queries = [*_queries(rng), "kayak fjord"]
        assert _compare(stores, "ana", queries) > 300
        assert stores.lexical.search("ana", "kayak", 5).own  # the new words are found
        stores.archive.delete_user("ana")
        assert stores.lexical.search("ana", "lisbon kayak", 5) == LexicalHits([], [])
        assert stores.db.fetchall("SELECT count(*) FROM lexical_postings")[0][0] == 0


def test_another_process_sees_writes_and_removals_at_once(pg_cluster: PostgresCluster) -> None:
    schema = pg_cluster.new_schema()
    with _open(pg_cluster, schema) as one, _open(pg_cluster, schema) as two:
        assert two.lexical.search("ana", "zebra", 5).own == []
        one.archive.add([item("z1", "a zebra crossed"), item("z2", "then it rained")])
        assert [i for i, _ in two.lexical.search("ana", "zebras", 5).own] == ["z1"]
        assert {i for i, _ in two.lexical.search("ana", "zebras", 5).window} == {"z1", "z2"}
        # a removal and an add of the same count: the other process must not serve old text
        one.archive.delete_by_source("ana", ["m1"])
        one.archive.add([item("z3", "a lion crossed", sources=("m3",))])
        assert two.lexical.search("ana", "zebra", 5).own == []
        assert [i for i, _ in two.lexical.search("ana", "lion", 5).own] == ["z3"]
        one.archive.add([item("z3", "an eagle flew", sources=("m3",))])  # replaced
        assert two.lexical.search("ana", "lion", 5).own == []
        assert [i for i, _ in two.lexical.search("ana", "eagle", 5).own] == ["z3"]


def test_a_users_search_knows_nothing_of_other_users(pg_cluster: PostgresCluster) -> None:
    rng = random.Random(3)
    with _open(pg_cluster, pg_cluster.new_schema()) as stores:
        stores.archive.add(_corpus(rng, "ana", 60))
        queries = _queries(rng)
        alone = {q: stores.lexical.search("ana", q, 50) for q in queries}
        stores.archive.add(_corpus(rng, "bob", 200) + [item("b1", "zebra lisbon", user="bob")])
        for query in queries:  # bob's rows change neither ana's hits nor her N and lengths
            assert stores.lexical.search("ana", query, 50) == alone[query]
        assert stores.lexical.search("ana", "zebra", 5).own == []
        assert stores.lexical.describe("ana", ["b1", "bob:1"]) == {}
        _compare(stores, "bob", queries)


def test_an_existing_database_is_indexed_when_it_is_opened(pg_cluster: PostgresCluster) -> None:
    """A version-1 database (no postings) gets them at its first open; so does one whose
    index was built by another analyzer, and a new window gap relinks every row."""
    schema = pg_cluster.new_schema()
    rng = random.Random(11)
    rows = _corpus(rng, "ana", 80) + _corpus(rng, "bob", 30)
    with psycopg.connect(pg_cluster.conninfo(schema), autocommit=True) as conn:
        conn.execute(MIGRATIONS[1])
        conn.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                     "applied_at TIMESTAMPTZ NOT NULL); INSERT INTO schema_migrations VALUES (1, now())")
        conn.cursor().executemany(
            "INSERT INTO archive (item_id, user_id, kind, text, key_text, sources, subject, "
            "occurred_at, flags) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [(r.item_id, r.user_id, r.kind, r.text, r.key_text, r.sources, r.subject,
              r.occurred_at, r.flags) for r in rows])
    queries = _queries(rng)
    with _open(pg_cluster, schema) as stores:
        assert stores.db.fetchall("SELECT count(*) FROM lexical_docs")[0][0] == len(rows)
        _compare(stores, "ana", queries)
        stores.db.set_meta("lexical_analyzer", "an older analyzer")
    with _open(pg_cluster, schema) as stores:
        assert stores.db.fetchall("SELECT count(*) FROM lexical_docs")[0][0] == len(rows)
        _compare(stores, "bob", queries)
    gap = timedelta(minutes=30)
    with _open(pg_cluster, schema, window_gap=gap) as stores:
        reference = LexicalIndex(stores.archive, window_gap=gap)
        for query in queries:
            assert_same_hits(stores.lexical.search("ana", query, 500),
                             reference.search("ana", query, 500))
    with pytest.raises(StoreCorruptError, match="window gap"):
        postgres_stores(connect(pg_cluster.conninfo(schema), read_only=True),
                        InMemoryVectorIndex())

