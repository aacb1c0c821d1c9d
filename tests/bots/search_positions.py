"""Tiny positions whose best move is known, for the search tests, and the exhaustive
search that proves it.

Each position is built from a hand-written dict (docs/notation.md, "Positions") and the
action strings that bring it to the decision. ``forced_moves`` searches every line of
play to a small depth: the mover's own decisions are choices (one good move suffices),
every other player's are replies (all of them must fail to stop it); the result must hold
in the true state and in determinizations for the mover, since a bot only knows its
information set.
"""
from __future__ import annotations

from dataclasses import dataclass

import glory_ai
from support.positions import built, foundation, play, state_of


@dataclass(frozen=True)
class KnownPosition:
    name: str
    state: glory_ai.State
    #: the actions after which the mover wins by force (or, for a threat, does not lose
    #: by force), as proved by forced_moves
    best: frozenset[int]
    #: the mover's other legal actions: no forced win (for a threat: a forced loss)
    others: frozenset[int]


def _wins(state: glory_ai.State, player: int, plies: int) -> bool:
    """Whether `player` wins by force within `plies` decisions."""
    if state.is_terminal():
        return player in state.winners()
    if plies == 0:
        return False
    own = state.current_player() == player
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if _wins(child, player, plies - 1) == own:
            return own
    return not own


def _loses(state: glory_ai.State, player: int, plies: int) -> bool:
    """Whether the other players make `player` lose by force within `plies` decisions."""
    if state.is_terminal():
        return player not in state.winners()
    if plies == 0:
        return False
    own = state.current_player() == player
    for action in state.legal_actions():
        child = state.clone()
        child.apply_action(action)
        if _loses(child, player, plies - 1) != own:
            return not own
    return own


def forced_moves(state: glory_ai.State, plies: int, threat: bool = False,
                 worlds: int = 4) -> frozenset[int]:
    """The mover's actions after which it wins by force within `plies` decisions (with
    `threat`: after which it does not lose by force), the same in the true state and in
    `worlds` determinizations for the mover (asserted)."""
    mover = state.current_player()
    found = None
    for world in [state] + [state.determinize(mover, seed) for seed in range(worlds)]:
        moves = set()
        for action in world.legal_actions():
            child = world.clone()
            child.apply_action(action)
            if (not _loses(child, mover, plies - 1)) if threat else _wins(child, mover, plies - 1):
                moves.add(action)
        assert found is None or moves == found, "the forced moves depend on hidden cards"
        found = moves
    assert found is not None
    return frozenset(found)


def _known(name: str, state: glory_ai.State, plies: int, threat: bool = False) -> KnownPosition:
    best = forced_moves(state, plies, threat)
    others = frozenset(state.legal_actions()) - best
    assert best and others, name
    return KnownPosition(name, state, best, others)


def catacomb_now() -> KnownPosition:
    """2 players. P0 leads Architect; adding the Garden from the stockpile completes the
    Catacomb, which ends the game at once (R-11.1(3)) with P0 ahead, 8 VP to 7."""
    state = glory_ai.State.from_dict({
        "num_players": 2, "seed": 4,
        "players": [
            {"hand": ["Tower", "Bath", "Dock"], "stockpile": ["Garden", "Bath"],
             "influence": ["Stone", "Stone"],
             "structures": [{"building": "Catacomb", "materials": ["Villa", "Prison"]}]},
            {"hand": ["Dock", "Market", "Road"], "influence": ["Stone", "Concrete"]},
        ]})
    play(state, "lead Architect with Tower", "think: take Jack")
    return _known("catacomb now", state, plies=1)


def catacomb_this_turn() -> KnownPosition:
    """3 players, P0 to lead. Leading Architect and then adding the Garden from the
    stockpile to the Catacomb ends the game with P0 ahead, 8 VP to 7 and 7; the followers
    act after P0, so nothing they do stops it. Two own decisions, with the others' answers
    in between."""
    state = state_of(3, [
        {"hand": ["Tower", "Bath", "Dock", "Road"], "stockpile": ["Garden"],
         "influence": ["Stone"],
         "structures": [foundation("Catacomb", ["Villa", "Prison"])]},
        {"hand": ["Market", "Latrine", "Shrine"], "influence": ["Stone", "Concrete"]},
        {"hand": ["Atrium", "Insula"], "influence": ["Concrete", "Brick", "Rubble"]},
    ])
    return _known("catacomb this turn", state, plies=4)


def forum_romanum_this_turn() -> KnownPosition:
    """4 players, P0 to lead (Republic). P0's Forum Romanum and clients cover every role
    and its stockpile holds every material but Marble; the pool holds a Temple (Marble).
    Leading Laborer and taking the Temple wins at once (R-11.2), though P0 is behind on VP."""
    state = state_of(4, [
        {"hand": ["Road", "Dock", "Shrine"],
         "clientele": ["Palace", "Bar", "Market", "Tower", "Bath", "Villa"],
         "stockpile": ["Latrine", "Crane", "Wall", "School", "Garden"],
         "structures": [built("Forum Romanum", ["Statue", "Statue", "Stairway"]),
                        built("Insula", ["Insula"])]},
        {"hand": ["Aqueduct", "Atrium"], "influence": ["Marble", "Marble", "Stone"]},
        {"hand": ["Academy", "Scriptorium"], "influence": ["Marble", "Stone"]},
        {"hand": ["Amphitheatre", "Foundry"], "influence": ["Marble", "Stone"]},
    ], pool=["Temple", "Palisade"])
    return _known("forum romanum this turn", state, plies=6)


def stop_the_forum() -> KnownPosition:
    """2 players. P0 led Laborer and P1 followed; P1's Forum Romanum and clients cover every
    role and its stockpile lacks only Marble. P0 acts first: unless it takes the Temple
    (the only Marble card left in play), P1 takes it and wins at once (R-11.2). Once the
    Temple is safe, P0 is far ahead (11 VP to 6) with five cards left in the deck."""
    state = state_of(2, [
        {"hand": ["Road", "Dock", "Shrine"], "influence": ["Marble", "Marble", "Stone"]},
        {"hand": ["Jack", "Atrium"],
         "clientele": ["Palace", "Bar", "Market", "Tower", "Bath", "Villa"],
         "stockpile": ["Latrine", "Crane", "Wall", "School", "Garden"],
         "structures": [built("Forum Romanum", ["Statue", "Statue", "Stairway"]),
                        built("Insula", ["Insula"])]},
    ], pool=["Temple", "Palisade", "Foundry"], deck=["Road", "Bar", "Dock", "Crane", "Sewer"])
    play(state, "lead Laborer with Road", "follow Laborer with Jack")
    return _known("stop the forum", state, plies=3, threat=True)


def all_known() -> list[KnownPosition]:
    return [catacomb_now(), catacomb_this_turn(), forum_romanum_this_turn(), stop_the_forum()]
