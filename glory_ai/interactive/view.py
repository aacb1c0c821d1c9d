"""The table as one player sees it: a JSON-safe dict drawn by the terminal screen and the
HTML viewer.

:func:`table_view` reads ``state.observation(viewer)`` and a few facts every player knows
(whose decision it is, the phase, the led role, influence and limits, the public parts of
the score); the viewer's legal actions are listed only when the viewer decides. Nothing
else of the state is read, so two states the viewer cannot tell apart give the same view
(tests/interactive/test_hidden.py checks it over many random states). ``viewer=None``
is the view of a spectator who sees everything (``watch``, replays "as all").
"""
from __future__ import annotations

import csv
from functools import cache
from importlib import resources
from typing import Any

from ..cards import CARD_MATERIAL, CARD_NAMES, MATERIAL_VALUE, MATERIALS, ROLES, card_id
from ..config import GameConfig
from ..game import State

__all__ = ["CardInfo", "card_info", "table_view", "visible_vp", "VIEW_VERSION"]

#: bumped when the view's fields change meaning (the HTML viewer embeds views)
VIEW_VERSION = 1


class CardInfo(dict):
    """name, material, role, value and the card's function (a dict, JSON-safe)."""


@cache
def _functions() -> dict[str, str]:
    text = resources.files("glory_ai").joinpath("data/cards.csv").read_text(encoding="utf-8")
    return {row["name"]: row["function_short"] for row in csv.DictReader(text.splitlines())}


def card_info(name: str, config: GameConfig | None = None) -> CardInfo:
    """What a card is: its material, role and value (a Jack: wild, no material), and its
    building function; in the game of `config` when given (a variant's materials, points and
    functions switched off, docs/rules.md R-V). Raises ValueError for an unknown name."""
    info = _published_card_info(name)
    if config is None or info["material"] is None:
        return info
    card = card_id(name)
    material = config.material_of(card)
    points = config.building_points()[card]
    function = info["function"] if config.power_on(card) else "(Its function is switched off in this game.)"
    if points:
        function += f" Each completed {CARD_NAMES[card]} scores {points} VP more in this game."
    return CardInfo(name=CARD_NAMES[card], material=MATERIALS[material], role=ROLES[material],
                    value=MATERIAL_VALUE[material], function=function)


@cache
def _published_card_info(name: str) -> CardInfo:
    card = card_id(name)
    if card == 0:
        return CardInfo(name="Jack", material=None, role=None, value=None,
                        function="Wild: led or followed as any role; never a building or material.")
    material = CARD_MATERIAL[card]
    return CardInfo(name=CARD_NAMES[card], material=MATERIALS[material], role=ROLES[material],
                    value=MATERIAL_VALUE[material], function=_functions().get(CARD_NAMES[card], ""))


def _value(name: str, config: GameConfig) -> int:
    card = card_id(name)
    return 0 if card == 0 else MATERIAL_VALUE[config.material_of(card)]


def _site_value(material: str) -> int:
    return MATERIAL_VALUE[MATERIALS.index(material)]


def visible_vp(state: State, player: int, vault: list[str]) -> dict[str, Any]:
    """The VP of `player` that a viewer who sees the cards `vault` of that player's vault
    can count: influence, Statue and Wall (public), the value of those vault cards; the
    Merchant bonuses need every vault and are settled at the end (R-12)."""
    breakdown = state.score_breakdown(player)
    known = {"influence": breakdown["influence"],
             "vault": sum(_value(c, state.config()) for c in vault),
             "statue": breakdown["statue"], "wall": breakdown["wall"]}
    if "buildings" in breakdown:           # a variant's building points (R-V.2): public
        known["buildings"] = breakdown["buildings"]
    known["total"] = sum(known.values())
    return known


