"""Types of the compiled arena loop (glory_ai/arena/_loop.pyx)."""
from collections.abc import Callable, Sequence

from glory_ai.core.engine import State

def play_loop(
    state: State, steps: Sequence[Callable[[State], int]], max_decisions: int
) -> tuple[list[float], list[int], list[dict[str, int]]]: ...
def structures(state: State) -> list[dict[str, list[str]]]: ...
