"""The game plan of a run: its config, the games it is made of and their seeds.

A run is defined by a :class:`RunConfig` (frozen, JSON-serialisable). It expands into
:class:`GameTask` objects, one per (deal, pairing, rotation), each carrying everything a
worker needs to play the game: the deal seed, the spec and seed of the bot in every seat,
the player count, mode and variant. Nothing here depends on how the games get scheduled.

Seeding (docs/arena.md): with ``root`` the run's seed,

* deal ``d`` is dealt from ``SeedSequence(entropy=root, spawn_key=(d,))``;
* the bot in seat ``s`` of rotation ``r`` of deal ``d`` is seeded from
  ``SeedSequence(entropy=root, spawn_key=(d, r, s))``;

each as the first 64-bit word of ``generate_state``. Every seed is O(1) to compute, so a
game can be (re)played alone, in any order, on any worker.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._words import article, plural
from ..bots.trust import code_named
from ..config import MODES, GameConfig
from ..core.config import check_seed
from ._loop import seed_word

__all__ = [
    "ArenaError", "FORMATS", "GameTask", "RunConfig", "bot_seed", "canonical_spec", "deal_seed",
    "CONFIG_FORMAT", "CONFIG_VERSION", "MAX_DEALS",
]

#: the formats of a run
FORMATS = ("head_to_head", "field", "round_robin", "gauntlet")

CONFIG_FORMAT = "glory_ai/arena-run"
CONFIG_VERSION = 1

#: the most deals a run can have (a run of more would take years; the bound keeps a typo in
#: --games from reserving the machine)
MAX_DEALS = 10_000_000


class ArenaError(ValueError):
    """A run that cannot go ahead as asked (bad config, a folder of another run, a record
    that does not replay): the message is one line meant for the user."""


def canonical_spec(spec: str) -> str:
    """The one form a run records a spec in: a bot named by its name (a built-in, a
    registered or an entry-point bot) with the name and the parameter keys in lower case,
    true/false values in lower case, no spaces, the parameters in the order written; a bot
    named by its file or module as written (a path keeps its case). Names, keys and
    true/false are read in any case, so ``Greedy`` and ``greedy`` are one bot, labelled
    ``greedy``. SpecError (a ValueError) for a spec that is not valid. The same as
    :attr:`glory_ai.bots.BotSpec.canonical`.

    >>> canonical_spec(" ISMCTS:Iters=200, C=0.5 ")
    'ismcts:iters=200,c=0.5'
    >>> canonical_spec("heuristic:style=builder,epsilon=0.1")
    'heuristic:style=builder,epsilon=0.1'
    """
    from ..bots import BotSpec

    return BotSpec.parse(spec).canonical


def _seed_word(root: int, key: tuple[int, ...]) -> int:
    # = int(SeedSequence(...).generate_state(1, np.uint64)[0]), computed in C (_loop.pyx) in
    # a hundredth of numpy's time; numpy's own for what that does not take (a root or key
    # integer out of 0..2**64 - 1, more than 8 key integers), so its errors stay numpy's
    try:
        return seed_word(root, key)
    except (OverflowError, TypeError, ValueError):
        low, high = np.random.SeedSequence(entropy=root, spawn_key=key).generate_state(2, np.uint32).tolist()
        return low | (high << 32)


def deal_seed(root: int, deal: int) -> int:
    """The engine seed of deal ``deal`` of a run with root seed ``root``."""
    return _seed_word(root, (deal,))


def bot_seed(root: int, deal: int, rotation: int, seat: int) -> int:
    """The seed of the bot in ``seat`` in rotation ``rotation`` of deal ``deal``."""
    return _seed_word(root, (deal, rotation, seat))


@dataclass(frozen=True)
class GameTask:
    """Everything needed to play one game of a run (picklable; no engine state)."""

    game_id: str
    deal: int
    pairing: int
    rotation: int
    seed: int
    bot_seeds: tuple[int, ...]
    seats: tuple[str, ...]
    num_players: int
    mode: str
    variant: Mapping[str, Any]
    #: how to play it beyond the config (glory_ai.arena.play.PlayOptions: users' bots
    #: shipped to the worker, the move time limit, forfeits), set by run(); None: plainly
    options: Any = None
    #: the spec each seat's bot is built from, when one differs from ``seats`` (a replay of
    #: a run played with other defaults: RunConfig.played); None: the seats' specs
    built: tuple[str, ...] | None = None


def _expected_score(elo: float) -> float:
    """The score a logistic Elo difference predicts, 1 / (1 + 10^(-elo/400))."""
    exponent = -elo * math.log(10.0) / 400.0
    return 0.0 if exponent > 709.0 else 1.0 / (1.0 + math.exp(exponent))


def _sprt_problem(values: tuple[float, ...]) -> str | None:
    """What is wrong with SPRT parameters (elo0, elo1, alpha, beta), or None. The test itself
    (glory_ai.analysis.stats.DealSPRT) is the caller's: the arena stores the parameters."""
    elo0, elo1, alpha, beta = values
    if not all(math.isfinite(v) for v in values):
        return "each must be a finite number"
    if not elo0 < elo1:
        return f"elo0 ({elo0}) must be less than elo1 ({elo1})"
    if not (0 < alpha < 1 and 0 < beta < 1):
        return "alpha and beta must be strictly between 0 and 1"
    if alpha + beta >= 1:
        return "alpha + beta must be less than 1"
    # the expected scores of the two hypotheses must not round to 0 or 1
    if not (0.0 < _expected_score(elo0) and _expected_score(elo1) < 1.0):
        return "elo0 and elo1 are too extreme: their expected scores round to 0 or 1"
    return None


