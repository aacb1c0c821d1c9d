"""``glory-ai play``: a person against bots in the terminal.

The person's screen is built from their observation only (glory_ai.interactive.view);
bots move between the person's decisions. At each decision the person types a number from
the menu or an action string, or a command: ``hint``, ``undo``, ``concede``, ``log``,
``card NAME``, ``table``, ``help``, ``quit``. The game is saved after every decision of the
person (and on ``quit`` or the end of the input) and resumes with ``glory-ai play --resume
FILE``; a finished game is appended as an arena record to the games file.
"""
from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table
from rich.text import Text

from .._jsonio import JSONLimitError, read_json
from ..arena.hosted import game_bot
from ..bots import BotError
from ..game import Game, State
from .advice import AdviceError, advice_lines, advise
from .narrate import LogBook
from .records import (
    HUMAN,
    GameError,
    append_record,
    build_record,
    count_records,
)
from .screen import Screen, render_view
from .seats import hint_seed, seat_names
from .view import card_info, table_view

__all__ = ["PlaySession", "SESSION_FORMAT", "load_session", "score_table", "EXIT_QUIT"]

SESSION_FORMAT = "glory_ai/play-session"
SESSION_VERSION = 1

#: the exit status of a game left unfinished (saved; resume it later)
EXIT_QUIT = 0

#: the search bot answering hint unless another is given
DEFAULT_HINT_BOT = "ismcts:iters=5000"

HELP = """\
Type the number of a choice, or the action itself as listed (any case), then Enter.
Commands:
  hint [N]     what a search bot makes of this decision: its top N moves (default 5), with
               the share of the search each got and the expected result (a win chance),
               searched from what you know only
  undo         take back your last decision (and the bots' moves since)
  concede      leave the game (asks to confirm); {concede}
  log          the whole log of the game so far
  card NAME    a card's material, role, value and building function
  table        show the table again
  help         this text
  quit         save the game and stop; resume with: glory-ai play --resume FILE
VP "so far" counts influence, the vault cards you can see, Statue and Wall; the Merchant
bonuses need every vault and are settled at the end. Another player's hidden hand and
vault show as counts (with the cards everyone saw enter them)."""


def bot_move(bots: Mapping[int, Any] | Sequence[Any], seats: Sequence[str], state: State) -> int:
    """The move of the bot to play in ``state``; a user's bot that fails (raises, dies in its
    host, answers an illegal action) is a GameError, one line naming it, its seat and the
    decision (a KeyboardInterrupt it raises is its failure, not the person's Ctrl-C)."""
    player = state.current_player()
    try:
        return bots[player].step(state)
    except BotError as error:
        raise GameError(f"bot {seats[player]} (seat {player}) {error.message}, at decision "
                        f"{len(state.history())} (turn {state.turn_number() + 1})") from None


