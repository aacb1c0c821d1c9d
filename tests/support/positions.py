"""Hand-written positions and helpers that play action strings (the scenario tests).

Written from docs/rules.md and docs/notation.md only: nothing here looks at the engine's
code. Positions are plain dicts in the format of docs/notation.md ("Positions"), built
with :func:`position` (checked against the card table of :mod:`support.cards` before they
reach the engine) and turned into a state with :func:`state_of` / :func:`from_dict`
(``glory_ai.State.from_dict``).

A completed structure made by :func:`done` gets its material cards filled in by
:func:`position` ("filler" cards of the foundation's material that are not named anywhere
else in the position and still have copies left), so a test only names the cards that
matter; :func:`built` gives the materials explicitly, :func:`foundation` makes an
incomplete structure.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable
from typing import Any

import glory_ai
from support.cards import CARDS, VALUE, material, mode_cards

PLAYER_ZONES = ("hand", "camp", "stockpile", "vault", "clientele")

AUTO = None  # materials placeholder of a completed structure: filled in by position()


# ---------------------------------------------------------------------------------------
# Structures


def done(building: str, site: str | None = None, out_of_town: bool = False,
         stairway: str | None = None, materials: Iterable[str] | None = AUTO) -> dict:
    """A completed structure; its materials are filled in by :func:`position` unless
    given."""
    s: dict[str, Any] = {"building": building, "site": site or material(building),
                         "out_of_town": out_of_town,
                         "materials": None if materials is AUTO else list(materials),
                         "complete": True}
    if stairway:
        s["stairway"] = stairway
    return s


def built(building: str, materials: Iterable[str], site: str | None = None,
          out_of_town: bool = False) -> dict:
    """A completed structure with the given materials."""
    return done(building, site, out_of_town, materials=materials)


def foundation(building: str, materials: Iterable[str] = (), site: str | None = None,
               out_of_town: bool = False) -> dict:
    """An incomplete structure (explicit materials, default none)."""
    return {"building": building, "site": site or material(building),
            "out_of_town": out_of_town, "materials": list(materials), "complete": False}


# ---------------------------------------------------------------------------------------
# Positions


def placed_cards(d: dict) -> collections.Counter[str]:
    """Every card name placed somewhere in a position dict (Jacks included)."""
    c: collections.Counter[str] = collections.Counter()
    c.update(d.get("pool", []))
    c.update(d.get("deck", []))
    for p in d["players"]:
        for zone_name in PLAYER_ZONES:
            c.update(p.get(zone_name, []))
        for s in p.get("structures", []):
            c[s["building"]] += 1
            c.update(s.get("materials") or [])
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


def _explicit_names(players: list[dict], extra: dict) -> set[str]:
    names = set(extra.get("pool", [])) | set(extra.get("deck", []))
    names |= set(extra.get("deck_top", []) or [])
    for p in players:
        for z in PLAYER_ZONES:
            names |= set(p.get(z, []))
        for s in p.get("structures", []):
            names.add(s["building"])
            names |= set(s.get("materials") or [])
            if s.get("stairway"):
                names.add(s["stairway"])
    return names


def _fill_materials(players: list[dict], mode: str, extra: dict, deck_top) -> None:
    """Give every :func:`done` structure without materials its filler cards."""
    allowed = mode_cards(mode)
    explicit = _explicit_names(players, dict(extra, deck_top=deck_top))
    probe = {"num_players": len(players), "players": [
        dict(p, structures=[dict(s, materials=s.get("materials") or [])
                            for s in p.get("structures", [])]) for p in players],
        "pool": extra.get("pool", []),
        "deck": list(deck_top or []) + list(extra.get("deck", []))}
    used = placed_cards(probe)
    used.pop("Jack", None)
    for p in players:
        for s in p.get("structures", []):
            if "materials" not in s or s["materials"] is not None:
                continue
            fm = material(s["building"])
            need = VALUE[s["site"]]
            if s["building"] == "Statue" and s["site"] != "Marble":
                fm = s["site"]
            cands = [n for n in sorted(CARDS) if CARDS[n][0] == fm and allowed[n] > 0
                     and n not in explicit]
            cands += [n for n in sorted(CARDS) if CARDS[n][0] == fm and allowed[n] > 0
                      and n in explicit and n != s["building"]]
            mats: list[str] = []
            for n in cands:
                while len(mats) < need and used[n] < allowed[n]:
                    mats.append(n)
                    used[n] += 1
                if len(mats) == need:
                    break
            assert len(mats) == need, f"test bug: no filler for {s['building']}"
            s["materials"] = mats


def position(num_players: int = 2, players: list | None = None, leader: int = 0,
             mode: str = "republic", deck_top: Iterable[str] | None = None,
             deck_size: int | None = None, **extra) -> dict:
    """A checked position dict (docs/notation.md) with defaults; missing players are
    empty, completed structures made by :func:`done` get filler materials. ``deck_top``
    (with optional ``deck_size``) fixes the deck: those cards on top, then unplaced cards
    in a fixed order; other top-level fields (``pool``, ``deck``, ``sites``, ...) are passed
    through ``extra``."""
    players = [dict(p) for p in (players or [])]
    players += [{} for _ in range(num_players - len(players))]
    for p in players:
        if "structures" in p:
            p["structures"] = [dict(s) for s in p["structures"]]
    _fill_materials(players, mode, extra, deck_top)
    d = {"num_players": num_players, "mode": mode, "leader": leader, "players": players}
    d.update(extra)
    check_position(d)
    if deck_top is not None or deck_size is not None:
        d["deck"] = deck_with(d, top=deck_top or (), size=deck_size)
        check_position(d)
    return d


def deck_with(d: dict, top: Iterable[str] = (), size: int | None = None) -> list[str]:
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


def state_of(*args, **kwargs) -> glory_ai.State:
    """position(...) -> glory_ai.State."""
    return glory_ai.State.from_dict(position(*args, **kwargs))


def from_dict(d: dict) -> glory_ai.State:
    """A checked position dict -> glory_ai.State."""
    check_position(d)
    return glory_ai.State.from_dict(d)


def new_state_with_deck(game: glory_ai.Game, deck: list[str]) -> glory_ai.State:
    """game.new_initial_state with a known deck order (top first)."""
    return game.new_initial_state(seed=0, deck=deck)


# ---------------------------------------------------------------------------------------
# Playing


def norm(s: str) -> str:
    return " ".join(s.strip().lower().split())


def legal(state) -> set[str]:
    """The legal action strings, normalised (lower case, single blanks)."""
    return {norm(s) for s in state.legal_action_strings()}


def lower_set(strings: Iterable[str]) -> set[str]:
    return {norm(s) for s in strings}


def assert_legal(state, *strings: str) -> None:
    got = legal(state)
    for s in strings:
        assert norm(s) in got, (
            f"{s!r} should be legal for player {state.current_player()}; "
            f"legal: {sorted(state.legal_action_strings())}")


def assert_illegal(state, *strings: str) -> None:
    got = legal(state)
    for s in strings:
        assert norm(s) not in got, (
            f"{s!r} should be illegal for player {state.current_player()}; "
            f"legal: {sorted(state.legal_action_strings())}")


def play(state, *strings: str):
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
    when only one card can be picked (docs/notation.md: decisions with nothing to decide
    are never asked). Stops as soon as no pick of this kind is asked any more.
    """
    for c in cards:
        legal_now = legal(state)
        if not any(s.startswith(norm(prefix)) for s in legal_now):
            break
        play(state, f"{prefix} {c}")
    return state


