"""Shared helpers for the rules scenario tests (tests/rules).

These tests are written from ../shared/RULES.md and docs/notation.md only; they never
look at the engine's code.  Positions are plain dicts in the format of notation.md
("Positions"), built with :func:`position` and turned into a state with
``glory_ai.State.from_dict``.

The card table below is copied from cards.csv (name -> material, copies, mode) so that
every position built here is checked for impossible card counts *before* it reaches the
engine: a failure of that check is a bug in the test, not in the engine.
"""

from __future__ import annotations

import collections
from typing import Iterable


# name: (material, copies, mode) -- mode B = both, R = Republic only, I = Imperium only
CARDS = {
    "Academy": ("Brick", 3, "B"),
    "Amphitheatre": ("Concrete", 3, "B"),
    "Aqueduct": ("Concrete", 3, "B"),
    "Archway": ("Brick", 3, "B"),
    "Atrium": ("Brick", 3, "B"),
    "Bar": ("Rubble", 6, "B"),
    "Basilica": ("Marble", 3, "B"),
    "Bath": ("Brick", 3, "B"),
    "Bridge": ("Concrete", 3, "B"),
    "Catacomb": ("Stone", 3, "B"),
    "Circus": ("Wood", 6, "I"),
    "Circus Maximus": ("Stone", 3, "B"),
    "Colosseum": ("Stone", 3, "I"),
    "Crane": ("Wood", 6, "R"),
    "Dock": ("Wood", 6, "B"),
    "Domus Aurea": ("Stone", 3, "R"),
    "Forum": ("Marble", 3, "I"),
    "Forum Romanum": ("Marble", 3, "R"),
    "Foundry": ("Brick", 3, "B"),
    "Fountain": ("Marble", 3, "B"),
    "Garden": ("Stone", 3, "B"),
    "Gate": ("Brick", 3, "B"),
    "Insula": ("Rubble", 6, "B"),
    "Latrine": ("Rubble", 6, "B"),
    "Ludus Magnus": ("Marble", 3, "B"),
    "Market": ("Wood", 6, "B"),
    "Palace": ("Marble", 3, "B"),
    "Palisade": ("Wood", 6, "B"),
    "Prison": ("Stone", 3, "B"),
    "Road": ("Rubble", 6, "B"),
    "School": ("Brick", 3, "B"),
    "Scriptorium": ("Stone", 3, "B"),
    "Senate": ("Concrete", 3, "I"),
    "Sewer": ("Stone", 3, "B"),
    "Shrine": ("Brick", 3, "B"),
    "Stairway": ("Marble", 3, "B"),
    "Statue": ("Marble", 3, "B"),
    "Storeroom": ("Concrete", 3, "B"),
    "Temple": ("Marble", 3, "B"),
    "Tower": ("Concrete", 3, "B"),
    "Tribunal": ("Concrete", 3, "R"),
    "Villa": ("Stone", 3, "B"),
    "Vomitorium": ("Concrete", 3, "B"),
    "Wall": ("Concrete", 3, "B"),
}

MATERIALS = ("Rubble", "Wood", "Concrete", "Brick", "Stone", "Marble")
VALUE = {"Rubble": 1, "Wood": 1, "Concrete": 2, "Brick": 2, "Stone": 3, "Marble": 3}
ROLE_OF_MATERIAL = {
    "Rubble": "Laborer",
    "Wood": "Craftsman",
    "Concrete": "Architect",
    "Brick": "Legionary",
    "Stone": "Merchant",
    "Marble": "Patron",
}
ROLES = ("Patron", "Laborer", "Architect", "Craftsman", "Legionary", "Merchant")

PLAYER_ZONES = ("hand", "camp", "stockpile", "vault", "clientele")


def material(card: str) -> str:
    return CARDS[card][0]


def role(card: str) -> str:
    return ROLE_OF_MATERIAL[material(card)]


def value(card: str) -> int:
    return VALUE[material(card)]


def mode_cards(mode: str = "republic") -> collections.Counter:
    """The 144 Order cards of a mode (R-3.2) as a Counter name -> copies."""
    excluded = "I" if mode == "republic" else "R"
    return collections.Counter(
        {name: copies for name, (_m, copies, tag) in CARDS.items() if tag != excluded}
    )


# ---------------------------------------------------------------------------------------
# Building positions


def built(building: str, materials: Iterable[str], site: str | None = None,
          out_of_town: bool = False) -> dict:
    """A completed structure."""
    return {"building": building, "site": site or material(building),
            "out_of_town": out_of_town, "materials": list(materials), "complete": True}


def foundation(building: str, materials: Iterable[str] = (), site: str | None = None,
               out_of_town: bool = False) -> dict:
    """An incomplete structure."""
    return {"building": building, "site": site or material(building),
            "out_of_town": out_of_town, "materials": list(materials), "complete": False}


