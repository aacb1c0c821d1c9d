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
             "glory_ai.cli", "glory_ai.tune"),
    "arena": ("glory_ai.analysis", "glory_ai.learn", "glory_ai.experiments", "glory_ai.cli", "glory_ai.tune"),
    "analysis": ("glory_ai.learn", "glory_ai.experiments", "glory_ai.cli", "glory_ai.tune"),
    "learn": ("glory_ai.experiments", "glory_ai.cli", "glory_ai.interactive", "glory_ai.integrations",
              "glory_ai.tune"),
    # balance tuning sits on the arena and the analysis, below the experiments (whose
    # `reproduce` reads a study's folder)
    "tune": ("glory_ai.experiments", "glory_ai.cli", "glory_ai.learn", "glory_ai.interactive",
             "glory_ai.integrations"),
    # the framework adapters sit beside the arena: the game and the bots, nothing above
    "integrations": ("glory_ai.arena", "glory_ai.analysis", "glory_ai.learn", "glory_ai.experiments",
                     "glory_ai.cli", "glory_ai.tune"),
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
