"""An independent reference for the leader's and followers' options and for the limits,
compared with the engine at every decision of many seeded random games (2-5 players,
Republic and Imperium).

The reference is written from docs/rules.md (and cards.csv, docs/notation.md for the
action-string grammar) only; it reads nothing but ``state.to_dict()`` and never calls the
engine's own rule helpers.

1. Lead / follow / think options (R-6.1, R-6.2, R-6.6, R-6.9, R-7.1, R-7.2, R-10.5, Crane,
   Circus, Latrine, Vomitorium): the exact set of ``legal_action_strings()`` in phases
   "lead" and "follow".
2. Limits (R-10.1 .. R-10.6): ``influence``, ``clientele_limit``, ``vault_limit``,
   ``refill_size`` and ``is_active`` at every step, and no clientele / vault ever grows past
   its limit (R-8.1.4, R-8.6.1, R-8.6.3, A14).

Random play as in test_reference_scoring_and_end.py (support.random_play). No discrepancy
is tolerated. Option strings in phases other than lead/follow are the subject of
test_reference_action_options.py and test_reference_legionary.py.
"""
from __future__ import annotations

from collections import Counter

import pytest

import glory_ai
from support.cards import MATERIAL_OF, ROLES, role
from support.positions import built, done, foundation
from support.random_play import game_specs, run_spec
from support.reference import ref_active, ref_clientele_limit, ref_influence, ref_refill, ref_vault_limit

BUILDINGS = sorted(MATERIAL_OF)

# ---------------------------------------------------------------------------------------
# Reference: lead / follow options

def petition_size(d, p):
    """R-6.6(3): Imperium 3, or 2 with Circus (3 still allowed, so the minimum is 2);
    Republic: the configured size (A1)."""
    if d["mode"] == "imperium":
        return 2 if ref_active(d, p, "Circus") else 3
    return d.get("variant", {}).get("petition_size", 2)


def ref_options(d, phase, p, led_role):
    """The legal action strings of a leader (phase 'lead') or follower (phase 'follow')."""
    pl = d["players"][p]
    hand = pl["hand"]
    orders = [c for c in hand if c != "Jack"]
    opts = set()
    # R-6.1(a) / R-6.2 / R-7.2
    if d["jack_pile"] > 0:
        opts.add("think: take Jack")
    if len(hand) < ref_refill(d, p):
        opts.add("think: refill")
    else:
        opts.add("think: draw 1")
    # pre-steps (A27: Latrine is offered when Vomitorium is not used)
    if ref_active(d, p, "Vomitorium") and hand:
        opts.add("think: discard hand (Vomitorium)")
    if ref_active(d, p, "Latrine"):
        for c in set(hand):
            opts.add(f"think: discard {c} (Latrine)")
    # action units
    verb = "lead" if phase == "lead" else "follow"
    roles = ROLES if phase == "lead" else (led_role,)
    by_role = Counter(role(c) for c in orders)
    psize = petition_size(d, p)
    crane = d["mode"] == "republic" and ref_active(d, p, "Crane")
    for r in roles:
        for c in set(orders):
            if role(c) == r:
                opts.add(f"{verb} {r} with {c}")
            elif r == "Architect" and crane:
                opts.add(f"{verb} Architect with {c} (Crane)")
        if "Jack" in hand:
            opts.add(f"{verb} {r} with Jack")
        for r2 in ROLES:
            if by_role[r2] >= psize:
                opts.add(f"{verb} {r} by petition of {r2}")
    return opts


# ---------------------------------------------------------------------------------------
# 3. Lead / follow options


OPTION_GAMES = (game_specs(40, salt=5) + game_specs(8, salt=6, petition_size=3)
                + game_specs(16, salt=15, kind="rich") + game_specs(8, salt=16, kind="forum"))


@pytest.mark.slow
def test_reference_lead_follow_options_every_decision():
    """R-6.1/6.2/6.6/6.9, R-7.1/7.2, R-10.5: the exact legal strings of every leader and
    follower decision, Crane / Circus / Latrine / Vomitorium / Shrine / Temple included."""
    stats = Counter()

    def on_step(kind, state, d0, payload):
        if kind != "before":
            return
        phase = state.phase()
        if phase not in ("lead", "follow"):
            return
        strs = payload
        p = state.current_player()
        ref = ref_options(d0, phase, p, state.led_role())
        got = set(strs)
        assert len(got) == len(strs), "duplicate strings"
        assert got == ref, (phase, p, sorted(got - ref), sorted(ref - got), d0["players"][p]["hand"])
        stats[phase] += 1
        for b in ("Crane", "Circus", "Latrine", "Vomitorium", "Shrine", "Temple", "Palace"):
            if ref_active(d0, p, b):
                stats[b] += 1

    for spec in OPTION_GAMES:
        run_spec(spec, on_step)
    assert stats["lead"] > 1000 and stats["follow"] > 1000, stats


# ---------------------------------------------------------------------------------------
# 4. Limits


