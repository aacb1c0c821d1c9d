"""End of the game: R-11.1 (deck, sites, Catacomb) and R-11.2 (Forum, Forum Romanum);
scenarios S10 (a, d) and S11 (the game-end part; scores in test_scoring.py)."""

import glory_ai
from support.cards import MATERIALS
from support.positions import built, foundation, play, state_of, structure, zone


def test_R_11_1_game_not_over_at_start():
    state = glory_ai.Game(3).new_initial_state(seed=5)
    assert not state.is_terminal()
    assert state.end_reason() is None
    assert state.winners() == []
    assert state.current_player() != glory_ai.TERMINAL


# --------------------------------------------------------------------------- deck


def test_R_11_1_1_deck_runs_out_during_a_refill():
    """Hand 2, deck 2: refill draws both (hand 4) and the game ends."""
    state = state_of(2, [{"hand": ["Bar", "Dock"]}, {"hand": ["Road"] * 5}],
                     deck=["Temple", "Villa"])
    play(state, "think: refill")
    assert state.is_terminal()
    assert state.end_reason() == "deck"
    assert state.current_player() == glory_ai.TERMINAL
    d = state.to_dict()
    assert sorted(d["players"][0]["hand"]) == ["Bar", "Dock", "Temple", "Villa"]
    assert d["deck"] == []
    # 2 VP each; player 1 holds 5 cards, player 0 4 -> player 1 wins
    assert state.scores() == [2, 2]
    assert state.winners() == [1]


def test_R_11_1_1_taking_a_jack_does_not_draw():
    state = state_of(2, [{"hand": ["Bar"]}, {}], deck=["Temple"])
    play(state, "think: take Jack")
    assert not state.is_terminal()
    assert state.to_dict()["deck"] == ["Temple"]


# --------------------------------------------------------------------------- sites


def test_R_11_1_2_architect_foundation_on_the_last_in_town_site():
    stacks = {"in_town": {m: 0 for m in MATERIALS}}
    stacks["in_town"]["Marble"] = 1
    state = state_of(2, [
        {"hand": ["Tower", "Temple"], "clientele": ["Wall"], "stockpile": ["Road"],
         "structures": [foundation("Insula")]},
        # the other in-town sites (2 per material, 2 players) are in player 1's influence
        {"hand": ["Aqueduct", "Palace"],
         "influence": ["Rubble", "Wood", "Wood", "Concrete", "Concrete", "Brick", "Brick",
                     "Stone", "Stone", "Marble"]},
    ], sites=stacks)
    play(state, "lead Architect with Tower", "follow Architect with Aqueduct",
         "architect: lay Temple")
    assert state.is_terminal()
    assert state.end_reason() == "sites"
    assert structure(state, 0, "Temple") is not None
    # nothing else happens: player 0's second action and player 1's action are lost
    assert structure(state, 0, "Insula")["materials"] == []
    assert zone(state, 1, "hand") == ["Palace"]
    assert zone(state, 0, "camp") == ["Tower"]
    assert winners_are_scored(state)


def winners_are_scored(state):
    scores = state.scores()
    best = max(scores)
    return set(state.winners()) <= {p for p, s in enumerate(scores) if s == best}


def test_R_11_1_2_last_site_of_one_material_does_not_end_the_game():
    state = state_of(2, [{"hand": ["Tower", "Temple"]},
                         {"hand": ["Bar"], "structures": [foundation("Palace")]}],
                     sites={"in_town": {"Marble": 1}})
    play(state, "lead Architect with Tower", "think: take Jack", "architect: lay Temple")
    assert not state.is_terminal()
    assert state.to_dict()["sites"]["in_town"]["Marble"] == 0
    assert state.to_dict()["leader"] == 1


# --------------------------------------------------------------------------- Catacomb


def s11_state():
    return state_of(3, [
        {"hand": ["Dock", "Garden"], "vault": ["Villa"], "clientele": ["Market"],
         "structures": [built("Archway", ["Bath", "Bath"]),
                      foundation("Catacomb", ["Prison", "Sewer"])]},
        {"hand": ["Bar"], "influence": ["Marble", "Stone"]},
        {"hand": ["Road"], "vault": ["Scriptorium", "Bar"]},
    ])


def test_S11_R_11_1_3_catacomb_completion_ends_the_game_at_once():
    state = s11_state()
    assert state.influence(0) == 4
    play(state, "lead Craftsman with Dock", "think: take Jack", "think: take Jack",
         "craftsman: add Garden to Catacomb")
    assert state.is_terminal()
    assert state.end_reason() == "catacomb"
    assert structure(state, 0, "Catacomb")["complete"] is True
    assert state.influence(0) == 7
    # end-of-turn steps are skipped: Dock stays on the camp
    assert zone(state, 0, "camp") == ["Dock"]
    assert "Dock" not in state.to_dict()["pool"]
    assert state.scores() == [10, 8, 9]
    assert state.winners() == [0]


