"""Every shell and Python block of README.md and docs/*.md runs, so that a page cannot drift.

The fence's info string says what a block is (a fence without one is an error):

* ``bash``: commands. Each line is one command (a line ending in ``\\`` goes on; ``# ...``
  comments are the shell's). ``glory-ai`` runs as ``python3 -m glory_ai`` from this checkout.
  A command must exit with status 0, unless its comment starts with ``# fails``: then it
  must exit with a non-zero status and print no traceback. Parts of a line joined by
  ``&&`` are taken one by one. Installing software (pip, apt, dnf, git clone,
  xcode-select, ...) is not run but checked: the extras a ``pip install`` names exist in
  pyproject.toml, a local path it names exists. ``python3 -m pytest`` is not run (it is
  the test suite itself); the README's must be what ``.ci/run`` runs.
* ``console``: a transcript. Its ``$ `` lines are commands, run as above; the other lines
  are their output, compared with what the command prints (see *shown output* below). An
  output starting ``glory-ai: error:`` means the command must fail (it is compared with
  what the command writes to stderr), and a run folder the output names
  (``results/compare-4a8047be``) stands for the one the real run printed, in the page's
  later commands.
* ``python``: run. A page's Python blocks make one script, run in one fresh interpreter in
  page order and interleaved with its shell blocks, like a notebook: a block may use what an
  earlier block of the same page made (a block is appended to the script file, then run in
  ``__main__``).
* ``output``: what the ``python`` or ``bash`` block just before it prints (the whole block's
  stdout), compared (*shown output* below); it must follow such a block, which must run.
* ``text`` (listings, formats), ``cython``, ``json``, ``toml``: not run as they are. JSON and
  TOML blocks must parse; a TOML block holding a ``[[matchup]]`` is an experiment config: it
  is written to a file and run, shrunk, with ``glory-ai run``.
* ``<!-- not run: REASON -->`` on the line before a ``bash``, ``console`` or ``python``
  fence: the block is not run (it needs a terminal, a person, a network, a file of the
  reader's). ``python3 tests/test_docs_run.py --list`` lists them; they stay few.

Each page runs in a temporary folder of its own holding copies of ``examples/``,
``benchmarks/`` and ``experiments/`` and of every shipped ``results/NAME`` its blocks name (unless the page
makes that folder itself with ``glory-ai run experiments/NAME.toml``). The environment keeps
PYTHONPATH and limits joblib to one core; two pages run at once (``PAGE_WORKERS``).

Shown output: the lines a page shows a block printing (a transcript's, an ``output``
block's) must be what it prints, seeded as the page says, line by line, after blanking what
varies from run to run: durations (``46.6 s``, ``7 ms``: ``<time>``) and the ``ms/move``
column of a results table. A line ``...`` stands for any number of lines left out. A block
whose output is shown runs as written: its budgets are not shrunk (only ``--jobs``,
``n_jobs`` and ``--delay``, which change no output), so what it shows stays cheap.

Budgets are shrunk by rewriting what runs, never by a knob of the product (``SHRINK``):
game counts (``--games``, ``for_games(..., N)``, ``deals = N``; a ``compare`` or
``tournament`` without ``--games`` gets 4), search iterations (``iters=N``, a grid's
``iters = [...]``), times (``time_ms``, ``--delay``, ``--seconds``; ``watch`` gets
``--delay 0``), workers (``--jobs``, ``n_jobs``, ``jobs = N``) and the calibration's
simulated matches (``--runs 10``).
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))

RUN_KINDS = {"bash", "console", "python"}
OTHER_KINDS = {"text", "cython", "json", "toml", "output"}
# not-run blocks are for what a test cannot do (a terminal, a person, a network, a build
# that CI runs as a step of its own); a few
MAX_NOT_RUN = 9
COMMAND_TIMEOUT = 300
INSTALLERS = {"pip", "pip3", "apt", "apt-get", "dnf", "yum", "brew", "sudo", "git",
              "xcode-select", "curl", "wget", "conda"}

FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.S | re.M)
NOT_RUN = re.compile(r"<!--\s*not run:\s*(?P<reason>.*?)\s*-->\s*$")
RUN_FOLDER = re.compile(r"results/(?:compare|tournament)-[0-9a-f]{8}")
SHIPPED = sorted(p.name for p in (ROOT / "results").iterdir() if (p / "experiment.toml").exists())


@dataclass
class Block:
    page: Path
    line: int                  # of the opening fence, 1-based
    kind: str
    body: str
    not_run: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def blocks_of(page: Path) -> list[Block]:
    text = page.read_text()
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[:match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        reason = NOT_RUN.search(before)
        indent = len(match.group("indent"))
        body = "\n".join(row[indent:] for row in match.group("body").splitlines())
        found.append(Block(page, line, match.group("info").strip().split(" ")[0], body,
                           reason.group("reason") if reason else None))
    return found


def all_blocks() -> list[Block]:
    return [block for page in PAGES for block in blocks_of(page)]


# ---- shrinking: what the test rewrites before running ---------------------------------------

def _fewer_iters(match: re.Match) -> str:
    # distinct budgets stay distinct (10 and 100 iterations are two bots)
    return f"{match.group(1)}{min(100, math.ceil(int(match.group(2)) / 25))}"


def _at_most(limit: int):
    return lambda m: f"{m.group(1)}{min(limit, int(m.group(2)))}"


# resources: rewritten in every block (they change no output)
RESOURCES = [
    (re.compile(r"(--jobs )(-?\d+)"), lambda m: f"{m.group(1)}1"),
    (re.compile(r"(\bn_jobs=)(-?\d+)"), lambda m: f"{m.group(1)}1"),
    (re.compile(r"(--delay )([\d.]+)"), lambda m: f"{m.group(1)}0"),
]
SHRINK = [
    (re.compile(r"(\biters=)(\d+)"), _fewer_iters),
    (re.compile(r"(\btime_ms=)(\d+)"), _at_most(20)),
    (re.compile(r"(--games )(\d+)"), _at_most(4)),
    (re.compile(r"(for_games\(\[[^\]]*\],\s*)(\d+)"), _at_most(4)),
    *RESOURCES,
    (re.compile(r"(--seconds )([\d.]+)"), lambda m: f"{m.group(1)}0.05"),
]
SHRINK_TOML = [
    (re.compile(r"^(deals\s*=\s*)(\d+)", re.M), _at_most(1)),
    (re.compile(r"^(jobs\s*=\s*)(-?\d+)", re.M), lambda m: f"{m.group(1)}1"),
    (re.compile(r"(\biters\s*=\s*\[)([\d,\s]+)(\])"),
     lambda m: m.group(1) + ", ".join(str(min(100, math.ceil(int(n) / 25)))
                                      for n in m.group(2).split(",")) + m.group(3)),
] + SHRINK[:2]


def shrink(text: str, rules=SHRINK) -> str:
    for pattern, replace in rules:
        text = pattern.sub(replace, text)
    return text


def shrink_command(words: list[str], shown: bool = False) -> list[str]:
    """A compare or tournament without --games would play 100: give it a few. A command
    whose output the page shows (``shown``) keeps its budgets."""
    line = shrink(shlex.join(words), RESOURCES if shown else SHRINK)
    words = shlex.split(line)
    if shown:
        return words
    if words[:1] == ["glory-ai"] and words[1:2] in (["compare"], ["tournament"]):
        if "--games" not in words:
            words += ["--games", "4"]
    if words[:2] == ["glory-ai", "watch"] and "--delay" not in words:
        words += ["--delay", "0"]               # its default pauses half a second a move
    if words[:2] == ["python3", "benchmarks/calibration.py"]:
        words += ["--runs", "10"]               # simulated matches per row (--quick: a tenth)
    return words


# ---- commands -------------------------------------------------------------------------------

@dataclass
class Command:
    words: list[str]
    comment: str
    expect_failure: bool
    output: list[str] = field(default_factory=list)     # a transcript's documented output


def _split_comment(line: str) -> tuple[str, str]:
    """The command and its comment: a "#" that starts a word outside quotes begins it."""
    words = []
    for token in re.finditer(r"""(?:[^\s"'#]|"[^"]*"|'[^']*')+|#.*""", line):
        if token.group().startswith("#"):
            return " ".join(words), token.group()
        words.append(token.group())
    return " ".join(words), ""


def commands_of(block: Block) -> list[Command]:
    """The commands of a bash or console block, each && part on its own."""
    lines: list[tuple[str, list[str]]] = []
    pending = ""
    for row in block.body.splitlines():
        if block.kind == "console":
            if row.startswith("$ "):
                lines.append((row[2:], []))
            elif lines:
                lines[-1][1].append(row)
            continue
        pending += row
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
            continue
        if pending.strip():
            lines.append((pending, []))
        pending = ""
    commands = []
    for line, output in lines:
        text, comment = _split_comment(line)
        if not text.strip():
            continue
        fails = comment.lstrip("# ").startswith("fails") or any(
            row.startswith("glory-ai: error:") for row in output[:1])
        for part in text.split(" && "):
            commands.append(Command(shlex.split(part), comment, fails, output))
    return commands


def _program(words: list[str]) -> list[str]:
    """The words after any VAR=value prefix."""
    while words and re.match(r"^[A-Za-z_]\w*=", words[0]):
        words = words[1:]
    return words


def is_install(words: list[str]) -> bool:
    words = _program(words)
    return bool(words) and (words[0] in INSTALLERS or words[1:3] == ["-m", "pip"])


def is_test_suite(words: list[str]) -> bool:
    return _program(words)[1:3] == ["-m", "pytest"]


def check_install(words: list[str]) -> list[str]:
    """What can be checked of an install command without running it."""
    problems = []
    words = _program(words)
    if "pip" in words[:3] and "install" in words:
        extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
                     .get("optional-dependencies", {}))
        for target in words[words.index("install") + 1:]:
            if target.startswith("-"):
                continue
            local = re.match(r"^(\.{1,2}(?:/[^\[]*)?)(?:\[(.*)\])?$", target)
            if local:
                if not (ROOT / local.group(1)).exists():
                    problems.append(f"{shlex.join(words)}: no {local.group(1)} in the repository")
                if local.group(1) in (".", "./") and local.group(2):
                    missing = set(local.group(2).split(",")) - extras
                    if missing:
                        problems.append(f"{shlex.join(words)}: no extra {sorted(missing)} in "
                                        f"pyproject.toml (it has {sorted(extras)})")
    return problems


def ci_test_command() -> list[str]:
    """The test-suite command of .ci/run's first step."""
    text = (ROOT / ".ci" / "run").read_text()
    match = re.search(r'^step "1\. the whole test suite[^"]*" (.+)$', text, re.M)
    assert match, ".ci/run has no 'the whole test suite' step"
    return shlex.split(match.group(1))


# ---- a page's session: its folder, its interpreter ------------------------------------------

# The page's Python blocks make one script, as a reader's would be: each block is appended to
# the file and run in the module __main__ whose __file__ it is (so inspect finds the source of
# a class defined there, and pickling treats it as a script's).
_DRIVER = r"""
import contextlib, io, json, os, sys, traceback, types
status = os.fdopen(int(sys.argv[1]), "w")
script = sys.argv[2]
main = types.ModuleType("__main__")
main.__file__ = script
sys.modules["__main__"] = main
lines = 0
for request in sys.stdin:
    code = json.loads(request)["code"].rstrip("\n") + "\n"
    with open(script, "a") as file:
        file.write(code)
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            exec(compile("\n" * lines + code, script, "exec"), main.__dict__)
        result = {"ok": True}
    except BaseException:
        result = {"ok": False, "error": traceback.format_exc()}
    result["printed"] = printed.getvalue()
    sys.stdout.write(result["printed"])
    lines += code.count("\n")
    sys.stdout.flush()
    sys.stderr.flush()
    status.write(json.dumps(result) + "\n")
    status.flush()
"""


class Session:
    """One page's temporary folder, shims for `glory-ai` and `python3`, and its interpreter."""

    def __init__(self, folder: Path):
        self.folder = folder
        shims = folder.parent / (folder.name + "-bin")
        shims.mkdir()
        for name, line in (("python3", f'exec "{sys.executable}" "$@"'),
                           ("python", f'exec "{sys.executable}" "$@"'),
                           ("glory-ai", f'exec "{sys.executable}" -m glory_ai "$@"')):
            (shims / name).write_text(f"#!/bin/sh\n{line}\n")
            (shims / name).chmod(0o755)
        self.env = dict(os.environ, PATH=f"{shims}{os.pathsep}{os.environ.get('PATH', '')}",
                        PYTHONPATH=os.pathsep.join(
                            [str(ROOT)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                           if p]),
                        LOKY_MAX_CPU_COUNT="1", MPLBACKEND="Agg", COLUMNS="120")
        self.env.pop("PYTEST_CURRENT_TEST", None)
        self.folder_names: dict[str, str] = {}     # a transcript's run folder -> the real one
        self.python: subprocess.Popen | None = None
        self.printed = ""                           # the last block's or command's output
        self.log = folder.parent / (folder.name + "-python.log")
        self.script = folder.parent / (folder.name + "-blocks.py")

    def command(self, command: Command, shown: bool = False) -> str | None:
        """Runs one command; what went wrong, or None. Its stdout (stderr for a command
        that must fail) is kept in ``self.printed``; ``shown``: the page shows it."""
        line = shlex.join(shrink_command(command.words, shown or bool(command.output)))
        for documented, real in self.folder_names.items():
            line = line.replace(documented, real)
        try:
            done = subprocess.run(["bash", "-c", line], cwd=self.folder, env=self.env,
                                  capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return f"`{line}` ran for more than {COMMAND_TIMEOUT} s"
        self.printed = done.stderr if command.expect_failure else done.stdout
        said = f"`{line}` (exit {done.returncode}):\n{done.stdout[-2000:]}{done.stderr[-3000:]}"
        if "Traceback (most recent call last)" in done.stderr:
            return f"a traceback from {said}"
        if command.expect_failure and done.returncode == 0:
            return f"expected to fail, but succeeded: {said}"
        if not command.expect_failure and done.returncode != 0:
            return f"failed: {said}"
        documented = RUN_FOLDER.search("\n".join(command.output))
        real = RUN_FOLDER.search(done.stdout)
        if documented and real:
            self.folder_names[documented.group()] = real.group()
        if command.output:
            return output_differs(command.output, self.printed, self.folder_names)
        return None

    def python_block(self, code: str, where: str) -> str | None:
        if self.python is None:
            read, self.status_fd = os.pipe()
            self.status = os.fdopen(read)
            self.output = open(self.log, "w")
            self.python = subprocess.Popen(
                [sys.executable, "-c", _DRIVER, str(self.status_fd), str(self.script)], cwd=self.folder,
                env=self.env, stdin=subprocess.PIPE, stdout=self.output,
                stderr=subprocess.STDOUT, text=True, pass_fds=(self.status_fd,))
            os.close(self.status_fd)
        assert self.python.stdin is not None
        self.python.stdin.write(json.dumps({"code": code}) + "\n")
        self.python.stdin.flush()
        ready, _, _ = select.select([self.status], [], [], COMMAND_TIMEOUT)
        if not ready:
            return f"{where}: the Python block ran for more than {COMMAND_TIMEOUT} s"
        answer = self.status.readline()
        if not answer:
            return f"{where}: the interpreter died:\n{self.log.read_text()[-3000:]}"
        result = json.loads(answer)
        self.printed = result["printed"]
        return None if result["ok"] else f"{where}:\n{result['error'][-3000:]}"

    def close(self) -> None:
        if self.python is not None:
            assert self.python.stdin is not None
            self.python.stdin.close()
            try:
                self.python.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.python.kill()
            self.status.close()
            self.output.close()


def prepare_folder(folder: Path, blocks: list[Block]) -> None:
    """The files a page assumes: examples/, shrunk experiments/, the shipped results it names."""
    folder.mkdir()
    for tree in ("examples", "benchmarks"):
        shutil.copytree(ROOT / tree, folder / tree,
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
    (folder / "experiments").mkdir()
    for config in (ROOT / "experiments").glob("*.toml"):
        (folder / "experiments" / config.name).write_text(shrink(config.read_text(), SHRINK_TOML))
    runnable = "\n".join(b.body for b in blocks if b.kind in RUN_KINDS and b.not_run is None)
    for name in SHIPPED:
        made_here = re.search(rf"\brun\s+experiments/{name}\.toml", runnable)
        if re.search(rf"\bresults/{name}\b", runnable) and not made_here:
            shutil.copytree(ROOT / "results" / name, folder / "results" / name)


def run_page(page: Path, workspace: Path, timings: list[tuple[float, str]] | None = None) -> list[str]:
    """Runs a page's blocks in order; the problems found (and each block's time into timings)."""
    blocks = blocks_of(page)
    folder = workspace / page.stem
    prepare_folder(folder, blocks)
    session = Session(folder)
    problems: list[str] = []
    shown = shown_outputs(blocks)
    try:
        for block in blocks:
            if block.not_run is not None:
                continue
            start = time.perf_counter()
            printed = []
            if block.kind == "python":
                code = shrink(block.body, RESOURCES if block.line in shown else SHRINK)
                problem = session.python_block(code, block.where)
                if problem:
                    problems.append(problem)
                printed.append(session.printed)
            elif block.kind in ("bash", "console"):
                for command in commands_of(block):
                    if is_install(command.words):
                        problems += [f"{block.where}: {p}" for p in check_install(command.words)]
                    elif is_test_suite(command.words):
                        continue
                    else:
                        problem = session.command(command, shown=block.line in shown)
                        if problem:
                            problems.append(f"{block.where}: {problem}")
                        printed.append(session.printed)
            if block.line in shown:
                output = shown[block.line]
                differs = output_differs(output.body.splitlines(), "".join(printed), session.folder_names)
                if differs:
                    problems.append(f"{output.where} (the output of {block.where}): {differs}")
            elif block.kind == "toml":
                problems += [f"{block.where}: {p}" for p in check_toml(block, session)]
            elif block.kind == "json":
                try:
                    json.loads(block.body)
                except ValueError as error:
                    problems.append(f"{block.where}: not JSON: {error}")
            if timings is not None:
                timings.append((time.perf_counter() - start, f"{block.where} ({block.kind})"))
    finally:
        session.close()
    return problems


def shown_outputs(blocks: list[Block]) -> dict[int, Block]:
    """The ``output`` blocks of a page, by the line of the block whose output each shows."""
    shown = {}
    for before, block in zip(blocks, blocks[1:], strict=False):
        if block.kind == "output" and before.kind in ("python", "bash") and before.not_run is None:
            shown[before.line] = block
    return shown


# ---- comparing shown output -----------------------------------------------------------------

DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:s|ms|µs|us|min|minutes|seconds)\b")


def normalize(lines: list[str]) -> list[str]:
    """Lines as compared: durations blanked, and the ms/move column of a table."""
    out = []
    in_timed_table = False
    for line in lines:
        line = line.rstrip()
        if not line.strip():
            in_timed_table = False
        elif line == "...":
            pass
        elif line.split()[-1] == "ms/move":
            in_timed_table = True
        if in_timed_table and line.strip():
            # a slower machine can widen the ms/move column, and with it the header and rule
            words = ["-" if set(word) == {"-"} else word for word in line.split()]
            if re.fullmatch(r"[\d.,]*\d[\d.,]*", words[-1]):
                words[-1] = "<time>"
            line = " ".join(words)
        out.append(DURATION.sub("<time>", line))
    return out


def output_differs(documented: list[str], printed: str, folders: dict[str, str] | None = None) -> str | None:
    """None when the documented lines are the printed ones (a ``...`` line stands for any
    number of lines); else the first difference."""
    real = printed
    for doc_folder, real_folder in (folders or {}).items():
        real = real.replace(real_folder, doc_folder)
    want, got = normalize(documented), normalize(real.splitlines())
    while want and not want[-1].strip():
        want.pop()
    while got and not got[-1].strip():
        got.pop()

    def match(i: int, j: int) -> bool:
        if i == len(want):
            return j == len(got)
        if want[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(got) + 1))
        return j < len(got) and want[i] == got[j] and match(i + 1, j + 1)

    if match(0, 0):
        return None
    shown = next((k for k, (w, g) in enumerate(zip(want, got, strict=False)) if w != g and w != "..."),
                 min(len(want), len(got)))
    return (f"the page shows another output than the block prints (first difference at line "
            f"{shown + 1}):\n--- shown\n" + "\n".join(want) + "\n--- printed\n" + "\n".join(got))


def check_toml(block: Block, session: Session) -> list[str]:
    """A TOML block parses; one holding a [[matchup]] is an experiment config, and runs."""
    try:
        data = tomllib.loads(block.body)
    except tomllib.TOMLDecodeError as error:
        return [f"not TOML: {error}"]
    if "matchup" not in data:
        return []
    path = f"doc-example-{block.line}.toml"
    (session.folder / path).write_text(shrink(block.body, SHRINK_TOML))
    problem = session.command(Command(["glory-ai", "run", path], "", expect_failure=False))
    return [f"the example experiment config: {problem}"] if problem else []


# ---- the tests ------------------------------------------------------------------------------

def test_every_block_says_what_it_is():
    unlabelled = [b.where for b in all_blocks() if b.kind not in RUN_KINDS | OTHER_KINDS]
    assert not unlabelled, (
        f"code blocks without a known info string ({sorted(RUN_KINDS | OTHER_KINDS)}); "
        f"see tests/test_docs_run.py: {unlabelled}")


def test_an_output_block_follows_the_block_it_shows():
    blocks = all_blocks()
    stray = [b.where for before, b in zip(blocks, blocks[1:], strict=False)
             if b.kind == "output" and (before.page != b.page or before.kind not in ("python", "bash")
                                        or before.not_run is not None)]
    assert not stray, f"output blocks not right after a python or bash block that runs: {stray}"


def test_shown_output_is_compared_line_by_line_after_blanking_times():
    printed = ("spec    games  win rate  ms/move\n------  -----  --------  -------\n"
               "greedy     42     95.2%    0.057\n\nplayed 42 games in 0.8 s\nsummary: x\n")
    shown = ["spec    games  win rate  ms/move", "------  -----  --------  -------",
             "greedy     42     95.2%    0.123", "", "played 42 games in 12.5 s", "summary: x"]
    assert output_differs(shown, printed) is None
    assert output_differs(shown[:3] + ["...", "summary: x"], printed) is None
    assert output_differs(["..."], printed) is None
    wrong = shown[:2] + ["greedy     42     33.8%    0.057"] + shown[3:]
    assert "first difference at line 3" in output_differs(wrong, printed)
    assert output_differs(shown + ["more"], printed)
    # a slow machine's wider ms/move column (header and rule widen with it) is no difference
    wide = ("spec    games  win rate   ms/move\n------  -----  --------  --------\n"
            "greedy     42     95.2%  1234.567\n\nplayed 42 games in 0.8 s\nsummary: x\n")
    assert output_differs(shown, wide) is None
    folders = {"results/compare-4a8047be": "results/compare-00000000"}
    assert output_differs(["in results/compare-4a8047be"], "in results/compare-00000000\n", folders) is None


def test_blocks_not_run_are_few_and_justified():
    marked = [b for b in all_blocks() if b.not_run is not None]
    assert all(b.kind in RUN_KINDS for b in marked), \
        [b.where for b in marked if b.kind not in RUN_KINDS]
    assert all(len(b.not_run) >= 10 for b in marked), [(b.where, b.not_run) for b in marked]
    assert len(marked) <= MAX_NOT_RUN, "\n".join(f"{b.where}: {b.not_run}" for b in marked)


def test_readme_opens_with_install_and_run_then_install_and_test():
    first = blocks_of(ROOT / "README.md")[0]
    assert first.kind == "bash" and first.not_run is None
    lines = [commands_of(Block(first.page, first.line, "bash", row)) for row in first.body.splitlines()]
    assert len(lines) == 2, first.body
    (install, compare), (install_test, suite) = lines
    assert is_install(install.words) and is_install(install_test.words)
    assert compare.words[:2] == ["glory-ai", "compare"]
    assert "[test]" in shlex.join(install_test.words)
    assert suite.words == ci_test_command(), (suite.words, ci_test_command())
    assert not check_install(install.words) + check_install(install_test.words)


#: pages run at once: every command is a process of its own, so two pages keep both cores
#: of the CI machine busy while this module runs. Under pytest-xdist every page test goes to
#: one worker (the xdist_group below, with --dist loadgroup in pyproject.toml), which starts
#: them all; the other workers run the rest of the suite.
PAGE_WORKERS = 2


@pytest.fixture(scope="module")
def page_runs(request, tmp_path_factory):
    """The selected pages' runs, started together on first use, PAGE_WORKERS at a time in
    the order the tests ask for them: page -> future of (problems, timings)."""
    from concurrent.futures import ThreadPoolExecutor

    selected = [item.callspec.params["page"] for item in request.session.items
                if getattr(item, "originalname", None) == "test_page_runs"]

    # the page folders are made here, one thread: the first mktemp also makes pytest's base
    # folder, and two threads doing that at once collide (FileExistsError)
    folders = {page: tmp_path_factory.mktemp(page.stem.lower()) for page in selected}

    def one(page: Path) -> tuple[list[str], list[tuple[float, str]]]:
        timings: list[tuple[float, str]] = []
        return run_page(page, folders[page], timings), timings

    pool = ThreadPoolExecutor(max_workers=PAGE_WORKERS)
    try:
        yield {page: pool.submit(one, page) for page in selected}
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.slow
@pytest.mark.xdist_group("doc_pages")
@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_page_runs(page, page_runs):
    problems, timings = page_runs[page].result()
    for seconds, where in timings:
        print(f"{seconds:6.1f} s  {where}")
    assert not problems, "\n\n".join(problems)


def test_shrinking_rewrites_budgets_and_keeps_the_rest():
    assert shrink_command(shlex.split("glory-ai compare ismcts:iters=200 greedy --games 400 --jobs 2")) \
        == shlex.split("glory-ai compare ismcts:iters=8 greedy --games 4 --jobs 1")
    assert shrink_command(["glory-ai", "compare", "greedy", "random"])[-2:] == ["--games", "4"]
    assert shrink("make_bot('ismcts:iters=10'); make_bot('ismcts:iters=100')") \
        == "make_bot('ismcts:iters=1'); make_bot('ismcts:iters=4')"
    assert shrink('RunConfig.for_games(["a", "b"], 400, seed=7)') \
        == 'RunConfig.for_games(["a", "b"], 4, seed=7)'
    assert shrink("deals = 40\ngrid = { iters = [125, 250, 1000] }\njobs = -1", SHRINK_TOML) \
        == "deals = 1\ngrid = { iters = [5, 10, 40] }\njobs = 1"


def test_commands_are_read_as_the_convention_says():
    block = Block(ROOT / "x.md", 1, "bash",
                  'glory-ai run x.toml --jobs 2   # override\n'
                  'glory-ai compare a b \\\n  --games 3          # fails: no such bot\n'
                  'python3 -m pip install -e ".[test]" && python3 -m pytest -q\n')
    commands = commands_of(block)
    assert [c.words for c in commands] == [["glory-ai", "run", "x.toml", "--jobs", "2"],
                                           ["glory-ai", "compare", "a", "b", "--games", "3"],
                                           ["python3", "-m", "pip", "install", "-e", ".[test]"],
                                           ["python3", "-m", "pytest", "-q"]]
    assert [c.expect_failure for c in commands] == [False, True, False, False]
    assert is_install(commands[2].words) and is_test_suite(commands[3].words)
    transcript = Block(ROOT / "x.md", 1, "console",
                       "$ glory-ai report results/x\nglory-ai: error: no games\n$ glory-ai bots\nrandom\n")
    first, second = commands_of(transcript)
    assert first.expect_failure and not second.expect_failure and second.output == ["random"]
    assert check_install(["pip", "install", ".[no-such-extra]"])
    assert check_install(["pip", "install", "./no/such/folder"])
    assert not check_install(["pip", "install", "./examples/plugin"])


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        for block in all_blocks():
            if block.not_run is not None:
                print(f"{block.where}: not run: {block.not_run}")
        counts: dict[str, int] = {}
        for block in all_blocks():
            key = "not run" if block.not_run is not None else block.kind
            counts[key] = counts.get(key, 0) + 1
        print(", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    else:
        print(__doc__)
