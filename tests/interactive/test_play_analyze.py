"""`glory-ai analyze` and `hint`: a search bot's best moves for the player to decide, from
that player's information only."""
from __future__ import annotations

import io
import json
import sys

import pytest

import glory_ai
from glory_ai import cli
from glory_ai.interactive.advice import AdviceError, advice_lines, advise
from support.play import random_states

#: P0 leads; a Patron action hiring the Palace from the pool completes the clientele of
#: Forum Romanum (every role, and every material in the stockpile): a win this turn, and
#: only "lead Patron with Temple" gets there (no Jack, no pair of cards for a petition).
#: Otherwise P1, far ahead on VP, is likely to win when the short deck runs out.
FORUM_WIN = {
    "num_players": 2, "mode": "republic", "seed": 5, "leader": 0,
    "pool": ["Palace", "Bath", "Dock"],
    "deck": ["Atrium", "Bar", "Bridge", "Crane", "Gate", "Storeroom", "Gate", "Bar"],
    "players": [
        {"hand": ["Temple", "Bath", "Insula"],
         "stockpile": ["Road", "Dock", "Wall", "School", "Villa", "Temple"],
         "clientele": ["Road", "Dock", "Wall", "School", "Villa"],
         "structures": [
             {"building": "Forum Romanum", "materials": ["Temple", "Palace", "Shrine"], "complete": True},
             {"building": "Road", "materials": ["Road"], "complete": True}]},
        {"hand": ["Market", "Latrine", "Statue", "Academy", "Sewer"],
         "vault": ["Basilica", "Fountain", "Garden", "Foundry"],
         "structures": [{"building": "Tower", "materials": ["Tribunal", "Tower"], "complete": True},
                        {"building": "Vomitorium", "materials": ["Amphitheatre", "Aqueduct"],
                         "complete": True}]},
    ],
}


def test_the_winning_move_is_found():
    state = glory_ai.State.from_dict(FORUM_WIN)
    # the defaults: the root win search proves it, and no tree search runs
    advice = advise(state, "ismcts:iters=3000", seed=1)
    assert advice.player == 0 and advice.turn_win is not None and advice.iterations == 0
    assert advice.best().text == "lead Patron with Temple"
    assert advice.best().value == 1.0 and advice.best().share == 1.0
    assert all(move.share == 0 and move.value != move.value for move in advice.moves[1:])   # NaN
    assert "wins the rest of the turn by force" in advice_lines(advice)[0]
    # the tree search alone finds it too
    advice = advise(state, "ismcts:iters=3000,turnwin=0", seed=1)
    assert advice.turn_win is None and advice.iterations == 3000
    assert advice.best().text == "lead Patron with Temple"
    assert advice.best().value > 0.85 and advice.best().share > 0.5
    assert all(move.value < advice.best().value - 0.2 for move in advice.moves[1:])
    # the move does win this turn: the Patron action hires the Palace and ends the game
    state.apply_action_string("lead Patron with Temple")
    while not state.is_terminal() and state.current_player() == 1:
        state.apply_action_string("think: take Jack")
    state.apply_action_string("patron: hire Palace from pool")
    assert state.is_terminal() and state.end_reason() == "forum" and state.winners() == [0]


def test_the_advice_depends_only_on_what_the_player_knows():
    checked = 0
    for number, state in enumerate(random_states(2)):
        if len(state.legal_actions()) < 2:
            continue
        mover = state.current_player()
        advice = advise(state, "ismcts:iters=300", seed=number)
        for seed in range(2):
            world = state.determinize(mover, seed + 100)
            again = advise(world, "ismcts:iters=300", seed=number)
            assert again.moves == advice.moves and again.iterations == advice.iterations
        checked += 1
    assert checked >= 8


def test_advice_is_for_the_player_to_decide():
    state = glory_ai.State.from_dict(FORUM_WIN)
    with pytest.raises(AdviceError, match="P1 does not decide here: P0 does"):
        advise(state, "ismcts:iters=100", player=1)
    with pytest.raises(AdviceError, match="does not search"):
        advise(state, "greedy")


def analyze(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    try:
        code = cli.main(["analyze", *args])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_command_prints_the_best_moves(tmp_path, monkeypatch, capsys):
    path = tmp_path / "position.json"
    path.write_text(json.dumps(FORUM_WIN))
    code, out, err = analyze(monkeypatch, capsys, str(path), "--bot", "ismcts:iters=3000", "--player", "0",
                             "--top", "3")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("P0 to decide (phase lead, turn 1)")
    first = next(line for line in lines if line.strip().startswith("1  "))
    assert "lead Patron with Temple" in first
    assert "expected result" in out and "a win chance" in out
    code, out, err = analyze(monkeypatch, capsys, str(path), "--bot", "ismcts:iters=500", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["player"] == 0 and data["moves"][0]["move"] == "lead Patron with Temple"
    assert data["turn_win"] > 0 and data["moves"][1]["value"] is None     # proven, the rest unsearched
    assert abs(sum(m["share"] for m in data["moves"]) - 1) < 1e-9


@pytest.mark.parametrize("content, words", [
    ("not json", ["not a JSON position"]),
    ('{"num_players": 9, "players": []}', ["not a valid position"]),
    ("[1, 2]", ["a position is a JSON object"]),
])
def test_bad_positions_are_one_line(tmp_path, monkeypatch, capsys, content, words):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = analyze(monkeypatch, capsys, str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    for word in words:
        assert word in err


def test_the_command_refuses_another_player_and_a_missing_file(tmp_path, monkeypatch, capsys):
    path = tmp_path / "position.json"
    path.write_text(json.dumps(FORUM_WIN))
    code, _, err = analyze(monkeypatch, capsys, str(path), "--player", "1", "--bot", "ismcts:iters=100")
    assert code == 2 and "P1 does not decide here: P0 does" in err
    code, _, err = analyze(monkeypatch, capsys, str(tmp_path / "none.json"))
    assert code == 2 and "no such file" in err