@dataclass
class PlaySession:
    """One game with a person in seat `human` (None: bots only) and bots elsewhere."""

    num_players: int
    mode: str
    variant: dict[str, Any]
    seed: int
    seats: list[str]
    bot_seeds: list[int]
    human: int | None
    hint_bot: str = DEFAULT_HINT_BOT
    save_path: Path | None = None
    games_path: Path | None = None
    actions: list[int] = field(default_factory=list)
    concessions: list[dict[str, int]] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    screen: Screen = field(default_factory=Screen)
    #: called after every move a bot makes with the log lines it added (watch: the delay
    #: and the redraw)
    on_bot_move: Callable[[State, list[str]], None] | None = None
    #: whose view the screen shows: the person's; without a person (watch) a seat, or
    #: None for everything
    viewer: int | None = None
    #: which bots play in a bot host, and its memory cap (glory_ai.arena.hosted)
    isolation: str = "users"
    bot_memory: int | None = None
    #: the built-in bots' parameters as the game is played, by spec (saved with it, as a
    #: run's code.json records them): a resumed game goes on with the bots it began with
    #: whatever defaults changed since; None: a new game, or a save that records none
    parameters: dict[str, dict[str, Any]] | None = None

    def __post_init__(self) -> None:
        from ..arena.code import spec_as_played, spec_parameters

        if not self.seconds:
            self.seconds = [0.0] * self.num_players
        self.game = Game(self.num_players, self.mode, **self.variant)
        self.variant = self.game.config().variant()
        start = self.game.new_initial_state(self.seed)
        played = self.parameters or {}
        built = {spec: spec_as_played(spec, played[spec]) for spec in self.seats if spec in played}
        self.parameters = spec_parameters([spec for spec in self.seats if spec != HUMAN], built)
        self.bots = {p: game_bot(built.get(spec, spec), seed, p, start, isolation=self.isolation,
                                 bot_memory=self.bot_memory)
                     for p, (spec, seed) in enumerate(zip(self.seats, self.bot_seeds, strict=True))
                     if spec != HUMAN}
        if self.human is not None:
            self.viewer = self.human
        # "you" only for a person's seat: watching a bot's view (--as) names the bot
        self.names = seat_names(self.seats, self.human)
        self._rebuild()

    # ---- the game state, rebuilt from the actions -----------------------------------------

    def _rebuild(self) -> None:
        """The state and the log from the seed, the actions and the concessions."""
        state = self.game.new_initial_state(self.seed)
        self.log = LogBook(self.viewer, you=self.human is not None)
        conceded: dict[int, list[int]] = {}
        for c in self.concessions:
            conceded.setdefault(c["decision"], []).append(c["seat"])
        self.human_decisions: list[int] = []
        for i, action in enumerate(self.actions):
            for seat in conceded.get(i, ()):
                self.log.concession(state, seat, i)
                state.concede(seat)
            if state.is_terminal() or action not in state.legal_actions():
                raise GameError(f"the saved game does not replay: action {i} ({action}) is not legal")
            if state.current_player() == self.human:
                self.human_decisions.append(i)
            self.log.action(state, action, i)
            state.apply_action(action)
        for seat in conceded.get(len(self.actions), ()):
            self.log.concession(state, seat, len(self.actions))
            state.concede(seat)
        self.state = state

    def _play(self, action: int) -> None:
        i = len(self.actions)
        if self.state.current_player() == self.human:
            self.human_decisions.append(i)
        self.log.action(self.state, action, i)
        self.state.apply_action(action)
        self.actions.append(action)

    # ---- saving ----------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": SESSION_FORMAT, "version": SESSION_VERSION,
            "num_players": self.num_players, "mode": self.mode, "variant": self.variant,
            "seed": self.seed, "seats": self.seats, "bot_seeds": self.bot_seeds, "human": self.human,
            "hint_bot": self.hint_bot,
            # absolute: a game resumed from another folder is recorded in the same file
            "games_file": str(self.games_path.resolve()) if self.games_path else None,
            "actions": self.actions, "concessions": self.concessions,
            "seconds": [round(s, 6) for s in self.seconds], "parameters": self.parameters,
        }

    def save(self) -> None:
        if self.save_path is None:
            return
        path = self.save_path
        if path.parent and not path.parent.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_dict(), indent=1) + "\n", encoding="utf-8")
        os.replace(tmp, path)

    # ---- the loop --------------------------------------------------------------------------

    def run(self) -> int:
        """Play until the end of the game (0), or until the person quits (the game saved)."""
        screen = self.screen
        if self.human is not None:
            who = ", ".join(f"P{p} {'(you)' if s == HUMAN else s}" for p, s in enumerate(self.seats))
            screen.say(f"Glory to Rome, {self.num_players} players, {self.mode}, seed {self.seed}: {who}",
                       "bold")
            if self.actions:
                screen.say(f"Resuming after {_decisions(len(self.actions))}.")
        try:
            while not self.state.is_terminal():
                player = self.state.current_player()
                if player == self.human:
                    if not self._human_turn():
                        return EXIT_QUIT
                else:
                    self._bot_turn(player)
        except KeyboardInterrupt:
            if self.human is not None:
                self._quit("interrupted")
            raise
        self._finish()
        return 0

    def _bot_turn(self, player: int) -> None:
        start = time.perf_counter()
        if self.screen.interactive and self.human is not None:
            with self.screen.console.status(f"P{player} ({self.seats[player]}) is thinking..."):
                action = bot_move(self.bots, self.seats, self.state)
        else:
            action = bot_move(self.bots, self.seats, self.state)
        self.seconds[player] += time.perf_counter() - start
        logged = len(self.log.lines)
        self._play(action)
        if self.on_bot_move is not None:
            self.on_bot_move(self.state, self.log.lines[logged:])

    def _show_table(self) -> None:
        view = table_view(self.state, self.viewer, names=self.names, you=self.human is not None)
        self.screen.clear()
        self.screen.show(render_view(view, self.log.lines, plain=self.screen.plain,
                                     title=f"Glory to Rome (seed {self.seed})"))
        menu = view.get("menu") or []
        self.screen.menu([(i, text) for i, (_, text) in enumerate(menu, start=1)])

    def _human_turn(self) -> bool:
        """Ask the person until one move is made (True), or they quit (False)."""
        state = self.state
        self._show_table()
        legal = state.legal_actions()
        started = time.perf_counter()
        while True:
            line = self.screen.ask("> ")
            if line is None:
                self._quit("the input ended")
                return False
            text = " ".join(line.split())
            word, _, rest = text.partition(" ")
            word = word.lower()
            if not text:
                self.screen.say(f"Type a number from 1 to {len(legal)}, an action, or help.")
                continue
            if text.isdigit():
                number = int(text)
                if 1 <= number <= len(legal):
                    self._human_move(legal[number - 1], started)
                    return True
                self.screen.say(f"There is no choice {number}: type a number from 1 to {len(legal)}.")
                continue
            if word in ("quit", "exit", "q"):
                self._quit("you quit")
                return False
            if word in ("help", "?", "h"):
                self.screen.say(HELP.format(concede=self._after_concession()))
                continue
            if word == "hint":
                self._hint(rest)
                continue
            if word == "undo":
                if self._undo():
                    return True
                continue
            if word == "concede":
                if self._concede():
                    return True
                continue
            if word == "log":
                for entry in self.log.lines:
                    self.screen.say(entry)
                continue
            if word in ("card", "info"):
                self._card(rest)
                continue
            if word in ("table", "t"):
                self._show_table()
                continue
            try:
                action = state.string_to_action(text)
            except ValueError:
                self.screen.say(f"Not a move here: {text!r}. Type a number from 1 to {len(legal)}, "
                                f"an action as listed, or help.", "red")
                continue
            self._human_move(action, started)
            return True

    def _human_move(self, action: int, started: float) -> None:
        assert self.human is not None
        self.seconds[self.human] += time.perf_counter() - started
        self._play(action)
        self.screen.say(self.log.lines[-1].strip(), "green")
        self.save()

    def _hint(self, rest: str) -> None:
        top = 5
        if rest.strip():
            if not rest.strip().isdigit() or int(rest) < 1:
                self.screen.say("hint takes a number of moves to show, e.g. hint 3")
                return
            top = int(rest)
        assert self.human is not None
        self.screen.say(f"Searching ({self.hint_bot})...")
        try:
            advice = advise(self.state, self.hint_bot, seed=hint_seed(self.seed, self.human),
                            player=self.human)
        except AdviceError as exc:
            self.screen.say(str(exc), "red")
            return
        names = [f"P{p}" if p != self.human else "you" for p in range(self.num_players)]
        for line in advice_lines(advice, top, names):
            self.screen.say(line)

    def _undo(self) -> bool:
        """Back to the person's previous decision (True: the state changed)."""
        now = len(self.actions)
        earlier = [i for i in self.human_decisions if i < now]
        if not earlier:
            self.screen.say("Nothing to undo: this is your first decision.")
            return False
        back = earlier[-1]
        del self.actions[back:]
        self.concessions = [c for c in self.concessions if c["decision"] <= back]
        self._rebuild()
        self.screen.say(f"Undone: back to your decision {len(self.human_decisions) + 1} "
                        f"(decision {back + 1} of the game).", "yellow")
        self.save()
        return True

    def _after_concession(self) -> str:
        """What follows the person's concession: with one opponent still playing (any
        2-player game), the game ends and that player wins; else the bots play on."""
        others = [p for p in range(self.num_players) if p != self.human and not self.state.has_conceded(p)]
        return "the other player wins" if len(others) == 1 else "the bots will play it out without you"

    def _concede(self) -> bool:
        after = self._after_concession()
        answer = self.screen.ask(f"Concede the game? {after[0].upper()}{after[1:]}. (yes/no) ")
        if answer is None or answer.strip().lower() not in ("y", "yes"):
            self.screen.say("Not conceded.")
            return False
        assert self.human is not None
        i = len(self.actions)
        self.concessions.append({"decision": i, "seat": self.human})
        self.log.concession(self.state, self.human, i)
        self.state.concede(self.human)
        self.screen.say("You concede.", "yellow")
        self.save()
        return True

    def _card(self, rest: str) -> None:
        try:
            info = card_info(rest.strip(), self.state.config())
        except ValueError:
            self.screen.say(f"No card named {rest.strip()!r}: e.g. card Temple")
            return
        if info["material"] is None:
            self.screen.say(f"Jack: {info['function']}")
            return
        self.screen.say(f"{info['name']}: {info['material']}, role {info['role']}, value {info['value']}. "
                        f"{info['function']}")

    def _quit(self, why: str) -> None:
        self.save()
        if self.save_path is not None:
            self.screen.say(f"Game saved ({why}) after {_decisions(len(self.actions))} in {self.save_path}.")
            self.screen.say(f"Resume it with: glory-ai play --resume {self.save_path}")
        else:
            self.screen.say(f"Game stopped ({why}); not saved.")

    def _finish(self) -> None:
        state = self.state
        self.log.end(state, len(self.actions))
        view = table_view(state, self.viewer, names=self.names, you=self.human is not None)
        self.screen.show(render_view(view, self.log.lines, plain=self.screen.plain,
                                     title=f"Glory to Rome (seed {self.seed})"))
        self.screen.show(score_table(state, self.names, plain=self.screen.plain))
        record = self.record(deal=count_records(self.games_path) if self.games_path is not None else 0)
        if self.games_path is not None:
            append_record(self.games_path, record)
            self.screen.say(f"The game is recorded in {self.games_path} as game {record['game_id']} "
                            f"(glory-ai replay {self.games_path} --game {record['game_id']}).")
        if self.save_path is not None and self.save_path.exists():
            self.save_path.unlink()
        self.finished_record = record

    def record(self, deal: int = 0) -> dict[str, Any]:
        """The arena record of the finished game."""
        return build_record(num_players=self.num_players, mode=self.mode, variant=self.variant,
                            seed=self.seed, seats=self.seats, bot_seeds=self.bot_seeds,
                            actions=self.actions, concessions=self.concessions, seconds=self.seconds,
                            game_id=f"{deal}-0-0", deal=deal)


