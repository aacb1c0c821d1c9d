"""Who sits where: bot lists as typed on the command line, seats, seeds and names."""
from __future__ import annotations

from collections.abc import Sequence

from ..arena.plan import bot_seed
from ..bots import BotSpec, SpecError
from ..bots.grammar import split_spec_list
from ..bots.trust import code_named
from .records import HUMAN

__all__ = ["split_specs", "seat_specs", "seat_seeds", "seat_names", "hint_seed"]


def split_specs(text: str) -> list[str]:
    """Bot specs from one comma-separated list. A spec's own parameters are separated by
    commas too, so a piece ``key=value`` belongs to the spec before it:
    ``ismcts:iters=200,c=0.5,greedy`` is ``["ismcts:iters=200,c=0.5", "greedy"]``.
    Each spec is checked (a SpecError, a ValueError, names the part at fault) and given in
    the form a run records it (:attr:`glory_ai.bots.BotSpec.canonical`: ``Greedy`` is
    ``greedy``); a spec naming a file or a module is kept as written, its code not run (it is
    resolved when the game starts, under the command's ``--trust``).

    >>> split_specs("ismcts:time_ms=1000,heuristic:style=builder")
    ['ismcts:time_ms=1000', 'heuristic:style=builder']
    >>> split_specs("ismcts:iters=200,c=0.5,random")
    ['ismcts:iters=200,c=0.5', 'random']
    >>> split_specs("Greedy,ISMCTS:Iters=200")
    ['greedy', 'ismcts:iters=200']
    """
    try:
        specs = split_spec_list(text)
    except SpecError as exc:
        raise ValueError(f"--bots {exc}") from None
    return [spec.strip() if code_named([spec]) else BotSpec.parse(spec).canonical for spec in specs]


def seat_specs(num_players: int, bots: Sequence[str], human: int | None) -> list[str]:
    """The spec of every seat: the person's seat is ``"human"``, the bots fill the other
    seats in order, cycled when fewer are listed (as the arena fills a field: ``A,B`` in
    four seats is ``A,B,A,B``)."""
    if human is not None and not 0 <= human < num_players:
        raise ValueError(f"--seat {human}: a {num_players}-player game has seats 0 to {num_players - 1}")
    free = num_players - (human is not None)
    if not bots:
        raise ValueError("--bots: give at least one bot spec")
    if len(bots) > free:
        who = f" besides you (seat {human})" if human is not None else ""
        raise ValueError(f"--bots lists {len(bots)} bots for {free} seat{'s' if free != 1 else ''}{who} "
                         f"in a {num_players}-player game")
    it = iter([bots[i % len(bots)] for i in range(free)])
    return [HUMAN if p == human else next(it) for p in range(num_players)]


def seat_seeds(seed: int, num_players: int) -> list[int]:
    """The seed of each seat's bot: the arena's seeding of deal 0 of root seed `seed`."""
    return [bot_seed(seed, 0, 0, p) for p in range(num_players)]


def hint_seed(seed: int, seat: int) -> int:
    """The seed of the hint bot of a seat (apart from every playing bot's)."""
    return bot_seed(seed, 0, 1, seat)


def seat_names(seats: Sequence[str], viewer: int | None) -> list[str]:
    """Labels for the screen: "you" for the viewer, the spec for a bot."""
    return ["you" if p == viewer else spec for p, spec in enumerate(seats)]
