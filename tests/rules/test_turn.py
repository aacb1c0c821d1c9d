"""Turn structure: R-6.1 ... R-6.9 (docs/rules.md §6)."""

from support.cards import ROLES
from support.positions import (
    assert_illegal,
    assert_legal,
    legal,
    lower_set,
    play,
    state_of,
    think_strings,
    zone,
)


def test_R_6_1_a_leader_thinks_and_the_turn_ends_at_once():
    """Nobody follows and nobody acts (not even clients); the leader passes on."""
    state = state_of(2, [
        {"hand": ["Bar", "Dock"]},
        {"hand": ["Road"], "clientele": ["Insula"]},  # a Laborer client
    ], pool=["Latrine"])
    play(state, "think: take Jack")
    d = state.to_dict()
    assert d["leader"] == 1
    assert state.current_player() == 1
    assert sorted(d["players"][0]["hand"]) == ["Bar", "Dock", "Jack"]
    assert d["jack_pile"] == 5
    assert sorted(d["pool"]) == ["Latrine"]
    assert d["players"][1]["stockpile"] == []
    # player 1 now chooses to lead or think: no follow strings are offered
    assert all(not s.startswith("follow") for s in legal(state))
    assert_legal(state, "lead Laborer with Road")


def test_R_6_1_b_leading_moves_the_payment_to_the_camp():
    state = state_of(3, [{"hand": ["Bar", "Dock"]}, {"hand": ["Road"]}, {}])
    play(state, "lead Laborer with Bar")
    assert zone(state, 0, "camp") == ["Bar"]
    assert zone(state, 0, "hand") == ["Dock"]
    assert state.current_player() == 1


def test_R_6_2_followers_decide_clockwise_from_the_leaders_left():
    """Leader 1 of 3: player 2 decides, then player 0."""
    state = state_of(3, [
        {"hand": ["Insula"]},
        {"hand": ["Bar"]},
        {"hand": ["Road"]},
    ], leader=1)
    assert state.current_player() == 1
    play(state, "lead Laborer with Bar")
    assert state.current_player() == 2
    assert_legal(state, "follow Laborer with Road")
    play(state, "follow Laborer with Road")
    assert state.current_player() == 0
    assert_legal(state, "follow Laborer with Insula")


def test_R_6_2_a_follower_who_thinks_does_so_at_once():
    """The think happens before later players decide."""
    deck = ["Temple", "Palace", "Villa", "Garden", "Prison", "Sewer"]
    state = state_of(3, [
        {"hand": ["Bar"]},
        {"hand": ["Dock", "Market", "Crane"]},
        {"hand": ["Road"]},
    ], deck=deck)
    play(state, "lead Laborer with Bar", "think: refill")
    d = state.to_dict()
    assert state.current_player() == 2
    assert sorted(d["players"][1]["hand"]) == sorted(["Dock", "Market", "Crane",
                                                       "Temple", "Palace"])
    assert d["deck"] == ["Villa", "Garden", "Prison", "Sewer"]


def test_R_6_2_follow_only_the_led_role():
    state = state_of(2, [{"hand": ["Bar"]}, {"hand": ["Dock", "Temple", "Road"]}])
    play(state, "lead Laborer with Bar")
    follows = {s for s in legal(state) if s.startswith("follow")}
    assert follows == lower_set(["follow Laborer with Road"])


