"""The arena plays, seeds and stores, and imports nothing above it: no statistics, no
plotting, nothing of glory_ai.analysis or glory_ai.experiments (core <- bots <- arena <-
analysis <- experiments <- cli)."""
import ast
import subprocess
import sys
from pathlib import Path

import pytest

import glory_ai.arena

ARENA = Path(glory_ai.arena.__file__).parent
MODULES = sorted(ARENA.glob("*.py"))


def test_a_worker_imports_no_statistics_or_plotting_library():
    # a joblib worker imports glory_ai.arena.play (and with it the arena package) to play
    code = ("import sys, glory_ai.arena.play; "
            "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib', 'openskill', "
            "'glory_ai.analysis', 'glory_ai.experiments') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def _imported(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside a function, resolved to absolute."""
    package = ["glory_ai", "arena"]
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_the_arena_imports_nothing_above_it(path):
    above = ("glory_ai.analysis", "glory_ai.experiments", "glory_ai.cli", "pandas", "scipy",
             "matplotlib", "openskill")
    found = sorted(name for name in _imported(path) if name.startswith(above))
    assert found == [], f"{path.name} imports {found}"


def test_the_import_check_sees_relative_imports():
    assert "glory_ai.arena.plan.RunConfig" in _imported(ARENA / "runner.py")
    assert "glory_ai.bots" in _imported(ARENA / "play.py")
