"""Input validation: every input surface refuses bad input cleanly. The surfaces were
fuzzed (State.from_dict with mutations of every field of seeded mid-game to_dict()
positions and of hand-written positions, Game(...) arguments, the State methods with bad
ids / players / seeds / strings, and loaded positions played on with _check_invariants,
_stress and random_playout), in subprocesses, with the engine also built under
AddressSanitizer.

The contract (docs/notation.md, "Positions"): bad input gets a ValueError naming the field
(TypeError for a wrong type), never a crash, a hang or a silently wrong state.

The "Pinned bugs" tests each assert the contract on the minimal input that broke it (all
fixed): a bare State() crashed, a conceded flag or an empty deck could load into a game
that hangs or breaks, and many inputs gave OverflowError/AttributeError or were silently
accepted. Crash reproductions run in a fresh interpreter so the suite itself never
segfaults. The tests at the end pin down good behaviour of surfaces no other test covers.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from glory_ai import NUM_DISTINCT_ACTIONS, Game, State
from glory_ai.cards import CARD_NAMES

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code: str, timeout=60):
    """Run `code` in a fresh interpreter (a C-level crash must not kill pytest)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=_ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _two_player(p0=None, p1=None, **top):
    d = {"num_players": 2, "players": [dict({"hand": ["Dock"]}, **(p0 or {})),
                                       dict({"hand": ["Road"]}, **(p1 or {}))]}
    d.update(top)
    return d


# =======================================================================================
# Pinned bugs: crash


def test_bare_State_constructor_is_refused_not_a_crash():
    r = _run("""
        import glory_ai
        try:
            glory_ai.State()
        except TypeError as exc:
            assert "new_initial_state" in str(exc) and "from_dict" in str(exc), exc
            print("refused")
    """)
    assert r.returncode == 0 and r.stdout.split()[-1:] == ["refused"], \
        f"rc {r.returncode}: {r.stdout[-100:]} {r.stderr[-300:]}"


# =======================================================================================
# Pinned bugs: hang / accepted corrupted positions


@pytest.mark.parametrize("conceded", [[1], [0, 1]], ids=["one_of_two", "all"])
def test_conceded_flag_in_turn_state_is_refused(conceded):
    d = _two_player()
    for p in conceded:
        d["players"][p]["turn_state"] = {"flags": 8}
    with pytest.raises(ValueError, match=r"turn_state|flags|conced"):
        State.from_dict(d)


def test_mid_turn_position_with_an_empty_deck_is_refused():
    d = Game(2).new_initial_state(0).to_dict()
    d["deck"] = []
    with pytest.raises(ValueError, match="deck"):
        State.from_dict(d)


def test_contradicting_out_of_play_is_refused():
    with pytest.raises(ValueError, match="out_of_play"):
        State.from_dict(_two_player(deck=["Bar"], out_of_play=["Jack"] * 9))


# =======================================================================================
# Pinned bugs: unclear exceptions / wrong acceptance in from_dict


@pytest.mark.parametrize("turn_state", [{"flags": 256}, {"camp_units": -1},
                                        {"jacks_played": "x"}, {"bogus": 1}],
                         ids=["flags_256", "camp_units_neg", "jacks_played_str", "unknown_key"])
def test_turn_state_fields_are_validated(turn_state):
    with pytest.raises(ValueError, match=r"players\[0\]\.turn_state"):
        State.from_dict(_two_player({"turn_state": turn_state}))


@pytest.mark.parametrize("field, d", [
    ("pool", _two_player(pool=["Bar"] * 300)),
    (r"players\[0\]\.hand|Jack", _two_player({"hand": ["Jack"] * 256})),
    (r"players\[0\]\.influence|sites", _two_player({"influence": ["Marble"] * 300})),
], ids=["pool", "hand_jacks", "influence"])
def test_zone_over_255_cards_is_a_value_error(field, d):
    with pytest.raises(ValueError, match=field):
        State.from_dict(d)


@pytest.mark.parametrize("rng", [float("inf"), 1.5, True], ids=["inf", "float", "bool"])
def test_rng_must_be_an_integer(rng):
    d = Game(2).new_initial_state(3).to_dict()
    d["rng"] = rng
    with pytest.raises(ValueError, match="rng"):
        State.from_dict(d)


@pytest.mark.parametrize("top", [{"variant": 0}, {"variant": []}, {"sites": ""},
                                 {"sites": {"in_town": 0.0}}],
                         ids=["variant_0", "variant_list", "sites_str", "in_town_float"])
