"""No module of the package imports a private name (``_name``) of a module in another of its
packages: what one package offers another is public, so that a rename inside a package stays
inside it. (Modules at the package top whose own name is private, such as glory_ai._argparse,
are the shared helpers of every command module and may be imported anywhere.)

Modules are read, not imported (Python with ``ast``, Cython's import and cimport lines with a
pattern), so lazy imports inside functions count too.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from glory_ai.analysis import figures
from glory_ai.analysis.report import formats
from glory_ai.arena import play
from glory_ai.core.enums import EndReason
from glory_ai.interactive import narrate

PACKAGE = Path(__file__).resolve().parent.parent / "glory_ai"

_CYTHON_FROM = re.compile(r"^\s*from\s+(\.*[\w.]*)\s+c?import\s+(\([^)]*\)|[^\n#]+)", re.M)


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _package(module: str) -> str:
    """glory_ai.arena.play -> glory_ai.arena; glory_ai.game -> glory_ai."""
    parts = module.split(".")
    return ".".join(parts[:2]) if len(parts) > 2 or (PACKAGE / parts[-1]).is_dir() else parts[0]


def private_imports(path: Path, module: str | None = None) -> list[tuple[int, str, str]]:
    """(line, source module, name) of every private name a module (named ``module``, by
    default after its path) imports."""
    module, is_package = module or _module(path), path.name == "__init__.py"
    found = []
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                source = _absolute(module, is_package, node.level, node.module)
                found += [(node.lineno, source, a.name) for a in node.names]
    else:
        text = path.read_text()
        for match in _CYTHON_FROM.finditer(text):
            dots = len(match[1]) - len(match[1].lstrip("."))
            source = _absolute(module, is_package, dots, match[1].lstrip(".") or None)
            line = text.count("\n", 0, match.start()) + 1
            names = match[2].strip("() \n").replace("\n", " ")
            found += [(line, source, n.split(" as ")[0].strip()) for n in names.split(",") if n.strip()]
    return [(line, source, name) for line, source, name in found
            if name.startswith("_") and not name.startswith("__") and source.startswith("glory_ai")
            # `from .. import _argparse`: a private module, not a name
            and not (PACKAGE.parent / (source.replace(".", "/") + "/" + name)).with_suffix(".py").exists()]


def _sources():
    return sorted(p for suffix in ("*.py", "*.pyx", "*.pxi", "*.pxd") for p in PACKAGE.rglob(suffix))


def test_the_scan_sees_a_private_import_across_packages(tmp_path):
    # the checker itself: a lazy import of a private name from another package is found,
    # in Python and in Cython
    probe = tmp_path / "probe.py"
    probe.write_text("import os\ndef f():\n    from ..bots import make_bot, _secret\n")
    assert private_imports(probe, "glory_ai.arena.probe") == [(3, "glory_ai.bots", "_secret")]
    probe = tmp_path / "probe.pyx"
    probe.write_text("cimport cython\nfrom glory_ai.core.engine cimport (\n    State, _hidden,\n)\n")
    assert private_imports(probe, "glory_ai.bots.probe") == [(2, "glory_ai.core.engine", "_hidden")]


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_name_crosses_a_package(path):
    here = _package(_module(path))
    crossing = [f"{path.relative_to(PACKAGE.parent)}:{line}: {name} from {source}"
                for line, source, name in private_imports(path) if _package(source) != here]
    assert not crossing, crossing


def test_the_experiment_verifier_uses_the_runners_public_grids():
    # the derived files' checks live in experiments/checks.py (verify and reproduce both read them)
    text = (PACKAGE / "experiments" / "checks.py").read_text()
    assert "report_grids" in text and "_grids" not in text.replace("report_grids", "")


def test_every_table_of_end_reasons_names_each_reason_once():
    # adding an EndReason without its colour, label or sentence fails here, not in a report
    reasons = set(EndReason)
    assert set(figures.END_COLORS) == reasons
    assert set(figures.END_LABELS) == reasons
    assert set(formats.REASON_TEXT) == reasons
    assert all(isinstance(key, EndReason) for key in (*figures.END_COLORS, *formats.REASON_TEXT))
    # the arena's own end reason is no engine reason, and a record's string finds its entry
    assert play.DECISION_LIMIT not in reasons
    assert figures.END_LABELS["forum"] == "Forum"


def test_the_end_sentence_names_why_the_game_ended():
    import glory_ai

    state = glory_ai.Game(2).new_initial_state(11)
    state.random_playout(11)
    assert state.is_terminal() and state.end_reason() in EndReason
    sentence = narrate.end_sentence(state, None)
    # the reason in words, not its bare name
    assert sentence.startswith("The game is over (") and f"({state.end_reason()})" not in sentence
