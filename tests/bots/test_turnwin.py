"""The root win search of the search bots (turnwin=, glory_ai/bots/_tactics.pxi; docs/bots.md,
"A win within the turn"): it plays a win of the rest of the turn that the tree search at a low
budget misses, it is off with turnwin=0, it sees only what the player knows, it wins whole
turns of the in-turn suite against adversarial replies, and bad values are one-line errors."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import glory_ai
from glory_ai.bots import SpecError, make_bot
from glory_ai.bots._search import _turn_win_holds, _turn_wins
from glory_ai.bots.builtin_params import TURNWIN_BUDGET, defaults

ROOT = Path(__file__).resolve().parents[2]
#: a 3-player Imperium position of the in-turn suite: one winning lead of 21 moves
#: (Craftsman with a Jack), then the rest of the turn to win
POSITION = "3p-imperium-370029-t50-p0"


def _inturn():
    with gzip.open(ROOT / "benchmarks" / "data" / "inturn.jsonl.gz", "rt") as f:
        return [json.loads(line) for line in f]


def _row(position_id=POSITION):
    return next(row for row in _inturn() if row["id"] == position_id)


def test_the_root_win_search_plays_the_win_the_tree_search_misses_at_a_low_budget():
    row = _row()
    state = glory_ai.State.from_dict(row["position"])
    for seed in range(3):
        bot = make_bot(f"ismcts:iters=30,turnwin={TURNWIN_BUDGET}", seed=seed)
        assert bot.step(state) in row["wins"]
        info = bot.last_search()
        assert info["turn_win"] in row["wins"] and info["iterations"] == 0
        assert 0 < info["turn_win_nodes"] <= TURNWIN_BUDGET
        assert [r["action"] for r in info["actions"]][0] == info["turn_win"]
        assert sorted(r["action"] for r in info["actions"]) == sorted(state.legal_actions())
        assert make_bot("ismcts:iters=30,turnwin=0", seed=seed).step(state) not in row["wins"]
    # PIMC and flat MC offer it too (off by default)
    assert make_bot("pimc:iters=40,worlds=4,turnwin=50000", seed=0).step(state) in row["wins"]
    pimc = make_bot("pimc:iters=40,worlds=4", seed=0)
    pimc.step(state)
    assert pimc.last_search()["turn_win"] is None and pimc.last_search()["iterations"] == 40


def test_turnwin_0_switches_it_off_and_a_position_without_a_win_costs_one_world():
    # ISMCTS's default; PIMC and flat MC keep the plain search, without it
    assert defaults("ismcts")["turnwin"] == TURNWIN_BUDGET
    assert defaults("pimc")["turnwin"] == defaults("flatmc")["turnwin"] == 0
    row = _row()
    state = glory_ai.State.from_dict(row["position"])
    bot = make_bot("ismcts:iters=30,turnwin=0", seed=1)
    bot.step(state)
    info = bot.last_search()
    assert info["turn_win"] is None and info["turn_win_nodes"] == 0 and info["iterations"] == 30
    # an opening: no win, the search runs as without it (the worlds come from their own generator)
    opening = glory_ai.Game(3).new_initial_state(5)
    on = make_bot(f"ismcts:iters=100,turnwin={TURNWIN_BUDGET}", seed=2)
    off = make_bot("ismcts:iters=100,turnwin=0", seed=2)
    assert on.step(opening) == off.step(opening)
    assert on.last_search()["turn_win"] is None and on.last_search()["turn_win_nodes"] > 0
    assert on.last_search()["actions"] == off.last_search()["actions"]


def test_the_decision_depends_only_on_what_the_player_knows():
    # the same observation and seed, other hidden cards: the same search and the same move
    for row in _inturn()[::25]:
        state = glory_ai.State.from_dict(row["position"])
        player = row["player"]
        key = state.information_state_key(player)
        seen = set()
        for deal in range(4):
            world = state if deal == 0 else state.determinize(player, 31 * deal + 7)
            assert world.information_state_key(player) == key
            bot = make_bot(f"ismcts:iters=20,turnwin={TURNWIN_BUDGET}", seed=9)
            action = bot.step(world)
            info = bot.last_search()
            seen.add((action, info["turn_win"], info["turn_win_nodes"]))
        assert len(seen) == 1, row["id"]


def _play_turn(spec, row, seed):
    """The rest of the turn: the bot's decisions, the others' replies adversarial (one that
    stops the forced win, if any: a mistake of the bot, else the first legal move)."""
    state = glory_ai.State.from_dict(row["position"])
    player, turn = row["player"], state.turn_number()
    bot = make_bot(spec, seed=seed)
    while not state.is_terminal() and state.turn_number() == turn:
        if state.current_player() == player:
            action = bot.step(state)
        else:
            action = state.legal_actions()[0]
            for reply in state.legal_actions():
                after = state.clone()
                after.apply_action(reply)
                if _turn_win_holds(after, player, 200_000) is False:
                    action = reply
                    break
        state.apply_action(action)
    return state.is_terminal() and state.winners() == [player]


@pytest.mark.parametrize("position_id", [POSITION, "4p-imperium-470044-t57-p0", "5p-republic-520203-t45-p4"])
def test_it_wins_the_whole_turn_against_adversarial_replies(position_id):
    row = _row(position_id)
    assert _turn_win_holds(glory_ai.State.from_dict(row["position"]), row["player"]) is True
    assert _play_turn(f"ismcts:iters=30,turnwin={TURNWIN_BUDGET}", row, seed=0)


def test_the_search_hooks_agree():
    row = _row()
    state = glory_ai.State.from_dict(row["position"])
    assert _turn_wins(state) == sorted(row["wins"])
    assert _turn_win_holds(state, row["player"]) is True
    assert _turn_win_holds(state, (row["player"] + 1) % row["num_players"]) is False
    with pytest.raises(ValueError, match="no player 7"):
        _turn_win_holds(state, 7)


@pytest.mark.parametrize("spec, words", [
    ("ismcts:turnwin=-1", "turnwin"), ("ismcts:turnwin=lots", "turnwin"),
    ("ismcts:turnwin_worlds=0", "turnwin_worlds"), ("pimc:turnwin_worlds=1000", "turnwin_worlds"),
])
def test_bad_values_are_one_line_errors(spec, words):
    with pytest.raises(SpecError) as info:
        make_bot(spec)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_under_a_budget_of_time_it_takes_a_share_and_leaves_the_tree_the_rest():
    # a win that takes more than 100,000 positions in 8 worlds: with no node limit to speak
    # of, a quarter of the 8 ms stops it, and the tree search runs in what is left
    with gzip.open(ROOT / "benchmarks" / "data" / "tactics.jsonl.gz", "rt") as f:
        row = next(r for r in map(json.loads, f) if r["id"] == "4p-imperium-450008-t63-p2")
    state = glory_ai.State.from_dict(row["position"])
    bot = make_bot("ismcts:cpu_ms=8,turnwin=100000000", seed=1)
    bot.step(state)
    info = bot.last_search()
    assert info["turn_win"] is None and 0 < info["turn_win_nodes"] < 1_000_000
    assert info["iterations"] > 0
