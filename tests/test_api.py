"""The Python face: construction, errors on bad input, notation, pickling."""
import copy
import json
import pickle

import pytest

import glory_ai
from glory_ai import Game, State


def test_game_defaults_and_variants():
    game = Game(3)
    assert game.num_players() == 3 and game.mode() == "republic"
    assert game.config().petition_size == 2
    assert Game(2, mode="Imperium").mode() == "imperium"
    assert game.num_distinct_actions() == glory_ai.NUM_DISTINCT_ACTIONS


@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": 1}, "num_players"),
    ({"num_players": 6}, "num_players"),
    ({"num_players": 3, "mode": "empire"}, "mode"),
    ({"num_players": 3, "petition_size": 4}, "petition_size"),
    ({"num_players": 3, "hand_size": 6}, "unknown variant option"),
    ({"num_players": 3, "copies": {"Tempel": 2}}, "unknown card name"),
    ({"num_players": 3, "removed": ["Nothing"]}, "unknown card name"),
    ({"num_players": 3, "in_town_sites": 7}, "in_town_sites"),
])
def test_bad_game_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Game(**kwargs)


def test_deck_composition_variants():
    game = Game(2, removed=["Catacomb"], copies={"Temple": 5})
    state = game.new_initial_state(1)
    d = state.to_dict()
    everywhere = d["deck"] + d["pool"] + [c for p in d["players"] for c in p["hand"]]
    assert "Catacomb" not in everywhere
    assert everywhere.count("Temple") == 5
    assert len(everywhere) == 144 - 3 + 2
    state._check_invariants()
    assert state.random_playout(1) > 0


def test_in_town_sites_variant():
    state = Game(2, in_town_sites=3).new_initial_state(0)
    d = state.to_dict()
    assert d["sites"]["in_town"] == {m: 3 for m in glory_ai.MATERIALS}
    assert d["sites"]["out_of_town"] == {m: 3 for m in glory_ai.MATERIALS}


def test_illegal_action_raises_and_leaves_state_unchanged():
    state = Game(2).new_initial_state(5)
    before = state._raw_bytes()
    illegal = next(a for a in range(glory_ai.NUM_DISTINCT_ACTIONS) if a not in state.legal_actions())
    with pytest.raises(ValueError, match="illegal action"):
        state.apply_action(illegal)
    with pytest.raises(ValueError):
        state.apply_action(-1)
    with pytest.raises(ValueError):
        state.apply_action(10**9)
    with pytest.raises(TypeError, match="integer"):
        state.apply_action("think: take Jack")
    with pytest.raises(ValueError, match="not a legal action"):
        state.string_to_action("architect: lay Nothing")
    assert state._raw_bytes() == before


def test_no_action_after_the_end():
    state = Game(2).new_initial_state(5)
    state.random_playout(1)
    with pytest.raises(ValueError, match="over"):
        state.apply_action(0)


def test_illegal_and_unparsable_actions_are_told_apart():
    state = Game(2).new_initial_state(5)
    before = state._raw_bytes()
    legal = set(state.legal_actions())
    illegal = next(a for a in range(glory_ai.NUM_DISTINCT_ACTIONS) if a not in legal)
    # an id of the action space that is not legal here
    with pytest.raises(glory_ai.IllegalActionError, match=f"illegal action {illegal} "):
        state.apply_action(illegal)
    # an integer outside the action space is no action at all: a plain ValueError
    for outside in (-1, glory_ai.NUM_DISTINCT_ACTIONS):
        with pytest.raises(ValueError, match="illegal action") as caught:
            state.apply_action(outside)
        assert type(caught.value) is ValueError
    # a string of the grammar that is not legal here (the same message as before)
    absent = next(name for name in glory_ai.CARD_NAMES[1:] if name not in state.zone("pool"))
    for text in (f"patron: hire {absent} from pool", "senate: take Jacks", "stairway: skip",
                 "LEGIONARY:   use Domus Aurea on P1", "give structure Forum Romanum"):
        with pytest.raises(glory_ai.IllegalActionError, match="is not a legal action here; legal: "):
            state.string_to_action(text)
    # texts that are no action string: a misspelt card, a made-up verb, a seat out of range
    for text in ("patron: hire Tempel from pool", "lead Laborer wiht Jack", "hello",
                 "prison: take Temple from P5", "", "legionary: use Temple on"):
        with pytest.raises(glory_ai.ActionParseError, match="is not a legal action here; legal: "):
            state.string_to_action(text)
        with pytest.raises(glory_ai.ActionParseError):
            state.apply_action_string(text)
    assert state._raw_bytes() == before
    # both are ValueErrors, so code written for ValueError keeps working
    assert issubclass(glory_ai.IllegalActionError, ValueError)
    assert issubclass(glory_ai.ActionParseError, ValueError)
    assert not issubclass(glory_ai.IllegalActionError, glory_ai.ActionParseError)
    state.random_playout(1)
    with pytest.raises(glory_ai.IllegalActionError, match="the game is over"):
        state.apply_action(0)
    with pytest.raises(glory_ai.IllegalActionError):
        state.apply_action_string("think: take Jack")


