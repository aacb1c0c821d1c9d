"""Fair play by construction: a user's bot is handed its player's fair view of the state
(the cards it cannot see dealt again, as a function of what it knows and its seed), so
reading hidden cards gains nothing; and the referee checks what the bot returns."""
from __future__ import annotations

import math
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import glory_ai
from glory_ai.arena import RunConfig, run
from glory_ai.bots import BotError, make_bot, register
from glory_ai.bots._fairplay import Referee, fair_view
from support.random_play import every_decision, mid_game

CHEATERS = Path(__file__).resolve().parent / "cheaters.py"


def test_the_fair_view_is_what_the_player_knows_and_nothing_else():
    checked = 0
    for where, state in every_decision(2):
        if where[3] % 2:
            continue
        player = state.current_player()
        view = fair_view(state, player, 77)
        # the same decision: the player's own hand and everything public are kept
        assert view.current_player() == player, where
        assert view.legal_actions() == state.legal_actions(), where
        assert view.information_state_key(player) == state.information_state_key(player), where
        assert view.zone("hand", player) == state.zone("hand", player), where
        assert view.history() == [] and view.decisions() == 0 and view.functions_used() == []
        view._check_invariants()
        # a function of the information state: another deal of the hidden cards (the same
        # information) is handed the very same bytes
        other = state.determinize(player, checked + 1)
        assert fair_view(other, player, 77)._raw_bytes() == view._raw_bytes(), where
        checked += 1
    assert checked > 1500


def test_the_fair_view_deals_the_hidden_cards_anew():
    state = mid_game(3, 4, 60)
    player = state.current_player()
    others = [p for p in range(3) if p != player]
    views = [fair_view(state, player, seed) for seed in range(20)]
    hidden = [[tuple(sorted(v.zone("hand", p))) for p in others] + [tuple(v.to_dict()["deck"])]
              for v in views]
    assert len(set(map(tuple, hidden))) == 20        # every seed deals another world
    assert fair_view(state, player, 3)._raw_bytes() == fair_view(state, player, 3)._raw_bytes()


def _hidden(player: dict) -> Counter:
    return Counter(player["hand"]) - Counter(player["known_hand"])


def _unknown(position: dict, me: int) -> Counter:
    pool = Counter(position["deck"])
    for q, p in enumerate(position["players"]):
        if q != me:
            pool += _hidden(p) + (Counter(p["vault"]) - Counter(p["known_vault"]))
    return pool


def _expected_overlap(pool: Counter, size: int, real: Counter) -> float:
    """E[|S & real|] for S a uniformly random hand of ``size`` cards from ``pool``:
    sum over card types of E[min(S_x, real_x)] = sum_j P(S_x >= j), S_x hypergeometric."""
    n = sum(pool.values())
    total = math.comb(n, size)
    expected = 0.0
    for card, held in real.items():
        k_all = pool[card]
        below = 0.0
        for j in range(1, held + 1):
            below += math.comb(k_all, j - 1) * math.comb(n - k_all, size - j + 1) / total
            expected += 1.0 - below
    return expected


def test_a_cheating_bot_sees_the_hidden_cards_only_as_often_as_chance():
    """Over some 3,000 looks at an opponent's hidden hand, the cards a bot reading
    state.to_dict() finds there match the real ones as often as a uniformly random hand
    from the cards it cannot see would; handed the real state, it would see them all."""
    seen: list[dict] = []

    def spy(view):
        seen.append(view.to_dict())
        return random.Random(len(seen)).choice(view.legal_actions())

    observed, expected, sizes, trusted = [], [], [], []
    for players, games in ((2, 24), (3, 12)):
        for game in range(games):
            state = glory_ai.Game(players).new_initial_state(game)
            others = [make_bot("random", 100 * game + s) for s in range(players)]
            referee, copy = Referee(spy, 9000 + game), Referee(spy, 1, fair_play=False)
            while not state.is_terminal():
                player = state.current_player()
                if player == 0:
                    real = state.to_dict()
                    copy.step(state)
                    handed_real = seen[-1]
                    action = referee.step(state)
                    view = seen[-1]
                    for q in range(1, players):
                        cards = _hidden(real["players"][q])
                        if cards:
                            observed.append(sum((cards & _hidden(view["players"][q])).values()))
                            expected.append(_expected_overlap(_unknown(real, 0), sum(cards.values()), cards))
                            sizes.append(sum(cards.values()))
                            trusted.append(sum((cards & _hidden(handed_real["players"][q])).values()))
                else:
                    action = others[player].step(state)
                state.apply_action(action)
    assert len(observed) > 2000
    mean_seen, mean_chance = np.mean(observed), np.mean(expected)
    error = np.std(observed) / math.sqrt(len(observed))
    assert abs(mean_seen - mean_chance) < 4 * error + 0.01, (mean_seen, mean_chance, error)
    assert mean_seen < 0.5 * np.mean(sizes)
    assert trusted == sizes                  # the real state shows every hidden card