def test_falsy_wrong_types_are_refused(top):
    with pytest.raises(ValueError, match=r"variant|sites"):
        State.from_dict(_two_player(**top))


def test_too_many_out_of_town_structures_get_a_clear_message():
    o = [{"building": b, "out_of_town": True} for b in ("Bar", "Insula", "Latrine")]
    d = _two_player({"structures": o},
                    {"structures": [{"building": b, "out_of_town": True} for b in ("Road", "Bar")]})
    with pytest.raises(ValueError) as exc:
        State.from_dict(d)
    assert "got -1" not in str(exc.value), str(exc.value)


# =======================================================================================
# Pinned bugs: Game(...) arguments


def test_removed_as_an_iterator_is_honoured():
    bar = CARD_NAMES.index("Bar")
    game = Game(2, removed=iter(["Bar"]))
    assert game.config().deck_copies()[bar] == 0
    assert game.config().variant()["removed"] == ["Bar"]


@pytest.mark.parametrize("variant", [{"copies": {"Jack": 0}}, {"removed": ["Jack"]}],
                         ids=["copies", "removed"])
def test_jack_in_copies_or_removed_is_refused(variant):
    with pytest.raises(ValueError, match=r"copies|removed"):
        Game(2, **variant)


@pytest.mark.parametrize("variant", [{"refill_size": True}, {"in_town_sites": True},
                                     {"copies": {"Bar": True}}],
                         ids=["refill_size", "in_town_sites", "copies"])
def test_bool_variant_options_are_refused(variant):
    with pytest.raises(TypeError):
        Game(2, **variant)


# =======================================================================================
# Pinned bugs: State methods


def _mid_state():
    s = Game(3, "imperium").new_initial_state(5)
    s.random_playout(5, max_decisions=20)
    assert not s.is_terminal()
    return s


_HUGE = 2 ** 63


@pytest.mark.parametrize("method", ["observation", "information_state_key",
                                    "observation_tensor", "concede", "influence",
                                    "score_breakdown", "determinize"])
def test_huge_player_is_a_value_error(method):
    s = _mid_state()
    args = (_HUGE, 0) if method == "determinize" else (_HUGE,)
    with pytest.raises(ValueError, match="player"):
        getattr(s, method)(*args)


@pytest.mark.parametrize("method, action", [("apply_action", _HUGE),
                                            ("action_to_string", 2 ** 64)],
                         ids=["apply_action", "action_to_string"])
def test_huge_action_id_is_a_value_error(method, action):
    s = _mid_state()
    before = s._raw_bytes()
    with pytest.raises(ValueError):
        getattr(s, method)(action)
    assert s._raw_bytes() == before


@pytest.mark.parametrize("method", ["string_to_action", "apply_action_string"])
def test_none_action_string_is_a_type_error(method):
    with pytest.raises(TypeError):
        getattr(_mid_state(), method)(None)


@pytest.mark.parametrize("call", ["determinize(0, 1.5)", "determinize(0, True)",
                                  "random_playout('7')", "determinize(0, 'x')",
                                  "random_playout(0, 1.5)"])
def test_bad_seeds_are_refused_naming_the_argument(call):
    state = _mid_state()
    method, args = call.split("(", 1)
    with pytest.raises((ValueError, TypeError), match=r"seed|max_decisions"):
        getattr(state, method)(*eval("(" + args[:-1] + ",)"))


# =======================================================================================
# Good behaviour (unmarked): surfaces no other test pins down


@pytest.mark.parametrize("bad, error", [
    (-1, ValueError), (NUM_DISTINCT_ACTIONS, ValueError), (1.0, TypeError), (True, TypeError),
    (None, TypeError), ("1", TypeError), (np.bool_(True), TypeError), ([0], TypeError)])
def test_apply_action_refuses_bad_ids_and_changes_nothing(bad, error):
    # one convention everywhere: a non-integer is a TypeError, an integer out of range
    # (or not legal) a ValueError
    s = _mid_state()
    before = s._raw_bytes()
    with pytest.raises(error):
        s.apply_action(bad)
    assert s._raw_bytes() == before


@pytest.mark.parametrize("np_type", [np.int64, np.uint16, np.int32, np.uint64])
def test_apply_action_takes_numpy_integer_ids(np_type):
    s = _mid_state()
    a = s.legal_actions()[0]
    t = s.clone()
    t.apply_action(np_type(a))
    u = s.clone()
    u.apply_action(a)
    assert t._raw_bytes() == u._raw_bytes()


