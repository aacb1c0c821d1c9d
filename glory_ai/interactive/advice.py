"""A search bot's view of one decision: the moves it weighs, with visit shares and the
expected result of each (``hint`` in a game, ``glory-ai analyze``).

The search runs for the player to decide, from that player's information only: the bot is
handed a determinization of the state from that player's view (every card the player
cannot see dealt afresh), and search bots deal the unknown cards again themselves, so the
true hidden cards cannot reach the advice (docs/bots.md, "What a bot may know").
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..bots import SearchBot, make_bot
from ..game import State

__all__ = ["Advice", "MoveStat", "advise", "AdviceError"]


class AdviceError(ValueError):
    """Advice that cannot be given (a finished game, a bot that does not search)."""


@dataclass(frozen=True)
class MoveStat:
    action: int
    text: str
    visits: int
    share: float            # visits / visits of every root action
    value: float            # the mover's mean reward: a win chance for reward=win
    values: tuple[float, ...]   # every player's mean reward


@dataclass(frozen=True)
class Advice:
    player: int
    spec: str
    iterations: int
    seconds: float
    moves: tuple[MoveStat, ...]     # most visited first
    forced: bool                    # a single legal action: nothing to search
    #: the positions the root win search (turnwin=) searched to prove the first move wins the
    #: rest of the turn by force in every world it dealt; None: the tree search decided
    turn_win: int | None = None

    def best(self) -> MoveStat:
        return self.moves[0]

    def to_dict(self) -> dict[str, Any]:
        return {"player": self.player, "bot": self.spec, "iterations": self.iterations,
                "seconds": self.seconds, "forced": self.forced, "turn_win": self.turn_win,
                "moves": [{"action": m.action, "move": m.text, "visits": m.visits,
                           "share": m.share, "value": None if m.value != m.value else m.value,
                           "values": list(m.values)}     # None (JSON null): not searched
                          for m in self.moves]}


def advise(state: State, spec: str = "ismcts:iters=5000", *, seed: int = 0,
           player: int | None = None) -> Advice:
    """What the search bot `spec` makes of the decision at hand in `state`, for the player
    to decide, from that player's information only. `player`, when given, must be that
    player (a check for callers that mean a particular seat)."""
    if state.is_terminal():
        raise AdviceError("the game is over: there is no decision to advise on")
    mover = state.current_player()
    if player is not None and player != mover:
        raise AdviceError(f"P{player} does not decide here: P{mover} does "
                          f"(phase {state.phase()}); advice is for the player to decide")
    bot = make_bot(spec, seed)
    if not isinstance(bot, SearchBot):
        raise AdviceError(f"{spec!r} does not search: give a search bot (ismcts, pimc or flatmc)")
    legal = state.legal_actions()
    if len(legal) == 1:
        only = legal[0]
        text = state.action_to_string(only)
        return Advice(mover, spec, 0, 0.0, (MoveStat(only, text, 0, 1.0, float("nan"), ()),), True)
    # the player's own view: what they cannot see is dealt afresh before the bot looks
    view = state.determinize(mover, seed)
    bot.step(view)
    info = bot.last_search()
    assert info is not None
    stats = info["actions"]
    if info.get("turn_win") is not None:
        return _turn_win(state, spec, info)
    total = sum(s["visits"] for s in stats) or 1
    moves = tuple(
        MoveStat(s["action"], state.action_to_string(s["action"]), s["visits"], s["visits"] / total,
                 s["mean_reward"][mover], tuple(s["mean_reward"]))
        for s in sorted(stats, key=lambda s: (-s["visits"], s["action"])))
    return Advice(mover, spec, int(info["iterations"]), float(info["seconds"]), moves, False)


def _turn_win(state: State, spec: str, info: dict[str, Any]) -> Advice:
    """The advice when the root win search proved a move (no tree search ran): that move,
    a win for the mover (reward 1), first; the others unsearched."""
    mover, won = state.current_player(), int(info["turn_win"])
    values = tuple(1.0 if p == mover else 0.0 for p in range(state.num_players()))
    rest = sorted(s["action"] for s in info["actions"] if s["action"] != won)
    moves = (MoveStat(won, state.action_to_string(won), 0, 1.0, 1.0, values),
             *(MoveStat(a, state.action_to_string(a), 0, 0.0, float("nan"), ()) for a in rest))
    return Advice(mover, spec, int(info["iterations"]), float(info["seconds"]), moves, False,
                  int(info["turn_win_nodes"]))


def advice_lines(advice: Advice, top: int = 5, names: list[str] | None = None) -> list[str]:
    """The advice as text lines: a header, then one line per move."""
    who = names[advice.player] if names else f"P{advice.player}"
    if advice.forced:
        return [f"Only one move is possible: {advice.moves[0].text}"]
    whose = "your" if who == "you" else f"{who}'s"
    if advice.turn_win is not None:
        searched = (f"the first move wins the rest of the turn by force in every world dealt "
                    f"({advice.turn_win:,} positions searched; the tree search did not run)")
    else:
        searched = f"{advice.iterations:,} iterations in {advice.seconds:.2f} s"
    lines = [f"{advice.spec} for {who}: {searched}, from {whose} information only"]
    lines.append(f"  {'#':>2}  {'move':<44} {'visits':>8} {'share':>6}  expected result")
    for i, m in enumerate(advice.moves[:top], start=1):
        value = "not searched" if m.value != m.value else f"{m.value:.3f}"     # NaN: not searched
        lines.append(f"  {i:>2}  {m.text:<44} {m.visits:>8,} {m.share:>6.1%}  {value}")
    rest = len(advice.moves) - top
    if rest > 0:
        lines.append(f"  ... and {rest} more move{'s' if rest > 1 else ''}")
    return lines
