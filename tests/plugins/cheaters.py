"""Bots for the fair-play tests (tests/plugins/test_fairplay.py), used by file spec.

They share one plan: build when possible, and make a Legionary demand (lead Legionary with
a Brick card, then reveal a card of a material the opponent holds) when they believe the
opponent holds the material. They differ in where the belief comes from:

* ``Cheater`` reads the opponent's hand from ``state.to_dict()``: the real hidden cards if
  it is handed the real state, a re-deal of them under fair play;
* ``Honest`` reads it from a determinization of its own (what it may know, dealt at random).
"""
import random

from glory_ai.actions import block_of, decode
from glory_ai.cards import CARD_MATERIAL, MATERIALS, card_id


def material(name):
    return MATERIALS[CARD_MATERIAL[card_id(name)]] if name != "Jack" else None


class Planner:
    def __init__(self, seed=0):
        self.rng = random.Random(seed)

    def belief(self, state, me):
        raise NotImplementedError

    def step(self, state):
        me = state.current_player()
        legal = state.legal_actions()
        held = {material(card) for card in self.belief(state, me)}
        reveals = [a for a in legal if block_of(a) == "reveal" and material(decode(a)[1][0]) in held]
        if reveals:
            return self.rng.choice(reveals)
        if state.phase() == "lead":
            mine = state.to_dict()["players"][me]["hand"]
            if any(material(card) in held for card in mine if material(card) != "Brick"):
                leads = [a for a in legal if block_of(a) == "play_card"
                         and material(decode(a)[1][0]) == "Brick"]
                if leads:
                    return self.rng.choice(leads)
        building = [a for a in legal if block_of(a) in ("lay", "add")]
        return self.rng.choice(building or legal)


class Cheater(Planner):
    """Reads the opponent's hand from the state it is handed."""

    def belief(self, state, me):
        return state.to_dict()["players"][1 - me]["hand"]


class Honest(Planner):
    """The same plan on a re-deal of its own."""

    def belief(self, state, me):
        world = state.determinize(me, self.rng.getrandbits(63))
        return world.to_dict()["players"][1 - me]["hand"]