def test_R_6_3_action_order_and_number_of_actions():
    """Leader first, then clockwise; each player does all their actions in turn.
    A thinker's matching client acts; a non-matching client does not."""
    state = state_of(3, [
        {"hand": ["Bar"], "clientele": ["Market"]},          # Craftsman client: no action
        {"hand": ["Dock"], "clientele": ["Road"]},           # thinks, 1 Laborer client
        {"hand": ["Insula"], "clientele": ["Latrine", "Bar"]},  # follows: 1 + 2 actions
    ], pool=["Academy", "Basilica", "Garden", "Temple", "Villa"])
    play(state, "lead Laborer with Bar", "think: take Jack", "follow Laborer with Insula")
    assert state.current_player() == 0
    play(state, "laborer: take Academy from pool")
    assert state.current_player() == 1
    play(state, "laborer: take Basilica from pool")
    assert state.current_player() == 2
    play(state, "laborer: take Garden from pool")
    assert state.current_player() == 2
    play(state, "laborer: take Temple from pool")
    assert state.current_player() == 2
    play(state, "laborer: take Villa from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert state.current_player() == 1
    assert sorted(d["players"][0]["stockpile"]) == ["Academy"]
    assert sorted(d["players"][1]["stockpile"]) == ["Basilica"]
    assert sorted(d["players"][2]["stockpile"]) == ["Garden", "Temple", "Villa"]
    assert sorted(d["pool"]) == ["Bar", "Insula"]


def test_R_6_4_clients_hired_this_turn_do_not_act():
    """The leader hires a Patron client with their only Patron action: it does not
    give a second Patron action this turn."""
    state = state_of(2, [{"hand": ["Temple"]}, {"hand": ["Bar"]}],
                     pool=["Basilica", "Palace"])
    play(state, "lead Patron with Temple", "think: take Jack", "patron: hire Basilica from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert state.current_player() == 1
    assert sorted(d["players"][0]["clientele"]) == ["Basilica"]
    assert sorted(d["pool"]) == ["Palace", "Temple"]


def test_R_6_4_follower_hired_client_does_not_act_for_later_follower_either():
    """Player 0 hires a Patron client; player 1's step is unaffected and player 0
    gets no extra action."""
    state = state_of(2, [{"hand": ["Temple"]}, {"hand": ["Basilica"]}],
                     pool=["Palace", "Statue"])
    play(state, "lead Patron with Temple", "follow Patron with Basilica",
         "patron: hire Palace from pool")
    assert state.current_player() == 1
    play(state, "patron: hire Statue from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["players"][0]["clientele"]) == ["Palace"]
    assert sorted(d["players"][1]["clientele"]) == ["Statue"]
    assert sorted(d["pool"]) == ["Basilica", "Temple"]


def test_R_6_5_end_of_turn_camps_to_pool_and_jacks_to_pile():
    state = state_of(2, [{"hand": ["Jack", "Dock"]}, {"hand": ["Road"]}],
                     pool=["Bar"])
    assert state.to_dict()["jack_pile"] == 5
    play(state, "lead Laborer with Jack", "follow Laborer with Road",
         "laborer: take Bar from pool")
    d = state.to_dict()
    assert d["leader"] == 1
    assert d["jack_pile"] == 6
    assert sorted(d["pool"]) == ["Road"]
    assert d["players"][0]["camp"] == [] and d["players"][1]["camp"] == []
    assert sorted(d["players"][0]["hand"]) == ["Dock"]
    assert sorted(d["players"][0]["stockpile"]) == ["Bar"]


def test_R_6_5_e_leader_passes_clockwise_and_wraps():
    state = state_of(3, [{"hand": ["Bar"]}, {}, {"hand": ["Road"]}], leader=2)
    play(state, "think: take Jack")
    assert state.to_dict()["leader"] == 0
    assert state.current_player() == 0


def test_R_6_6_role_payments_single_card_and_jack():
    """Exact lead options for hand {Bar, Dock, Jack} (no petition possible)."""
    state = state_of(2, [{"hand": ["Bar", "Dock", "Jack"]}, {}])
    expected = ["lead Laborer with Bar", "lead Craftsman with Dock"]
    expected += [f"lead {r} with Jack" for r in ROLES]
    expected += ["think: take Jack", "think: refill"]
    assert legal(state) == lower_set(expected)


def test_R_6_6_follow_with_jack():
    state = state_of(2, [{"hand": ["Bar"]}, {"hand": ["Jack"]}])
    play(state, "lead Laborer with Bar")
    assert legal(state) == lower_set(["follow Laborer with Jack", "think: take Jack",
                                      "think: refill"])


def test_R_6_7_camp_cards_are_not_in_the_pool_during_the_turn():
    state = state_of(2, [{"hand": ["Bar"]}, {"hand": ["Insula"]}], pool=["Road"])
    play(state, "lead Laborer with Bar", "follow Laborer with Insula")
    assert legal(state) == lower_set(["laborer: take Road from pool", "laborer: skip"])
    play(state, "laborer: take Road from pool")
    # player 1's action: the pool is empty (Bar is still on the camp) -> auto-skipped
    d = state.to_dict()
    assert d["leader"] == 1
    assert sorted(d["pool"]) == ["Bar", "Insula"]
    assert d["players"][1]["stockpile"] == []


def test_R_6_8_every_action_may_be_declined():
    state = state_of(2, [{"hand": ["Temple"]}, {"hand": ["Bar"]}], pool=["Basilica"])
    play(state, "lead Patron with Temple", "think: take Jack")
    assert_legal(state, "patron: skip")
    play(state, "patron: skip")
    d = state.to_dict()
    assert d["players"][0]["clientele"] == []
    assert sorted(d["pool"]) == ["Basilica", "Temple"]
    assert d["leader"] == 1


def test_R_6_9_no_legal_payment_means_think():
    state = state_of(2, [{"hand": ["Bar"]}, {"hand": ["Dock", "Temple"]}])
    play(state, "lead Laborer with Bar")
    assert legal(state) == lower_set(["think: take Jack", "think: refill"])


def test_R_6_9_taking_a_jack_needs_a_non_empty_pile():
    # all six Jacks are in player 1's hand: the pile is empty
    state = state_of(2, [{"hand": ["Bar"]}, {"hand": ["Jack"] * 6}])
    assert state.to_dict()["jack_pile"] == 0
    assert_illegal(state, "think: take Jack")
    assert think_strings(state) == lower_set(["think: refill"])
