"""What just happened, in plain words, as one player may know it.

:func:`describe` turns one action (with the state before it) into a sentence such as
"P2 leads Architect with Temple" or "You take Bath from the pool". A sentence never names a
card the viewer cannot see: a card vaulted from a hand (Basilica) or a Fountain card kept
in hand is named only to the player who moved it (and to a spectator who sees everything).
tests/interactive/test_hidden.py checks that two actions leaving the viewer with the same
observation get the same sentence.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ..actions import decode
from ..core.enums import EndReason
from ..game import State

__all__ = ["describe", "LogEntry", "game_log", "seat_name", "turn_header"]

#: action blocks whose card only the mover (and a spectator) may see
_PRIVATE_CARD = {"vault_hand", "fountain_keep"}


def seat_name(player: int, viewer: int | None, capital: bool = True, you: bool = True) -> str:
    """"You" for the viewer when ``you`` (a person plays that seat), else "P<n>"."""
    if you and player == viewer:
        return "You" if capital else "you"
    return f"P{player}"


def _a(word: str) -> str:
    """The word with its indefinite article: "a Bar", "an Insula"."""
    return f"{'an' if word[:1] in 'AEIOUaeiou' else 'a'} {word}"


def _verb(verb: str, second_person: bool) -> str:
    if second_person:
        return verb
    if verb == "do":
        return "does"
    if verb == "have":
        return "has"
    if verb.endswith(("s", "sh", "ch", "x")):
        return verb + "es"
    return verb + "s"


def _role_of(text: str) -> str:
    head = text.split(":", 1)[0]
    return head.capitalize()


def _sentence(block: str, args: tuple[Any, ...], text: str, mover_sees: bool) -> tuple[str, str]:
    """(verb, rest) of the action: "lead", "Architect with Temple"."""
    role = _role_of(text)
    out_of_town = " out of town" if "out of town" in text else ""
    simple: dict[str, Callable[[], tuple[str, str]]] = {
        "think_draw": lambda: ("think", "and <refill> the hand" if "refill" in text else "and <draw> a card"),
        "think_vomitorium": lambda: ("discard", "the whole hand before thinking (Vomitorium)"),
        "think_latrine": lambda: ("discard", f"{args[0]} before thinking (Latrine)"),
        "play_card": lambda: (text.split()[0], text.split(" ", 1)[1]),
        "play_jack": lambda: (text.split()[0], text.split(" ", 1)[1].replace("with Jack", "with a Jack")),
        "play_crane": lambda: (text.split()[0], text.split(" ", 1)[1]),
        "play_petition": lambda: (text.split()[0],
                                  f"{args[0]} by petition, with {args[1]} cards"),
        "petition_pick": lambda: ("put", f"{args[0]} into the petition"),
        "hire_pool": lambda: ("hire", f"{args[0]} from the pool as a client"),
        "hire_deck": lambda: ("hire", "the top card of the deck as a client (Bar)"),
        "hire_hand": lambda: ("hire", f"{args[0]} from the hand as a client (Aqueduct)"),
        "take_pool": lambda: ("take", f"{args[0]} from the pool into the stockpile"),
        "dock_hand": lambda: ("move", f"{args[0]} from the hand into the stockpile (Dock)"),
        "lay_statue": lambda: ("lay", f"a Statue foundation on {_a(str(args[0]))} site{out_of_town} "
                                      f"({role})"),
        "add_pool": lambda: ("add", f"{args[1]} from the pool to {args[0]} (Archway)"),
        "vault_stockpile": lambda: ("vault", f"{args[0]} from the stockpile"),
        "vault_deck": lambda: ("vault", "the top card of the deck (Atrium)"),
        "vault_hand": lambda: ("vault", f"{args[0] if mover_sees else 'a card'} from the hand (Basilica)"),
        "reveal": lambda: ("reveal", f"{args[0]} for the Legionary demand"),
        "leg_take": lambda: ("take", f"{args[0]} from the pool (Legionary)"),
        "give": lambda: ("give", f"{args[0]} from the hand to the Legionary"),
        "fountain_draw": lambda: ("draw", "the top card of the deck (Fountain)"),
        # the kept card is not an argument of the action: its string names it
        "fountain_keep": lambda: ("keep", f"{text.split('keep ', 1)[1] if mover_sees else 'the drawn card'} "
                                          "in hand (Fountain)"),
        "give_stockpile": lambda: ("give", f"{args[0]} from the stockpile (Bridge)"),
        "give_client": lambda: ("give", f"the client {args[0]} (Colosseum)"),
        "give_structure": lambda: ("give", f"the structure {args[0]} (Domus Aurea)"),
        "prison": lambda: ("take", f"{args[1]} from P{args[0]} (Prison)"),
        "stairway": lambda: ("add", f"{args[2]}{' from the pool' if args[3] else ''} to P{args[0]}'s "
                                    f"{args[1]} (Stairway)"),
        "sewer": lambda: ("move", f"{args[0]} from the camp into the stockpile (Sewer)"),
        "senate": lambda: ("take", "the Jacks the others played this turn (Senate)"),
    }
    if block in simple:
        return simple[block]()
    if block == "think_jack":
        if text.startswith("tribunal"):
            return "take", "a Jack (Tribunal)"
        return "think", "and <take> a Jack"
    if block == "lay":
        if text.startswith("fountain"):
            return "lay", f"the drawn {args[0]} as a foundation{out_of_town} (Fountain)"
        return "lay", f"{_a(str(args[0]))} foundation{out_of_town} ({role})"
    if block == "add":
        if text.startswith("fountain"):
            return "add", f"the drawn {args[1]} to {args[0]} (Fountain)"
        source = "from the hand" if text.startswith("craftsman") else "from the stockpile"
        return "add", f"{args[1]} {source} to {args[0]} ({role})"
    if block == "use_extra":
        return "use", text.split(": use ", 1)[-1]
    # the skip id: its meaning depends on the phase (docs/notation.md)
    skips = {
        "done": ("stop", "adding action units (Palace)"),
        "legionary: done revealing": ("stop", "revealing"),
        "legionary: done taking": ("stop", "taking from the pool"),
        "petition: done": ("close", "the petition"),
        "sewer: done": ("stop", "moving camp cards (Sewer)"),
        "senate: skip": ("leave", "the Jacks (Senate)"),
        "prison: skip": ("do", "not use the Prison"),
        "stairway: skip": ("do", "not use the Stairway"),
        "tribunal: skip": ("do", "not take a Jack (Tribunal)"),
        "think: skip": ("pass", "on the Thinker action"),
    }
    if text in skips:
        return skips[text]
    if text.endswith(": skip"):
        return "skip", f"the {role} action"
    if text.endswith(": done"):
        return "finish", f"the {role} action"
    if text.startswith("legionary: spare"):
        return "spare", text.split(": spare ", 1)[1]
    return "play", f"'{text}'"


def describe(state: State, action: int, viewer: int | None, you: bool = True) -> str:
    """The sentence for `action`, about to be applied to `state`, as `viewer` may read it
    (None: a spectator who sees everything); the viewer is "You" unless ``you`` is False
    (a bot's view watched by a spectator)."""
    mover = state.current_player()
    block, args = decode(action)
    text = state.action_to_string(action)
    mover_sees = viewer is None or viewer == mover
    if block in _PRIVATE_CARD and not mover_sees:
        args = tuple("?" for _ in args)         # never formatted: the sentence hides it
    verb, rest = _sentence(block, args, text, mover_sees)
    second = you and mover == viewer
    # a second verb of the sentence ("thinks and <draw>s a card") agrees with the first
    rest = re.sub(r"<(\w+)>", lambda m: _verb(m.group(1), second), rest)
    return f"{seat_name(mover, viewer, you=you)} {_verb(verb, second)} {rest}".rstrip() + "."


class LogEntry(dict):
    """One line of the public log: ``turn`` (1-based), ``player``, ``text``, ``decision``
    (its index in the game's actions)."""


def turn_header(state: State, viewer: int | None, you: bool = True) -> str:
    """The line opening a turn: "Turn 5: P2 leads." (the state at the turn's start)."""
    return f"Turn {state.turn_number() + 1}: {seat_name(state.leader(), viewer, you=you)} " \
           f"{_verb('lead', you and state.leader() == viewer)}."


def game_log(state: State, action: int, viewer: int | None, decision: int) -> LogEntry:
    return LogEntry(turn=state.turn_number() + 1, player=state.current_player(),
                    text=describe(state, action, viewer), decision=decision)


def end_sentence(state: State, viewer: int | None, you: bool = True) -> str:
    """The game's end, in words (a finished state)."""
    reasons: dict[str, str] = {
        EndReason.DECK: "the deck ran out", EndReason.SITES: "the last in-town site was taken",
        EndReason.CATACOMB: "a Catacomb was completed", EndReason.FORUM: "a Forum condition was met",
        EndReason.CONCESSION: "every other player conceded"}
    winners = state.winners()
    who = " and ".join(seat_name(p, viewer, you=you) for p in winners)
    verb = "share the win" if len(winners) > 1 else _verb("win", you and winners == [viewer])
    return f"The game is over ({reasons.get(state.end_reason() or '', state.end_reason())}): {who} {verb}."


class LogBook:
    """The public log of a game as one viewer reads it: a header line at each new turn,
    one sentence per decision, concessions and the end. ``lines`` are the text;
    ``decisions[i]`` is the number of actions played when line i was written (so a
    replay shows the lines up to its step). ``you``: the viewer is addressed as "You" (a
    person plays that seat); False for a bot's view watched by a spectator."""

    def __init__(self, viewer: int | None, you: bool = True) -> None:
        self.viewer = viewer
        self.you = you
        self.lines: list[str] = []
        self.decisions: list[int] = []
        self._turn = -1
        self._ended = False

    def _add(self, text: str, decision: int) -> None:
        self.lines.append(text)
        self.decisions.append(decision)

    def _turn_start(self, state: State, decision: int) -> None:
        if not state.is_terminal() and state.turn_number() != self._turn:
            self._turn = state.turn_number()
            self._add(f"-- {turn_header(state, self.viewer, self.you)}", decision)

    def action(self, state: State, action: int, decision: int) -> str:
        """Log `action`, about to be played from `state` as decision number `decision`."""
        self._turn_start(state, decision)
        text = describe(state, action, self.viewer, self.you)
        self._add(f"   {text}", decision + 1)
        return text

    def concession(self, state: State, seat: int, decision: int) -> None:
        self._turn_start(state, decision)
        name = seat_name(seat, self.viewer, you=self.you)
        self._add(f"   {name} {_verb('concede', self.you and seat == self.viewer)} the game.", decision)

    def end(self, state: State, decision: int) -> None:
        if state.is_terminal() and not self._ended:
            self._ended = True
            self._add(end_sentence(state, self.viewer, self.you), decision)

    def upto(self, decision: int) -> list[str]:
        """The lines a replay shows once `decision` actions have been played."""
        return [line for line, d in zip(self.lines, self.decisions, strict=True) if d <= decision]


def log_of(record: Any, viewer: int | None) -> LogBook:
    """The log of a recorded game (a record with seed, rules, actions, concessions)."""
    from .records import states

    book = LogBook(viewer)
    conceded: dict[int, list[int]] = {}
    for c in record.get("concessions") or ():
        conceded.setdefault(int(c["decision"]), []).append(int(c["seat"]))
    for i, (state, action) in enumerate(states(record)):
        for seat in conceded.get(i, ()):
            book.concession(state, seat, i)
        if action is None:
            book.end(state, i)
        else:
            book.action(state, action, i)
    return book
