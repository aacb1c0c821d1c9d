"""``glory-ai replay``: step through a recorded game, forwards and back, as one player saw
it or seeing everything.

Step ``i`` is the table after ``i`` decisions (0: the deal; the last: the end, with the
final scores). Commands (typed, then Enter): Enter or ``n`` next, ``b`` back, ``t`` / ``T``
the next / previous turn, a number: that step, ``s`` the start, ``e`` the end, ``as P1`` /
``as all`` another view, ``q`` quit.
"""
from __future__ import annotations

from typing import Any

from ..game import State
from .narrate import LogBook, log_of
from .records import check_record, states
from .screen import Screen, render_view
from .session import score_table
from .view import table_view

__all__ = ["Replayer", "REPLAY_HELP"]

REPLAY_HELP = """\
Enter or n: next decision · b: back · t / T: next / previous turn · a number: go to that
step · s: start · e: end · as P1 / as all: whose view · help · q: quit"""


class Replayer:
    """A recorded game, checked (every action legal, the result as recorded), with every
    state at hand."""

    def __init__(self, record: dict[str, Any], viewer: int | None, screen: Screen) -> None:
        self.record = record
        if "scores" in record:
            check_record(record)
        self.timeline: list[State] = [state for state, _ in states(record)]
        self.steps = len(self.timeline) - 1
        n = record["num_players"]
        if viewer is not None and not 0 <= viewer < n:
            raise ValueError(f"--as P{viewer}: the game has players P0 to P{n - 1}")
        self.viewer = viewer
        self.screen = screen
        seats = record.get("seats") or [f"P{p}" for p in range(n)]
        self.names = [("you" if p == viewer else str(spec)) for p, spec in enumerate(seats)]
        self.log: LogBook = log_of(record, viewer)
        self.step = 0

    def set_viewer(self, viewer: int | None) -> None:
        self.viewer = viewer
        seats = self.record.get("seats") or [f"P{p}" for p in range(self.record["num_players"])]
        self.names = [("you" if p == viewer else str(spec)) for p, spec in enumerate(seats)]
        self.log = log_of(self.record, viewer)

    def show(self) -> None:
        state = self.timeline[self.step]
        view = table_view(state, self.viewer, names=self.names)
        view.pop("menu", None)
        seen = "everything" if self.viewer is None else f"P{self.viewer}'s view"
        gid = self.record.get("game_id")
        game = f" of game {gid}" if gid is not None else ""
        title = f"Replay{game} ({seen}), step {self.step}/{self.steps}"
        self.screen.clear()
        self.screen.show(render_view(view, self.log.upto(self.step), plain=self.screen.plain, title=title))
        if state.is_terminal():
            self.screen.show(score_table(state, self.names, plain=self.screen.plain))

    def _turn_starts(self) -> list[int]:
        starts, last = [], -1
        for i, state in enumerate(self.timeline):
            if state.turn_number() != last:
                starts.append(i)
                last = state.turn_number()
        return starts

    def go(self, command: str) -> bool:
        """Apply one command; False to stop."""
        text = command.strip().lower()
        if text in ("", "n", "next", "f"):
            if self.step == self.steps:
                self.screen.say("This is the end of the game (b: back, s: start, q: quit).")
                return True
            self.step += 1
        elif text in ("b", "back", "p", "prev"):
            if self.step == 0:
                self.screen.say("This is the start of the game.")
                return True
            self.step -= 1
        elif command.strip() == "T":
            earlier = [s for s in self._turn_starts() if s < self.step]
            self.step = earlier[-1] if earlier else 0
        elif text in ("t", "turn"):
            later = [s for s in self._turn_starts() if s > self.step]
            self.step = later[0] if later else self.steps
        elif text in ("s", "start"):
            self.step = 0
        elif text in ("e", "end"):
            self.step = self.steps
        elif text.isdigit():
            number = int(text)
            if number > self.steps:
                self.screen.say(f"The game has steps 0 to {self.steps}.")
                return True
            self.step = number
        elif text.startswith("as "):
            who = text[3:].strip()
            if who == "all":
                self.set_viewer(None)
            elif who.lstrip("p").isdigit() and int(who.lstrip("p")) < self.record["num_players"]:
                self.set_viewer(int(who.lstrip("p")))
            else:
                self.screen.say(f"as P0 .. P{self.record['num_players'] - 1}, or as all")
                return True
        elif text in ("q", "quit", "exit"):
            return False
        elif text in ("help", "h", "?"):
            self.screen.say(REPLAY_HELP)
            return True
        else:
            self.screen.say(f"Not a replay command: {command.strip()!r}. {REPLAY_HELP}")
            return True
        self.show()
        return True

    def run(self, start: int = 0) -> int:
        self.step = start
        self.show()
        self.screen.say(REPLAY_HELP)
        while True:
            line = self.screen.ask("replay> ")
            if line is None or not self.go(line):
                return 0