def play_if_legal(state, s: str) -> bool:
    if norm(s) in legal(state):
        play(state, s)
        return True
    return False


def strings_with(state, prefix: str) -> set[str]:
    """Legal action strings (normalised) that start with ``prefix``."""
    return {s for s in legal(state) if s.startswith(norm(prefix))}


def think_strings(state) -> set[str]:
    return {s for s in legal(state) if s.startswith("think:")}


def add_units(state, verb: str, role_name: str, cards, finish: bool = True):
    """Palace: play several action units (``"<verb> <Role> with <Card>"``) in whatever
    order the engine accepts them, then ``done`` if it is still asked."""
    left = list(cards)
    while left:
        for c in left:
            s = f"{verb} {role_name} with {c}"
            if norm(s) in legal(state):
                play(state, s)
                left.remove(c)
                break
        else:
            raise AssertionError(
                f"none of {left} can be added as a {role_name} unit; "
                f"legal: {sorted(state.legal_action_strings())}")
    if finish:
        play_if_legal(state, "done")
    return state


def use_extras(state, *victims: int):
    """The legionary applies the Bridge / Colosseum / Domus Aurea extra to each victim in
    turn (R-8.5.7: the legionary's choice), as each question comes up."""
    for v in victims:
        asked = [s for s in legal(state) if s.startswith("legionary: use ")]
        assert asked and asked[0].endswith(f"on p{v}"), (v, legal(state))
        play(state, asked[0])
    return state


# ---------------------------------------------------------------------------------------
# Reading the state back (through to_dict)


def pdict(state, p: int) -> dict:
    return state.to_dict()["players"][p]


def zone(state, p: int, name: str) -> list[str]:
    return sorted(state.to_dict()["players"][p][name])


def hand(state, p: int) -> list[str]:
    return zone(state, p, "hand")


def stock(state, p: int) -> list[str]:
    return zone(state, p, "stockpile")


def vault(state, p: int) -> list[str]:
    return zone(state, p, "vault")


def clients(state, p: int) -> list[str]:
    return zone(state, p, "clientele")


def camp(state, p: int) -> list[str]:
    return zone(state, p, "camp")


def infl_sites(state, p: int) -> list[str]:
    return sorted(state.to_dict()["players"][p]["influence"])


def pool(state) -> list[str]:
    return sorted(state.to_dict()["pool"])


def deck(state) -> list[str]:
    return state.to_dict()["deck"]


def jack_pile(state) -> int:
    return state.to_dict()["jack_pile"]


def leader(state) -> int:
    return state.to_dict()["leader"]


def structure(state, p: int, building: str) -> dict | None:
    for s in state.to_dict()["players"][p]["structures"]:
        if norm(s["building"]) == norm(building):
            return s
    return None


def names(state, p: int) -> list[str]:
    """Sorted names of player p's structures."""
    return sorted(s["building"] for s in state.to_dict()["players"][p]["structures"])


def sites(state, where: str, mat: str) -> int:
    return state.to_dict()["sites"][where].get(mat, 0)


def turn_over(state, next_leader: int = 1) -> bool:
    """True when the turn has passed to ``next_leader`` and that player now decides."""
    return (not state.is_terminal() and leader(state) == next_leader
            and state.current_player() == next_leader
            and all(not s.startswith("follow") for s in legal(state)))