@pytest.mark.parametrize("method", ["observation", "information_state_key",
                                    "observation_tensor", "concede", "influence",
                                    "score_breakdown", "clientele_limit", "vault_limit",
                                    "refill_size"])
def test_player_methods_refuse_bad_players(method):
    s = _mid_state()
    for p in (-1, 3, 255):
        with pytest.raises(ValueError, match="player must be 0..2"):
            getattr(s, method)(p)
    with pytest.raises(TypeError):
        getattr(s, method)("0")
    s._check_invariants()


def test_action_strings_junk_and_normalisation():
    s = _mid_state()
    a = s.legal_actions()[0]
    text = s.action_to_string(a)
    assert s.string_to_action("  " + text.upper().replace(" ", "   ") + "\t") == a
    for junk in ("", " ", "\x00", text + "x", "P-1", "é" * 5):
        with pytest.raises(ValueError, match="not a legal action"):
            s.string_to_action(junk)
    with pytest.raises(TypeError):
        s.string_to_action(b"done")
    for bad in (-1, NUM_DISTINCT_ACTIONS):
        with pytest.raises(ValueError, match="not an action id"):
            s.action_to_string(bad)


def test_terminal_state_refuses_moves_but_answers_queries():
    s = _mid_state()
    s.random_playout(1)
    assert s.is_terminal() and s.legal_actions() == [] and s.legal_action_strings() == []
    before = s._raw_bytes()
    with pytest.raises(ValueError, match="game is over"):
        s.apply_action(0)
    with pytest.raises(ValueError, match="game is over"):
        s.concede(0)
    with pytest.raises(ValueError, match="not a legal action"):
        s.apply_action_string("think: take Jack")
    assert s.random_playout(3) == 0
    for p in range(3):
        s.observation(p)
        s.information_state_key(p)
        s.observation_tensor(p)
        assert s.determinize(p, 1).is_terminal()
    assert State.from_dict(s.to_dict())._raw_bytes() == s._raw_bytes() == before


def test_random_playout_with_a_zero_budget_does_nothing_and_a_negative_one_is_refused():
    s = _mid_state()
    before = s._raw_bytes()
    assert s.random_playout(0, max_decisions=0) == 0
    with pytest.raises(ValueError, match="max_decisions"):
        s.random_playout(0, max_decisions=-5)
    assert s._raw_bytes() == before


@pytest.mark.parametrize("kwargs, field, error", [
    ({"num_players": 1}, "num_players", ValueError), ({"num_players": 6}, "num_players", ValueError),
    ({"num_players": True}, "num_players", TypeError), ({"num_players": 2.0}, "num_players", TypeError),
    ({"num_players": "3"}, "num_players", TypeError),
    ({"mode": "empire"}, "mode", ValueError), ({"mode": None}, "mode", TypeError),
    ({"petition_size": 4}, "petition_size", ValueError), ({"refill_size": 0}, "refill_size", ValueError),
    ({"refill_size": "5"}, "refill_size", TypeError),
    ({"in_town_sites": 7}, "in_town_sites", ValueError), ({"copies": {"Barr": 1}}, "copies", ValueError),
    ({"copies": {"Bar": 13}}, "copies", ValueError), ({"copies": [("Bar", 2)]}, "copies", TypeError),
    ({"removed": "Bar"}, "removed", TypeError), ({"removed": 3}, "removed", TypeError),
    ({"removed": CARD_NAMES[1:]}, "deck holds", ValueError), ({"bogus": 1}, "unknown variant", ValueError),
])
def test_game_refuses_bad_arguments_naming_them(kwargs, field, error):
    # as for players, seeds and actions: a wrong type is a TypeError, a bad value a ValueError
    kwargs = dict({"num_players": 2}, **kwargs)
    with pytest.raises(error, match=field):
        Game(**kwargs)


@pytest.mark.parametrize("seed", [True, 1.0, "1", None])
def test_new_initial_state_refuses_non_integer_seeds(seed):
    with pytest.raises(TypeError, match="seed"):
        Game(2).new_initial_state(seed)


