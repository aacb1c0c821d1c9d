"""What a search bot learns about the other players' hands from their choices (the
`belief` option of the search bots; docs/bots.md, "Opponent-aware determinization").

A player who could follow the led role and thought instead probably holds no card of that
role (nor a Jack, which follows any role); one who followed with a Jack probably had no
card of the role at hand. Each such decline, watched by the bot, says that each card of the
role in the decliner's hidden hand *at that moment* is less likely by a factor
``1 - strength``. Later the hand changes: the cards it held then are a shrinking share of
the hidden hand as it plays them, so the factor for a card of the hand now is
``1 - share * strength``, where `share` is the expected fraction of the hidden hand that was
already there at the decline.

The bot turns what it watched into a table of log-likelihoods per player and card type
(``table()``); the search deals K uniform worlds and keeps one with probability
proportional to the product of the factors of its hidden cards (``_search.deal_world``).
Only public facts are read: the decision phase, the led role, the action taken (a follow
shows its card, a think says how), and the sizes of the hidden parts of hands
(``State.observation``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..cards import JACK, ROLES
from ..core.engine import State

#: a decline by thinking counts fully for the role's cards, half for Jacks; following with
#: a Jack counts half for the role's cards
THINK_JACK_SHARE = 0.5
JACK_FOLLOW_SHARE = 0.5
#: the strongest factor a decline can give (so that no world is ruled out entirely)
MAX_STRENGTH = 0.95


@dataclass
class Decline:
    """One observed decline: `player` passed over `role` (-1: a Jack) with `strength`;
    `old` is the expected number of its hidden hand cards still there from that moment."""

    player: int
    role: int
    strength: float
    old: float


def _hidden_sizes(state: State, observer: int) -> list[int]:
    """The size of every player's hidden hand part, as `observer` sees it (its own: 0)."""
    seen = state.observation(observer)["players"]
    return [0 if q == observer else seen[q]["hand_size"] - len(seen[q]["known_hand"])
            for q in range(state.num_players())]


def _declines(state: State, action: int, strength: float) -> list[tuple[int, float]]:
    """(role, strength) pairs that the player to move gives away by `action`; role -1 is
    the Jack. Only follow decisions speak."""
    led = state.led_role()
    if state.phase() != "follow" or led is None:
        return []
    role = ROLES.index(led)
    text = state.action_to_string(action)
    if text.startswith("think"):
        return [(role, strength), (-1, strength * THINK_JACK_SHARE)]
    if text.startswith("follow") and text.endswith("with Jack"):
        return [(role, strength * JACK_FOLLOW_SHARE)]
    return []


class Evidence:
    """The declines one bot's player has watched in one game, kept up to date move by
    move (``watch``), and their table of log-likelihoods (``table``)."""

    def __init__(self, player: int, strength: float) -> None:
        self.player = player
        self.strength = min(max(strength, 0.0), MAX_STRENGTH)
        self.declines: list[Decline] = []
        self._last: State | None = None

    def watch(self, state: State) -> None:
        """Take in the moves played since the last state watched (the state at the bot's
        previous decision); a state that does not continue it starts the evidence afresh."""
        moves = self._moves_since(state)
        if moves is None:
            self.declines = []
            self._last = state.clone()
            return
        replay = self._last
        assert replay is not None
        replay = replay.clone()
        sizes = _hidden_sizes(replay, self.player)
        for action in moves:
            mover = replay.current_player()
            if mover != self.player:
                for role, strength in _declines(replay, action, self.strength):
                    if strength > 0 and sizes[mover] > 0:
                        self.declines.append(Decline(mover, role, strength, float(sizes[mover])))
            replay.apply_action(action)
            after = _hidden_sizes(replay, self.player)
            for decline in self.declines:
                q = decline.player
                if after[q] < sizes[q]:
                    # cards left the hidden hand: the old ones leave in proportion
                    decline.old *= after[q] / sizes[q] if sizes[q] else 0.0
            sizes = after
        self.declines = [d for d in self.declines if d.old > 0.05]
        self._last = state.clone()

    def _moves_since(self, state: State) -> list[int] | None:
        last = self._last
        if last is None or last.config() != state.config():
            return None
        before, now = last.history(), state.history()
        if len(now) < len(before) or now[:len(before)] != before:
            return None
        return now[len(before):]

    def table(self, state: State) -> list[list[float]] | None:
        """Per player, the log-likelihood of each card type in its hidden hand now; None
        when nothing was learnt."""
        if not self.declines:
            return None
        sizes = _hidden_sizes(state, self.player)
        n = state.num_players()
        materials = state.config().card_materials()     # a card's role in this game (R-V.1)
        table = [[0.0] * len(materials) for _ in range(n)]
        for decline in self.declines:
            q = decline.player
            if q >= n or sizes[q] == 0:
                continue
            share = min(1.0, decline.old / sizes[q])
            factor = math.log(1.0 - share * decline.strength)
            for card, material in enumerate(materials):
                if (card == JACK and decline.role == -1) or (card != JACK and material == decline.role):
                    table[q][card] += factor
        if not any(v for row in table for v in row):
            return None
        return table
