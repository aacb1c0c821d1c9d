"""Thinker action: R-7.2, R-7.4, R-10.5 base refill size, scenario S2 (a), (b), (e)."""

import glory_ai
from support.positions import (
    assert_illegal,
    deck_with,
    from_dict,
    lower_set,
    play,
    position,
    think_strings,
    zone,
)


def s2_position(hand, deck_size=30, deck_top=()):
    """S2: Republic, no structures, Jack pile 4, deck 30 (player 0 leads)."""
    jacks_elsewhere = 6 - 4 - hand.count("Jack")
    d = position(2, [{"hand": list(hand)}, {"hand": ["Jack"] * jacks_elsewhere}])
    d["deck"] = deck_with(d, top=deck_top, size=deck_size)
    return d


def test_R_10_5_base_refill_size_is_five():
    state = glory_ai.Game(3).new_initial_state(seed=0)
    assert [state.refill_size(p) for p in range(3)] == [5, 5, 5]


def test_S2_a_R_7_2_below_refill_size_options():
    """Hand 3 (incl. a Jack): take Jack or refill; "draw 1" is illegal."""
    d = s2_position(["Jack", "Bar", "Dock"])
    state = from_dict(d)
    assert state.to_dict()["jack_pile"] == 4
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    assert_illegal(state, "think: draw 1")


def test_S2_a_R_7_2_a_take_jack():
    state = from_dict(s2_position(["Jack", "Bar", "Dock"]))
    play(state, "think: take Jack")
    d = state.to_dict()
    assert sorted(d["players"][0]["hand"]) == ["Bar", "Dock", "Jack", "Jack"]
    assert d["jack_pile"] == 3
    assert len(d["deck"]) == 30


def test_S2_a_R_7_2_b_refill_draws_up_to_refill_size():
    d = s2_position(["Jack", "Bar", "Dock"], deck_top=["Temple", "Villa", "Road"])
    state = from_dict(d)
    play(state, "think: refill")
    d2 = state.to_dict()
    assert sorted(d2["players"][0]["hand"]) == sorted(["Jack", "Bar", "Dock", "Temple",
                                                        "Villa"])
    assert len(d2["deck"]) == 28
    assert d2["deck"] == d["deck"][2:]
    assert d2["jack_pile"] == 4
    assert d2["leader"] == 1


def test_S2_b_R_7_2_at_or_above_refill_size_options():
    """Hand 6: take Jack or draw 1; refill is illegal."""
    d = s2_position(["Bar", "Dock", "Road", "Insula", "Latrine", "Market"],
                    deck_top=["Temple"])
    state = from_dict(d)
    assert think_strings(state) == lower_set(["think: take Jack", "think: draw 1"])
    assert_illegal(state, "think: refill")
    play(state, "think: draw 1")
    d2 = state.to_dict()
    assert len(d2["players"][0]["hand"]) == 7
    assert "Temple" in d2["players"][0]["hand"]
    assert len(d2["deck"]) == 29


def test_R_7_2_hand_exactly_refill_size_draws_one():
    d = s2_position(["Bar", "Dock", "Road", "Insula", "Latrine"])
    state = from_dict(d)
    assert think_strings(state) == lower_set(["think: take Jack", "think: draw 1"])


def test_R_7_2_jacks_count_toward_hand_size():
    """4 Orders + 1 Jack = 5 cards = refill size: refill is illegal (ruling A3)."""
    d = s2_position(["Jack", "Bar", "Dock", "Road", "Insula"])
    state = from_dict(d)
    assert think_strings(state) == lower_set(["think: take Jack", "think: draw 1"])


def test_R_7_2_a_no_jack_when_the_pile_is_empty():
    d = position(2, [{"hand": ["Bar"]}, {"hand": ["Jack"] * 6}])
    state = from_dict(d)
    assert think_strings(state) == lower_set(["think: refill"])


def test_R_7_2_b_refill_from_empty_hand():
    d = position(2, [{}, {}])
    d["deck"] = deck_with(d, size=20)
    state = from_dict(d)
    play(state, "think: refill")
    assert zone(state, 0, "hand") == sorted(d["deck"][:5])
    assert len(state.to_dict()["deck"]) == 15


def test_S2_e_R_7_4_refill_that_empties_the_deck_ends_the_game():
    d = s2_position(["Jack", "Bar", "Dock"], deck_size=1, deck_top=["Temple"])
    state = from_dict(d)
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.current_player() == glory_ai.TERMINAL
    assert state.end_reason() == "deck"
    d2 = state.to_dict()
    assert d2["deck"] == []
    assert sorted(d2["players"][0]["hand"]) == ["Bar", "Dock", "Jack", "Temple"]
    assert state.legal_actions() == []


def test_S2_e_R_7_4_follower_emptying_the_deck_stops_the_turn():
    """No further follows or actions once the deck is empty."""
    d = position(3, [
        {"hand": ["Bar", "Dock"]},
        {"hand": ["Temple", "Villa", "Palace"]},
        {"hand": ["Road"]},
    ], pool=["Insula"], deck=["Garden"])
    state = from_dict(d)
    play(state, "lead Laborer with Bar", "think: refill")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    d2 = state.to_dict()
    assert sorted(d2["players"][1]["hand"]) == ["Garden", "Palace", "Temple", "Villa"]
    assert d2["players"][0]["stockpile"] == []
    assert d2["players"][2]["hand"] == ["Road"]
    assert sorted(d2["pool"]) == ["Insula"]
    # scores are all 2; the tie is broken by hand size: player 1 has 4 cards
    assert state.scores() == [2, 2, 2]
    assert state.winners() == [1]


def test_R_7_2_c_draw_one_that_empties_the_deck_ends_the_game():
    d = s2_position(["Bar", "Dock", "Road", "Insula", "Latrine"], deck_size=1,
                    deck_top=["Temple"])
    state = from_dict(d)
    play(state, "think: draw 1")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert len(state.to_dict()["players"][0]["hand"]) == 6


def test_R_7_4_refill_that_exactly_empties_the_deck_ends_the_game():
    """Hand 3, deck 2: the refill completes (hand 5) and the deck is empty -> end."""
    d = s2_position(["Bar", "Dock", "Road"], deck_size=2, deck_top=["Temple", "Villa"])
    state = from_dict(d)
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert len(state.to_dict()["players"][0]["hand"]) == 5
