"""What every glory-ai subcommand's parser shares: one-line errors with exit status 2, help
texts that show defaults and keep descriptions and examples as written, the argument types
that several subcommands take (players, seed, mode, workers, counts, seconds), and
:func:`run_entry_point`, which every ``main()`` (``glory-ai`` and each ``python3 -m
glory_ai.<package>.commands``) runs through, so that a closed pipe and Ctrl-C end every entry
point the same way.

This module sits at the bottom of the package (it imports only the core's constants), so the
command modules of every layer can use it.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from .core.config import MAX_SEED, MODES, seed_error

#: exit statuses shared by every entry point
EXIT_USAGE = 2                  # a mistake in the command line or the input
EXIT_INTERRUPTED = 130          # 128 + SIGINT (Ctrl-C)
EXIT_TERMINATED = 143           # 128 + SIGTERM (a run stopped by `kill`, glory_ai.arena.runner)
EXIT_BROKEN_PIPE = 141          # 128 + SIGPIPE, as a process killed by SIGPIPE reports


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown where there is one to show (not for flags and automatic values);
    descriptions and epilogs (examples) as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        # by identity: a default of 0 (a seed) is shown, though 0 == False
        if action.default is None or action.default is False or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# ---- argument types -------------------------------------------------------------------------

def _integer(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:
        return None


def players(text: str) -> int:
    """--players: 2 to 5."""
    value = _integer(text)
    if value is None or not 2 <= value <= 5:
        raise argparse.ArgumentTypeError(f"expected a number of players from 2 to 5, got {text!r}")
    return value


def seed(text: str) -> int:
    """--seed: an integer from 0 to 2**64 - 1 (the engine's seed range)."""
    value = _integer(text)
    if value is None or not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(seed_error(text, "the seed"))
    return value


def mode(text: str) -> str:
    """--mode: republic or imperium, in any case."""
    value = text.strip().lower()
    if value not in MODES:
        raise argparse.ArgumentTypeError(f"expected one of {', '.join(MODES)} (any case), got {text!r}")
    return value


def jobs(text: str) -> int:
    """--jobs: a positive number of workers, or -1 for one per core."""
    value = _integer(text)
    if value is None or value == 0 or value < -1:
        raise argparse.ArgumentTypeError(f"expected a number of workers (or -1 for every core), got {text!r}")
    return value


def positive(what: str) -> Callable[[str], int]:
    """A positive count of `what` (``positive("games")``)."""
    def parse(text: str) -> int:
        value = _integer(text)
        if value is None or value < 1:
            raise argparse.ArgumentTypeError(f"expected a positive number of {what}, got {text!r}")
        return value
    parse.__name__ = f"positive_{what.replace(' ', '_')}"
    return parse


def folder_name(text: str) -> str:
    """An output folder named on the command line: not empty (``--out ""`` would silently
    mean the current folder or the default)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder name, got an empty one")
    return text



def seconds(low: float = 0.0, high: float = math.inf, *,
            low_included: bool = False) -> Callable[[str], float]:
    """A number of seconds above `low` (or at least it, with ``low_included``) and at most
    `high`; nan and infinity are refused."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        above = value >= low if low_included else value > low
        if not (math.isfinite(value) and above and value <= high):
            bound = "at least" if low_included else "more than"
            upper = f" and at most {high:g}" if math.isfinite(high) else ""
            raise argparse.ArgumentTypeError(
                f"expected a number of seconds {bound} {low:g}{upper}, got {text!r}")
        return value
    return parse


# ---- options shared by the commands that play with the arena ---------------------------------

def add_scheduling_options(parser: argparse.ArgumentParser, backends: Sequence[str], *,
                           from_config: bool = False, progress: bool = True) -> None:
    """How the games are scheduled, in one vocabulary for compare, tournament, run and
    reproduce: ``--jobs/-j J``, ``--backend``, ``--scheduler ADDRESS``, ``--batch-size B``
    and ``--no-progress`` (``args.no_progress``). None of them changes a game record.
    ``from_config``: each defaults to the experiment config's ``[run]`` (run, reproduce)
    rather than to its own default."""
    def default(value: object, key: str) -> tuple[object, str]:
        return (None, f" (default: the config's [run].{key})") if from_config else (value, "")

    group = parser.add_argument_group("scheduling (the game records do not depend on it)")
    jobs_default, jobs_note = default(-1, "jobs")
    group.add_argument("--jobs", "-j", type=jobs, default=jobs_default, metavar="J",
                       help=f"parallel workers (-1: every core){jobs_note}")
    backend_default, backend_note = default("loky", "backend")
    group.add_argument("--backend", choices=tuple(backends), default=backend_default,
                       help=f"parallel backend (dask is an optional extra){backend_note}")
    group.add_argument("--scheduler", metavar="ADDRESS", default=None,
                       help="dask scheduler address, tcp://HOST:8786 (with --backend dask"
                            + ("; default: the config's [run].scheduler)" if from_config else ")"))
    group.add_argument("--batch-size", type=positive("games per batch"), default=None, metavar="B",
                       help="games per task sent to a worker (default: "
                            + ("the config's [run].batch_size, else automatic)" if from_config
                               else "automatic)"))
    if progress:
        group.add_argument("--no-progress", action="store_true", help="no progress bar")


def add_trust_option(parser: argparse.ArgumentParser) -> None:
    """``--trust``, the same on every command that takes bot specs or a config naming them:
    code a spec names (a file, a module) runs only with it (glory_ai.bots.trust)."""
    parser.add_argument("--trust", action="store_true",
                        help="run the code that a bot spec or the config names (a file PATH.py:OBJECT, "
                             "a module MODULE:OBJECT); without it such a spec is refused, naming the code. "
                             "Built-in, registered and installed plugin bots need no trust "
                             "(docs/extending.md, 'Code runs only when asked')")


def add_isolation_options(parser: argparse.ArgumentParser) -> None:
    """Where the bots play, in one vocabulary for every command that plays games:
    ``--isolation users|all|none`` (``args.isolation``, None when not given: ``users``) and
    ``--bot-memory MB`` (``args.bot_memory``); glory_ai.arena.hosted. Neither changes a game
    record."""
    group = parser.add_argument_group("bot isolation (docs/extending.md#isolation)")
    group.add_argument("--isolation", choices=("users", "all", "none"), default=None,
                       help="which bots play in a bot host process of their own, sent only "
                            "their player's fair view: users' bots (a file, a module, an entry "
                            "point; the default), all (the built-ins too) or none")
    group.add_argument("--bot-memory", type=positive("megabytes"), default=None, metavar="MB",
                       help="address space each bot host may use, in MB (a bot past it fails)")


# ---- entry points ---------------------------------------------------------------------------

def _quiet_stdout() -> None:
    # stdout's reader has gone: point stdout at devnull so that the interpreter's final flush
    # does not report the broken pipe a second time (Python docs, "Note on SIGPIPE")
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def run_entry_point(build_parser: Callable[[], argparse.ArgumentParser], argv: Sequence[str] | None,
                    prog: str = "glory-ai") -> int:
    """Parse `argv` with the parser `build_parser()` makes and run the chosen ``func(args)``.
    A user mistake (ValueError) is one line on stderr, status 2; --help and --version reach a
    closed pipe quietly; a closed pipe ends with 141 and Ctrl-C with 130 (a run turns
    SIGTERM into its own interruption, glory_ai.arena.runner)."""
    try:
        from .bots.trust import code_trust

        parser = build_parser()
        with code_trust(False):         # an option's type runs no code a spec names
            args = parser.parse_args(None if argv is None else list(argv))
        try:
            with code_trust(getattr(args, "trust", False)):     # the command line trusts no code unasked
                code = args.func(args)
        except ValueError as exc:
            sys.stdout.flush()
            print(f"{prog}: error: {' '.join(str(exc).split())}", file=sys.stderr)
            return EXIT_USAGE
        sys.stdout.flush()          # a broken pipe shows here, not at interpreter exit
        return int(code or 0)
    except SystemExit as exc:
        # --help, --version and usage errors: their text must reach the reader now
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _quiet_stdout()
            return EXIT_BROKEN_PIPE
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else EXIT_USAGE)
    except BrokenPipeError:
        _quiet_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
