"""A bot in 20 lines (docs/extending.md): it builds when it can, else plays at random.

    glory-ai compare examples/cautious.py:Cautious ismcts:iters=100 --games 40
"""
import random

from glory_ai.actions import block_of


class Cautious:
    """Lays foundations and adds materials when it can; random otherwise (risk: how often)."""

    def __init__(self, seed=0, risk=0.3):
        self.rng = random.Random(seed)
        self.risk = risk

    def step(self, state):
        legal = state.legal_actions()
        building = [a for a in legal if block_of(a) in ("lay", "add")]
        if building and self.rng.random() >= self.risk:
            return self.rng.choice(building)
        return self.rng.choice(legal)
