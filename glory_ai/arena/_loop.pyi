"""Types of the compiled arena loop (glory_ai/arena/_loop.pyx)."""
from collections.abc import Callable, Sequence
from typing import final

from typing_extensions import disjoint_base

from glory_ai.core.engine import State

@disjoint_base     # a cdef class
class Tally:
    @property
    def decisions(self) -> int: ...
    def __new__(cls, num_players: int) -> Tally: ...
    def results(self) -> tuple[list[float], list[int], list[dict[str, int]]]: ...

@final     # a final cdef class: the loop reads its fields directly
class NativeSeat:
    def __init__(self, kind: str, seed: int, policy: object = None) -> None: ...

def play_loop(
    state: State,
    steps: Sequence[Callable[[State], int] | NativeSeat],
    max_decisions: int,
    move_time_limit: float = 0.0,
    observers: Sequence[Callable[[State, int, int], object]] = (),
    tally: Tally | None = None,
) -> tuple[list[float], list[int], list[dict[str, int]]]: ...
def structures(state: State) -> list[dict[str, list[str]]]: ...
def seed_word(root: int, key: tuple[int, ...]) -> int: ...
