"""Memory safety: pinned bugs where the engine wrote past a buffer or read past a zone (all
fixed). Each scenario asserts what docs/rules.md requires; the ones that crashed the
process run in a fresh interpreter, so a regression fails the test instead of killing
pytest.

CI's AddressSanitizer/UBSan build of the engine (`.ci/run`, with Cython's bounds checks
on) runs this file along with the property and hidden-information tests: these scenarios
reach rare buffers that random play seldom does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import glory_ai
from support.cards import CARDS, MATERIALS, mode_cards
from support.positions import play, state_of

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code: str, *args: str, timeout=120):
    """Run `code` in a fresh interpreter (a C-level crash must not kill pytest)."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code), *args], cwd=_ROOT,
                          capture_output=True, text=True, timeout=timeout)


def _prison_with_35_targets() -> dict:
    """5 players: P0 can complete a Prison (Villa from the stockpile) while the four
    opponents own 35 completed structures (every material but the ones P0 needs)."""
    allowed = mode_cards("republic")
    opp: list[list[dict]] = [[] for _ in range(4)]
    skip = {"Prison", "Villa", "Garden", "Sewer"}
    for m in MATERIALS:
        n = 5 if m == "Stone" else 6
        types = [t for t in sorted(CARDS) if CARDS[t][0] == m and allowed[t] and t not in skip]
        k = i = 0
        while k < n:
            t = types[i % len(types)]
            o = k % 4
            if t not in [s["building"] for s in opp[o]]:
                opp[o].append({"building": t, "site": m, "materials": [], "complete": True})
                k += 1
            i += 1
    players = [{"hand": ["Jack"], "stockpile": ["Villa"],
                "structures": [{"building": "Prison", "site": "Stone",
                                "materials": ["Garden", "Sewer"], "complete": False}]}]
    players += [{"structures": s} for s in opp]
    return {"num_players": 5, "players": players}


_PRISON_MANY_TARGETS = """
import json, sys
import glory_ai
state = glory_ai.State.from_dict(json.loads(sys.argv[1]))
state.apply_action_string("lead Architect with Jack")
while state.current_player() != 0:
    legal = state.legal_action_strings()
    state.apply_action_string("tribunal: skip" if "tribunal: skip" in legal else "think: take Jack")
state.apply_action_string("architect: add Villa to Prison")
print(state.phase(), len(state.legal_actions()))
"""


def test_R_9_3_2_prison_with_many_targets_does_not_overflow_the_probe_buffer():
    """§13 #29 Prison (R-9.3.2): completing a Prison with 35 possible targets must offer
    35 'prison: take ...' choices + skip. The bug: the action queue probed whether a
    Prison exchange was possible with a 4-entry stack buffer, and the Prison option
    generator wrote every target into it (a stack-buffer overflow, a segfault in the -O3
    build)."""
    r = _run(_PRISON_MANY_TARGETS, json.dumps(_prison_with_35_targets()))
    assert r.returncode == 0, f"crashed (rc {r.returncode}): {r.stderr[-500:]}"
    assert r.stdout.split() == ["prison", "36"]


