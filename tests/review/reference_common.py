"""Shared pure-Python reference rules for the review tests 6-8 (written from RULES.md,
never from the engine): card data, R-10 activity and limits, and the R-11.2 Forum test.

The card table is the one tests/rules/helpers.py copied from cards.csv, so the tests need
no file outside the repository.
"""
from __future__ import annotations

import os
import sys
from collections import Counter

_RULES_TESTS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "rules")
if _RULES_TESTS not in sys.path:
    sys.path.insert(0, _RULES_TESTS)

from helpers import CARDS  # noqa: E402

VALUE = {"Rubble": 1, "Wood": 1, "Concrete": 2, "Brick": 2, "Stone": 3, "Marble": 3}
MATERIALS = tuple(VALUE)                       # engine index order for roles/materials
ROLE_OF = {"Rubble": "Laborer", "Wood": "Craftsman", "Concrete": "Architect",
           "Brick": "Legionary", "Stone": "Merchant", "Marble": "Patron"}
ROLES = ("Patron", "Laborer", "Architect", "Craftsman", "Legionary", "Merchant")
MATERIAL_OF = {name: material for name, (material, _, _) in CARDS.items()}
COPIES = {name: copies for name, (_, copies, _) in CARDS.items()}
EXCLUSIVE = {"republic": ("Circus", "Senate", "Colosseum", "Forum"),        # removed
             "imperium": ("Crane", "Tribunal", "Domus Aurea", "Forum Romanum")}


def mat(card):
    return MATERIAL_OF[card]


def role(card):
    return ROLE_OF[MATERIAL_OF[card]]


def ref_active(d, p, name):
    """R-10.6: own completed structure; own incomplete Marble structure while Gate is
    active for the owner; any player's Stairwayed completed structure (A30: a Stairwayed
    Gate counts as an active Gate for everybody)."""
    players = d["players"]
    if any(s["building"] == name and s["complete"] for s in players[p]["structures"]):
        return True
    if any(s["building"] == name and s["complete"] and s.get("stairway")
           for q in players for s in q["structures"]):
        return True
    return (mat(name) == "Marble"
            and any(s["building"] == name and not s["complete"]
                    for s in players[p]["structures"])
            and ref_active(d, p, "Gate"))


def ref_influence(d, p):
    """R-10.1 / R-4.1: 2 + the values of the site cards in the influence pile."""
    return 2 + sum(VALUE[m] for m in d["players"][p]["influence"])


def ref_clientele_limit(d, p):
    """R-10.2 (A8): (influence + 2*[Insula]) * (2 if Aqueduct)."""
    base = ref_influence(d, p) + (2 if ref_active(d, p, "Insula") else 0)
    return base * (2 if ref_active(d, p, "Aqueduct") else 1)


def ref_vault_limit(d, p):
    """R-10.3: influence + 2*[Market]."""
    return ref_influence(d, p) + (2 if ref_active(d, p, "Market") else 0)


def ref_forum(d, p):
    """R-11.2: does player p satisfy the Forum (Imperium) / Forum Romanum (Republic)
    condition right now (Ludus Magnus matching, the Storeroom ruling A33)?"""
    forum = "Forum" if d["mode"] == "imperium" else "Forum Romanum"
    if not ref_active(d, p, forum):
        return False
    pl = d["players"][p]
    clients = pl["clientele"]
    cnt = Counter(role(c) for c in clients)
    needed = set(ROLES)
    if ref_active(d, p, "Storeroom") and clients:
        needed.discard("Laborer")       # A33: covered without using up a client
    if ref_active(d, p, "Ludus Magnus"):
        missing = sum(1 for r in needed if r != "Merchant" and cnt[r] == 0)
        ok = cnt["Merchant"] >= missing + (1 if "Merchant" in needed else 0)
    else:
        ok = all(cnt[r] >= 1 for r in needed)
    if not ok:
        return False
    if forum == "Forum Romanum":
        stock = {mat(c) for c in pl["stockpile"]}
        return all(m in stock for m in MATERIALS)
    return True


def shuffled_mode_cards(mode, rng):
    """Every Order card of the mode's deck (R-3.2), shuffled by `rng`."""
    cards = []
    for name, copies in COPIES.items():
        if name not in EXCLUSIVE[mode]:
            cards += [name] * copies
    rng.shuffle(cards)
    return cards
