"""The `glory-ai` command line, end to end in subprocesses: output, exit statuses, refusals
of bad options as one line, a closed pipe, help texts."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from glory_ai import cli

COMMAND = [sys.executable, "-m", "glory_ai"]


def run(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(COMMAND + list(args), capture_output=True, text=True, timeout=120, **kwargs)


def test_play_prints_the_final_position_and_scores():
    result = run("play", "--players", "3", "--seed", "7")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert out.startswith("Glory to Rome (republic, 3 players)")
    assert "GAME OVER (" in out
    assert re.search(r"3-player republic game \(P0 random, P1 random, P2 random\), seed 7: \d+ turns, "
                     r"\d+ decisions, ended by \w+", out)
    rows = [line for line in out.splitlines() if re.match(r"\s+P\d\s+\d+", line)]
    assert len(rows) == 3 and sum("winner" in row for row in rows) >= 1


def test_play_without_a_person_or_bots_is_random_bots_seeded_as_any_bot(tmp_path):
    # nobody at the table and no --bots: the random bot in every seat, seeded and recorded as
    # `--bots random` is, so that the game replays from its record
    alone = run("play", "--players", "3", "--seed", "7", "--seat", "none")
    named = run("play", "--players", "3", "--seed", "7", "--seat", "none", "--bots", "random")
    assert alone.returncode == 0 and alone.stdout == named.stdout
    games = tmp_path / "games.jsonl"
    recorded = run("play", "--players", "3", "--seed", "7", "--seat", "none", "--games", str(games))
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout == alone.stdout + f"recorded in {games} as game 0-0-0\n"
    record = json.loads(games.read_text())
    from glory_ai.interactive.seats import seat_seeds

    assert record["seats"] == ["random"] * 3 and record["seed"] == 7
    assert record["bot_seeds"] == seat_seeds(7, 3)
    replayed = run("replay", str(games), "--at", "end")
    assert replayed.returncode == 0, replayed.stderr
    final_scores = [line for line in alone.stdout.splitlines() if re.match(r"\s+P\d\s+\d+", line)]
    assert final_scores


def test_play_without_a_seed_prints_the_one_that_replays_it():
    first = run("play", "--players", "2", "--seat", "none")
    assert first.returncode == 0, first.stderr
    seed = re.search(r"game \(P0 random, P1 random\), seed (\d+):", first.stdout).group(1)
    assert run("play", "--players", "2", "--seat", "none", "--seed", seed).stdout == first.stdout


def test_play_is_a_pure_function_of_its_options():
    first = run("play", "--players", "2", "--seed", "11")
    again = run("play", "--players", "2", "--seed", "11")
    assert first.returncode == 0 and first.stdout == again.stdout


def test_play_verbose_lists_decisions():
    result = run("play", "--players", "2", "--seed", "3", "-v")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("-- turn 1, leader P")
    assert re.match(r"   P\d: ", lines[1])


@pytest.mark.parametrize("mode", ["Imperium", "IMPERIUM", "imperium"])
def test_mode_in_any_case(mode):
    result = run("play", "--players", "2", "--seed", "1", "--mode", mode)
    assert result.returncode == 0, result.stderr
    assert "(imperium, 2 players)" in result.stdout
    assert "2-player imperium game (P0 random, P1 random)" in result.stdout


def _one_line_refusal(result, *words):
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0]
    return lines[0]


@pytest.mark.parametrize("seconds", ["0", "-1", "inf", "nan", "-inf", "601", "soon"])
def test_bench_refuses_bad_seconds(seconds):
    line = _one_line_refusal(run("bench", "--seconds", seconds), "--seconds")
    assert line.startswith("glory-ai bench: error:")


@pytest.mark.parametrize("args, word", [
    (["play", "--players", "7"], "--players"),
    (["play", "--players", "two"], "--players"),
    (["play", "--seed", "-1"], "--seed"),
    (["play", "--seed", str(2 ** 64)], "--seed"),
    (["play", "--mode", "empire"], "--mode"),
    (["play", "--colour", "red"], "--colour"),
    (["juggle"], "juggle"),
    ([], "required"),
])
def test_usage_mistakes_are_one_line(args, word):
    _one_line_refusal(run(*args), word)


def test_seconds_type_range():
    from glory_ai import _argparse as argtypes

    bench_seconds = argtypes.seconds(0, cli.MAX_BENCH_SECONDS)
    assert bench_seconds("0.25") == 0.25
    assert bench_seconds("600") == 600
    for bad in ("0", "-0.5", "nan", "inf", "1e9", "x"):
        with pytest.raises(argparse.ArgumentTypeError, match="more than 0 and at most 600"):
            bench_seconds(bad)
    delay = argtypes.seconds(0, 60, low_included=True)
    assert delay("0") == 0
    with pytest.raises(argparse.ArgumentTypeError, match="at least 0 and at most 60"):
        delay("61")


@pytest.mark.parametrize("verbose", [False, True])
def test_closed_pipe_ends_quietly(verbose):
    # the reader has gone before anything is written: every write fails with EPIPE
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        args = COMMAND + ["play", "--players", "5", "--seed", "3"] + (["-v"] if verbose else [])
        result = subprocess.run(args, stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=120)
    finally:
        os.close(write_end)
    assert result.stderr == "", result.stderr
    assert result.returncode == cli.EXIT_BROKEN_PIPE


@pytest.mark.parametrize("module, args, statuses", [
    ("glory_ai.analysis.commands", ["compare", "random", "greedy", "--games", "2", "--no-progress",
                                    "--out", "{tmp}/run"], {cli.EXIT_BROKEN_PIPE}),
    # argparse drops a help text it cannot write: quiet, whichever status
    ("glory_ai.experiments.commands", ["run", "--help"], {0, cli.EXIT_BROKEN_PIPE}),
    ("glory_ai", ["bots"], {cli.EXIT_BROKEN_PIPE}),
])
def test_every_entry_point_ends_quietly_on_a_closed_pipe(module, args, statuses, tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        result = subprocess.run([sys.executable, "-m", module, *(a.format(tmp=tmp_path) for a in args)],
                                stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(write_end)
    assert result.stderr == "", result.stderr
    assert result.returncode in statuses


def test_head_of_a_long_output():
    # the shell pipeline of the issue: `glory-ai play ... | head -2`
    if not (shutil.which("bash") and shutil.which("head")):
        pytest.skip("needs bash and head")
    command = " ".join(COMMAND) + " play --players 5 --seed 3 --verbose | head -2"
    result = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True,
                            timeout=120)
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("-- turn 1, leader P") and re.match(r"   P\d: ", lines[1])
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr
    assert result.returncode in (0, cli.EXIT_BROKEN_PIPE)


@pytest.mark.parametrize("args", [[], ["play"], ["bench"], ["compare"], ["analyze"]])
def test_help_has_descriptions_defaults_and_examples(args):
    result = run(*args, "--help")
    assert result.returncode == 0 and result.stderr == ""
    text = result.stdout
    usage, _, rest = text.partition("\n\n")
    description = rest.split("\n\n")[0]
    assert len(description) > 40, text
    assert "examples:" in text and "glory-ai " in text.split("examples:")[1]
    if args:
        options = [line for line in text.splitlines() if line.startswith("  --")]
        assert options
        # every default worth showing is shown; flags and automatic values (None) are not
        sub = next(a for a in cli.build_parser()._actions
                   if isinstance(a, argparse._SubParsersAction)).choices[args[0]]
        shown = [a for a in sub._actions if a.help and a.help is not argparse.SUPPRESS
                 and not any(a.default is value for value in (None, False, argparse.SUPPRESS))]
        assert shown
        flat = "".join(text.split())            # help wraps lines, even inside a value
        for action in shown:
            assert "".join(f"(default: {action.default})".split()) in flat, (action.option_strings, text)
        assert "(default: None)" not in text and "(default: False)" not in text, text


def test_top_level_help_lists_the_subcommands():
    text = run("--help").stdout
    for name in ("compare", "tournament", "run", "reproduce", "report", "play", "watch", "replay", "analyze",
                 "bench", "bots"):
        assert re.search(rf"^\s+{name}\s+\S", text, re.M), text


def test_every_subcommand_is_registered_and_listed_in_the_module_docstring():
    parser = cli.build_parser()
    actions = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
    commands = set(actions[0].choices)
    assert {"compare", "tournament", "run", "reproduce", "verify", "report",
            "play", "watch", "replay", "analyze", "bench", "bots", "selfplay", "train", "learn"} <= commands
    listed = set(re.findall(r"^    glory-ai ([\w-]+)", cli.__doc__, flags=re.MULTILINE))
    assert listed == commands, f"cli.py's docstring misses {sorted(commands - listed)}"


def test_version():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.startswith("glory_ai ")


def test_bench_smoke(monkeypatch):
    # the bench subcommand runs the measurement with the given seconds (stubbed: figures
    # are benchmarks' business, not the tests')
    import glory_ai.bench

    calls = []
    monkeypatch.setattr(glory_ai.bench, "run", lambda seconds, progress=print: calls.append(seconds) or {})
    assert cli.main(["bench", "--seconds", "0.5"]) == 0
    assert calls == [0.5]
