"""No module of the package binds one top-level name twice.

A second ``_IN_PLACE = ...`` further down ``facts.py`` silently replaces the first for every
function that reads it at call time (stop 53's review found one; stop 54 made the same slip and
this test is what catches it now)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import memfold

PACKAGE = Path(memfold.__file__).parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def _top_level_names(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names += [target.id for target in node.targets if isinstance(target, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and node.value is not None and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_top_level_name_is_bound_twice(path: Path) -> None:
    counts = Counter(_top_level_names(ast.parse(path.read_text(encoding="utf-8"))))
    assert [name for name, n in counts.items() if n > 1] == []


def test_a_second_binding_is_found() -> None:
    tree = ast.parse("_IN_PLACE = 1\ndef f():\n    return _IN_PLACE\n_IN_PLACE = 2\n")
    assert Counter(_top_level_names(tree))["_IN_PLACE"] == 2