def test_the_cheater_gains_nothing_over_its_honest_twin(registered):
    """Against random play, on the same deals: the cheater under fair play wins as often as
    the same plan run on a re-deal of its own, within noise."""
    rates = {}
    for name in ("Cheater", "Honest"):
        spec = f"{CHEATERS}:{name}"
        result = run(RunConfig.for_games([spec, "random"], 240, seed=5), n_jobs=1)
        rates[name] = np.mean([r["returns"][r["seats"].index(spec)] for r in result.records])
        assert not any("trusted_seats" in r for r in result.records)
    # two rates of 240 games: a standard error of about 0.03 each
    assert abs(rates["Cheater"] - rates["Honest"]) < 0.13, rates
    assert min(rates.values()) > 0.5                 # the plan itself beats random play
    # handed the real state (fair_play=False, for trusted code) the records say so
    import importlib.util

    module_spec = importlib.util.spec_from_file_location("cheaters_for_test", CHEATERS)
    cheaters = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(cheaters)
    registered.append("peeker")
    register("peeker", cheaters.Cheater, fair_play=False)
    records = run(RunConfig.for_games(["peeker", "random"], 4, seed=5), n_jobs=1).records
    assert [r["trusted_seats"] for r in records] == [[r["seats"].index("peeker")] for r in records]


# ---- the referee's checks -------------------------------------------------------------------

def _state():
    return mid_game(2, 8, 30)


def _referee_error(answer) -> BotError:
    with pytest.raises(BotError) as caught:
        Referee(answer, 3).step(_state())
    return caught.value


def test_a_bot_that_raises():
    error = _referee_error(lambda state: 1 // 0)
    assert error.reason == "raised"
    assert str(error) == "raised ZeroDivisionError: integer division or modulo by zero"
    assert isinstance(error.__cause__, ZeroDivisionError)
    long = _referee_error(lambda state: (_ for _ in ()).throw(ValueError("a\nb  " + "x" * 500)))
    assert "\n" not in str(long) and str(long).startswith("raised ValueError: a b xxx")
    assert len(str(long)) < 340
    assert _referee_error(lambda state: exit(3)).reason == "raised"        # SystemExit too


def test_ctrl_c_is_not_a_bot_error():
    def interrupted(state):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        Referee(interrupted, 3).step(_state())


def test_a_bot_that_changes_the_state_it_was_handed():
    def mutate(state):
        action = state.legal_actions()[0]
        state.apply_action(action)
        return action
    assert _referee_error(mutate).reason == "mutated"
    # handed a copy of the real state (fair_play=False), the real state is untouched too
    state = _state()
    before = state._raw_bytes()
    with pytest.raises(BotError, match="changed the state it was handed"):
        Referee(mutate, 3, fair_play=False).step(state)
    assert state._raw_bytes() == before
    # working on a clone is fine
    assert Referee(lambda s: s.clone().legal_actions()[0], 3).step(state) in state.legal_actions()


@pytest.mark.parametrize("answer, shown", [("lead", "'lead' (a str)"), (3.0, "3.0 (a float)"),
                                           (True, "True (a bool)"), (None, "None (a NoneType)"),
                                           (..., "Ellipsis (an ellipsis)")])
def test_a_bot_that_returns_something_that_is_not_an_action(answer, shown):
    error = _referee_error(lambda state: answer)
    assert error.reason == "not_an_action" and str(error) == f"returned {shown}, not an action id (an int)"


@pytest.mark.parametrize("answer", [-1, 999_999, 2**70])
def test_a_bot_that_returns_an_illegal_action(answer):
    error = _referee_error(lambda state: answer)
    assert error.reason == "illegal"
    assert str(error).startswith(f"returned action {answer}, which is not legal here")


def test_an_integer_like_answer_is_an_action():
    state = _state()
    action = Referee(lambda s: np.int64(s.legal_actions()[-1]), 3).step(state)
    assert type(action) is int and action == state.legal_actions()[-1]


def test_the_referee_refuses_a_finished_game():
    state = glory_ai.Game(2).new_initial_state(1)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="the game is over"):
        Referee(lambda s: 0, 1).step(state)
