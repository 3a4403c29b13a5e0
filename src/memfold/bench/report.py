"""Write a benchmark's outputs: results.json, results.md and a per-category bar chart (PNG).

Results carry the date, the git commit and the machine (cores, RAM) so that figures
committed under benchmarks/results/ can be compared across runs.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

CHART_FILE = "recall_by_category.png"


def git_commit(cwd: Path | None = None) -> str | None:
    """HEAD of the repository the run starts from (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True,
                              timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None


def uncommitted_sources(cwd: Path | None = None) -> list[str] | None:
    """Tracked files under src/ that differ from HEAD: the run measured code not in the commit."""
    try:
        done = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", "src"],
                              cwd=cwd, capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return [line[3:] for line in done.stdout.splitlines() if line.strip()]


def machine() -> dict[str, Any]:
    try:
        import psutil

        ram = psutil.virtual_memory().total
    except ImportError:  # psutil is a bench/dev extra
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return {"cores": os.cpu_count(), "ram_gb": round(ram / 2**30, 1),
            "platform": platform.platform(), "python": sys.version.split()[0],
            # other processes share the cores: a load above the core count slows every figure
            "load_avg_1m": round(os.getloadavg()[0], 2)}  # when the run started


def run_metadata() -> dict[str, Any]:
    return {"date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "git_commit": git_commit(Path.cwd()),
            "uncommitted_sources": uncommitted_sources(Path.cwd()), "machine": machine()}


def write_json(path: Path, data: Any) -> None:
    """Temp file + fsync + os.replace: a killed run never leaves a half-written file."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=False)
        handle.write("\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _fmt(value: float) -> str:
    return f"{value:.3f}"


def markdown(results: dict[str, Any]) -> str:
    ks = [str(k) for k in results["k"]]
    budget = results["budget_tokens"]
    budgets = [str(b) for b in results.get("context_budgets", [budget])]
    machine_info = results.get("machine", {})
    lines = [f"# Benchmark: {results['dataset']}", "",
             f"{results['conversations']} conversations, {results['questions']} questions, "
             f"date {results.get('date', '?')}, commit {str(results.get('git_commit'))[:12]}, "
             f"machine {machine_info.get('cores', '?')} cores / {machine_info.get('ram_gb', '?')} GB RAM, "
             f"load average {machine_info.get('load_avg_1m', '?')} at the start and "
             f"{machine_info.get('load_avg_1m_end', '?')} at the end of the run.", "",
             "**context@B**: evidence recall of the prompt the system gives an agent within B tokens "
             "(memfold: `Memory.context()`; a baseline: its ranked turns rendered the same way). "
             "Secondary, ranked list: R@k = evidence among the sources of the first k items; "
             f"R@{budget}tok = the items' raw text taken in rank order within {budget} tokens "
             "(no prompt rendering).", "",
             "| system | " + " | ".join(f"context@{b}" for b in budgets) + " | "
             + " | ".join(f"R@{k}" for k in ks)
             + f" | R@{budget}tok (ranked) | prompt ms p50 | recall ms p50 | recall ms p95 |",
             "|---" * (len(budgets) + len(ks) + 5) + "|"]
    for name, sysres in results["systems"].items():
        context_at = sysres.get("context_at", {})
        row = [name, *(_fmt(context_at[b]) if b in context_at else "-" for b in budgets),
               *(_fmt(sysres["recall_at"][k]) for k in ks), _fmt(sysres["recall_at_budget"]),
               f"{sysres.get('context_latency_ms', {}).get('p50', 0.0):.1f}",
               f"{sysres['latency_ms']['p50']:.1f}", f"{sysres['latency_ms']['p95']:.1f}"]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", _category_table(results, "context_at", str(budget), f"context@{budget}"),
              "", _category_table(results, "recall_at_budget", None, f"ranked list within {budget} tokens"),
              *_session_tables(results), "", _ingest_lines(results)]
    return "\n".join(lines) + "\n"


def _cell(block: dict[str, Any], metric: str, key: str | None) -> str:
    value = block.get(metric)
    if isinstance(value, dict):
        value = value.get(key) if key is not None else None
    return _fmt(value) if isinstance(value, (int, float)) else "-"


def _category_table(results: dict[str, Any], metric: str, key: str | None, title: str) -> str:
    systems = results["systems"]
    categories = list(dict.fromkeys(c for s in systems.values() for c in s["by_category"]))
    header = ("| category (n) | " + " | ".join(systems) + " |\n" + "|---" * (len(systems) + 1) + "|")
    rows = []
    for cat in categories:
        n = next(s["by_category"][cat]["n"] for s in systems.values() if cat in s["by_category"])
        cells = [_cell(s["by_category"][cat], metric, key) if cat in s["by_category"] else "-"
                 for s in systems.values()]
        rows.append(f"| {cat} ({n}) | " + " | ".join(cells) + " |")
    rows.append("| all | " + " | ".join(_cell(s, metric, key) for s in systems.values()) + " |")
    return f"{title}, per category:\n\n" + header + "\n" + "\n".join(rows)


def _session_tables(results: dict[str, Any]) -> list[str]:
    """LongMemEval's session recall, and the knowledge-update checks, when the data has them."""
    systems = results["systems"]
    if not any("session_recall_any_at" in s for s in systems.values()):
        return []
    out = []
    for k in ("1", "5", "10"):
        out += ["", _category_table(results, "session_recall_any_at", k, f"session recall_any@{k}")]
    out += ["", _category_table(results, "session_recall_all_at", "5", "session recall_all@5")]
    if any("updates" in s for s in systems.values()):
        rows = [f"| {name} | {s['updates']['n']} | {_fmt(s['updates']['newest_in_context'])} | "
                f"{_fmt(s['updates']['newest_ranked_first'])} |" for name, s in systems.items() if "updates" in s]
        out += ["", f"Knowledge updates: the newest value's turn in the prompt at {results['budget_tokens']} "
                "tokens, and ranked above every value it replaced:", "",
                "| system | n | newest in context | newest ranked first |", "|---|---|---|---|", *rows]
    return out


def _ingest_lines(results: dict[str, Any]) -> str:
    ingest = results["ingest"]
    return (f"Ingest (system under test): {ingest['messages']} messages in {ingest['seconds']:.1f} s "
            f"= {ingest['messages_per_s']:.1f} messages/s. Full-context alternative: "
            f"{results['full_context_tokens']} tokens per conversation on average. Evidence ids "
            f"naming no turn (counted as misses): {results['missing_evidence']}. Run time "
            f"{results.get('elapsed_s', '?')} s wall, {results.get('cpu_s', '?')} s CPU.")


def bar_chart(results: dict[str, Any], path: Path) -> None:
    """Grouped bars: context@budget (evidence in the prompt) per category, one bar per system."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    systems = results["systems"]
    key = str(results["budget_tokens"])
    categories = list(dict.fromkeys(c for s in systems.values() for c in s["by_category"]))
    categories.append("all")
    width = 0.8 / max(len(systems), 1)
    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = np.arange(len(categories))
    for index, (name, sysres) in enumerate(systems.items()):
        values = [sysres["by_category"].get(c, {}).get("context_at", {}).get(key, 0.0)
                  for c in categories[:-1]]
        values.append(sysres.get("context_at", {}).get(key, 0.0))
        ax.bar(x + index * width - 0.4 + width / 2, values, width, label=name)
    ax.set_xticks(x, categories)
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"evidence in the prompt (context@{key})")
    ax.set_title(f"{results['dataset']}: {results['questions']} questions")
    ax.legend(ncols=len(systems), fontsize="small", loc="upper left")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_outputs(results: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    """results.json (without per-question rows), results.md, the chart, and details.jsonl if any."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "results.json", "markdown": out_dir / "results.md",
             "chart": out_dir / CHART_FILE}
    rows = results.get("details")
    if rows is not None:
        paths["details"] = out_dir / "details.jsonl"
        paths["details"].write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    write_json(paths["json"], {key: value for key, value in results.items() if key != "details"})
    paths["markdown"].write_text(markdown(results), encoding="utf-8")
    bar_chart(results, paths["chart"])
    return paths
