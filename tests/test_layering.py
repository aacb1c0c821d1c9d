"""The direction of dependency (docs/engine.md; the design's core <- bots <- arena <- analysis
<- learn <- experiments <- cli): no module imports a layer above its own.

Each module of the package is read, not imported: Python files with ``ast``, Cython files
(.pyx, .pxi, .pxd) line by line (their import and cimport statements are Python syntax),
so lazy imports inside functions count as much as those at the top.
"""
from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "glory_ai"

#: each layer and the glory_ai modules it must not import (a prefix covers its submodules)
FORBIDDEN = {
    "core": ("glory_ai.*",),            # anything of the package outside glory_ai.core
    "bots": ("glory_ai.arena", "glory_ai.analysis", "glory_ai.learn", "glory_ai.experiments",
             "glory_ai.cli"),
    "arena": ("glory_ai.analysis", "glory_ai.learn", "glory_ai.experiments", "glory_ai.cli"),
    "analysis": ("glory_ai.learn", "glory_ai.experiments", "glory_ai.cli"),
    "learn": ("glory_ai.experiments", "glory_ai.cli", "glory_ai.interactive", "glory_ai.integrations"),
    # the framework adapters sit beside the arena: the game and the bots, nothing above
    "integrations": ("glory_ai.arena", "glory_ai.analysis", "glory_ai.learn", "glory_ai.experiments",
                     "glory_ai.cli"),
}

_CYTHON_IMPORT = re.compile(r"^\s*(?:from\s+(\.*[\w.]*)\s+c?import\b|c?import\s+([\w.]+))", re.M)


