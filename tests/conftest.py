"""Session-wide test servers, started only by the tests that ask for them: a throwaway
PostgreSQL cluster (``pg_cluster``) and a Chroma server (``chroma_server``). A missing
binary or a server that does not start fails those tests; it never skips them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pg_cluster import ChromaServer, PostgresCluster, ServerUnavailable


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[PostgresCluster]:
    try:
        cluster = PostgresCluster.start()
    except ServerUnavailable as exc:
        pytest.fail(f"cannot start the test PostgreSQL cluster: {exc}", pytrace=False)
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def chroma_server() -> Iterator[ChromaServer]:
    try:
        server = ChromaServer.start()
    except ServerUnavailable as exc:
        pytest.fail(f"cannot start the test Chroma server: {exc}", pytrace=False)
    yield server
    server.stop()
