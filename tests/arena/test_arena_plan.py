"""Arena game plans: formats, seat rotations, seeding and the config identity."""
import json

import numpy as np
import pytest

from glory_ai.arena import ArenaError, RunConfig, bot_seed, deal_seed
from glory_ai.arena._loop import seed_word
from glory_ai.arena.plan import _seed_word


def test_seeds_are_spawn_keys_of_the_root_seed():
    seq = np.random.SeedSequence(entropy=7, spawn_key=(3,))
    assert deal_seed(7, 3) == int(seq.generate_state(1, np.uint64)[0])
    seq = np.random.SeedSequence(entropy=7, spawn_key=(3, 1, 0))
    assert bot_seed(7, 3, 1, 0) == int(seq.generate_state(1, np.uint64)[0])
    deals = {deal_seed(7, d) for d in range(200)}
    assert len(deals) == 200
    bots = {bot_seed(7, d, r, s) for d in range(20) for r in range(3) for s in range(3)}
    assert len(bots) == 20 * 9
    assert deal_seed(7, 0) != deal_seed(8, 0)
    assert all(0 <= s < 2**64 for s in deals | bots)


def test_the_seeds_computed_in_c_are_numpys_words():
    # plan seeds come from _loop.seed_word, numpy's SeedSequence written out in C: the same
    # word for roots and keys of one and two 32-bit words, keys of any length up to 8
    rng = np.random.default_rng(33)
    cases = [(0, ()), (0, (0,)), (2**64 - 1, (9_999_999, 4, 4)), (2**32, (2**32,)),
             (2**32 - 1, (2**32 - 1, 2**64 - 1)), (5, tuple(range(8)))]
    for _ in range(3000):
        root = int(rng.integers(0, 2**64, dtype=np.uint64)) >> int(rng.integers(0, 64))
        key = tuple(int(k) >> int(rng.integers(0, 64)) for k in
                    rng.integers(0, 2**64, size=int(rng.integers(0, 5)), dtype=np.uint64))
        cases.append((root, key))
    for root, key in cases:
        words = np.random.SeedSequence(entropy=root, spawn_key=key).generate_state(1, np.uint64)
        assert seed_word(root, key) == int(words[0]), (root, key)
    # what it does not take goes to numpy, with numpy's errors
    with pytest.raises(ValueError):
        deal_seed(-1, 0)
    assert _seed_word(2**70, (1,)) == int(np.random.SeedSequence(
        entropy=2**70, spawn_key=(1,)).generate_state(1, np.uint64)[0])


def test_head_to_head_plays_every_deal_with_the_seats_swapped():
    config = RunConfig(specs=("greedy", "random"), deals=3, seed=5)
    assert config.format == "head_to_head"
    assert config.rotations == 2 and config.games_per_deal == 2 and config.total_games == 6
    tasks = list(config.tasks())
    assert [t.game_id for t in tasks] == ["0-0-0", "0-0-1", "1-0-0", "1-0-1", "2-0-0", "2-0-1"]
    assert config.game_ids() == [t.game_id for t in tasks]
    assert tasks[0].seats == ("greedy", "random") and tasks[1].seats == ("random", "greedy")
    assert tasks[0].seed == tasks[1].seed == deal_seed(5, 0)
    assert tasks[1].bot_seeds == (bot_seed(5, 0, 1, 0), bot_seed(5, 0, 1, 1))
    assert tasks[2].seed != tasks[0].seed
    assert [config.task(t.deal, t.pairing, t.rotation) for t in tasks] == tasks
    one_way = RunConfig(specs=("greedy", "random"), deals=3, rotate=False)
    assert one_way.total_games == 3


def test_a_field_rotates_every_spec_through_every_seat():
    config = RunConfig(specs=("greedy", "random", "heuristic:style=patron"),
                       players=3, deals=2)
    assert config.format == "field" and config.rotations == 3
    seatings = [t.seats for t in config.tasks() if t.deal == 0]
    for seat in range(3):
        assert sorted(s[seat] for s in seatings) == sorted(config.specs)
    # fewer specs than seats: the line-up cycles through them
    cycled = RunConfig(specs=("greedy", "random"), players=4, deals=1)
    assert cycled.pairings() == [("greedy", "random", "greedy", "random")]
    # one spec in every seat: one seating per deal
    self_play = RunConfig(specs=("random",), players=5, deals=4)
    assert self_play.rotations == 1 and self_play.total_games == 4