def _states_in_every_phase():
    """The first state of each decision phase met in seeded builder-biased games (both modes,
    2 to 5 players), so that the building functions' decisions come up."""
    found = {}
    wanted = set(glory_ai.Phase) - {glory_ai.Phase.OVER}
    for seed in range(1000):
        state = Game(2 + seed % 4, "imperium" if seed % 2 else "republic").new_initial_state(seed)
        while not state.is_terminal() and found.keys() < wanted:
            found.setdefault(state.phase(), state.clone())
            state._stress(seed * 7919 + state.decisions(), builder=True, stop_after=1)
        if found.keys() >= wanted:
            return list(found.values())
    raise AssertionError(f"phases never met: {wanted - found.keys()}")


def test_every_string_the_engine_writes_is_in_the_grammar():
    # action_to_string of every id (legal or not) in states of every phase: the recognizer
    # must accept them all, or a mistyped-looking but real string would read as unparsable
    from glory_ai.core.grammar import is_action_string
    finished = Game(4).new_initial_state(3)
    finished.random_playout(3)
    for state in [*_states_in_every_phase(), finished]:
        for action in range(glory_ai.NUM_DISTINCT_ACTIONS):
            text = state.action_to_string(action)
            assert is_action_string(text), (state.phase(), action, text)
        for text in state.legal_action_strings():
            assert is_action_string(" " + text.upper() + " ")


def test_end_reasons_and_phases_are_string_enums():
    from glory_ai import EndReason, Phase
    state = Game(3).new_initial_state(2)
    assert state.phase() is Phase.LEAD and state.phase() == "lead"
    assert state.end_reason() is None
    state.random_playout(1)
    reason = state.end_reason()
    assert isinstance(reason, EndReason) and state.phase() is Phase.OVER
    # records and positions carry the plain string, byte for byte
    orjson = pytest.importorskip("orjson")
    record = {"end_reason": reason, "phase": state.phase()}
    plain = {"end_reason": reason.value, "phase": "over"}
    assert orjson.dumps(record) == orjson.dumps(plain)
    assert json.dumps(record) == json.dumps(plain)
    assert f"{reason}" == str(reason) == reason.value
    assert pickle.loads(pickle.dumps(reason)) is reason
    turn = state.to_dict()["turn"]
    assert type(turn["end_reason"]) is str and type(turn["phase"]) is str
    assert [r.value for r in EndReason] == ["deck", "sites", "catacomb", "forum", "concession"]
    # the engine's phase table and the enum agree (the engine checks it at import too)
    from glory_ai.core import engine
    assert list(engine.PHASE_NAMES.values()) == list(Phase)


def test_numpy_integers_are_accepted():
    np = pytest.importorskip("numpy")
    state = Game(2).new_initial_state(5)
    state.apply_action(np.int64(state.legal_actions()[0]))


