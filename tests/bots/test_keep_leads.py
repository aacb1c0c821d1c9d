"""The options that keep won games (issue 36, docs/strength.md, "Never throw a won game"):
keep= (a clearly won root plays the action of the highest lower bound) and rollout_others=
(the others' rollout policy). Both are off by default, and off they play what the search
played without them."""
from __future__ import annotations

import pytest

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.bots._search import _order_rows
from glory_ai.bots.builtin_params import defaults
from support.play import bot_moves


def _rows(*specs):
    return [{"action": a, "visits": v, "available": v, "mean_reward": [m, 1 - m], "proven": proven,
             "proof_length": 1 if proven else 0, "mean_length": 5.0} for a, v, m, proven in specs]


def _order(rows, keep, final="robust"):
    _order_rows(rows, 0, 1, False, final, keep)
    return [r["action"] for r in rows]


def test_keep_plays_the_highest_lower_bound_at_a_clearly_won_root():
    # 3 is tried most but 5's mean is higher over enough visits to be the surer
    rows = [(3, 400, 0.70, None), (5, 300, 0.80, None), (7, 10, 0.95, None)]
    assert _order(_rows(*rows), 0.0) == [3, 5, 7]
    assert _order(_rows(*rows), 2.0) == [5, 3, 7]
    # a few lucky visits do not make a sure move (7's bound: 0.95 - 0.5 / sqrt(10) = 0.79) ...
    assert _order(_rows(*rows), 0.5) == [7, 3, 5]
    assert _order(_rows((3, 400, 0.7, None), (7, 1, 1.0, None)), 1.0) == [3, 7]
    # ... and the final rule's order is kept behind the new first row
    assert _order(_rows(*rows), 2.0, final="visits") == [5, 3, 7]


def test_keep_leaves_open_roots_and_proven_wins_alone():
    # the first row's mean below 0.6: the root is not clearly won
    assert _order(_rows((3, 400, 0.55, None), (5, 300, 0.59, None)), 2.0) == [3, 5]
    # a proven win stays first; a proven loss is never brought forward
    assert _order(_rows((3, 400, 0.7, None), (5, 300, 0.8, None), (9, 2, 1.0, "win")), 2.0)[0] == 9
    assert _order(_rows((3, 400, 0.7, None), (9, 50, 0.99, "loss")), 2.0) == [3, 9]


def test_both_are_off_by_default_and_written_off_play_the_same():
    assert defaults("ismcts")["keep"] == 0.0 and defaults("ismcts")["rollout_others"] == "same"
    plain = bot_moves("ismcts:iters=60", 4)
    assert bot_moves("ismcts:iters=60,keep=0,rollout_others=same", 4) == plain
    # same is rollout= for everyone: the random policy written out for the others is the same search
    assert bot_moves("ismcts:iters=60,rollout_others=random", 4) == plain


def test_rollout_others_changes_the_search():
    plain = make_bot("ismcts:iters=200", 3)
    aware = make_bot("ismcts:iters=200,rollout_others=heuristic", 3)
    state = glory_ai.Game(2).new_initial_state(3)
    plain.step(state)
    aware.step(state)
    visits = [[r["visits"] for r in bot.last_search()["actions"]] for bot in (plain, aware)]
    assert visits[0] != visits[1]


@pytest.mark.parametrize("spec, word", [("ismcts:keep=-1", "keep"), ("ismcts:keep=11", "keep"),
                                        ("ismcts:rollout_others=clever", "rollout_others")])
def test_bad_values_are_refused_naming_the_option(spec, word):
    with pytest.raises(ValueError, match=word):
        make_bot(spec, 0)