@pytest.mark.parametrize("seed", [-1, 2 ** 64])
def test_seeds_outside_the_generator_range_are_refused_not_wrapped(seed):
    with pytest.raises(ValueError, match="seed"):
        Game(2).new_initial_state(seed)
    with pytest.raises(ValueError, match="seed"):
        Game(2).new_initial_state(1).determinize(0, seed)
    assert Game(2).new_initial_state(2 ** 64 - 1).to_dict() != Game(2).new_initial_state(0).to_dict()


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.update(bogus=1), "position"),
    (lambda d: d["players"][0].update(Hand=[]), r"players\[0\]"),
    (lambda d: d["players"][0].update(hand=["Barr"]), r"players\[0\]\.hand\[0\]"),
    (lambda d: d["players"][0].update(stockpile=["Jack"]), r"players\[0\]\.stockpile\[0\]"),
    (lambda d: d["players"][0].update(structures=[{"building": "Bar", "site": "Gold"}]),
     r"structures\[0\]\.site"),
    (lambda d: d["players"][0].update(structures=[{"building": "Bar"}, {"building": "bar"}]),
     r"structures\[1\]\.building"),
    (lambda d: d["players"][0].update(structures=[{"building": "Temple", "complete": 1}]),
     r"structures\[0\]\.complete"),
    (lambda d: d["players"][0].update(
        structures=[{"building": "Bar", "materials": ["Insula", "Road"], "complete": True}]),
     r"structures\[0\]\.materials"),
    (lambda d: d["players"][0].update(known_hand=["Dock", "Dock"]), "known_hand"),
    (lambda d: d["players"][0].update(lacks=["Wood"]), "lacks"),
    (lambda d: d.update(jack_pile=7), "jack_pile"),
    (lambda d: d.update(leader=2), "leader"),
    (lambda d: d.update(seed=1.5), "seed"),
    (lambda d: d.update(mode=["republic"]), "mode"),
    (lambda d: d.update(deck=["Bar"] * 7), "deck"),
    (lambda d: d.update(sites={"in_town": {"Marble": 7}}), "sites"),
    (lambda d: d.update(variant={"petition_size": 5}), "petition_size"),
    (lambda d: d.update(players=[{}]), "players"),
])
def test_from_dict_refuses_malformed_fields_naming_them(mutate, field):
    d = _two_player()
    mutate(d)
    with pytest.raises(ValueError, match=field):
        State.from_dict(d)


def test_fuzzed_mid_game_positions_round_trip_and_play():
    """A small deterministic sample of what the fuzzer checks for every accepted position:
    seeded mid-game states of both modes and 2-5 players reload identically, pass the
    invariants and play to the end."""
    for n in (2, 3, 4, 5):
        for mode in ("republic", "imperium"):
            s = Game(n, mode).new_initial_state(n * 7)
            s._stress(n, builder=True, stop_after=60 * n)
            d = s.to_dict()
            t = State.from_dict(d)
            assert t._raw_bytes() == s._raw_bytes()
            t._check_invariants()
            code, step = t.clone()._stress(1)
            assert code == 0, (n, mode, code, step)


def test_a_huge_decision_budget_means_play_to_the_end():
    s = _mid_state()
    made = s.random_playout(0, 2 ** 40)
    assert s.is_terminal() and made > 0


@pytest.mark.parametrize("variant", [{"refill_size": "5"}, {"removed": "Bar"}, {"copies": [1]}])
def test_a_position_with_an_ill_typed_variant_is_a_value_error(variant):
    # Game(...) arguments of the wrong type are TypeErrors; inside a position file they are
    # data like any other, so from_dict keeps to ValueError
    position = Game(2).new_initial_state(1).to_dict()
    position["variant"] = variant
    with pytest.raises(ValueError, match="variant"):
        State.from_dict(position)


def test_a_zone_of_more_than_255_cards_is_refused_by_name():
    # zone sizes are 8-bit counters: a position asking for more is refused (not overflowed)
    from glory_ai.cards import CARD_MODE
    republic = [name for x, name in enumerate(CARD_NAMES) if x and CARD_MODE[x] != 1]
    copies = {name: 12 for name in republic[:21]}     # 21 types x 12 = 252 Orders
    copies.update({name: 1 for name in republic[21:24]})
    game = {"num_players": 2, "variant": {"copies": copies, "removed": republic[24:]}}
    orders = [name for name, count in copies.items() for _ in range(count)]
    assert len(orders) == 255
    hand = ["Jack"] * 6 + orders[:250]
    with pytest.raises(ValueError, match=r"^players\[0\]\.hand: more than 255 cards$"):
        State.from_dict({**game, "players": [{"hand": hand}, {}]})
    # 255 is fine
    state = State.from_dict({**game, "players": [{"hand": hand[:255]}, {}]})
    assert len(state.zone("hand", 0)) == 255
