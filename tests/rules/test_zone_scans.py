"""The engine's scans of a zone by its set bits (score_of's vault counts; the clientele and
the Forum Romanum stockpile of a Forum condition, R-11.2) held to references written from
docs/rules.md (R-12.1, R-12.2, R-11.2) over every position of played games, 2 to 5
players, both modes, under the published materials and a remade variant."""
import collections

import pytest

import glory_ai
from glory_ai.bots import make_bot
from support.cards import MATERIAL_OF, MATERIALS, ROLE_OF_MATERIAL, VALUE

STYLES = ["patron", "merchant", "builder", "legionary"]
REMADE = {"materials": {"Temple": "Stone", "Villa": "Marble", "Forum": "Rubble", "Forum Romanum": "Rubble",
                        "Bar": "Brick"}}


def by_material(cards: list[str], variant: dict) -> collections.Counter[str]:
    remade = variant.get("materials", {})
    return collections.Counter(remade.get(card, MATERIAL_OF[card]) for card in cards)


def vault_and_bonus(players: list[dict], p: int, variant: dict) -> tuple[int, int]:
    """R-12.1: each vault card scores its material's value; R-12.2: 3 VP a material of which
    p holds strictly more vault cards than every other player."""
    counts = [by_material(pl["vault"], variant) for pl in players]
    vault = sum(VALUE[m] * k for m, k in counts[p].items())
    bonus = sum(3 for m, k in counts[p].items()
                if k > max(counts[q][m] for q in range(len(players)) if q != p))
    return vault, bonus


def forum_condition(state: glory_ai.State, player: dict, p: int, variant: dict) -> tuple[bool, bool]:
    """R-11.2: a client of every role (Ludus Magnus: Merchant clients stand for any role;
    Storeroom: Laborer covered by a clientele not empty), with Forum active, or with Forum
    Romanum active and a stockpile holding every material."""
    clients = by_material(player["clientele"], variant)
    roles = collections.Counter({ROLE_OF_MATERIAL[m]: k for m, k in clients.items()})
    storeroom = state.is_active(p, "Storeroom") and sum(clients.values()) > 0
    missing = [r for r in ROLE_OF_MATERIAL.values()
               if r != "Merchant" and not roles[r] and not (r == "Laborer" and storeroom)]
    if state.is_active(p, "Ludus Magnus"):
        covers = roles["Merchant"] >= 1 + len(missing)
    else:
        covers = not missing and roles["Merchant"] >= 1
    stock = by_material(player["stockpile"], variant)
    met = covers and (state.is_active(p, "Forum")
                      or (state.is_active(p, "Forum Romanum") and all(stock[m] for m in MATERIALS)))
    return covers, met


@pytest.mark.parametrize("variant", [{}, REMADE], ids=["published", "remade"])
def test_scores_and_forum_conditions_match_the_rules(variant):
    seen = collections.Counter()
    for game in range(160):
        # (every other game all Patron players, who build Forums and win by them)
        num_players = 2 + game // 2 % 4
        mode = "imperium" if game // 8 % 2 else "republic"
        state = glory_ai.Game(num_players, mode=mode, **variant).new_initial_state(3100 + game)
        bots = [make_bot(f"heuristic:style={STYLES[(game + i) % 4 if game % 2 else 0]},epsilon=0.3",
                         seed=3100 + game + i) for i in range(num_players)]
        while True:
            players = state.to_dict()["players"]
            for p in range(num_players):
                vault, bonus = vault_and_bonus(players, p, variant)
                got = state.score_breakdown(p)
                assert (got["vault"], got["merchant_bonus"]) == (vault, bonus), (players, p)
                covers, met = state._forum_condition(p)
                assert (covers, met) == forum_condition(state, players[p], p, variant), (players, p)
                seen["bonus"] += bonus > 0
                seen["covers"] += covers
                seen["met"] += met
                seen["ludus"] += covers and state.is_active(p, "Ludus Magnus")
            if state.is_terminal():
                break
            state.apply_action(bots[state.current_player()].step(state))
    # the scans met what they must tell apart: bonuses, covered clienteles (with a Ludus
    # Magnus among them) and Forum wins
    assert seen["bonus"] > 1000 and seen["covers"] > 50 and seen["met"] > 0 and seen["ludus"] > 0, seen