def game_id(deal: int, pairing: int, rotation: int) -> str:
    """The stable id of a game: ``"DEAL-PAIRING-ROTATION"``, e.g. ``"12-0-1"``."""
    return f"{deal}-{pairing}-{rotation}"


def _is_int(value: object) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


@dataclass(frozen=True)
class RunConfig:
    """What a run plays: its identity (see docs/arena.md).

    ``specs``: bot specs. ``players``: seats per game. ``deals``: number of deals; each deal
    is played once per pairing and seat rotation. ``mode`` and ``variant``: the rules
    (``variant`` is stored resolved, defaults included). ``seed``: the root seed.
    ``format``: ``head_to_head`` (2 specs, 2 players), ``field`` (up to ``players`` specs
    filling the seats, cycled if fewer, in every cyclic rotation), ``round_robin`` (every pair
    of specs head to head) or ``gauntlet`` (``specs[0]`` head to head against each of the
    others); None infers it. ``rotate``: play every deal in every seat rotation (default) or
    once. ``sprt``: ``(elo0, elo1, alpha, beta)`` to stop a head-to-head match once decided.

    How the games are scheduled (jobs, batch size, backend) is not part of the config, nor
    is ``played``: by spec, the spec its bots are built from instead, the spec as a recorded
    run played it (glory_ai.arena.code.played_config: a replay or a resume of a run played
    before a default changed); the records name the specs as written.
    """

    specs: tuple[str, ...]
    players: int = 2
    deals: int = 1
    mode: str = "republic"
    variant: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    format: str | None = None
    rotate: bool = True
    sprt: tuple[float, float, float, float] | None = None
    played: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        specs = self.specs
        if isinstance(specs, str) or not isinstance(specs, Sequence):
            raise ArenaError(f"specs must be a list of bot specs, got {specs!r}")
        specs = tuple(specs)
        if not specs:
            raise ArenaError("give at least one bot spec")
        cleaned = []
        for spec in specs:
            if not isinstance(spec, str):
                raise ArenaError(f"a bot spec is a string like 'ismcts:iters=200', got {spec!r}")
            if code_named([spec]):
                # a file's or a module's bot is recorded as written: its code is not run to
                # describe a run (a report or a check of its folder); the run reads it
                cleaned.append(spec.strip())
                continue
            try:
                cleaned.append(canonical_spec(spec))
            except ValueError as exc:
                raise ArenaError(str(exc)) from None
        object.__setattr__(self, "specs", tuple(cleaned))

        if not _is_int(self.players) or not 2 <= self.players <= 5:
            raise ArenaError(f"players must be an integer from 2 to 5, got {self.players!r}")
        object.__setattr__(self, "players", int(self.players))
        if not _is_int(self.deals) or not 1 <= self.deals <= MAX_DEALS:
            raise ArenaError(f"deals must be an integer from 1 to {MAX_DEALS:,}, got {self.deals!r}")
        object.__setattr__(self, "deals", int(self.deals))
        try:
            object.__setattr__(self, "seed", check_seed(self.seed))
        except (TypeError, ValueError) as error:
            raise ArenaError(str(error)) from None
        if not isinstance(self.rotate, bool):
            raise ArenaError(f"rotate must be true or false, got {self.rotate!r}")

        mode = self.mode.lower() if isinstance(self.mode, str) else self.mode
        if mode not in MODES:
            raise ArenaError(f"mode must be one of {', '.join(MODES)}, got {self.mode!r}")
        object.__setattr__(self, "mode", mode)
        if not isinstance(self.variant, Mapping):
            raise ArenaError(f"variant must map option names to values, got {self.variant!r}")
        try:
            rules = GameConfig.from_options(self.players, mode, **dict(self.variant))
        except (TypeError, ValueError) as exc:
            raise ArenaError(f"bad rule variant: {exc}") from None
        # resolved and JSON-shaped: {} and {"refill_size": 5} are the same rules
        object.__setattr__(self, "variant", json.loads(json.dumps(rules.variant())))

        fmt = self.format if self.format is not None else self._infer_format()
        if fmt not in FORMATS:
            raise ArenaError(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
        object.__setattr__(self, "format", fmt)
        self._check_format(fmt)

        if self.sprt is not None:
            self._check_sprt()
        self._check_played()

    def _check_played(self) -> None:
        played = self.played
        if not isinstance(played, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in played.items()):
            raise ArenaError(f"played must map specs to the specs their bots are built from, got {played!r}")
        unknown = sorted(set(played) - set(self.specs))
        if unknown:
            raise ArenaError(f"played names specs the run does not play: {unknown}")
        object.__setattr__(self, "played", {k: v for k, v in played.items() if k != v})

    # ---- validation ---------------------------------------------------------------------

    def _infer_format(self) -> str:
        if self.players > 2 or len(self.specs) == 1:
            return "field"
        return "head_to_head" if len(self.specs) == 2 else "round_robin"

    def _check_format(self, fmt: str) -> None:
        n, k = len(self.specs), self.players
        if fmt == "field":
            if n > k:
                hint = " (for more specs than seats use a round robin: --players 2)" if k == 2 else ""
                raise ArenaError(f"a field of {k} seats takes at most {k} specs, got {n}{hint}")
            return
        if k != 2:
            raise ArenaError(f"a {fmt.replace('_', ' ')} is played by 2 players, got players={k}")
        if len(set(self.specs)) != n:
            dupes = sorted({s for s in self.specs if self.specs.count(s) > 1})
            raise ArenaError(f"the specs of a {fmt.replace('_', ' ')} must differ; repeated: {dupes}")
        if fmt == "head_to_head" and n != 2:
            raise ArenaError(f"a head-to-head match takes exactly 2 specs, got {n}")
        if fmt in ("round_robin", "gauntlet") and n < 2:
            raise ArenaError(f"a {fmt.replace('_', ' ')} takes at least 2 specs, got {n}")

    def _check_sprt(self) -> None:
        if self.format != "head_to_head":
            raise ArenaError("SPRT needs a head-to-head match (2 specs, 2 players), not "
                             f"{article(str(self.format).replace('_', ' '))}")
        sprt = self.sprt
        if isinstance(sprt, (str, bytes)) or not isinstance(sprt, Sequence) or len(sprt) != 4:
            raise ArenaError(f"sprt must be (elo0, elo1, alpha, beta), got {sprt!r}")
        try:
            values = tuple(float(x) for x in sprt)
        except (TypeError, ValueError):
            values = ()
        problem = _sprt_problem(values) if len(values) == 4 else "each must be a number"
        if problem:
            raise ArenaError(f"bad SPRT parameters {tuple(sprt)!r}: {problem}")
        object.__setattr__(self, "sprt", values)

    # ---- the plan -----------------------------------------------------------------------

    def pairings(self) -> list[tuple[str, ...]]:
        """The line-ups before rotation: specs by seat, one per pairing."""
        if self.format == "field":
            n = len(self.specs)
            return [tuple(self.specs[s % n] for s in range(self.players))]
        if self.format == "head_to_head":
            return [self.specs]
        if self.format == "round_robin":
            return list(itertools.combinations(self.specs, 2))
        candidate, *others = self.specs
        return [(candidate, other) for other in others]

    @property
    def rotations(self) -> int:
        """Seat rotations per deal and pairing (1 without rotation or with one spec)."""
        if not self.rotate or len(set(self.pairings()[0])) == 1:
            return 1
        return self.players

    @property
    def games_per_deal(self) -> int:
        return len(self.pairings()) * self.rotations

    @property
    def total_games(self) -> int:
        return self.deals * self.games_per_deal

    def seating(self, pairing: int, rotation: int) -> tuple[str, ...]:
        """Specs by seat: in rotation r the spec in line-up place i sits in seat (i + r) % K."""
        lineup = self.pairings()[pairing]
        k = self.players
        return tuple(lineup[(s - rotation) % k] for s in range(k))

    def task(self, deal: int, pairing: int = 0, rotation: int = 0) -> GameTask:
        """The game (deal, pairing, rotation) of this run."""
        seats = self.seating(pairing, rotation)
        return GameTask(
            game_id=game_id(deal, pairing, rotation), deal=deal, pairing=pairing,
            rotation=rotation, seed=deal_seed(self.seed, deal),
            bot_seeds=tuple(bot_seed(self.seed, deal, rotation, s) for s in range(self.players)),
            seats=seats, num_players=self.players, mode=self.mode, variant=self.variant,
            built=self._built(seats))

    def _built(self, seats: tuple[str, ...]) -> tuple[str, ...] | None:
        """The specs the bots of ``seats`` are built from, when :attr:`played` changes one."""
        if not self.played or not any(seat in self.played for seat in seats):
            return None
        return tuple(self.played.get(seat, seat) for seat in seats)

    def tasks(self) -> Iterator[GameTask]:
        """Every game of the run, in (deal, pairing, rotation) order, made as it is asked for."""
        for deal in range(self.deals):
            yield from self.deal_tasks(deal)

    def _seatings(self) -> tuple[tuple[tuple[str, ...], ...], ...]:
        """Specs by seat per pairing and rotation (:meth:`seating`), made once per config: a
        run asks for them at every deal."""
        cached = self.__dict__.get("_seatings_cache")
        if cached is None:
            cached = tuple(tuple(self.seating(p, r) for r in range(self.rotations))
                           for p in range(len(self.pairings())))
            object.__setattr__(self, "_seatings_cache", cached)   # not a field: not its identity
        return cached

    def deal_tasks(self, deal: int) -> list[GameTask]:
        """The games of one deal, in (pairing, rotation) order."""
        seatings = self._seatings()
        n_rot, k = len(seatings[0]), self.players
        seed = deal_seed(self.seed, deal)                    # shared by the deal's games
        bots = [tuple([bot_seed(self.seed, deal, r, s) for s in range(k)]) for r in range(n_rot)]
        return [GameTask(f"{deal}-{pairing}-{rotation}", deal, pairing, rotation, seed, bots[rotation],
                         seats, k, self.mode, self.variant, built=self._built(seats))
                for pairing, by_rotation in enumerate(seatings)
                for rotation, seats in enumerate(by_rotation)]

    def game_ids(self) -> list[str]:
        n_pairings, n_rot = len(self.pairings()), self.rotations
        return [game_id(d, p, r) for d in range(self.deals) for p in range(n_pairings)
                for r in range(n_rot)]

    @classmethod
    def deals_for(cls, games: int, games_per_deal: int) -> int:
        """Deals needed for at least ``games`` games (whole deals)."""
        if not _is_int(games) or games < 1:
            raise ArenaError(f"the number of games must be a positive integer, got {games!r}")
        if games > MAX_DEALS * games_per_deal:
            raise ArenaError(f"at most {MAX_DEALS * games_per_deal:,} games ({MAX_DEALS:,} deals of "
                             f"{games_per_deal}), got {games:,}")
        return max(1, math.ceil(games / games_per_deal))

    @classmethod
    def for_games(cls, specs: Sequence[str], games: int, **options: Any) -> RunConfig:
        """The config playing at least ``games`` games: rounded up to whole deals of every
        pairing and rotation (``.total_games`` tells how many)."""
        probe = cls(specs=tuple(specs), deals=1, **options)
        return cls(specs=tuple(specs), deals=cls.deals_for(games, probe.games_per_deal), **options)

    # ---- identity -----------------------------------------------------------------------

    def to_dict(self) -> dict:
        """JSON-safe dict of the config (its identity)."""
        return {
            "format": self.format, "specs": list(self.specs), "players": self.players,
            "deals": self.deals, "mode": self.mode, "variant": self.variant, "seed": self.seed,
            "rotate": self.rotate, "sprt": None if self.sprt is None else list(self.sprt),
        }

    @classmethod
    def from_dict(cls, d: Mapping) -> RunConfig:
        if not isinstance(d, Mapping):
            raise ArenaError(f"a run config is a JSON object, got {type(d).__name__}")
        known = {"format", "specs", "players", "deals", "mode", "variant", "seed", "rotate", "sprt"}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ArenaError(f"unknown run config key(s) {unknown}; known: {sorted(known)}")
        if "specs" not in d:
            raise ArenaError("a run config needs 'specs'")
        kwargs = dict(d)
        kwargs["specs"] = tuple(kwargs["specs"])
        if kwargs.get("sprt") is not None:
            kwargs["sprt"] = tuple(kwargs["sprt"])
        return cls(**kwargs)

    def canonical_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def short_hash(self) -> str:
        """8 hex digits identifying the config (default run folder names)."""
        return hashlib.sha256(self.canonical_json().encode()).hexdigest()[:8]

    def __hash__(self) -> int:
        return hash(self.canonical_json())

    def differences(self, other: RunConfig | Mapping) -> dict[str, tuple[Any, Any]]:
        """Keys whose values differ: {key: (self's value, other's value)}."""
        mine = self.to_dict()
        theirs = other.to_dict() if isinstance(other, RunConfig) else dict(other)
        return {k: (mine.get(k), theirs.get(k)) for k in sorted(set(mine) | set(theirs))
                if mine.get(k) != theirs.get(k)}

    def describe(self) -> str:
        """One line: who plays, how many games, rules and seed."""
        if self.format == "head_to_head":
            who = f"{self.specs[0]} vs {self.specs[1]}"
        elif self.format == "round_robin":
            who = f"round robin of {len(self.specs)} bots"
        elif self.format == "gauntlet":
            who = f"gauntlet: {self.specs[0]} vs {plural(len(self.specs) - 1, 'bot')}"
        else:
            who = f"{self.players}-player field of {', '.join(self.specs)}"
        variant = {k: v for k, v in self.variant.items()
                   if GameConfig(num_players=self.players, mode=self.mode).variant().get(k) != v}
        rules = self.mode + "".join(f", {k}={v}" for k, v in variant.items())
        return f"{who} ({rules}, {plural(self.total_games, 'game')}, seed {self.seed})"
