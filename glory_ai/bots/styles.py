"""Playing styles: the weights of the C-level evaluation (glory_ai/bots/_policy.pxi).

A style says, in victory points, what a position is worth beyond its score: an action of
each role, foundations and materials under way, clients, vaulted cards, cards in the
stockpile and hand, Jacks, the actions already played this turn, and the function of
each completed building. The heuristic bots pick the action whose result evaluates best
under their style (one-ply lookahead); the search bots use a style for heuristic
rollouts and for evaluating positions at a rollout cutoff.

Every style here is a documented choice, not a fitted model (docs/bots.md, "Styles").
"""
from __future__ import annotations

from typing import Any

from ..cards import CARD_NAMES, ROLES


def _buildings(values: dict[str, float]) -> list[float]:
    out = [0.0] * len(CARD_NAMES)
    for name, value in values.items():
        out[CARD_NAMES.index(name)] = value
    return out


def _roles(**values: float) -> list[float]:
    return [values.get(role.lower(), 1.0) for role in ROLES]


# What most styles agree a completed building's function is worth (beyond its influence)
_USEFUL = {"Road": 0.5, "Tower": 0.5, "Scriptorium": 0.5, "Archway": 0.5, "Crane": 0.5,
           "Shrine": 0.5, "Temple": 1.0, "Market": 0.5, "Insula": 0.5, "Aqueduct": 0.5,
           "Ludus Magnus": 0.5, "Circus Maximus": 0.5, "Wall": 0.5, "Palisade": 0.5,
           "Villa": 0.3, "Fountain": 0.5, "Gate": 0.3, "Statue": 0.0}


def _style(roles: list[float], buildings: dict[str, float], **weights: float) -> dict[str, Any]:
    base = {"foundation": 0.15, "progress": 0.7, "client": 0.5, "vault": 0.0, "stockpile": 0.2,
            "card": 0.25, "jack": 0.6, "pending": 0.8}
    base.update(weights)
    merged = dict(_USEFUL)
    merged.update(buildings)
    return {"role": roles, "building": _buildings(merged), **base}


# The styles share the balanced weights and lean: a preferred role is worth 1.4 of an
# action (the others 1.0); the buildings that carry the plan are worth more; one weight of
# the plan (materials, vaulted cards, stockpile, clients) is raised.
def _lean(preferred: tuple[str, ...], buildings: dict[str, float], **weights: float) -> dict[str, Any]:
    roles = _roles(**{role.lower(): (1.4 if role in preferred else 1.0) for role in ROLES})
    return _style(roles, buildings, **weights)


STYLES: dict[str, dict[str, Any]] = {
    # every role and building valued evenly (the greedy bot, and search defaults)
    "balanced": _style(_roles(), {}),
    # completes structures and uses their functions: Architect/Craftsman, materials
    "builder": _lean(("Architect", "Craftsman"),
                     {"Road": 1.0, "Tower": 1.0, "Scriptorium": 1.0, "Archway": 1.0,
                      "Crane": 1.0, "Fountain": 1.0, "Amphitheatre": 1.0, "Foundry": 1.0,
                      "Villa": 1.0, "Gate": 0.8, "Stairway": 0.8}, progress=0.9),
    # stockpile and vault, Merchant bonuses: Laborer/Merchant, Market, Basilica, Atrium
    "merchant": _lean(("Laborer", "Merchant"),
                      {"Market": 1.5, "Basilica": 1.5, "Atrium": 1.5, "Storeroom": 1.0,
                       "Dock": 1.0, "Wall": 1.0}, vault=0.5),
    # Rome demands: Legionary, and Bridge/Colosseum/Palisade/Wall around it
    "legionary": _lean(("Legionary", "Architect"),
                       {"Bridge": 1.5, "Colosseum": 1.5, "Domus Aurea": 1.0, "Palisade": 1.0,
                        "Wall": 1.0, "Prison": 0.8}),
    # a client engine: Patron, Circus Maximus, Ludus Magnus, Insula, Aqueduct, Bath
    "patron": _lean(("Patron",),
                    {"Circus Maximus": 1.5, "Ludus Magnus": 1.5, "Insula": 1.2, "Aqueduct": 1.2,
                     "Bath": 1.0, "Bar": 1.0, "Garden": 1.0, "Forum": 1.0, "Forum Romanum": 1.0},
                    client=0.8),
}

#: the styles offered by heuristic:style=... (balanced is the greedy bot's)
HEURISTIC_STYLES = ("builder", "merchant", "legionary", "patron")