def test_round_robin_and_gauntlet_pairings():
    specs = ("random", "greedy", "heuristic:style=builder", "heuristic:style=merchant")
    rr = RunConfig(specs=specs, deals=2)
    assert rr.format == "round_robin"
    assert len(rr.pairings()) == 6 and rr.games_per_deal == 12
    # every pairing plays the same deals
    assert {t.seed for t in rr.tasks() if t.deal == 1} == {deal_seed(0, 1)}
    gauntlet = RunConfig(specs=specs, deals=1, format="gauntlet")
    assert gauntlet.pairings() == [("random", s) for s in specs[1:]]
    assert gauntlet.total_games == 6
    assert [rr.task(t.deal, t.pairing, t.rotation) for t in rr.tasks()] == list(rr.tasks())


def test_config_identity_and_json_round_trip():
    config = RunConfig(specs=(" greedy", "random"), deals=4, seed=9, variant={"refill_size": 6},
                       sprt=(0, 50, 0.05, 0.05))
    assert config.specs == ("greedy", "random")
    data = json.loads(json.dumps(config.to_dict()))
    again = RunConfig.from_dict(data)
    assert again == config and again.short_hash() == config.short_hash()
    assert hash(again) == hash(config)
    # the variant is stored resolved: defaults spelled out or not, the same rules
    assert RunConfig(specs=("greedy", "random")) == RunConfig(specs=("greedy", "random"),
                                                             variant={"refill_size": 5})
    other = RunConfig(specs=("greedy", "random"), deals=5, seed=9, variant={"refill_size": 6},
                      sprt=(0, 50, 0.05, 0.05))
    assert set(config.differences(other)) == {"deals"}
    assert other.short_hash() != config.short_hash()


def test_for_games_rounds_up_to_whole_deals():
    config = RunConfig.for_games(["greedy", "random", "heuristic:style=patron"], 10, players=3)
    assert config.deals == 4 and config.total_games == 12
    assert RunConfig.for_games(["greedy", "random"], 400).deals == 200
    with pytest.raises(ArenaError, match="positive"):
        RunConfig.for_games(["greedy", "random"], 0)


@pytest.mark.parametrize("kwargs, message", [
    (dict(specs=("greedy", "rando")), "unknown bot 'rando'"),
    (dict(specs=("ismcts:iterz=3", "random")), "no parameter 'iterz'"),
    (dict(specs=()), "at least one"),
    (dict(specs="greedy"), "list of bot specs"),
    (dict(specs=("greedy", "greedy")), "must differ"),
    (dict(specs=("greedy", "random", "heuristic"), players=2, format="head_to_head"), "exactly 2"),
    (dict(specs=("greedy", "random", "heuristic"), players=2, format="field"), "round robin"),
    (dict(specs=("greedy", "random"), players=3, format="round_robin"), "2 players"),
    (dict(specs=("greedy", "random"), players=6), "players"),
    (dict(specs=("greedy", "random"), deals=0), "deals"),
    (dict(specs=("greedy", "random"), seed=-1), "seed"),
    (dict(specs=("greedy", "random"), mode="empire"), "mode"),
    (dict(specs=("greedy", "random"), variant={"refil_size": 4}), "unknown variant"),
    (dict(specs=("greedy", "random"), variant={"refill_size": 40}), "refill_size"),
    (dict(specs=("greedy", "random"), format="swiss"), "format"),
    (dict(specs=("greedy", "random", "heuristic"), sprt=(0, 50, 0.05, 0.05)), "head-to-head"),
    (dict(specs=("greedy", "random"), sprt=(50, 0, 0.05, 0.05)), "SPRT"),
])
def test_bad_configs_are_arena_errors(kwargs, message):
    with pytest.raises(ArenaError, match=message):
        RunConfig(**kwargs)


def test_the_package_docstring_example_runs():
    import doctest

    import glory_ai.arena

    assert doctest.testmod(glory_ai.arena).failed == 0
