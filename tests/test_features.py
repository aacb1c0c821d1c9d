"""The feature vector (State.features, docs/bots.md "The feature vector"): every feature
means what the documentation says, checked against a reference written from the docs and
the position format (not from the engine's code) on thousands of states of 2 to 5 players
in both modes; the estimate of the actions still to come on hand-built positions; and the
documented table lists every feature in order."""
from __future__ import annotations

import random
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import glory_ai
from glory_ai.core.engine import FEATURE_COUNT, FEATURE_NAMES, FEATURE_SET_VERSION
from support.cards import CARDS, VALUE
from support.positions import foundation, play, state_of

ROLES = ("Laborer", "Craftsman", "Architect", "Legionary", "Merchant", "Patron")
ROLE_OF = dict(zip(("Rubble", "Wood", "Concrete", "Brick", "Stone", "Marble"), ROLES, strict=True))
BOTS_DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"


def material(card: str) -> str:
    return CARDS[card][0]


def reference_features(state: glory_ai.State, p: int) -> dict[str, float]:
    """The features of p, except the actions still to come (pending_*), from the
    position's public format and the State accessors."""
    d = state.to_dict()
    me = d["players"][p]
    n = state.num_players()
    out = dict.fromkeys(FEATURE_NAMES, 0.0)
    out["score"] = state.scores()[p]
    out["influence"] = state.influence(p)
    at_hand = Counter(material(c) for c in me["hand"] + me["stockpile"] if c != "Jack")
    needed: Counter[str] = Counter()
    needs = set()
    for st in me["structures"]:
        if st["complete"]:
            out["completed_" + st["building"].lower().replace(" ", "_")] += 1
            continue
        value = VALUE[st["site"]]
        out["foundation_value"] += value
        out["progress_materials"] += len(st["materials"])
        needed[material(st["building"])] += max(value - len(st["materials"]), 0)
        if len(st["materials"]) < value:
            needs.add(material(st["building"]))
    # each card at hand completes at most one structure
    out["materials_at_hand"] = sum(min(needed[m], at_hand[m]) for m in needed)
    for card in me["clientele"]:
        out[f"clients_{ROLE_OF[material(card)].lower()}"] += 1
    out["client_room"] = max(state.clientele_limit(p) - len(me["clientele"]), 0)
    out["vault_cards"] = len(me["vault"])
    room = state.vault_limit(p) - len(me["vault"])
    out["vault_room"] = max(room, 0)
    wanted = sum(1 for c in me["stockpile"] if material(c) in needs)
    other = len(me["stockpile"]) - wanted
    out["stockpile_useful"] = wanted + min(max(room, 0), other)
    out["stockpile_excess"] = other - min(max(room, 0), other)
    orders = sum(1 for c in me["hand"] if c != "Jack")
    out["hand_cards"] = min(orders, state.refill_size(p))
    out["hand_cards_beyond"] = max(orders - state.refill_size(p), 0)
    jacks = me["hand"].count("Jack")
    out["jacks"] = min(jacks, 2) + 0.15 * max(jacks - 2, 0)
    out["jacks_beyond"] = max(jacks - 2, 0)
    out[f"players_{n}"] = 1
    out["imperium"] = 1 if d["mode"] == "imperium" else 0
    out["deck_cards"] = state.deck_size()
    out["turn_order"] = (p - state.leader()) % n
    return out


def sampled_states(per_setup: int, seed: int = 5):
    """States along random games (every few dozen decisions, and the end), 2 to 5
    players, both modes."""
    rng = random.Random(seed)
    for num_players in (2, 3, 4, 5):
        for mode in ("republic", "imperium"):
            game = glory_ai.Game(num_players, mode=mode)
            for deal in range(per_setup):
                state = game.new_initial_state(deal)
                while not state.is_terminal():
                    state.random_playout(rng.randrange(2 ** 32), max_decisions=rng.randrange(10, 60))
                    yield state.clone()


def test_the_names_are_unique_and_follow_the_layout():
    assert len(FEATURE_NAMES) == FEATURE_COUNT == 78 and FEATURE_SET_VERSION == 1
    assert len(set(FEATURE_NAMES)) == FEATURE_COUNT
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", name) for name in FEATURE_NAMES)
    completed = [name for name in FEATURE_NAMES if name.startswith("completed_")]
    assert completed == ["completed_" + card.lower().replace(" ", "_") for card in glory_ai.CARD_NAMES[1:]]