LIMIT_GAMES = (game_specs(40, salt=7) + game_specs(16, salt=17, kind="rich")
               + game_specs(8, salt=18, kind="forum"))
MODE_BUILDINGS = {
    "republic": [b for b in BUILDINGS if b not in ("Circus", "Senate", "Colosseum", "Forum")],
    "imperium": [b for b in BUILDINGS if b not in ("Crane", "Tribunal", "Domus Aurea",
                                                    "Forum Romanum")],
}


@pytest.mark.slow
def test_reference_limits_every_step():
    """R-10.1..10.6 at every step for every player, and R-8.1.4 / R-8.6.1 / R-10.4: a
    clientele or vault only grows while below its limit (so after growing it is at most
    the limit); a hand has no maximum."""
    stats = Counter()

    def on_step(kind, state, d0, payload):
        if kind != "after":
            return
        a, d1 = payload
        stats["steps"] += 1
        for p in range(d1["num_players"]):
            where = (a, p)
            assert state.influence(p) == ref_influence(d1, p), where
            assert state.clientele_limit(p) == ref_clientele_limit(d1, p), where
            assert state.vault_limit(p) == ref_vault_limit(d1, p), where
            assert state.refill_size(p) == ref_refill(d1, p), where
            if stats["steps"] % 5 == 0:
                for b in MODE_BUILDINGS[d1["mode"]]:
                    assert state.is_active(p, b) == ref_active(d1, p, b), (where, b)
            c0, c1 = len(d0["players"][p]["clientele"]), len(d1["players"][p]["clientele"])
            v0, v1 = len(d0["players"][p]["vault"]), len(d1["players"][p]["vault"])
            if c1 > c0:
                stats["hires"] += 1
                assert c1 <= ref_clientele_limit(d1, p), (where, c0, c1)
            if v1 > v0:
                stats["vaults"] += 1
                assert v1 <= ref_vault_limit(d1, p), (where, v0, v1)
            if c1 > ref_clientele_limit(d1, p) or v1 > ref_vault_limit(d1, p):
                stats["over_limit_kept"] += 1     # R-10.4 (only via a lowered limit)
            for q in ("Insula", "Aqueduct", "Market", "Shrine", "Temple"):
                if ref_active(d1, p, q):
                    stats[q] += 1

    for spec in LIMIT_GAMES:
        run_spec(spec, on_step)
    assert stats["hires"] > 100 and stats["vaults"] > 100, stats


def _compare_position(d):
    state = glory_ai.State.from_dict(d)
    d = state.to_dict()
    for p in range(d["num_players"]):
        assert state.influence(p) == ref_influence(d, p), p
        assert state.clientele_limit(p) == ref_clientele_limit(d, p), p
        assert state.vault_limit(p) == ref_vault_limit(d, p), p
        assert state.refill_size(p) == ref_refill(d, p), p
        for b in MODE_BUILDINGS[d["mode"]]:
            assert state.is_active(p, b) == ref_active(d, p, b), (p, b)
    return state, d


def test_reference_limits_stairway_and_gate_positions():
    """R-10.6 sources that random play rarely reaches, on hand-made positions: a
    Stairwayed Insula / Aqueduct / Market / Shrine is active for every player; Gate makes
    the owner's incomplete Temple (Marble) count (refill 9) but not an incomplete Shrine
    (Brick); a Stairwayed Gate does so for every player (A30); no stacking (R-10.6)."""
    p0 = {"structures": [done("Insula", materials=["Road"], stairway="Bar"),
                         done("Aqueduct", materials=["Tower", "Tower"], stairway="Bridge"),
                         done("Market", materials=["Dock"], stairway="Palisade"),
                         built("Shrine", ["Bath", "Bath"])],
          "influence": ["Rubble", "Concrete", "Wood", "Brick"]}
    p1 = {"structures": [done("Gate", materials=["Academy", "Academy"], stairway="Archway"),
                         foundation("Temple")],
          "influence": ["Brick"]}
    p2 = {"structures": [foundation("Temple", ["Statue"]), foundation("Shrine"),
                         built("Insula", ["Latrine"])],
          "influence": ["Rubble"]}
    _state, d = _compare_position({"num_players": 3, "mode": "republic",
                                   "players": [p0, p1, p2]})
    # spelled out: P2 has Insula twice (own + Stairwayed) -> counts once, Aqueduct public
    assert ref_clientele_limit(d, 2) == (3 + 2) * 2
    assert ref_refill(d, 1) == ref_refill(d, 2) == 9      # Temple via the public Gate
    assert ref_refill(d, 0) == 7                           # own Shrine only
    # without the Stairway on the Gate, only P1 (the Gate's owner) gets the Temple
    del p1["structures"][0]["stairway"]
    _state, d = _compare_position({"num_players": 3, "mode": "republic",
                                   "players": [p0, p1, p2]})
    assert ref_refill(d, 1) == 9 and ref_refill(d, 2) == 5
