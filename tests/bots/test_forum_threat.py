"""forum_threat= (issue 36, docs/bots.md, "Forum threat"): while a Forum or Forum Romanum is
active for a player, rollouts play on past the cutoff and that player's hires go to the roles
its clientele lacks. Off by default; off, and wherever no Forum is active, the search is the
one it was."""
from __future__ import annotations

import pytest

import glory_ai
from glory_ai.bots import make_bot
from glory_ai.bots.builtin_params import defaults
from support.play import bot_moves

#: position 130 of the sure suite (benchmarks/data/thrown_sure.jsonl.gz), played on by its
#: run 0 of bot seeds 20 to turn 50: the leader (seat 0) 37 to 11, the opponent's Forum
#: Romanum completed at turn 45; the opponent went on to hire the roles it lacked and won by
#: it at turn 61 while the leader's search read about 0.8 (results/bench/thrown_hold.txt)
SEED = 2559160255583708050
ACTIONS = [
    120, 186, 1, 4420, 4483, 96, 52, 4451, 4440, 58, 124, 4350, 89, 1, 418, 2, 2, 94, 1, 444, 107, 63, 417,
    2063, 2, 97, 1, 104, 104, 342, 315, 2, 96, 2, 4429, 4462, 72, 71, 347, 331, 67, 1, 4436, 4468, 82, 2, 0,
    69, 1, 4341, 93, 1, 352, 95, 95, 425, 429, 1, 68, 98, 246, 236, 2, 88, 88, 421, 414, 129, 2, 256, 112,
    2, 1563, 121, 49, 4430, 4481, 4415, 4473, 2, 1, 92, 2, 1374, 55, 85, 251, 53, 122, 4412, 4492, 4442,
    4464, 94, 2, 431, 1, 2, 60, 1, 4329, 4349, 4325, 96, 2, 4445, 0, 71, 72, 312, 321, 337, 56, 96, 4428,
    4474, 4431, 4475, 63, 2, 420, 1224, 92, 50, 1233, 1392, 2, 70, 1, 4428, 4461, 98, 1, 224, 96, 2, 4428,
    4491, 72, 1, 351, 336, 94, 62, 1215, 1276, 1363, 80, 2, 4352, 4361, 4341, 71, 1, 348, 352, 95, 2, 1339,
    1350, 245, 262, 266, 234, 266, 237, 76, 2, 1829, 1731, 401]


def _forum_position():
    state = glory_ai.Game(2, "republic", petition_size=2, refill_size=5).new_initial_state(SEED)
    for action in ACTIONS:
        state.apply_action(action)
    return state


def _root(spec, state, seed):
    bot = make_bot(spec, seed)
    bot.step(state)
    return bot.last_search()["actions"][0]


def test_the_position_is_the_forum_threat_of_the_trace():
    state = _forum_position()
    assert (state.turn_number(), state.current_player(), state.scores()) == (50, 0, [37, 11])
    assert state.is_active(1, "Forum Romanum") and not state.is_active(0, "Forum Romanum")


def test_on_the_search_sees_the_forum_further_and_reads_the_lead_less_won():
    state = _forum_position()
    for seed in range(3):
        off = _root("ismcts:iters=300", state, seed)
        on = _root("ismcts:iters=300,forum_threat=true", state, seed)
        # the rollouts play past the cutoff (80 decisions) to the end: longer games
        assert on["mean_length"] > off["mean_length"] + 3
        # and the opponent's hires toward its Forum cost the leader some of its reading
        assert on["mean_reward"][0] < off["mean_reward"][0]


def test_off_by_default_and_the_same_search_where_no_forum_is_active():
    assert defaults("ismcts")["forum_threat"] is False
    plain = bot_moves("ismcts:iters=60", 4)
    assert bot_moves("ismcts:iters=60,forum_threat=false", 4) == plain
    # without Forum cards no Forum is ever active, and on changes nothing (not even a draw of
    # the rng); with them, a rollout that lays one already plays on differently
    no_forum = {"removed": ("Forum", "Forum Romanum")}
    on = bot_moves("ismcts:iters=60,forum_threat=true", 4, **no_forum)
    assert on == bot_moves("ismcts:iters=60", 4, **no_forum)
    assert bot_moves("ismcts:iters=60,forum_threat=true", 4) != plain


def test_pimc_does_not_take_it_and_a_bad_value_is_refused():
    with pytest.raises(ValueError, match="forum_threat"):
        make_bot("ismcts:forum_threat=maybe", 0)
    with pytest.raises(ValueError, match="forum_threat"):
        make_bot("pimc:forum_threat=true", 0)