@pytest.mark.parametrize("position, message", [
    ([], "a position is a dict"),
    ({"players": [{}, {}]}, "num_players: missing"),
    ({"num_players": 2}, "players"),
    ({"num_players": 2, "players": [{}, {}, {}]}, "players"),
    ({"num_players": 2, "players": [{"hand": ["Tempel"]}, {}]},
     r"players\[0\]\.hand\[0\]: unknown card name"),
    ({"num_players": 2, "players": [{"hand": "Temple"}, {}]}, r"players\[0\]\.hand: expected a list"),
    ({"num_players": 2, "players": [{"stockpile": ["Jack"]}, {}]}, "a Jack cannot be in stockpile"),
    ({"num_players": 2, "players": [{"hand": ["Temple"] * 4}, {}]}, "Temple: 4 copies placed"),
    ({"num_players": 2, "players": [{"hand": ["Circus"]}, {}]}, "not in the deck of this mode"),
    ({"num_players": 2, "players": [{"hand": ["Jack"] * 7}, {}]}, "7 Jacks"),
    ({"num_players": 2, "players": [{"colour": "red"}, {}]}, r"players\[0\]: unknown field"),
    ({"num_players": 2, "players": [{}, {}], "pool": ["Bar"], "extra": 1}, "unknown field"),
    ({"num_players": 2,
      "players": [{"structures": [{"building": "Temple", "materials": ["Palace"] * 3}]}, {}]},
     "materials"),
    ({"num_players": 2, "players": [{"structures": [{"building": "Temple", "site": "Wood"}]}, {}]}, "site"),
    ({"num_players": 2, "players": [{"structures": [{"building": "Temple"}, {"building": "Temple"}]}, {}]},
     "already owns"),
    ({"num_players": 2, "players": [{"influence": ["Gold"]}, {}]}, "unknown material"),
    ({"num_players": 2, "players": [{}, {}], "sites": {"in_town": {"Marble": 9}}}, "sites"),
    ({"num_players": 2, "players": [{}, {}], "leader": 2}, "leader"),
    ({"num_players": 2, "players": [{}, {}], "deck": []}, "deck"),
    ({"num_players": 2, "players": [{}, {}], "turn": {"phase": 0}}, "turn"),
    ({"num_players": 2, "players": [{}, {}], "jack_pile": 9}, "jack_pile"),
    ({"num_players": 2, "players": [{}, {}], "variant": {"petition_size": 5}}, "petition_size"),
])
def test_malformed_positions_are_refused_with_the_field_named(position, message):
    with pytest.raises(ValueError, match=message):
        State.from_dict(position)


def test_hand_written_position_defaults():
    state = State.from_dict({"num_players": 2, "players": [{"hand": ["Temple", "Jack"]}, {}],
                             "pool": ["Bar"], "seed": 3})
    d = state.to_dict()
    assert state.current_player() == 0 and state.phase() == "lead"
    assert d["jack_pile"] == 5
    assert d["players"][0]["known_hand"] == ["Jack"]
    assert len(d["deck"]) == 144 - 2
    assert d["sites"]["in_town"]["Marble"] == 2
    state._check_invariants()
    # with no deck listed, the unplaced cards are shuffled from the seed
    again = State.from_dict({"num_players": 2, "players": [{"hand": ["Temple", "Jack"]}, {}],
                             "pool": ["Bar"], "seed": 3})
    other = State.from_dict({"num_players": 2, "players": [{"hand": ["Temple", "Jack"]}, {}],
                             "pool": ["Bar"], "seed": 4})
    assert again.to_dict()["deck"] == d["deck"] != other.to_dict()["deck"]


def test_listed_deck_is_the_whole_deck():
    state = State.from_dict({"num_players": 2, "players": [{}, {}], "deck": ["Temple", "Bar"]})
    d = state.to_dict()
    assert d["deck"] == ["Temple", "Bar"]
    assert len(d["out_of_play"]) == 144 - 2
    state._check_invariants()


def test_structures_and_influence_in_positions():
    state = State.from_dict({"num_players": 2, "players": [
        {"structures": [{"building": "Temple", "complete": True, "materials": ["Palace"] * 3},
                        {"building": "Statue", "site": "Rubble"}]}, {}]})
    d = state.to_dict()
    assert d["players"][0]["influence"] == ["Marble"]
    assert state.influence(0) == 5
    assert state.refill_size(0) == 9          # Temple
    assert d["sites"]["in_town"]["Rubble"] == 1
    assert d["players"][0]["structures"][1]["site"] == "Rubble"


def test_pickle_and_copy_round_trip():
    state = Game(4).new_initial_state(9)
    state.random_playout(2, max_decisions=50)
    for other in (pickle.loads(pickle.dumps(state)), copy.copy(state), copy.deepcopy(state)):
        assert other._raw_bytes() == state._raw_bytes()
        assert other.to_dict() == state.to_dict()


def test_str_and_repr_are_readable():
    state = Game(3).new_initial_state(2)
    text = str(state)
    assert "P0" in text and "pool" in text and "lead" in text
    assert "glory_ai.State" in repr(state)
    state.random_playout(1)
    assert "GAME OVER" in str(state)


def test_to_dict_is_json_safe():
    state = Game(5, mode="imperium").new_initial_state(8)
    state.random_playout(3, max_decisions=120)
    json.dumps(state.to_dict())


