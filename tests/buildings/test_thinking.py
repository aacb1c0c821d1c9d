"""Functions that modify the Thinker action (docs/rules.md §7, §13): Latrine, Vomitorium,
Tribunal (Republic); rulings A27 (Latrine with Vomitorium) and A28 (Tribunal after
School / Academy thinks)."""

from support.positions import (
    done,
    foundation,
    from_dict,
    hand,
    jack_pile,
    legal,
    lower_set,
    play,
    pool,
    position,
    state_of,
    think_strings,
    turn_over,
)

FIVE = ["Bar", "Dock", "Road", "Insula", "Market"]


def latrine_strings(cards):
    return {f"think: discard {c} (latrine)".lower() for c in cards}


# --------------------------------------------------------------------------- #24 Latrine


def test_24_latrine_discard_one_then_refill():
    """§13 #24 Latrine: before thinking, discard one card to the pool; hand 4 < 5 ->
    refill draws 1."""
    d = position(2, [{"hand": list(FIVE), "structures": [done("Latrine")]}, {}],
                 deck_top=["Temple"], deck_size=20)
    state = from_dict(d)
    assert think_strings(state) == (lower_set(["think: take Jack", "think: draw 1"])
                                    | latrine_strings(FIVE))
    play(state, "think: discard Bar (Latrine)")
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    play(state, "think: refill")
    assert turn_over(state)
    assert hand(state, 0) == ["Dock", "Insula", "Market", "Road", "Temple"]
    assert pool(state) == ["Bar"]


def test_24_latrine_jack_goes_to_the_jack_pile():
    d = position(2, [{"hand": ["Jack", "Bar", "Dock"], "structures": [done("Latrine")]}, {}],
                 deck_top=["Temple", "Villa", "Palace"], deck_size=20)
    state = from_dict(d)
    assert jack_pile(state) == 5
    play(state, "think: discard Jack (Latrine)")
    assert jack_pile(state) == 6
    assert pool(state) == []
    play(state, "think: refill")
    assert hand(state, 0) == ["Bar", "Dock", "Palace", "Temple", "Villa"]


def test_24_latrine_for_a_following_thinker():
    """§13 #24 Latrine: "before each Thinker action" -- also a follower's think."""
    state = state_of(2, [{"hand": ["Temple"]},
                         {"hand": ["Bar", "Dock"], "structures": [done("Latrine")]}])
    play(state, "lead Patron with Temple")
    assert "think: discard bar (latrine)" in legal(state)
    play(state, "think: discard Bar (Latrine)", "think: take Jack")
    assert hand(state, 1) == ["Dock", "Jack"]


def test_24_no_latrine_no_discard():
    state = state_of(2, [{"hand": list(FIVE)}, {}])
    assert think_strings(state) == lower_set(["think: take Jack", "think: draw 1"])


# --------------------------------------------------------------------------- #43 Vomitorium


def test_43_vomitorium_discard_whole_hand_then_refill():
    """§13 #43 Vomitorium: discard the whole hand (the Jack to the pile, Orders to the
    pool), then think normally: a full refill."""
    top = ["Temple", "Villa", "Palace", "Garden", "Prison"]
    d = position(2, [{"hand": ["Jack", "Dock", "Road"], "structures": [done("Vomitorium")]},
                     {}], deck_top=top, deck_size=20)
    state = from_dict(d)
    assert "think: discard hand (vomitorium)" in think_strings(state)
    play(state, "think: discard hand (Vomitorium)")
    assert jack_pile(state) == 6
    assert pool(state) == ["Dock", "Road"]
    assert hand(state, 0) == []
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    play(state, "think: refill")
    assert turn_over(state)
    assert hand(state, 0) == sorted(top)


def test_43_24_latrine_not_combined_with_vomitorium_A27():
    """§13 #24/#43, A27: both active -- after a Latrine discard no Vomitorium discard
    is offered, and after a Vomitorium discard no Latrine discard."""
    players = [{"hand": ["Bar", "Dock", "Road"],
                "structures": [done("Vomitorium"), done("Latrine")]}, {}]
    state = state_of(2, players)
    assert think_strings(state) == (lower_set(["think: take Jack", "think: refill",
                                               "think: discard hand (Vomitorium)"])
                                    | latrine_strings(["Bar", "Dock", "Road"]))
    play(state, "think: discard Dock (Latrine)")
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])
    state = state_of(2, players)
    play(state, "think: discard hand (Vomitorium)")
    assert think_strings(state) == lower_set(["think: take Jack", "think: refill"])


