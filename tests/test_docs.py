"""The runnable examples in docstrings and the README's Python snippet work."""
import doctest
import re
from pathlib import Path

import glory_ai.game


def test_game_module_doctests():
    result = doctest.testmod(glory_ai.game)
    assert result.attempted > 0 and result.failed == 0


def test_readme_python_example_runs():
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    code = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["state"].is_terminal()
    assert namespace["same"].to_dict() == namespace["position"]
