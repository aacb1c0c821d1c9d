"""An example glory_ai bot plugin: the bot ``scorer``, declared by an entry point in
pyproject.toml (group ``glory_ai.bots``).

It looks one move ahead on victory points, declares its parameters with ranges
(``PARAMS``) and uses both optional hooks: ``new_game`` and ``observe``.
"""
import random

from glory_ai.bots import Param

__version__ = "0.1.0"


class Scorer:
    """One-ply lookahead on VP: the move after which its lead over the best other is largest."""

    PARAMS = (
        Param("greed", float, 1.0, "weight of its own VP against the best other player's", 0, 10),
        Param("explore", float, 0.0, "share of uniformly random moves", 0, 1),
    )

    def __init__(self, seed=0, greed=1.0, explore=0.0):
        self.rng = random.Random(seed)
        self.greed = greed
        self.explore = explore
        self.player = None
        self.moves_seen = 0

    def new_game(self, state, player):
        self.player = player
        self.moves_seen = 0

    def observe(self, state, player, action):
        # action is None when it names a card this bot's player did not see
        self.moves_seen += 1

    def step(self, state):
        legal = state.legal_actions()
        if self.rng.random() < self.explore:
            return self.rng.choice(legal)
        me = state.current_player()
        best, choices = None, []
        for action in legal:
            after = state.clone()          # never change the state handed in
            after.apply_action(action)
            scores = after.scores()
            lead = self.greed * scores[me] - max(s for p, s in enumerate(scores) if p != me)
            if best is None or lead > best:
                best, choices = lead, [action]
            elif lead == best:
                choices.append(action)
        return self.rng.choice(choices)
