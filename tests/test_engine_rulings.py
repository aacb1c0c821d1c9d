"""Rulings found while reviewing the engine against RULES.md (not covered elsewhere)."""
import glory_ai
from glory_ai import State


def test_R_11_1_2_out_of_town_foundation_with_no_in_town_sites_left_does_not_end():
    """R-11.1(2): the game ends when a foundation *takes* the last in-town site; with
    every in-town stack already empty, an out-of-town foundation does not end it."""
    empty = {m: 0 for m in glory_ai.MATERIALS}
    state = State.from_dict({
        "num_players": 2,
        "players": [{"hand": ["Dock", "Bath"], "structures": [
            {"building": "Tower", "complete": True, "materials": ["Aqueduct", "Aqueduct"]}]},
            {"hand": ["Bar"]}],
        "sites": {"in_town": empty, "out_of_town": {"Rubble": 6, "Wood": 6, "Concrete": 5,
                                                     "Brick": 6, "Stone": 6, "Marble": 6}},
    })
    for text in ("lead Craftsman with Dock", "think: take Jack", "craftsman: lay Bath out of town"):
        state.apply_action_string(text)
    assert not state.is_terminal()
    assert state.to_dict()["sites"]["out_of_town"]["Brick"] == 5


def test_R_11_2_sewer_completing_forum_romanum_wins():
    """R-11.2 / R-14.5: the Forum check follows every change; a Sewer move that completes
    the stockpile of every material wins at once."""
    clients = ["Temple", "Bar", "Dock", "Tower", "Shrine", "Villa"]
    state = State.from_dict({
        "num_players": 2,
        "players": [{"hand": ["Palace"], "clientele": clients,
                     "stockpile": ["Road", "Market", "Wall", "Bath", "Garden"],
                     "structures": [
                         {"building": "Forum Romanum", "complete": True,
                          "materials": ["Statue", "Statue", "Statue"]},
                         {"building": "Sewer", "complete": True,
                          "materials": ["Catacomb", "Catacomb", "Catacomb"]}]},
                    {"hand": ["Insula"]}],
    })
    assert not state.is_terminal()
    state.apply_action_string("lead Patron with Palace")
    state.apply_action_string("think: take Jack")
    while state.phase() != "sewer":
        state.apply_action(state.legal_actions()[0] if state.phase() != "action" else 0)
    state.apply_action_string("sewer: move Palace to stockpile")
    assert state.is_terminal()
    assert state.end_reason() == "forum" and state.winners() == [0]
