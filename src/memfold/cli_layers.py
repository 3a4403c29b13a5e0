"""`memfold kb ...` (the knowledge base) and `memfold task ...` (a task's scratchpad).

Each command calls one public method of the ``MemoryAPI``, embedded or on a server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from memfold.cli import (
    STATE,
    JsonOpt,
    UserOpt,
    _dump,
    _open,
    _print_json,
    _refuse_if_held,
    _say,
    _server_url,
    _settings,
    _table,
    err_console,
)
from memfold.errors import InvalidInputError
from memfold.tasks import scratch_text

kb_app = typer.Typer(help="The knowledge base: namespaces of documents that belong to no user.",
                     no_args_is_help=True)
task_app = typer.Typer(help="A task's scratchpad: show it, or end the task (burn it).",
                       no_args_is_help=True)

NamespaceOpt = Annotated[str, typer.Option("--namespace", "-n", help="The knowledge-base namespace.")]
TaskOpt = Annotated[str, typer.Option("--task", "-t", help="The task id.")]


@kb_app.command("add")
def kb_add(files: Annotated[list[Path], typer.Argument(
               exists=True, dir_okay=False, readable=True, help="UTF-8 text files, one document each.")],
           namespace: NamespaceOpt,
           doc_id: Annotated[Optional[str], typer.Option(
               "--doc-id", help="The document id (one file only; default: the file name).")] = None,
           json_out: JsonOpt = False) -> None:
    """Add or replace documents: a changed text becomes the next version, the old one is dropped."""
    documents = _documents(files, doc_id)
    with _open() as memory:
        report = memory.add_knowledge(namespace, documents)
    if json_out:
        _print_json(report)
        return
    _table(f"Namespace {namespace}", ["doc_id", "version", "chunks"],
           [[d.doc_id, d.version, d.chunks] for d in report.added])
    _say(f"{len(report.added)} added ({len(report.replaced)} replaced an older version), "
         f"{len(report.unchanged)} unchanged; {report.chunks_added} chunks in, "
         f"{report.chunks_removed} out ({report.seconds:.1f}s)")


def _documents(files: list[Path], doc_id: str | None) -> list[dict[str, str]]:
    if doc_id is not None and len(files) != 1:
        raise InvalidInputError("--doc-id names one document: give exactly one FILE with it")
    documents = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidInputError(f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start})",
                                    hint="convert it to UTF-8 first") from exc
        documents.append({"doc_id": doc_id or path.name, "text": text, "title": path.stem})
    return documents


@kb_app.command("list")
def kb_list(namespace: Annotated[Optional[str], typer.Option(
                "--namespace", "-n", help="Only this namespace.")] = None,
            json_out: JsonOpt = False) -> None:
    """List the documents of every namespace (or one) with their versions."""
    with _open(read_only=True) as memory:
        docs = memory.knowledge(namespace)
    if json_out:
        _print_json(_dump(docs))
        return
    _table("Knowledge base", ["namespace", "doc_id", "version", "chunks", "added", "title"],
           [[d.namespace, d.doc_id, d.version, d.chunks, d.added_at, d.title] for d in docs])


@kb_app.command("remove")
def kb_remove(namespace: NamespaceOpt,
              doc_id: Annotated[Optional[str], typer.Option(
                  "--doc-id", help="Remove only this document (default: the whole namespace).")] = None,
              yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
              json_out: JsonOpt = False) -> None:
    """Remove a document, or a whole namespace, with every chunk and vector derived from it."""
    if _server_url(STATE.store) is None:
        _refuse_if_held(Path(_settings().store), reading=False)  # before asking, not after
    what = f"document {doc_id!r} of namespace {namespace!r}" if doc_id else f"namespace {namespace!r}"
    if not yes and not typer.confirm(f"Remove {what}?", err=True):
        err_console.print("nothing removed", highlight=False)
        raise typer.Exit(1)
    with _open() as memory:
        report = memory.remove_knowledge(namespace, doc_id)
    if json_out:
        _print_json(report)
        return
    _say(f"removed {', '.join(report.removed)} from {namespace}: {report.chunks_removed} chunks")


@kb_app.command("search")
def kb_search(query: Annotated[str, typer.Argument(help="What to look for.")],
              namespace: NamespaceOpt,
              k: Annotated[int, typer.Option("--k", "-k", min=1, max=200, help="How many chunks.")] = 10,
              json_out: JsonOpt = False) -> None:
    """The best chunks of one namespace for a query (dense + lexical), with doc id and version."""
    with _open(read_only=True) as memory:
        items = memory.search_knowledge(query, namespace, k=k)
    if json_out:
        _print_json(_dump(items))
        return
    _table(f"{namespace}: {query}", ["#", "score", "doc_id", "version", "chunk", "text"],
           [[i + 1, it.score, it.meta["doc_id"], it.meta["version"], it.meta["chunk"], it.text]
            for i, it in enumerate(items)])


@task_app.command("show")
def task_show(user: UserOpt, task: TaskOpt, json_out: JsonOpt = False) -> None:
    """Show a task's scratchpad (empty once the task ended or expired)."""
    with _open(read_only=True) as memory:
        state = memory.task_read(user, task)
    if json_out:
        _print_json(state)
        return
    _table(f"Task {task} of {user}", ["key", "kind", "written", "value"],
           [[i.key, i.kind, i.written_at, scratch_text(i.value)] for i in state.items])
    if state.expires_at is not None:
        _say(f"expires {state.expires_at:%Y-%m-%d %H:%M} UTC unless written again or ended")


@task_app.command("end")
def task_end(user: UserOpt, task: TaskOpt, json_out: JsonOpt = False) -> None:
    """End a task: its scratchpad is deleted (promote what must outlive it first)."""
    with _open() as memory:
        report = memory.end_task(user, task)
    if json_out:
        _print_json(report)
        return
    _say(f"ended task {task} of {user}: {report.items} scratchpad items deleted")


def mount(app: typer.Typer) -> None:
    app.add_typer(kb_app, name="kb")
    app.add_typer(task_app, name="task")
