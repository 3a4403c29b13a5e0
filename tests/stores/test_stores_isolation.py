"""Properties: what user A reads never depends on user B, and DuckDB and PostgreSQL answer
every read exactly like the in-memory reference after any sequence of writes and deletes.

Isolation: random writes for two users that reuse the same ids go into one store; only A's writes
go into a second store. Every read method, called for A, must answer the same on both:
so B's rows can neither appear in A's answers nor change them.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stores_helpers import T0, at, chunk, event, fact, item, make_stores, message

from memfold.embed import HashingEmbedder
from memfold.models import FoldState, SemanticMemory
from memfold.stores import Stores

if TYPE_CHECKING:
    from pg_cluster import PostgresCluster

USERS = ("ana", "bob")
IDS = ("x1", "x2", "x3")
EMBEDDER = HashingEmbedder(dim=32)

op = st.tuples(
    st.sampled_from(USERS),
    st.sampled_from(["message", "fact", "event", "chunk", "item", "fold", "touch"]),
    st.sampled_from(IDS),
    st.integers(min_value=0, max_value=3),  # a version: changes values and times
)


def _apply(stores: Stores, user: str, kind: str, ident: str, version: int) -> None:
    words = f"{user} {kind} {ident} v{version}"
    if kind == "message":  # content fixed per (user, id) so re-ingest is the identical no-op
        stores.log.append([message(ident, f"{user} says {ident}", user=user, minutes=len(ident))])
    elif kind == "fact":
        stores.profile.upsert(fact(ident, words, ident, user=user, minutes=version))
    elif kind == "event":
        stores.events.append([event(ident, words, user=user, days=version, sources=(ident,))])
    elif kind == "chunk":
        stores.documents.add([chunk(ident, f"doc{version % 2}", version, user=user)])
    elif kind == "item":
        archived = item(f"{user}:{ident}", words, user=user, kind="fact" if version else "message")
        stores.archive.add([archived])
        stores.index.upsert([archived], EMBEDDER.embed([words]))
    elif kind == "fold":
        stores.folds.save(FoldState(user_id=user, folds=version,
                                    semantic=SemanticMemory(user_id=user)))
    else:
        stores.profile.touch(user, "user", ident, at(version))


def _reads(stores: Stores, user: str) -> dict[str, Any]:
    query = EMBEDDER.embed(["ana fact x1 v1"])[0]
    changes = [c.model_dump(exclude={"change_id"}) for c in stores.profile.history(user)]
    return {
        "log.get": stores.log.get(user, IDS), "log.exists": stores.log.exists(user, IDS),
        "log.list": stores.log.list(user), "log.newest": stores.log.list(user, newest_first=True),
        "log.since": stores.log.list(user, since=T0, limit=2), "log.count": stores.log.count(user),
        "profile.list": stores.profile.list(user),
        "profile.get": [stores.profile.get(user, "user", i) for i in IDS],
        "profile.history": changes, "profile.accessed": stores.profile.last_accessed(user),
        "events.range": stores.events.range(user), "events.count": stores.events.count(user),
        "events.window": stores.events.range(user, start=at(days=1), end=at(days=3)),
        "documents.list": stores.documents.list(user),
        "documents.get": stores.documents.get(user, "doc0"),
        "archive.list": stores.archive.list(user),
        "archive.kinds": stores.archive.list(user, kinds=["fact"]),
        "archive.get": stores.archive.get(user, [f"{u}:{i}" for u in USERS for i in IDS]),
        "archive.texts": stores.archive.texts(user, [f"{u}:{i}" for u in USERS for i in IDS]),
        "archive.count": stores.archive.count(user),
        "folds.load": stores.folds.load(user),
        "index.ids": stores.index.ids(user),
        "index.query": [(i, round(s, 4)) for i, s in stores.index.query(user, query, k=10)],
    }


def check_reads_isolated(kind: str, tmp_path: Path, ops: list[tuple[str, str, str, int]],
                         cluster: PostgresCluster | None = None) -> None:
    both, alone = make_stores(kind, tmp_path, cluster), make_stores(kind, tmp_path, cluster)
    try:
        for user, kind_, ident, version in ops:
            _apply(both, user, kind_, ident, version)
            if user == "ana":
                _apply(alone, user, kind_, ident, version)
        assert _reads(both, "ana") == _reads(alone, "ana")
        assert all(m.user_id == "ana" for m in both.log.list("ana"))
    finally:
        both.close()
        alone.close()


FIXTURE_OK = [HealthCheck.function_scoped_fixture]


@settings(max_examples=60, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op, max_size=25))
def test_in_memory_reads_of_one_user_never_depend_on_another(
        tmp_path: Path, ops: list[tuple[str, str, str, int]]) -> None:
    check_reads_isolated("memory", tmp_path, ops)


@settings(max_examples=10, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op, min_size=10, max_size=25))
def test_duckdb_reads_of_one_user_never_depend_on_another(
        tmp_path: Path, ops: list[tuple[str, str, str, int]]) -> None:
    check_reads_isolated("duckdb", tmp_path, ops)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op, max_size=40))
def test_duckdb_isolation_many_examples(tmp_path: Path,
                                        ops: list[tuple[str, str, str, int]]) -> None:
    check_reads_isolated("duckdb", tmp_path, ops)


op_with_deletes = st.one_of(op, st.tuples(
    st.sampled_from(USERS), st.sampled_from(["forget", "remove"]), st.sampled_from(IDS),
    st.just(0)))


def _apply_any(stores: Stores, user: str, kind: str, ident: str, version: int) -> None:
    if kind == "forget":
        with stores.db.transaction():
            for store in (stores.log, stores.profile, stores.events, stores.documents,
                          stores.folds):
                store.delete_user(user)
            stores.index.delete(stores.archive.delete_user(user))
    elif kind == "remove":
        with stores.db.transaction():
            stores.log.delete(user, [ident])
            for store in (stores.profile, stores.events, stores.documents):
                store.delete_by_source(user, [ident])
            stores.index.delete(stores.archive.delete_by_source(user, [ident]))
    else:
        _apply(stores, user, kind, ident, version)


def _check_parity(tmp_path: Path, ops: list[tuple[str, str, str, int]], kind: str = "duckdb",
                  cluster: PostgresCluster | None = None) -> None:
    reference, duck = make_stores("memory", tmp_path), make_stores(kind, tmp_path, cluster)
    try:
        for step in ops:
            _apply_any(reference, *step)
            _apply_any(duck, *step)
        for user in USERS:
            assert _reads(duck, user) == _reads(reference, user)
        assert duck.db.users() == reference.db.users()
    finally:
        reference.close()
        duck.close()


@settings(max_examples=8, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op_with_deletes, min_size=10, max_size=30))
def test_duckdb_answers_exactly_like_the_reference(tmp_path: Path,
                                                   ops: list[tuple[str, str, str, int]]) -> None:
    _check_parity(tmp_path, ops)


@pytest.mark.slow
@settings(max_examples=100, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op_with_deletes, max_size=50))
def test_duckdb_parity_many_examples(tmp_path: Path, ops: list[tuple[str, str, str, int]]) -> None:
    _check_parity(tmp_path, ops)


@settings(max_examples=6, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op, min_size=10, max_size=25))
def test_postgres_reads_of_one_user_never_depend_on_another(
        tmp_path: Path, pg_cluster: PostgresCluster, ops: list[tuple[str, str, str, int]]) -> None:
    check_reads_isolated("postgres", tmp_path, ops, pg_cluster)


@settings(max_examples=6, deadline=None, suppress_health_check=FIXTURE_OK)
@given(ops=st.lists(op_with_deletes, min_size=10, max_size=30))
def test_postgres_answers_exactly_like_the_reference(
        tmp_path: Path, pg_cluster: PostgresCluster, ops: list[tuple[str, str, str, int]]) -> None:
    _check_parity(tmp_path, ops, "postgres", pg_cluster)