def placed_cards(d: dict) -> collections.Counter:
    """Every card name placed somewhere in a position dict (Jacks included)."""
    c = collections.Counter()
    c.update(d.get("pool", []))
    c.update(d.get("deck", []))
    for p in d["players"]:
        for zone in PLAYER_ZONES:
            c.update(p.get(zone, []))
        for s in p.get("structures", []):
            c[s["building"]] += 1
            c.update(s.get("materials", []))
            if s.get("stairway"):
                c[s["stairway"]] += 1
    return c


def check_position(d: dict) -> None:
    """Assert the hand-written position is possible (test-side sanity check)."""
    mode = d.get("mode", "republic")
    allowed = mode_cards(mode)
    counts = placed_cards(d)
    jacks = counts.pop("Jack", 0)
    if "jack_pile" in d:
        jacks += d["jack_pile"]
    assert jacks <= 6, f"test bug: {jacks} Jacks placed"
    for name, n in counts.items():
        assert name in CARDS, f"test bug: unknown card {name!r}"
        assert n <= allowed[name], (
            f"test bug: {n} copies of {name} placed, {mode} mode has {allowed[name]}")
    assert len(d["players"]) == d["num_players"]


def position(num_players: int = 2, players: list | None = None, leader: int = 0,
             mode: str = "republic", **extra) -> dict:
    """A position dict (notation.md) with defaults; missing players are empty."""
    players = [dict(p) for p in (players or [])]
    players += [{} for _ in range(num_players - len(players))]
    d = {"num_players": num_players, "mode": mode, "leader": leader, "players": players}
    d.update(extra)
    check_position(d)
    return d


def deck_with(d: dict, top: Iterable[str] = (), size: int | None = None) -> list:
    """A deck list for position ``d``: ``top`` first, then (up to ``size`` cards in all)
    cards not yet placed in ``d``, in a fixed order."""
    top = list(top)
    free = mode_cards(d.get("mode", "republic"))
    placed = placed_cards(d)
    placed.pop("Jack", None)
    free.subtract(placed)
    free.subtract(top)
    assert all(v >= 0 for v in free.values()), "test bug: deck top over-uses a card"
    rest = [name for name in sorted(free) for _ in range(free[name])]
    deck = top + rest
    if size is not None:
        assert size >= len(top)
        deck = deck[:size]
    return deck


def make_state(*args, **kwargs):
    """position(...) -> glory_ai.State."""
    import glory_ai

    d = position(*args, **kwargs)
    return glory_ai.State.from_dict(d)


def from_dict(d: dict):
    import glory_ai

    check_position(d)
    return glory_ai.State.from_dict(d)


# ---------------------------------------------------------------------------------------
# Playing


def norm(s: str) -> str:
    return " ".join(s.strip().lower().split())


def legal(state) -> set:
    """The legal action strings, normalised (lower case, single blanks)."""
    return {norm(s) for s in state.legal_action_strings()}


def lower_set(strings: Iterable[str]) -> set:
    return {norm(s) for s in strings}


def assert_legal(state, *strings) -> None:
    got = legal(state)
    for s in strings:
        assert norm(s) in got, (
            f"{s!r} should be legal for player {state.current_player()}; "
            f"legal: {sorted(state.legal_action_strings())}")


def assert_illegal(state, *strings) -> None:
    got = legal(state)
    for s in strings:
        assert norm(s) not in got, (
            f"{s!r} should be illegal for player {state.current_player()}; "
            f"legal: {sorted(state.legal_action_strings())}")


def play(state, *strings):
    """Apply action strings in order, each one asserted legal first."""
    for s in strings:
        legal_now = state.legal_action_strings()
        if norm(s) not in {norm(x) for x in legal_now}:
            raise AssertionError(
                f"{s!r} is not legal for player {state.current_player()}; "
                f"legal: {sorted(legal_now)}")
        state.apply_action_string(s)
    return state


def play_picks(state, prefix: str, cards: Iterable[str]):
    """Apply ``"<prefix> <card>"`` for each card while such picks are being asked.

    Used for petition picks and gives, where the engine resolves a pick by itself
    when only one card can be picked (notation.md: decisions with nothing to decide
    are never asked).  Stops as soon as no pick of this kind is asked any more.
    """
    for c in cards:
        legal_now = legal(state)
        if not any(s.startswith(norm(prefix)) for s in legal_now):
            break
        play(state, f"{prefix} {c}")
    return state


def think_strings(state) -> set:
    return {s for s in legal(state) if s.startswith("think:")}


def pdict(state, p: int) -> dict:
    return state.to_dict()["players"][p]


def zone(state, p: int, name: str) -> list:
    return sorted(state.to_dict()["players"][p][name])


def pool(state) -> list:
    return sorted(state.to_dict()["pool"])


def structure(state, p: int, building: str) -> dict | None:
    for s in state.to_dict()["players"][p]["structures"]:
        if norm(s["building"]) == norm(building):
            return s
    return None


def sites(state, where: str, mat: str) -> int:
    return state.to_dict()["sites"][where].get(mat, 0)


def new_state_with_deck(game, deck: list):
    """game.new_initial_state with a known deck order (top first)."""
    return game.new_initial_state(seed=0, deck=deck)