def _structures(structures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for s in structures:
        needed = _site_value(s["site"])
        out.append({
            "building": s["building"], "site": s["site"], "out_of_town": s["out_of_town"],
            "materials": list(s["materials"]), "placed": len(s["materials"]), "needed": needed,
            "complete": s["complete"], "stairway": s.get("stairway"),
        })
    return out


def _turn(state: State, d: dict[str, Any], viewer: int | None) -> dict[str, Any]:
    turn = d["turn"]
    phase = state.phase()
    over = state.is_terminal()
    out: dict[str, Any] = {
        "number": turn["number"] + 1, "leader": d["leader"], "led_role": state.led_role(),
        "phase": phase, "decider": None if over else state.current_player(),
        "actor": None if over else turn["actor"],
    }
    if phase == "action":
        out["action_role"] = turn["action"]["role"]
    if phase.startswith("legionary"):
        leg = turn["legionary"]
        out["legionary"] = {"demand": list(leg["demand"]), "revealed": list(leg["revealed"]),
                            "take_left": list(leg["take_left"]), "give_left": list(leg["give_left"])}
    if phase == "petition":
        out["petition"] = {"material": turn["petition"]["material"], "picked": turn["petition"]["picked"]}
    card = turn.get("fountain_card")
    if phase == "fountain" and card is not None:
        out["fountain_card"] = card            # only the drawer's observation holds it
    return out


def table_view(state: State, viewer: int | None, *, names: list[str] | None = None,
               you: bool = True) -> dict[str, Any]:
    """The table as `viewer` sees it (None: everything), JSON-safe.

    `names` labels the seats (bot specs, "you"); the view's ``menu`` lists the legal actions
    when the viewer decides, as ``[action id, action string]``. A player's ``you`` marks the
    viewer's seat when ``you`` (a person plays it); False for a bot's view watched by a
    spectator."""
    if not isinstance(state, State):
        raise TypeError(f"table_view takes a glory_ai State, got {type(state).__name__}")
    n = state.num_players()
    if viewer is not None:
        viewer = state._check_player(viewer)
        d = state.observation(viewer)
    else:
        d = state.to_dict()
    over = state.is_terminal()
    players = []
    for p, pd in enumerate(d["players"]):
        sees_all = viewer is None or p == viewer
        hand = sorted(pd["hand"]) if sees_all else None
        vault = sorted(pd["vault"]) if sees_all else None
        shown_vault = vault if vault is not None else list(pd["known_vault"])
        entry: dict[str, Any] = {
            "seat": p,
            "name": names[p] if names else f"P{p}",
            "you": you and p == viewer,
            "conceded": state.has_conceded(p),
            "hand": hand,
            "hand_size": len(pd["hand"]) if sees_all else pd["hand_size"],
            "known_hand": list(pd["known_hand"]),
            "lacks": list(pd.get("lacks", [])),
            "camp": list(pd["camp"]),
            "stockpile": list(pd["stockpile"]),
            "clientele": list(pd["clientele"]),
            "clientele_limit": state.clientele_limit(p),
            "influence": state.influence(p),
            "influence_sites": list(pd["influence"]),
            "structures": _structures(pd["structures"]),
            "vault": vault,
            "vault_size": len(pd["vault"]) if sees_all else pd["vault_size"],
            "known_vault": list(pd["known_vault"]),
            "vault_limit": state.vault_limit(p),
            "vp": visible_vp(state, p, shown_vault),
        }
        if over or viewer is None:
            # the end of the game shows every vault; a spectator sees it all along
            entry["score"] = state.score_breakdown(p)
        players.append(entry)
    view: dict[str, Any] = {
        "view_version": VIEW_VERSION,
        "mode": d["mode"], "num_players": n, "viewer": viewer,
        "turn": _turn(state, d, viewer),
        "deck": d["deck_size"] if viewer is not None else len(d["deck"]),
        "jacks": d["jack_pile"],
        "pool": list(d["pool"]),
        "sites": {"in_town": dict(d["sites"]["in_town"]), "out_of_town": dict(d["sites"]["out_of_town"])},
        "players": players,
        "over": over,
    }
    if state.config().materials:
        # the cards a variant makes of another material (R-V.1), for their colours
        view["card_materials"] = dict(state.config().materials)
    if over:
        view["end_reason"] = state.end_reason()
        view["winners"] = state.winners()
    if not over and (viewer is None or state.current_player() == viewer):
        view["menu"] = [[a, state.action_to_string(a)] for a in state.legal_actions()]
    return view