# --------------------------------------------------------------------------- Forum


def s10a_state(clients=("Temple", "Bar", "Dock", "Tower", "Shrine")):
    return state_of(2, [
        {"hand": ["Basilica"], "clientele": list(clients),
         "structures": [built("Forum", ["Fountain", "Stairway", "Stairway"]),
                      built("Insula", ["Latrine"])]},
        {"hand": ["Statue"], "vault": ["Palace", "Palace", "Palace"],
         "influence": ["Marble", "Marble"]},
    ], leader=1, mode="imperium", pool=["Villa", "Road"])


def test_S10_a_R_11_2_forum_win_is_immediate():
    state = s10a_state()
    assert state.influence(0) == 6
    assert state.clientele_limit(0) == 8
    assert not state.is_terminal()
    play(state, "lead Patron with Statue", "follow Patron with Basilica",
         "patron: hire Road from pool")
    assert state.current_player() == 0
    play(state, "patron: hire Villa from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    # player 1 has more VP; the Forum win needs no scoring
    assert state.scores()[1] > state.scores()[0]
    assert state.winners() == [0]
    assert sorted(zone(state, 0, "clientele")) == ["Bar", "Dock", "Shrine", "Temple",
                                                   "Tower", "Villa"]


def test_S10_a_R_11_2_forum_needs_every_role():
    """Hiring a second Patron instead of a Merchant does not win."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine"],
         "structures": [built("Forum", ["Fountain", "Stairway", "Stairway"]),
                      built("Insula", ["Latrine"])]},
        {"hand": ["Statue"]},
    ], leader=1, mode="imperium", pool=["Palace"])
    play(state, "lead Patron with Statue", "follow Patron with Basilica",
         "patron: skip", "patron: hire Palace from pool")
    assert not state.is_terminal()


def s10d_state(clients):
    return state_of(2, [
        {"hand": ["Jack"], "clientele": list(clients),
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa"],
         "structures": [built("Forum Romanum", ["Palace", "Palace", "Statue"]),
                      built("Insula", ["Latrine"])]},
        {"hand": ["Dock"]},
    ], pool=["Temple", "Road"])


def test_S10_d_R_11_2_forum_romanum_win_needs_clients_and_stockpile():
    state = s10d_state(["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"])
    assert not state.is_terminal()   # six roles, but no Marble in the stockpile
    play(state, "lead Laborer with Jack", "think: take Jack",
         "laborer: take Temple from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]
    # the Bar client's Laborer action is not performed
    assert state.to_dict()["pool"] == ["Road"]


def test_S10_d_R_11_2_forum_romanum_five_clients_do_not_win():
    state = s10d_state(["Temple", "Bar", "Dock", "Tower", "Shrine"])
    play(state, "lead Laborer with Jack", "think: take Jack",
         "laborer: take Temple from pool")
    assert not state.is_terminal()
    assert state.end_reason() is None
    play(state, "laborer: take Road from pool")
    assert not state.is_terminal()
    assert state.to_dict()["leader"] == 1


def test_R_11_2_forum_romanum_win_by_a_patron_hire():
    """Stockpile already holds all six materials; hiring the sixth role wins."""
    state = state_of(2, [
        {"hand": ["Basilica"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine"],
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa", "Temple"],
         "structures": [built("Forum Romanum", ["Palace", "Palace", "Statue"]),
                      built("Insula", ["Latrine"])]},
        {"hand": ["Road"]},
    ], pool=["Garden", "Stairway"])
    assert not state.is_terminal()
    play(state, "lead Patron with Basilica", "think: take Jack",
         "patron: hire Garden from pool")
    assert state.is_terminal()
    assert state.end_reason() == "forum"
    assert state.winners() == [0]
    assert state.to_dict()["pool"] == ["Stairway"]   # the Temple client's hire is lost


def test_R_11_2_incomplete_forum_romanum_does_not_win():
    """The function is not active before completion (no Gate)."""
    state = state_of(2, [
        {"hand": ["Jack"], "clientele": ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"],
         "stockpile": ["Bar", "Dock", "Tower", "Shrine", "Villa"],
         "structures": [foundation("Forum Romanum", ["Palace", "Palace"]),
                      built("Insula", ["Latrine"])]},
        {"hand": ["Dock"]},
    ], pool=["Temple", "Road"])
    play(state, "lead Laborer with Jack", "think: take Jack",
         "laborer: take Temple from pool")
    assert not state.is_terminal()
    assert state.end_reason() is None
