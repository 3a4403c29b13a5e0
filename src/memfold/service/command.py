"""`memfold serve`: the CLI command that puts the store behind the REST service."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer

from memfold.errors import ConfigError

DEFAULT_PORT = 8750


def load_keys(path: Path | None) -> Any:
    """The key ring from ``--api-keys FILE`` (or MEMFOLD_API_KEYS_FILE), else MEMFOLD_API_KEYS."""
    from memfold.service.auth import KeyRing

    path = path or (Path(os.environ["MEMFOLD_API_KEYS_FILE"]) if os.environ.get("MEMFOLD_API_KEYS_FILE") else None)
    if path is not None:
        return KeyRing.from_file(path)
    return KeyRing.from_inline(os.environ.get("MEMFOLD_API_KEYS", ""))


def serve_command(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on (0: any free port).")] = DEFAULT_PORT,
    api_keys: Annotated[Optional[Path], typer.Option(
        "--api-keys", help="JSON key file: {\"keys\": [{\"key\": ..., \"users\": [...] or \"*\"}]} "
                           "(or MEMFOLD_API_KEYS_FILE; MEMFOLD_API_KEYS=KEY=u1,u2;KEY2=* inline).")] = None,
    rate_limit: Annotated[float, typer.Option(
        help="Requests per second per API key (0: no limit).")] = 200.0,
    burst: Annotated[int, typer.Option(help="Requests a key may send at once above the rate.")] = 400,
    max_request_bytes: Annotated[int, typer.Option(help="Largest request body accepted.")] = 8 * 1024 * 1024,
    grace: Annotated[float, typer.Option(
        help="Seconds a shutdown waits for requests in flight.")] = 30.0,
    allow_unauthenticated: Annotated[bool, typer.Option(
        "--allow-unauthenticated", help="Serve a non-loopback address without API keys.")] = False,
    index_process: Annotated[bool, typer.Option(
        "--index-process/--no-index-process",
        help="Run the store's Chroma index in a child process, so its calls do not stall "
             "other requests (README, \"Serving\").")] = True,
) -> None:
    """Serve the store over HTTP (REST, OpenAPI at /openapi.json, /healthz, /readyz); other
    memfold commands on the same --store send their work to it; without API keys it listens
    on loopback only."""
    from memfold import cli
    from memfold.service.app import create_app
    from memfold.service.server import bind, is_loopback, serve, url_of

    keys = load_keys(api_keys)
    if not keys.enabled and not is_loopback(host) and not allow_unauthenticated:
        raise ConfigError(f"refusing to serve {host} without API keys",
                          hint="pass --api-keys FILE (or MEMFOLD_API_KEYS), or --allow-unauthenticated")
    with cli._open(index_process=index_process) as memory:
        sock = bind(host, port)
        app = create_app(memory, keys=keys, rate=rate_limit, burst=burst,
                         max_request_bytes=max_request_bytes)
        auth = f"{len(keys.keys)} API key(s)" if keys.enabled else "no API keys (loopback only)"
        cli.err_console.print(f"memfold serving {cli.STATE.store} at {url_of(sock)} ({auth}); "
                              "Ctrl-C stops it", highlight=False)
        # announced in the store directory for the CLI to find; a PostgreSQL deployment
        # has none (replicas share the database, each is reached at its own URL)
        directory = getattr(getattr(memory, "stores", None), "directory", None)
        serve(app, sock, store=None if directory is None else Path(cli.STATE.store))


def mount(app: typer.Typer) -> None:
    app.command("serve")(serve_command)
