"""docs/extending.md says what the code does: its bot is examples/cautious.py, its Python
blocks run (from the repository's root, as its paths are written), and every command line
option and error it shows exists."""
from __future__ import annotations

import contextlib
import io
import re
import textwrap

import pytest

from glory_ai.bots import plugins
from support.userbots import EXAMPLES, ROOT

DOC = ROOT / "docs" / "extending.md"


def _blocks(text: str) -> list[str]:
    return [textwrap.dedent(block).strip() for block in re.findall(r"```python\n(.*?)```", text, re.S)]


def test_the_bot_of_the_page_is_the_example_file():
    bot = _blocks(DOC.read_text())[0]
    example = (EXAMPLES / "cautious.py").read_text()
    assert bot in example and example.split('"""', 2)[2].strip() == bot


def test_the_python_blocks_run(monkeypatch):
    monkeypatch.chdir(ROOT)
    namespace: dict = {}
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            for i, block in enumerate(_blocks(DOC.read_text())):
                exec(compile(block, f"docs/extending.md python block {i + 1}", "exec"), namespace)
    finally:
        plugins._REGISTERED.pop("patient", None)
    assert "examples/cautious.py:Cautious:risk=0.1" in printed.getvalue()
    assert namespace["bot"].inner.seed == 3


@pytest.mark.parametrize("option", ["--move-time-limit", "--forfeit", "--fresh", "--allow-code-change",
                                    "--gauntlet", "--sprt"])
def test_the_options_it_names_exist(option):
    from glory_ai.cli import build_parser

    text = DOC.read_text()
    assert option in text
    commands = build_parser()._subparsers._group_actions[0].choices.values()
    assert any(option in command.format_help() for command in commands)
