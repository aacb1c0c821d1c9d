"""Shared helpers for the building-function scenario tests (tests/buildings).

Written from ../shared/RULES.md (§13 building table, §14, §16, §17) and docs/notation.md
only; the engine code is never read.  The generic helpers of tests/rules/helpers.py are
re-exported here (that module is imported by bare name, as the rules tests do).

Positions are built with :func:`pos`.  A structure built with :func:`done` gets its
material cards filled in automatically ("filler" cards of the foundation's material that
are not named anywhere else in the position and still have copies left), so a test only
names the cards that matter.
"""

from __future__ import annotations

import os
import sys

_RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rules")
if _RULES not in sys.path:
    sys.path.insert(0, _RULES)

from helpers import (CARDS, MATERIALS, ROLES, VALUE, assert_illegal,  # noqa: E402,F401
                     assert_legal, built, check_position, deck_with, foundation,
                     from_dict, legal, lower_set, material, mode_cards, norm, pdict,
                     placed_cards, play, play_picks, pool, position, role, sites,
                     structure, think_strings, value, zone)

AUTO = None  # materials placeholder of a completed structure


def done(building: str, site: str | None = None, out_of_town: bool = False,
         stairway: str | None = None, materials=AUTO) -> dict:
    """A completed structure; materials are filled in by :func:`pos` unless given."""
    s = {"building": building, "site": site or material(building),
         "out_of_town": out_of_town,
         "materials": None if materials is AUTO else list(materials), "complete": True}
    if stairway:
        s["stairway"] = stairway
    return s


def inc(building: str, materials=(), site: str | None = None,
        out_of_town: bool = False) -> dict:
    """An incomplete structure (explicit materials, default none)."""
    return foundation(building, materials, site=site, out_of_town=out_of_town)


def _explicit_names(players, extra) -> set:
    names = set(extra.get("pool", [])) | set(extra.get("deck", []))
    names |= set(extra.get("deck_top", []) or [])
    for p in players:
        for z in ("hand", "camp", "stockpile", "vault", "clientele"):
            names |= set(p.get(z, []))
        for s in p.get("structures", []):
            names.add(s["building"])
            names |= set(s.get("materials") or [])
            if s.get("stairway"):
                names.add(s["stairway"])
    return names


def pos(num_players: int = 2, players=None, leader: int = 0, mode: str = "republic",
        deck_top=None, deck_size=None, **extra) -> dict:
    """A checked position dict (notation.md).  Completed structures made by :func:`done`
    get filler materials.  ``deck_top`` (with optional ``deck_size``) fixes the deck:
    those cards on top, then unplaced cards in a fixed order."""
    players = [dict(p) for p in (players or [])]
    players += [{} for _ in range(num_players - len(players))]
    for p in players:
        if "structures" in p:
            p["structures"] = [dict(s) for s in p["structures"]]
    allowed = mode_cards(mode)
    explicit = _explicit_names(players, dict(extra, deck_top=deck_top))
    # counts of explicitly placed cards
    probe = {"num_players": num_players, "players": [
        dict(p, structures=[dict(s, materials=s["materials"] or [])
                            for s in p.get("structures", [])]) for p in players],
        "pool": extra.get("pool", []),
        "deck": list(deck_top or []) + list(extra.get("deck", []))}
    used = placed_cards(probe)
    used.pop("Jack", None)
    for p in players:
        for s in p.get("structures", []):
            if s["materials"] is not None:
                continue
            fm = material(s["building"])
            need = VALUE[s["site"]]
            if s["building"] == "Statue" and s["site"] != "Marble":
                fm = s["site"]
            cands = [n for n in sorted(CARDS) if CARDS[n][0] == fm and allowed[n] > 0
                     and n not in explicit]
            cands += [n for n in sorted(CARDS) if CARDS[n][0] == fm and allowed[n] > 0
                      and n in explicit and n != s["building"]]
            mats = []
            for n in cands:
                while len(mats) < need and used[n] < allowed[n]:
                    mats.append(n)
                    used[n] += 1
                if len(mats) == need:
                    break
            assert len(mats) == need, f"test bug: no filler for {s['building']}"
            s["materials"] = mats
    d = position(num_players, players, leader=leader, mode=mode, **extra)
    if deck_top is not None or deck_size is not None:
        d["deck"] = deck_with(d, top=deck_top or (), size=deck_size)
        check_position(d)
    return d


def state_of(*args, **kwargs):
    """pos(...) -> glory_ai.State."""
    import glory_ai

    return glory_ai.State.from_dict(pos(*args, **kwargs))


def strings_with(state, prefix: str) -> set:
    """Legal action strings (normalised) that start with ``prefix``."""
    return {s for s in legal(state) if s.startswith(norm(prefix))}


def play_if_legal(state, s: str) -> bool:
    if norm(s) in legal(state):
        play(state, s)
        return True
    return False


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


def hand(state, p):
    return zone(state, p, "hand")


def stock(state, p):
    return zone(state, p, "stockpile")


def vault(state, p):
    return zone(state, p, "vault")


def clients(state, p):
    return zone(state, p, "clientele")


def camp(state, p):
    return zone(state, p, "camp")


def infl_sites(state, p):
    return sorted(state.to_dict()["players"][p]["influence"])


def names(state, p):
    """Sorted names of player p's structures."""
    return sorted(s["building"] for s in state.to_dict()["players"][p]["structures"])


def leader(state):
    return state.to_dict()["leader"]


def jack_pile(state):
    return state.to_dict()["jack_pile"]


def deck(state):
    return state.to_dict()["deck"]


def turn_over(state, next_leader: int = 1) -> bool:
    """True when the turn has passed to ``next_leader`` and that player now decides."""
    return (not state.is_terminal() and leader(state) == next_leader
            and state.current_player() == next_leader
            and all(not s.startswith("follow") for s in legal(state)))


def use_extras(state, *victims):
    """The legionary applies the Bridge / Colosseum / Domus Aurea extra to each victim in
    turn (R-8.5.7: the legionary's choice), as each question comes up."""
    for v in victims:
        asked = [s for s in legal(state) if s.startswith("legionary: use ")]
        assert asked and asked[0].endswith(f"on p{v}"), (v, legal(state))
        play(state, asked[0])
    return state