def test_concession_ends_the_game_when_one_player_remains():
    state = Game(3).new_initial_state(4)
    state.concede(1)
    assert not state.is_terminal()
    assert state.current_player() != 1
    state.concede(state.current_player())
    assert state.is_terminal()
    assert state.end_reason() == "concession"
    assert len(state.winners()) == 1 and state.winners()[0] != 1
    assert state.returns()[state.winners()[0]] == 1.0


def test_conceded_player_is_skipped_for_the_rest_of_the_game():
    state = Game(3).new_initial_state(6)
    state.concede(2)
    seen = set()
    import random
    rng = random.Random(0)
    while not state.is_terminal():
        seen.add(state.current_player())
        state.apply_action(rng.choice(state.legal_actions()))
    assert 2 not in seen
    assert 2 not in state.winners()
    state._check_invariants()


def test_corrupted_turn_fields_are_refused_or_consistent():
    """A malformed state file never crashes the interpreter: turn fields out of range, or
    not fitting the position, are refused with ValueError; what loads still plays."""
    import random
    rng = random.Random(0)
    refused = 0
    for seed in range(400):
        state = Game(rng.choice([2, 3, 4, 5])).new_initial_state(seed)
        state.random_playout(seed, max_decisions=rng.randrange(1, 300))
        d = state.to_dict()
        key = rng.choice([k for k in d["turn"] if k != "phase_name"])
        value = d["turn"][key]
        if isinstance(value, list):
            d["turn"][key] = [rng.randrange(0, 300) for _ in value]
        else:
            d["turn"][key] = rng.choice([0, 1, 2, 5, 7, 9, 11, 31, 255, 256, -1, "x", None, True])
        try:
            loaded = State.from_dict(d)
        except ValueError as exc:
            assert str(exc).startswith("turn")
            refused += 1
            continue
        if not loaded.is_terminal():
            assert loaded.legal_actions()
            loaded.random_playout(seed)
    assert refused > 100


def test_turn_field_errors_name_the_field():
    d = Game(3).new_initial_state(1).to_dict()
    d["turn"]["actor"] = 4
    with pytest.raises(ValueError, match="turn.actor"):
        State.from_dict(d)
    d = Game(3).new_initial_state(1).to_dict()
    d["turn"]["phase"] = 99
    with pytest.raises(ValueError, match="turn"):
        State.from_dict(d)
    d = Game(3).new_initial_state(1).to_dict()
    d["turn"]["legionary"]["demand"] = ["Brick", "Gold"]
    with pytest.raises(ValueError, match=r"turn.legionary.demand\[1\]"):
        State.from_dict(d)
    d = Game(3).new_initial_state(1).to_dict()
    d["turn"]["queue"]["front"] = [{"kind": "grant", "role": "Craftsman"}]
    with pytest.raises(ValueError, match=r"turn.queue.front\[0\]"):
        State.from_dict(d)
    d = Game(3).new_initial_state(1).to_dict()
    d["turn"]["lead_role"] = "Patron"
    with pytest.raises(ValueError, match="unknown field.*lead_role"):
        State.from_dict(d)


def test_a_conceding_follower_does_not_think():
    # Pinned bug: a follower's concession was settled by its first legal action, a think,
    # which drew the deck's last card and ended the game for the others (R-11.1(1)).
    state = State.from_dict({
        "num_players": 3, "jack_pile": 0, "deck": ["Shrine"],
        "players": [{"hand": ["Road", "Bath"]}, {"hand": ["Dock"]}, {"hand": ["Insula"]}],
    })
    state.apply_action(state.string_to_action("lead Laborer with Road"))
    assert state.current_player() == 1
    state.concede(1)
    assert not state.is_terminal()
    assert state.current_player() == 2 and state.phase() == "follow"
    assert state.to_dict()["deck"] == ["Shrine"]
    assert state.to_dict()["players"][1]["hand"] == ["Dock"]
    state.apply_action(state.string_to_action("follow Laborer with Insula"))
    # the pool is empty, so both Laborer actions have nothing to take; P1 is skipped as leader
    assert state.phase() == "lead" and state.current_player() == 2
    assert state.to_dict()["deck"] == ["Shrine"]


@pytest.mark.parametrize("num_players, concessions", [(3, 1), (3, 2), (2, 1)])
def test_positions_after_concessions_round_trip(num_players, concessions):
    state = Game(num_players).new_initial_state(9)
    state.random_playout(9, max_decisions=15)
    for _ in range(concessions):
        state.concede(state.current_player())
    assert state.is_terminal() == (num_players - concessions == 1)
    loaded = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert loaded._raw_bytes() == state._raw_bytes()