# --------------------------------------------------------------------------- #41 Tribunal


def test_41_tribunal_takes_a_jack_after_the_think():
    """§13 #41 Tribunal (Republic): after a Thinker action, may take one Jack."""
    d = position(2, [{"hand": ["Bar"], "structures": [done("Tribunal")]}, {}],
                 deck_top=["Temple", "Villa", "Palace", "Garden"], deck_size=20)
    state = from_dict(d)
    play(state, "think: refill")
    assert legal(state) == lower_set(["tribunal: take Jack", "tribunal: skip"])
    play(state, "tribunal: take Jack")
    assert turn_over(state)
    assert hand(state, 0) == ["Bar", "Garden", "Jack", "Palace", "Temple", "Villa"]
    assert jack_pile(state) == 5


def test_41_tribunal_after_taking_a_jack():
    state = state_of(2, [{"hand": ["Bar"], "structures": [done("Tribunal")]}, {}])
    play(state, "think: take Jack", "tribunal: take Jack")
    assert turn_over(state)
    assert hand(state, 0) == ["Bar", "Jack", "Jack"]
    assert jack_pile(state) == 4


def test_41_tribunal_skip():
    state = state_of(2, [{"hand": ["Bar"], "structures": [done("Tribunal")]}, {}])
    play(state, "think: take Jack", "tribunal: skip")
    assert turn_over(state)
    assert jack_pile(state) == 5


def test_41_tribunal_needs_a_jack_in_the_pile():
    """§13 #41: the last Jack is taken by the think -> no Tribunal question."""
    state = state_of(2, [{"hand": ["Bar"], "structures": [done("Tribunal")]},
                         {"hand": ["Jack"] * 5}])
    play(state, "think: take Jack")
    assert turn_over(state)
    assert jack_pile(state) == 0


def test_41_tribunal_for_a_follower_before_later_players_decide():
    state = state_of(3, [{"hand": ["Temple"]},
                         {"hand": ["Bar"], "structures": [done("Tribunal")]},
                         {"hand": ["Palace"]}])
    play(state, "lead Patron with Temple", "think: take Jack")
    assert state.current_player() == 1
    assert legal(state) == lower_set(["tribunal: take Jack", "tribunal: skip"])
    play(state, "tribunal: take Jack")
    assert state.current_player() == 2
    assert hand(state, 1) == ["Bar", "Jack", "Jack"]


def test_41_31_tribunal_after_each_school_think_A28():
    """§13 #41 Tribunal + #31 School, A28: a Tribunal question after every granted
    think that was performed (influence 6 -> 6 grants)."""
    top = ["Temple", "Villa", "Palace", "Garden", "Prison", "Sewer"]
    d = position(2, [{"hand": ["Dock", "Bath"],
                      "structures": [done("Tribunal"), foundation("School", ["Academy"])]},
                     {"hand": ["Crane"]}], deck_top=top, deck_size=20)
    state = from_dict(d)
    play(state, "lead Craftsman with Dock", "think: take Jack",
         "craftsman: add Bath to School")
    assert state.influence(0) == 6
    play(state, "think: refill")
    assert legal(state) == lower_set(["tribunal: take Jack", "tribunal: skip"])
    play(state, "tribunal: take Jack")
    # hand 6 >= 5: draw 1
    play(state, "think: draw 1")
    assert legal(state) == lower_set(["tribunal: take Jack", "tribunal: skip"])
    play(state, "tribunal: skip")
    for _ in range(4):
        assert "think: skip" in legal(state)
        play(state, "think: skip")
    assert turn_over(state)
    assert hand(state, 0) == sorted(top + ["Jack"])


def test_41_1_tribunal_after_the_academy_think_A28():
    state = state_of(2, [{"hand": ["Dock", "Bar"],
                          "structures": [done("Tribunal"), done("Academy")]},
                         {"hand": ["Crane"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack", "craftsman: lay Bar",
         "think: take Jack")
    assert legal(state) == lower_set(["tribunal: take Jack", "tribunal: skip"])
    play(state, "tribunal: take Jack")
    assert turn_over(state)
    assert hand(state, 0) == ["Jack", "Jack"]
