"""Reference rules written from docs/rules.md, never from the engine: activity (R-10.6),
influence and the limits (R-10.1 .. R-10.5), the Forum condition (R-11.2).

They read nothing but position dicts (``state.to_dict()``), so the reference tests in
tests/reference compare the engine with an independent reading of the rules.
"""

from __future__ import annotations

from collections import Counter

from support.cards import MATERIALS, ROLES, VALUE, material, role

#: the turn_state flag of a player who conceded (docs/notation.md, "Positions")
CONCEDED = 8


def ref_active(d: dict, p: int, name: str) -> bool:
    """R-10.6: own completed structure; own incomplete Marble structure while Gate is
    active for the owner; any player's Stairwayed completed structure (A30: a Stairwayed
    Gate counts as an active Gate for everybody)."""
    players = d["players"]
    if any(s["building"] == name and s["complete"] for s in players[p]["structures"]):
        return True
    if any(s["building"] == name and s["complete"] and s.get("stairway")
           for q in players for s in q["structures"]):
        return True
    return (material(name) == "Marble"
            and any(s["building"] == name and not s["complete"]
                    for s in players[p]["structures"])
            and ref_active(d, p, "Gate"))


def ref_influence(d: dict, p: int) -> int:
    """R-10.1 / R-4.1: 2 + the values of the site cards in the influence pile."""
    return 2 + sum(VALUE[m] for m in d["players"][p]["influence"])


def ref_clientele_limit(d: dict, p: int) -> int:
    """R-10.2 (A8): (influence + 2*[Insula]) * (2 if Aqueduct)."""
    base = ref_influence(d, p) + (2 if ref_active(d, p, "Insula") else 0)
    return base * (2 if ref_active(d, p, "Aqueduct") else 1)


def ref_vault_limit(d: dict, p: int) -> int:
    """R-10.3: influence + 2*[Market]."""
    return ref_influence(d, p) + (2 if ref_active(d, p, "Market") else 0)


def ref_refill(d: dict, p: int) -> int:
    """R-10.5 / R-7.2: 5 (the configured base) + 2*[Shrine] + 4*[Temple]."""
    base = d.get("variant", {}).get("refill_size", 5)
    return (base + (2 if ref_active(d, p, "Shrine") else 0)
            + (4 if ref_active(d, p, "Temple") else 0))


def conceded(d: dict, p: int) -> bool:
    return bool(d["players"][p].get("turn_state", {}).get("flags", 0) & CONCEDED)


def ref_forum(d: dict, p: int) -> bool:
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
        stock = {material(c) for c in pl["stockpile"]}
        return all(m in stock for m in MATERIALS)
    return True
