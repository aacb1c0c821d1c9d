"""``glory-ai watch``: bots play each other on screen, move by move.

On a terminal the table is redrawn after every move (with a pause of ``delay`` seconds);
when the output is not a terminal each move is one line of the log, and the table and
the final scores come at the end.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from ..game import State
from .screen import Screen, render_view
from .session import PlaySession
from .view import table_view

__all__ = ["watch"]


def watch(*, num_players: int, mode: str, variant: dict[str, Any], seed: int, seats: list[str],
          bot_seeds: list[int], viewer: int | None, delay: float, screen: Screen,
          games_path: Path | None = None, isolation: str = "users",
          bot_memory: int | None = None) -> PlaySession:
    """Play the bots to the end on `screen`; returns the finished session."""
    session: PlaySession

    def redraw(state: State, new_lines: list[str]) -> None:
        if not screen.plain:
            view = table_view(state, viewer, names=session.names, you=False)
            screen.clear()
            screen.show(render_view(view, session.log.lines, plain=screen.plain,
                                    title=f"Glory to Rome (seed {seed}, watching)"))
        else:
            for line in new_lines:
                screen.say(line.strip())
        if delay > 0 and not state.is_terminal():
            time.sleep(delay)

    session = PlaySession(num_players=num_players, mode=mode, variant=variant, seed=seed, seats=seats,
                          bot_seeds=bot_seeds, human=None, viewer=viewer, games_path=games_path,
                          screen=screen, on_bot_move=redraw, isolation=isolation, bot_memory=bot_memory)
    who = ", ".join(f"P{p} {spec}" for p, spec in enumerate(seats))
    seen = "everything" if viewer is None else f"P{viewer}'s view"
    screen.say(f"Glory to Rome, {num_players} players, {mode}, seed {seed}: {who} ({seen})", "bold")
    session.run()
    return session