def _absolute(module: str, level: int, name: str | None) -> str:
    """`from ..x import y` in glory_ai.a.b as an absolute module name."""
    if level == 0:
        return name or ""
    base = module.split(".")[:-level]
    return ".".join(base + ([name] if name else []))


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a module of the package; for
    ``from x import y``, x.y (y may be a submodule) and x."""
    relative = path.relative_to(PACKAGE.parent).with_suffix("")
    module = ".".join(relative.parts)
    if path.name == "__init__.py":
        module += ".__init__"                 # relative imports count from the package itself
    found = []
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                found += [(node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module, node.level, node.module)
                found += [(node.lineno, f"{source}.{alias.name}") for alias in node.names]
                found.append((node.lineno, source))
        return found
    text = path.read_text()
    for match in _CYTHON_IMPORT.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        if match.group(1) is not None:
            dots = len(match.group(1)) - len(match.group(1).lstrip("."))
            found.append((line, _absolute(module, dots, match.group(1).lstrip(".") or None)))
        else:
            found.append((line, match.group(2)))
    return found


def _modules(layer: str) -> list[Path]:
    folder = PACKAGE / layer
    return sorted(p for p in folder.rglob("*") if p.suffix in (".py", ".pyx", ".pxi", ".pxd"))


def violations(layer: str) -> list[str]:
    out = []
    for path in _modules(layer):
        lines_seen = set()
        for line, name in imports_of(path):
            if line in lines_seen or not (name == "glory_ai" or name.startswith("glory_ai.")):
                continue
            for forbidden in FORBIDDEN[layer]:
                if forbidden == "glory_ai.*":
                    bad = not (name == "glory_ai.core" or name.startswith("glory_ai.core."))
                else:
                    bad = name == forbidden or name.startswith(forbidden + ".")
                if bad:
                    out.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}")
                    lines_seen.add(line)
                    break
    return out


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_no_layer_imports_a_layer_above_it(layer):
    assert _modules(layer), f"no modules found in glory_ai/{layer}"
    assert violations(layer) == []


def test_the_checker_sees_every_kind_of_import(tmp_path, monkeypatch):
    # the checker itself: top-level, lazy, relative and Cython imports are all found
    fake = tmp_path / "glory_ai"
    (fake / "core").mkdir(parents=True)
    (fake / "core" / "a.py").write_text("import os\nfrom ..game import Game\n"
                                        "def f():\n    from glory_ai import cards\n")
    (fake / "core" / "b.pyx").write_text("from glory_ai.core.engine cimport State\n"
                                         "def g():\n    from glory_ai._display import render\n")
    (fake / "core" / "c.pxi").write_text("    import glory_ai.config\nfrom . import enums\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    found = violations("core")
    assert found == ["glory_ai/core/a.py:2 imports glory_ai.game.Game",
                     "glory_ai/core/a.py:4 imports glory_ai.cards",
                     "glory_ai/core/b.pyx:3 imports glory_ai._display",
                     "glory_ai/core/c.pxi:1 imports glory_ai.config"], found


# ---- no import circle ------------------------------------------------------------------------
#
# Two modules that import each other (directly or through others) cannot be understood, tested
# or moved one without the other, and an import at the top of either may find the other half
# made. Every import counts: at the top, inside a function, under TYPE_CHECKING, in Cython.
# Importing a module also runs its packages' __init__ first, but that is no dependency of the
# importer's own making: an import of a package the importer belongs to is not counted, and
# ``from package import submodule`` counts the submodule only.

def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _known_modules() -> dict[str, Path]:
    """Every module of the package by name (a Cython .pyx and its .pxd are one module)."""
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*"), reverse=True)
            if p.suffix in (".py", ".pyx", ".pxd", ".pxi")}


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module an imported name lives in: the longest known module it starts with."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(path: Path, known: dict[str, Path]) -> dict[str, int]:
    """The glory_ai modules that the module at ``path`` imports, each with its first line."""
    module = _module_name(path)
    if path.suffix == ".py":
        named = []
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                named += [(node.lineno, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(module + (".__init__" if path.name == "__init__.py" else ""),
                                   node.level, node.module)
                # ``from package import submodule`` imports the submodule, else a name of source
                named += [(node.lineno, f"{source}.{alias.name}" if f"{source}.{alias.name}" in known
                           else source) for alias in node.names]
    else:
        named = imports_of(path)           # Cython: `from x cimport y` names x
    found: dict[str, int] = {}
    for line, name in sorted(named):
        target = _resolve(name, known)
        if target is None or not (target == "glory_ai" or target.startswith("glory_ai.")):
            continue
        if target != module and not module.startswith(target + "."):   # itself, or its package
            found.setdefault(target, line)
    return found


def import_graph() -> dict[str, dict[str, int]]:
    known = _known_modules()
    return {module: module_imports(path, known) for module, path in known.items()}


def import_circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected groups of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, {}):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                circles.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(circles)


def _described(group: list[str], graph: dict[str, dict[str, int]]) -> str:
    members = set(group)
    return "; ".join(f"{module} imports {target} (line {line})" for module in group
                     for target, line in sorted(graph[module].items()) if target in members)


def test_no_import_circle_between_modules():
    graph = import_graph()
    assert len(graph) > 80, "the package's modules were not found"
    circles = [_described(group, graph) for group in import_circles(graph)]
    assert circles == [], "\n".join(circles)


def test_the_circle_check_sees_lazy_relative_and_typing_imports(tmp_path, monkeypatch):
    fake = tmp_path / "glory_ai"
    (fake / "arena").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "arena" / "__init__.py").write_text("from .runner import run\n")
    # a <-> b through a lazy import; c -> d -> e -> c through relative and TYPE_CHECKING ones
    (fake / "arena" / "a.py").write_text("from . import b\n")
    (fake / "arena" / "b.py").write_text("def f():\n    from glory_ai.arena.a import g\n")
    (fake / "arena" / "c.py").write_text("from .d import x\n")
    (fake / "arena" / "d.py").write_text("from ..arena import e\n")
    (fake / "arena" / "e.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                         "    from .c import y\n")
    # a submodule importing its own package is no edge; `from package import submodule, name`
    # is one to each (the package's __init__ imports runner, which imports nothing back)
    (fake / "arena" / "runner.py").write_text("from .. import arena\nfrom glory_ai import arena as a\n")
    (fake / "cards.py").write_text("from glory_ai.arena import runner, run\n")
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", fake)
    graph = import_graph()
    assert graph["glory_ai.cards"] == {"glory_ai.arena.runner": 1, "glory_ai.arena": 1}
    assert graph["glory_ai.arena.runner"] == {}
    assert import_circles(graph) == [["glory_ai.arena.a", "glory_ai.arena.b"],
                                     ["glory_ai.arena.c", "glory_ai.arena.d", "glory_ai.arena.e"]]
