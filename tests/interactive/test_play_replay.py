"""`glory-ai replay`: reading games from records, run folders and notation files, checking
them, stepping forwards and back, one player's view or all, the final scores."""
from __future__ import annotations

import io
import json
import re

import pytest

from glory_ai.arena import RunConfig, load_records, run
from glory_ai.interactive.files import load_game
from glory_ai.interactive.notation import format_notation
from glory_ai.interactive.records import GameError, append_record
from glory_ai.interactive.replayer import Replayer
from glory_ai.interactive.screen import Screen
from glory_ai.interactive.view import table_view
from support.play import finished_record, screen_text


def replayer(record, viewer=None, commands=()):
    out = io.StringIO()
    screen = Screen(out, io.StringIO("".join(c + "\n" for c in commands)), plain=True)
    return Replayer(record, viewer, screen), out


def final_rows(text):
    """(seat, VP) of the final score table in a screen."""
    rows = re.findall(r"^\s*P(\d)\s+\S+\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+(\d+)", text, re.M)
    return [int(vp) for _, vp in rows]


def test_stepping_forwards_and_back():
    record = finished_record(3, seed=2)
    r, out = replayer(record, None, ["n", "n", "b", "5", "t", "T", "e", "b", "s", "q"])
    assert r.run() == 0
    steps = re.findall(r"step (\d+)/(\d+)", out.getvalue())
    total = len(record["actions"])
    seen = [int(s) for s, _ in steps]
    assert all(int(t) == total for _, t in steps)
    turn_starts = r._turn_starts()
    after_five = min(s for s in turn_starts if s > 5)
    before = max(s for s in turn_starts if s < after_five)
    assert seen == [0, 1, 2, 1, 5, after_five, before, total, total - 1, 0]


def test_the_end_shows_the_recorded_final_scores():
    record = finished_record(4, seed=7)
    r, out = replayer(record, None, ["e", "q"])
    r.run()
    assert final_rows(out.getvalue()) == record["scores"]
    assert "The game is over (" in out.getvalue()


def test_one_players_view_shows_only_what_they_knew():
    record = finished_record(3, seed=4)
    r, _ = replayer(record, 1)
    for step in (0, 10, 40):
        r.step = step
        state = r.timeline[step]
        view = table_view(state, 1, names=r.names)
        world = state.determinize(1, step)
        assert table_view(world, 1, names=r.names) == view
        assert screen_text(world, 1) == screen_text(state, 1)


def test_switching_views_and_mistakes():
    record = finished_record(2, seed=3)
    r, out = replayer(record, None, ["as P1", "as all", "as P7", "jump", str(10 ** 6), "help", "q"])
    r.run()
    text = out.getvalue()
    assert "(P1's view)" in text and "(everything)" in text
    assert "as P0 .. P1, or as all" in text
    assert "Not a replay command: 'jump'" in text
    assert f"The game has steps 0 to {len(record['actions'])}" in text


def test_games_from_files_folders_and_notation(tmp_path):
    first, second = finished_record(2, seed=1), finished_record(2, seed=2)
    second["game_id"], second["deal"] = "1-0-0", 1
    games = tmp_path / "games.jsonl"
    append_record(games, first)
    append_record(games, second)
    assert load_game(games, "1-0-0")["seed"] == 2
    with pytest.raises(GameError, match="holds 2 games: choose one with --game ID"):
        load_game(games)
    with pytest.raises(GameError, match="no game '9-9-9'"):
        load_game(games, "9-9-9")
    single = tmp_path / "one.json"
    single.write_text(json.dumps(first))
    assert load_game(single)["actions"] == first["actions"]
    notation = tmp_path / "game.txt"
    notation.write_text(format_notation(first))
    assert load_game(notation)["actions"] == first["actions"]
    with pytest.raises(GameError, match="no such file"):
        load_game(tmp_path / "missing.jsonl")


def test_a_record_that_does_not_replay_is_refused():
    record = finished_record(2, seed=6)
    record["scores"] = [s + 1 for s in record["scores"]]
    with pytest.raises(GameError, match="scores differs"):
        Replayer(record, None, Screen(io.StringIO(), io.StringIO(), plain=True))


def test_a_game_of_an_arena_run(tmp_path, monkeypatch, capsys):
    import sys

    from glory_ai import cli

    folder = tmp_path / "run"
    run(RunConfig(specs=("greedy", "random"), deals=1, seed=3), folder, n_jobs=1, backend="threading",
        progress=False)
    record = next(r for r in load_records(folder) if r["game_id"] == "0-0-1")
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = cli.main(["replay", str(folder), "--game", "0-0-1", "--at", "end", "--as", "P0"])
    out = capsys.readouterr().out
    assert code == 0
    assert final_rows(out) == record["scores"]
    assert "(P0's view)" in out
    code = cli.main(["replay", str(folder), "--game", "0-0-1", "--notation", "-"])
    out = capsys.readouterr().out
    assert code == 0 and out.startswith('[Game "glory_ai"]') and '[P0 "random"]' in out
