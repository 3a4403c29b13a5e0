"""Throwaway servers for tests: a PostgreSQL cluster and a Chroma server.

``PostgresCluster.start()`` runs ``initdb`` in a fresh temporary directory and starts the
server on a Unix socket in that directory only (no TCP port), as the ``postgres`` user
when the tests run as root (PostgreSQL refuses to run as root; the directory is then
owned by postgres). ``stop()`` stops it with ``pg_ctl stop -m immediate`` and removes the
directory. Each test gets its own schema (``new_schema``): creating one costs a few
milliseconds, against ~0.25 s for a database copied from a template.

``ChromaServer.start()`` runs ``chroma run`` (the CLI of the chromadb package in this
venv) on a free loopback port with its own temporary directory.

Both raise :class:`ServerUnavailable` when the binaries are missing or the server does
not come up: the fixtures turn that into a test failure, never a skip, so CI proves the
PostgreSQL and Chroma-server paths.
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import httpx
import psycopg

PG_PORT = 5432  # only names the socket file: the server listens on no TCP port
DATABASE = "memfold"
# Durability off for speed: a test never survives an OS crash of the machine anyway (a
# killed server process still recovers from its WAL).
PG_SETTINGS = {"listen_addresses": "''", "fsync": "off", "synchronous_commit": "off",
               "full_page_writes": "off", "max_connections": "300"}


class ServerUnavailable(RuntimeError):
    """A test server could not be started; the message says why and what to install."""


def _as_postgres() -> list[str]:
    """The command prefix that runs a PostgreSQL binary as a non-root user."""
    if os.geteuid() != 0:
        return []
    try:
        pwd.getpwnam("postgres")
    except KeyError as exc:
        raise ServerUnavailable("running as root, and there is no 'postgres' user to run "
                                "the PostgreSQL server as") from exc
    return ["runuser", "-u", "postgres", "--"]


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise ServerUnavailable(f"`{name}` is not on PATH: install the PostgreSQL 15 server "
                                "binaries (initdb, pg_ctl, postgres) to run these tests")
    return found


class PostgresCluster:
    """A PostgreSQL cluster in a temporary directory, reached through its Unix socket."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.data = root / "data"
        self._schemas = itertools.count(1)

    @classmethod
    def start(cls) -> PostgresCluster:
        prefix = _as_postgres()
        initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
        root = Path(tempfile.mkdtemp(prefix="memfold-pg-"))
        if prefix:
            user = pwd.getpwnam("postgres")
            os.chown(root, user.pw_uid, user.pw_gid)
        cluster = cls(root)
        try:
            cluster._run([*prefix, initdb, "-D", str(cluster.data), "-A", "trust", "-U",
                          "postgres", "-E", "UTF8", "--locale=C.UTF-8"])
            options = " ".join(f"-c {k}={v}" for k, v in PG_SETTINGS.items())
            cluster._run([*prefix, pg_ctl, "-D", str(cluster.data), "-w", "-t", "60",
                          "-l", str(root / "server.log"), "-o",
                          f"-p {PG_PORT} -k {root} {options}", "start"])
            cluster.admin(f"CREATE DATABASE {DATABASE}", dbname="postgres")
        except BaseException:
            cluster.stop()
            raise
        return cluster

    def _run(self, args: list[str]) -> None:
        done = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text()[-2000:] if log.exists() else ""
            raise ServerUnavailable(f"{' '.join(args)} failed: {done.stderr[-2000:]}\n{tail}")

    def conninfo(self, schema: str | None = None, dbname: str = DATABASE) -> str:
        """A libpq key=value string; with ``schema``, sessions see only that schema."""
        info = f"host={self.root} port={PG_PORT} user=postgres dbname={dbname}"
        return info + (f" options='-c search_path={schema}'" if schema else "")

    def url(self, schema: str | None = None, dbname: str = DATABASE) -> str:
        """The same as a postgresql:// URL (what MEMFOLD_DATABASE_URL takes)."""
        query = f"host={quote(str(self.root), safe='')}&port={PG_PORT}&user=postgres"
        if schema:
            query += "&options=" + quote(f"-c search_path={schema}", safe="")
        return f"postgresql:///{dbname}?{query}"

    def admin(self, sql: str, dbname: str = DATABASE) -> None:
        """Run one statement as the superuser, outside any transaction."""
        with psycopg.connect(self.conninfo(dbname=dbname), autocommit=True) as conn:
            conn.execute(sql)

    def new_schema(self) -> str:
        """A fresh, empty schema (a database of its own for one test's store)."""
        name = f"test_{next(self._schemas)}"
        self.admin(f"CREATE SCHEMA {name}")
        return name

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run([*_as_postgres(), _binary("pg_ctl"), "-D", str(self.data), "stop",
                            "-m", "immediate"], capture_output=True, timeout=60)
        shutil.rmtree(self.root, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class ChromaServer:
    """``chroma run`` on a loopback port, with its own data directory."""

    def __init__(self, root: Path, port: int, process: subprocess.Popen[bytes]) -> None:
        self.root = root
        self.port = port
        self.process = process

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @classmethod
    def start(cls, timeout: float = 60.0) -> ChromaServer:
        cli = Path(sys.executable).parent / "chroma"
        if not cli.exists():
            raise ServerUnavailable(f"{cli} is missing: install chromadb into this venv "
                                    "(`pip install -e '.[dev]'`)")
        root = Path(tempfile.mkdtemp(prefix="memfold-chroma-"))
        port = _free_port()
        with (root / "server.log").open("wb") as log:  # the child keeps its own descriptor
            process = subprocess.Popen(
                [str(cli), "run", "--path", str(root / "data"), "--host", "127.0.0.1",
                 "--port", str(port)], stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "ANONYMIZED_TELEMETRY": "False"})
        server = cls(root, port, process)
        server._wait_until_up(timeout)
        return server

    def _wait_until_up(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                break
            try:
                httpx.get(f"{self.url}/api/v2/heartbeat", timeout=1.0).raise_for_status()
                return
            except httpx.HTTPError:
                time.sleep(0.1)
        tail = (self.root / "server.log").read_text(errors="replace")[-2000:]
        self.stop()
        raise ServerUnavailable(f"the Chroma server on port {self.port} did not come up:\n{tail}")

    def client(self) -> object:
        import chromadb
        from chromadb.config import Settings

        return chromadb.HttpClient(host="127.0.0.1", port=self.port,
                                   settings=Settings(anonymized_telemetry=False))

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)