def test_R_4_5_setup_with_a_too_small_deck_is_refused_not_a_crash():
    """R-4.5/R-4.6 need cards to deal. GameConfig accepted `removed`/`copies` that leave
    fewer Orders than the deal needs; the deal then drew from an empty deck (the deck size
    underflowed and the deck was read far out of bounds): a segfault. It must be refused
    (ValueError) or dealt correctly."""
    try:
        r = _run("""
        import glory_ai
        from glory_ai.cards import CARD_NAMES
        names = [n for n in CARD_NAMES[1:] if n != "Bar"]
        try:
            glory_ai.Game(2, "republic", removed=names).new_initial_state(seed=1)._check_invariants()
        except ValueError:
            pass
        print("ok")
    """, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("setup hung (undefined behaviour after the deck underflow)")
    assert r.returncode == 0 and r.stdout.strip() == "ok", \
        f"rc {r.returncode}: {r.stderr[-300:]}"


def test_R_9_1_1_statue_as_the_only_foundation_card_does_not_overflow_the_probe():
    """R-9.1.1 Statue (on any site): a Craftsman action whose only foundation card is a
    Statue offers a foundation on each of the six site materials. The bug: the start of an
    action probed for a first option with a 4-entry stack buffer, and the foundation
    generator wrote one entry per site material (up to 6) before stopping: a stack-buffer
    overflow, silent in the -O3 build and reported by AddressSanitizer (CI's sanitizer
    build runs this test)."""
    state = state_of(2, [{"hand": ["Dock", "Statue"]}, {"hand": ["Temple"]}])
    play(state, "lead Craftsman with Dock", "think: take Jack")
    assert len(state.legal_actions()) == 7      # Statue on each of 6 sites, or skip
    state._check_invariants()


# ---------------------------------------------------------------------------------------
# Fixed capacities (engine.pxd): each is unreachable, or reported when reached

def _marble_chain_position(hand_marble: int) -> dict:
    """P0 leads Patron with completed Bath and Aqueduct, a hand of Marble cards and room for
    76 clients: each client hired from hand acts at once (Bath, R-8.1.5) as a Patron action
    that hires the next, so the actor's queue of pending actions grows by one per hire. A
    variant deck with 12 of each Marble building makes the chain long enough."""
    marble = [name for name in sorted(CARDS) if CARDS[name][0] == "Marble" and mode_cards()[name]]
    hand = ["Jack"] + [name for name in marble for _ in range(12)][:hand_marble]
    return {"num_players": 2, "variant": {"copies": {name: 12 for name in marble}},
            "players": [{"hand": hand, "influence": ["Marble"] * 6 + ["Stone"] * 6,
                         "structures": [{"building": "Bath", "complete": True, "materials": []},
                                        {"building": "Aqueduct", "complete": True, "materials": []}]},
                        {}]}


def _start_the_chain(state):
    play(state, "lead Patron with Jack")
    while state.current_player() != 0:
        state.apply_action(state.legal_actions()[0])


def _hire_from_hand(state):
    state.apply_action_string(next(t for t in state.legal_action_strings() if t.endswith("from hand")))


def test_a_full_action_queue_is_reported_not_dropped():
    """STACK_CAP (64 entries): the 64th nested hire's Bath action does not fit. It used to be
    dropped silently (the client never acted); now the state records it, the invariant
    checker names it and apply_action raises."""
    from glory_ai.core import engine
    overflow = next(code for code, text in engine.INVARIANT_TEXT.items() if "capacity" in text)
    state = glory_ai.State.from_dict(_marble_chain_position(70))
    _start_the_chain(state)
    for _ in range(63):
        _hire_from_hand(state)
    assert len(state.to_dict()["turn"]["queue"]["front"]) == 63 and state._invariant_code() == 0
    with pytest.raises(RuntimeError, match="engine limit reached: .*queue of pending actions is full"):
        _hire_from_hand(state)
    assert state._invariant_code() == overflow
    with pytest.raises(AssertionError, match="capacity"):
        state._check_invariants()


def test_the_deepest_action_queue_that_fits_unwinds_by_the_rules():
    """63 nested hires (the most that fit) unwind: each Bath action ends, each interrupted
    Patron action resumes with nothing left to hire, and the turn goes on."""
    state = glory_ai.State.from_dict(_marble_chain_position(63))
    _start_the_chain(state)
    for _ in range(63):
        _hire_from_hand(state)
    assert state.zone("hand", 0) == [] and len(state.zone("clientele", 0)) == 63
    assert state.current_player() != 0 or state.phase() != "action"
    code, _ = state._stress(5, try_all=True)      # to the end, every legal action tried
    assert code == 0 and state.is_terminal()


def _all_sites_built(completed: bool) -> dict:
    """36 structures, one on each site of the game: 18 per player (a player owns one of each
    building), completed (sites in influence) or not."""
    by_material = {m: [n for n in sorted(CARDS) if CARDS[n][0] == m and mode_cards()[n]
                       and n != "Statue"] for m in MATERIALS}
    structures: list[list[dict]] = [[], []]
    for m in MATERIALS:
        names = by_material[m]
        for k in range(6):
            player, name = k % 2, names[(k // 2) % len(names)]
            if name in [s["building"] for s in structures[player]]:
                name = next(n for n in names if n not in [s["building"] for s in structures[player]])
            structures[player].append({"building": name, "site": m, "materials": [],
                                       "complete": completed})
    return {"num_players": 2, "players": [{"structures": s, "hand": ["Jack"]} for s in structures],
            "sites": {"in_town": {m: 0 for m in MATERIALS}, "out_of_town": {m: 0 for m in MATERIALS}},
            "turn": {"phase": "lead", "pending_end": False}}


def test_structures_never_outnumber_the_sites():
    """MAX_STRUCTURES (40) is out of reach: every structure holds its site or, completed, put
    it into influence, so 36 sites make at most 36 structures. The worst case, every site
    built on, plays to the end; a position with more completed structures than influence
    sites is refused (with 40 of them and no influence, laying one more foundation wrote
    past the structure table into player 0's hand)."""
    for completed in (False, True):
        d = _all_sites_built(completed)
        d.pop("turn")
        state = glory_ai.State.from_dict(d)
        assert sum(len(p["structures"]) for p in state.to_dict()["players"]) == 36
        code, _ = state.clone()._stress(3, try_all=True)
        assert code == 0
    d = _all_sites_built(True)
    d.pop("turn")
    d.pop("sites")
    d["players"][0]["influence"] = []
    with pytest.raises(ValueError, match=r"^players: 36 completed structures but 18 sites in influence"):
        glory_ai.State.from_dict(d)


def test_the_most_legal_actions_fit_the_buffer():
    """MAX_LEGAL (4096 ids per legal_actions_into buffer) is out of reach. The widest
    decisions are an Architect action (49 foundations, and per own incomplete structure 44
    materials from the stockpile and 44 from the pool with Archway: 88 x 36 + 49 + 2) and
    the Stairway part (88 per opponent's completed structure, + skip); with at most 36
    structures both stay far below it. A wide Architect action here: Road, Tower,
    Scriptorium and Archway let many materials fit 30 incomplete structures."""
    from glory_ai.core import engine
    bound = max(49 + 88 * 36 + 2, 88 * 36 + 1)
    assert bound < 4096
    helpers = [{"building": b, "complete": True, "materials": []}
               for b in ("Road", "Tower", "Scriptorium", "Archway")]
    used = {"Road", "Tower", "Scriptorium", "Archway"}
    incomplete = []
    for m in MATERIALS:
        names = [n for n in sorted(CARDS) if CARDS[n][0] == m and mode_cards()[n] and n not in used]
        for name in names[:6 - sum(CARDS[b][0] == m for b in used)]:
            incomplete.append({"building": name, "site": m, "materials": [], "complete": False})
    loose = [n for n in sorted(CARDS) if mode_cards()[n] >= 3]
    d = {"num_players": 2, "leader": 0,
         "pool": loose, "players": [{"hand": ["Jack"], "stockpile": loose,
                                     "structures": helpers + incomplete}, {}]}
    state = glory_ai.State.from_dict(d)
    play(state, "lead Architect with Jack")
    while state.current_player() != 0:
        state.apply_action(state.legal_actions()[0])
    n = len(state.legal_actions())
    assert state.phase() == "action" and 1000 < n <= bound, n
    assert len(set(state.legal_actions())) == n
    assert engine.NUM_ACTIONS > 4096          # the action space alone would not bound it