def score_table(state: State, names: Sequence[str], *, plain: bool) -> Table:
    """The final scores with the VP breakdown and the winners."""
    from rich import box

    winners = state.winners()
    reason = state.end_reason()
    table = Table(title=f"Final scores (the game ended: {reason})", box=None if plain else box.SIMPLE_HEAD,
                  title_justify="left", title_style="bold" if not plain else "")
    points = bool(state.config().points)          # a variant's building points (R-V.2)
    columns = ["seat", "player", "influence", "vault", "merchant bonus", "statue", "wall"]
    for column in columns + (["buildings"] if points else []) + ["VP", ""]:
        table.add_column(column, justify="left" if column in ("seat", "player", "") else "right")
    for p in range(state.num_players()):
        b = state.score_breakdown(p)
        mark = "winner" if p in winners else ("conceded" if state.has_conceded(p) else "")
        cells = [f"P{p}", names[p], str(b["influence"]), str(b["vault"]), str(b["merchant_bonus"]),
                 str(b["statue"]), str(b["wall"])] + ([str(b["buildings"])] if points else [])
        table.add_row(*cells, Text(str(b["total"]), style="bold"),
                      Text(mark, style="bold green" if mark == "winner" else ""))
    return table


def load_session(path: str | os.PathLike, screen: Screen | None = None, **overrides: Any) -> PlaySession:
    """A saved game, ready to go on. GameError if the file is not a saved game."""
    path = Path(path)
    try:
        data = read_json(path)
    except FileNotFoundError:
        raise GameError(f"{path}: no saved game there") from None
    except JSONLimitError as exc:
        raise GameError(f"{exc} (not a saved game)") from None
    except (OSError, ValueError) as exc:
        raise GameError(f"{path}: not a saved game ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != SESSION_FORMAT:
        raise GameError(f"{path}: not a saved game of glory-ai play")
    if data.get("version") != SESSION_VERSION:
        raise GameError(f"{path}: a saved game of version {data.get('version')!r}; this build reads "
                        f"version {SESSION_VERSION}")
    parameters = data.get("parameters")
    if parameters is not None and not (isinstance(parameters, dict)
                                       and all(isinstance(v, dict) for v in parameters.values())):
        raise GameError(f"{path}: the saved game's 'parameters' are not the bots' parameters by spec")
    try:
        session = PlaySession(
            num_players=data["num_players"], mode=data["mode"], variant=data["variant"], seed=data["seed"],
            seats=list(data["seats"]), bot_seeds=list(data["bot_seeds"]), human=data["human"],
            hint_bot=overrides.get("hint_bot") or data.get("hint_bot", DEFAULT_HINT_BOT),
            save_path=path,
            games_path=Path(data["games_file"]) if data.get("games_file") else None,
            actions=list(data["actions"]), concessions=list(data.get("concessions", [])),
            seconds=list(data.get("seconds", [])), screen=screen or Screen(), parameters=parameters)
    except KeyError as exc:
        raise GameError(f"{path}: the saved game has no {exc.args[0]!r}") from None
    except (TypeError, ValueError) as exc:
        raise GameError(f"{path}: the saved game cannot be set up: {exc}") from None
    return session


def _decisions(n: int) -> str:
    return f"{n} decision" if n == 1 else f"{n} decisions"