def test_every_feature_but_the_actions_to_come_means_what_the_docs_say():
    checked = 0
    kinds = Counter()
    for state in sampled_states(per_setup=25):
        for p in range(state.num_players()):
            got = dict(zip(FEATURE_NAMES, state.features(p).tolist(), strict=True))
            expected = reference_features(state, p)
            for name in FEATURE_NAMES:
                if not name.startswith("pending_"):
                    assert got[name] == expected[name], (name, p, state.to_dict())
                kinds[name] += got[name] != 0
            checked += 1
    assert checked > 2000
    # the sample exercises every feature of the position (not only zeros); the rarest
    # buildings may never be completed in random play
    assert all(kinds[name] > 0 for name in FEATURE_NAMES if not name.startswith(("completed_", "players_")))
    assert sum(kinds[name] > 0 for name in FEATURE_NAMES if name.startswith("completed_")) >= 30


def test_the_actions_to_come_are_the_led_role_only():
    seen_roles = set()
    for state in sampled_states(per_setup=25, seed=9):
        for p in range(state.num_players()):
            f = dict(zip(FEATURE_NAMES, state.features(p).tolist(), strict=True))
            gains = {role: f[f"pending_gain_{role.lower()}"] for role in ROLES}
            if f["pending_units"] == 0:
                assert not any(gains.values())
                continue
            assert state.led_role() in ROLES and f["pending_units"] >= 1
            assert all(gain == 0 for role, gain in gains.items() if role != state.led_role())
            assert gains[state.led_role()] >= 0
            seen_roles.add(state.led_role())
    assert seen_roles == set(ROLES)


def _gains(state, p):
    f = dict(zip(FEATURE_NAMES, state.features(p).tolist(), strict=True))
    gains = {role: f[f"pending_gain_{role.lower()}"] for role in ROLES}
    return f["pending_units"], {role: gain for role, gain in gains.items() if gain}


def test_a_laborer_to_come_is_worth_the_best_pool_card_for_the_stockpile():
    # P0 leads Laborer with a Laborer client; the pool holds Rubble for P0's Latrine:
    # a material a structure needs is worth 0.2 + 0.4 * 0.7 (the reference weights) per unit
    players = [{"hand": ["Road", "Bar"], "clientele": ["Insula"], "influence": ["Wood"],
                "structures": [foundation("Latrine")]},
               {"hand": ["Dock"]}]
    state = state_of(2, players, pool=["Bar", "Temple"])
    play(state, "lead Laborer with Road")
    units, gains = _gains(state, 0)
    assert units == 2 and gains == {"Laborer": pytest.approx(2 * (0.2 + 0.4 * 0.7))}
    assert _gains(state, 1) == (0, {})            # P1 has no camp unit yet


def test_a_patron_to_come_is_worth_a_client_while_the_clientele_has_room():
    players = [{"hand": ["Temple", "Bar"], "influence": []}, {"hand": ["Dock"]}]
    state = state_of(2, players, pool=["Road"])
    play(state, "lead Patron with Temple")
    assert _gains(state, 0) == (1, {"Patron": pytest.approx(0.5)})
    full = [{"hand": ["Temple"], "clientele": ["Road", "Dock"], "influence": []}, {"hand": ["Dock"]}]
    state = state_of(2, full, pool=["Road"])
    play(state, "lead Patron with Temple")
    assert _gains(state, 0) == (1, {})            # influence 2: no room for a third client


def test_the_documented_table_lists_every_feature_in_order():
    text = BOTS_DOC.read_text()
    table = text.split("### The feature vector")[1].split("\n#")[0]
    listed = []
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].isdigit() is False and cells[0].startswith("`"):
            pattern = cells[0].strip("`")
            if "<role>" in pattern:
                listed += [pattern.replace("<role>", role.lower()) for role in ROLES]
            elif "<building>" in pattern:
                listed += [pattern.replace("<building>", card.lower().replace(" ", "_"))
                           for card in glory_ai.CARD_NAMES[1:]]
            elif "<n>" in pattern:
                listed += [pattern.replace("<n>", str(n)) for n in (2, 3, 4, 5)]
            else:
                listed.append(pattern)
    assert listed == list(FEATURE_NAMES)


def test_features_take_a_player_of_the_game_and_return_float64():
    state = glory_ai.Game(3).new_initial_state(1)
    features = state.features(2)
    assert features.dtype == np.float64 and features.shape == (FEATURE_COUNT,)
    for bad in (3, -1):
        with pytest.raises(ValueError, match="player"):
            state.features(bad)
    with pytest.raises(TypeError):
        state.features("0")
