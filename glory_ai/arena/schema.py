"""The game record, field by field: the one schema every reader of records checks.

A record (docs/arena.md, "The game record") is checked whole by :class:`RecordSchema`:
every field present that must be, no field that is not one of a record's, each of its
type and in its range, the fields consistent with one another (the game id and the place,
the VP breakdown and the scores, the winners and the returns, the decisions and the
actions, the timing) and, given the run's plan (its :class:`~glory_ai.arena.plan.RunConfig`),
with the plan: the place one of the plan's, the deal seed and the bot seeds those of that
place, the seats, players, mode and variant those of the run. ``glory-ai verify`` then
replays the games (the result fields against the rules).

A record that fails is a :class:`RecordError` (an ArenaError) naming the file, the line,
the game and the field: ``results/x/games.jsonl: line 17 (game 3-0-1): field roles_lex is
not a field of a game record (and roles_led is missing: a renamed key?)``.

The check costs about as much as parsing the line (a few microseconds); readers run it on
every record they read.
"""
from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from typing import Any

from ..cards import CARD_NAMES, ROLES
from ..config import MODES
from ..core.enums import EndReason
from .plan import MAX_DEALS, ArenaError, RunConfig, bot_seed, deal_seed

__all__ = ["FIELDS", "OPTIONAL", "REQUIRED", "RecordError", "RecordSchema"]

#: the fields every record has (the analysis's order first, then the others)
REQUIRED = ("game_id", "deal", "pairing", "rotation", "seed", "seats", "num_players", "mode",
            "variant", "scores", "winners", "vp", "structures", "end_reason", "turns", "decisions",
            "record_version", "version", "bot_seeds", "returns", "functions_used",
            "seat_decisions", "seconds", "seconds_per_decision", "actions")
#: fields a record may have: ``roles_led`` (every record the arena writes has it; records
#: written before it existed do not), ``forfeits`` (a failing bot conceded), ``trusted_seats``
#: (a user's bot played without fair play), ``concessions`` (a person left a game),
#: ``isolated_seats`` (the seats whose bot played in a bot host process)
OPTIONAL = ("roles_led", "forfeits", "trusted_seats", "concessions", "isolated_seats")
#: every field a record can hold
FIELDS = frozenset(REQUIRED + OPTIONAL)

#: the record format this code reads
RECORD_VERSIONS = (1,)
_SEED_MAX = 2**64 - 1
_BUILDINGS = frozenset(CARD_NAMES[1:])
_ROLES = frozenset(ROLES)
_END_REASONS = frozenset([*(reason.value for reason in EndReason), "decision_limit"])
_VP_PARTS = ("influence", "vault", "merchant_bonus", "statue", "wall")
_VP_KEYS = frozenset([*_VP_PARTS, "buildings", "total"])
_VP_REQUIRED = frozenset([*_VP_PARTS, "total"])
_STRUCTURE_KEYS = frozenset(["complete", "incomplete"])
#: the most decisions a game can have (glory_ai.arena.play.MAX_DECISIONS)
_MAX_DECISIONS = 100_000
#: the longest text field (a bot spec, a message)
_MAX_TEXT = 4096
_ACTION_MAX = 1 << 16


class RecordError(ArenaError):
    """A record that fails the schema: ``where`` (``FILE: line N``), the ``game`` id when it
    has one, the ``field`` at fault and what is wrong with it, as one line."""

    def __init__(self, where: str, field: str, problem: str, game: Any = None,
                 named: bool = True, line: int = 0) -> None:
        self.where, self.field, self.problem, self.game = where, field, problem, game
        self.line = line
        at = f"{where} (game {game})" if isinstance(game, str) and len(game) <= 40 else where
        super().__init__(f"{at}: {field} {problem}" if named and field else
                         f"{at} {problem}" if problem.startswith("is not a game record") else
                         f"{at}: {problem}")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Bad(Exception):
    """A field at fault (caught by :meth:`RecordSchema.check`, which names the line)."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(field, problem)
        self.field, self.problem = field, problem


def _seat_ints(value: Any, n: int, low: int, high: int) -> bool:
    if type(value) is not list or len(value) != n:
        return False
    for v in value:
        if type(v) is not int or not low <= v <= high:
            return False
    return True


def _seat_numbers(value: Any, n: int) -> bool:
    if type(value) is not list or len(value) != n:
        return False
    for v in value:
        if (type(v) is not float and type(v) is not int) or not 0 <= v < 1e9:
            return False                                # NaN fails 0 <= v
    return True


class RecordSchema:
    """The check of one record at a time (see the module's doc).

    ``config``: the run's plan, or None (a records file outside a run folder, or a folder
    whose plan cannot be confirmed): the record is then checked in itself only.
    ``skipped``: fields a reader cut from the line before parsing (``read_records(skip=)``):
    not required. :meth:`check` returns the record's index in the plan (None without one).
    """

    def __init__(self, config: RunConfig | None = None, skipped: Collection[str] = (),
                 strict: bool = False) -> None:
        self.config = config
        # ``strict``: the records of a run this glory_ai wrote (confirmed by its checksums):
        # every one has roles_led, and every count agrees with the others
        self.strict = strict
        self.required = tuple(k for k in (*REQUIRED, *(("roles_led",) if strict else ()))
                              if k not in skipped)
        self._good_keys: set[tuple[str, ...]] = set()
        self._deal_seeds: dict[int, int] = {}
        self._bot_seeds: dict[tuple[int, int], list[int]] = {}
        self.players = self.pairings = self.rotations = 0
        self.seatings: list[list[list[str]]] = []
        if config is not None:
            self.players = config.players
            self.pairings = len(config.pairings())
            self.rotations = config.rotations
            self.seatings = [[list(config.seating(p, r)) for r in range(self.rotations)]
                             for p in range(self.pairings)]

    # ---- the plan's seeds, computed once per deal ---------------------------------------

    def deal_seed(self, deal: int) -> int:
        seed = self._deal_seeds.get(deal)
        if seed is None:
            assert self.config is not None
            if len(self._deal_seeds) > 4096:
                self._deal_seeds.clear()
            seed = self._deal_seeds[deal] = deal_seed(self.config.seed, deal)
        return seed

    def bot_seeds(self, deal: int, rotation: int) -> list[int]:
        seeds = self._bot_seeds.get((deal, rotation))
        if seeds is None:
            assert self.config is not None
            if len(self._bot_seeds) > 4096:
                self._bot_seeds.clear()
            seeds = self._bot_seeds[deal, rotation] = [
                bot_seed(self.config.seed, deal, rotation, s) for s in range(self.players)]
        return seeds

    def index(self, deal: int, pairing: int, rotation: int) -> int:
        return (deal * self.pairings + pairing) * self.rotations + rotation

    # ---- the check -----------------------------------------------------------------------

    def check(self, rec: Any, where: str, bot_seeds: bool = True, line: int = 0) -> int | None:
        """Check one parsed line; RecordError naming ``where`` (``FILE: line N``, or ``FILE``
        and ``line``) if it fails. Returns its plan index when the schema has a plan.
        ``bot_seeds=False``: the bot seeds are not recomputed from the plan (a reader does so
        only for the lines that the records' checksum does not cover: a few microseconds a
        seat)."""
        try:
            if type(rec) is not dict:
                raise _Whole(f"is not a game record (a JSON {type(rec).__name__}, not an object)", "")
            shape = tuple(rec)
            if shape not in self._good_keys:
                self._check_keys(rec)
                if len(self._good_keys) < 64:
                    self._good_keys.add(shape)
            _check_fields(rec, self.strict)
            if self.config is not None:
                return self._check_plan(rec, bot_seeds)
        except _Bad as bad:
            raise RecordError(f"{where}: line {line}" if line else where, bad.field, bad.problem,
                              rec["game_id"], line=line) from None
        except _Whole as whole:
            game = rec.get("game_id") if type(rec) is dict and not whole.anonymous else None
            raise RecordError(f"{where}: line {line}" if line else where, whole.field, whole.problem,
                              game, named=False, line=line) from None
        return None

    def _check_keys(self, rec: dict[str, Any]) -> None:
        unknown = [k for k in rec if k not in FIELDS]
        missing = [k for k in self.required if k not in rec]
        if unknown:
            if not missing:         # an optional field renamed is missing too
                absent = [k for k in FIELDS if k not in rec]
                missing = difflib.get_close_matches(unknown[0], absent, n=1, cutoff=0.75)
            hint = (f" (and {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing: "
                    "a renamed key?)" if missing else "")
            raise _Whole(f"field {_show(unknown[0])[1:-1]} is not a field of a game record{hint}",
                         unknown[0])
        if missing:
            # the analysis's words, kept: "is not a game record: no deal, pairing"
            raise _Whole(f"is not a game record: no {', '.join(missing)}", missing[0], anonymous=True)

    def _check_plan(self, rec: dict[str, Any], bot_seeds: bool) -> int:
        config = self.config
        assert config is not None
        deal, pairing, rotation = rec["deal"], rec["pairing"], rec["rotation"]
        if not (deal < config.deals and pairing < self.pairings and rotation < self.rotations):
            raise _Whole(f"game {rec['game_id']!r} is not a game of this run (its plan: "
                           f"{config.deals} deals, {self.pairings} pairing(s), "
                           f"{self.rotations} rotation(s))", "game_id")
        if rec["num_players"] != self.players:
            raise _Bad("num_players", f"is {rec['num_players']}; this run's games have {self.players}")
        if rec["seed"] != self.deal_seed(deal):
            raise _Bad("seed", f"{rec['seed']} is not the seed of deal {deal} in this run's plan "
                       f"(root seed {config.seed})")
        if rec["seats"] != self.seatings[pairing][rotation]:
            raise _Bad("seats", f"{_show(rec['seats'])} are not those of pairing {pairing}, rotation "
                       f"{rotation} in this run's plan ({self.seatings[pairing][rotation]})")
        if rec["mode"] != config.mode:
            raise _Bad("mode", f"is {rec['mode']!r}; this run plays {config.mode}")
        if rec["variant"] != config.variant:
            raise _Bad("variant", f"{_show(rec['variant'])} is not this run's ({_show(config.variant)})")
        if bot_seeds and "bot_seeds" in rec and rec["bot_seeds"] != self.bot_seeds(deal, rotation):
            raise _Bad("bot_seeds", f"{_show(rec['bot_seeds'])} are not those of deal {deal}, "
                       f"rotation {rotation} in this run's plan")
        return self.index(deal, pairing, rotation)


class _Whole(Exception):
    """A line that is not a record of the run at all (not an object, keys missing or
    unknown, a game outside the plan): its message stands alone."""

    def __init__(self, problem: str, field: str, anonymous: bool = False) -> None:
        super().__init__(problem, field)
        self.problem, self.field, self.anonymous = problem, field, anonymous


def _check_fields(rec: dict[str, Any], strict: bool) -> None:
    """Every field of a record in itself and against the others; _Bad naming the first
    field at fault. ``strict`` (a run this glory_ai wrote): also the counts against one
    another -- the seats' decisions adding up to the game's, the actions as many as the
    decisions, the seconds per decision those of the seconds, no role led in more turns than
    the game had (hand-made records, such as tests build, need not keep those). Written for
    speed: the readers run it on every record."""
    gid = rec["game_id"]
    if type(gid) is not str or not 5 <= len(gid) <= 40:
        raise _Bad("game_id", f"must be the text DEAL-PAIRING-ROTATION, got {_show(gid)}")
    if "record_version" in rec:
        version = rec["record_version"]
        if type(version) is not int or version not in RECORD_VERSIONS:
            raise _Bad("record_version", f"is {_show(version)}; this glory_ai reads "
                       f"{list(RECORD_VERSIONS)}")
    deal, pairing, rotation = rec["deal"], rec["pairing"], rec["rotation"]
    if type(deal) is not int or not 0 <= deal < MAX_DEALS:
        raise _Bad("deal", f"must be a non-negative integer, got {_show(deal)}")
    if type(pairing) is not int or not 0 <= pairing < 1 << 20:
        raise _Bad("pairing", f"must be a non-negative integer, got {_show(pairing)}")
    if type(rotation) is not int or not 0 <= rotation < 5:
        raise _Bad("rotation", f"must be a non-negative integer below 5, got {_show(rotation)}")
    if gid != f"{deal}-{pairing}-{rotation}":
        raise _Bad("game_id", f"{gid!r} is not the id of deal {deal}, pairing {pairing}, rotation "
                   f"{rotation} (\"{deal}-{pairing}-{rotation}\")")
    seed = rec["seed"]
    if type(seed) is not int or not 0 <= seed <= _SEED_MAX:
        raise _Bad("seed", f"must be an integer from 0 to 2**64 - 1, got {_show(seed)}")
    n = rec["num_players"]
    if type(n) is not int or not 2 <= n <= 5:
        raise _Bad("num_players", f"is {_show(n)}, expected 2 to 5")
    mode = rec["mode"]
    if type(mode) is not str or mode not in MODES:
        raise _Bad("mode", f"must be one of {', '.join(MODES)}, got {_show(rec['mode'])}")
    if type(rec["variant"]) is not dict:
        raise _Bad("variant", f"must be an object, got {_show(rec['variant'])}")
    seats, scores, vp, structures = rec["seats"], rec["scores"], rec["vp"], rec["structures"]
    for key, value in (("seats", seats), ("scores", scores), ("vp", vp), ("structures", structures)):
        if type(value) is not list or len(value) != n:
            raise _Bad(key, f"must list one entry per seat ({n}), got {_show(value)}")
    for spec in seats:
        if type(spec) is not str or not 0 < len(spec) <= _MAX_TEXT:
            raise _Bad("seats", f"must be bot specs (strings), got {_show(seats)}")
    if not _seat_ints(scores, n, -1000, 1000):
        raise _Bad("scores", f"must be numbers (whole VP), got {_show(scores)}")
    winners = rec["winners"]
    if type(winners) is not list or not 0 < len(winners) <= n:
        raise _Bad("winners", f"must be seat numbers below {n}, in order, got {_show(winners)}")
    last = -1
    for w in winners:
        if type(w) is not int or not last < w < n:
            raise _Bad("winners", f"must be seat numbers below {n}, in order, got {_show(winners)}")
        last = w
    for p in range(n):
        _check_seat(vp[p], structures[p], scores[p], p)
    _check_play(rec, n, winners, strict)


def _check_play(rec: dict[str, Any], n: int, winners: list[int], strict: bool) -> None:
    """The fields of a record on how its game went (end, decisions, turns, returns, timing,
    roles, seeds, actions, who left), for :func:`_check_fields` (the game's identity and
    seats checked there): _Bad naming the first field at fault."""
    reason = rec["end_reason"]
    if type(reason) is not str or reason not in _END_REASONS:
        raise _Bad("end_reason", f"must be one of {', '.join(sorted(_END_REASONS))}, got "
                   f"{_show(rec['end_reason'])}")
    decisions, turns = rec["decisions"], rec["turns"]
    if type(decisions) is not int or not 0 <= decisions <= _MAX_DECISIONS:
        raise _Bad("decisions", f"must be a non-negative integer, got {_show(decisions)}")
    if type(turns) is not int or not 0 < turns <= _MAX_DECISIONS + 1:
        raise _Bad("turns", f"must be a non-negative integer (at least 1), got {_show(turns)}")
    if "version" in rec:
        version = rec["version"]
        if type(version) is not str or not 0 < len(version) <= 64:
            raise _Bad("version", f"must be the version of glory_ai that played the game, got "
                       f"{_show(version)}")
    if "returns" in rec:
        returns = rec["returns"]
        share = 1.0 / len(winners)
        if type(returns) is not list or len(returns) != n:
            raise _Bad("returns", f"must list one number per seat, got {_show(returns)}")
        for p in range(n):
            r = returns[p]
            if (type(r) is not float and type(r) is not int) or \
                    not abs(r - (share if p in winners else 0.0)) <= 1e-9:
                raise _Bad("returns", f"must be 1/{len(winners)} for each of the winners {winners} "
                           f"and 0 for the others, got {_show(returns)}")
    moves = rec.get("seat_decisions")
    if moves is not None and (not _seat_ints(moves, n, 0, _MAX_DECISIONS)
                              or (strict and sum(moves) != decisions)):
        raise _Bad("seat_decisions", f"must list one number per seat, adding up to the {decisions} "
                   f"decisions, got {_show(moves)}")
    seconds, per = rec.get("seconds"), rec.get("seconds_per_decision")
    if seconds is not None and not _seat_numbers(seconds, n):
        raise _Bad("seconds", f"must list one number per seat, got {_show(seconds)}")
    if per is not None and not _seat_numbers(per, n):
        raise _Bad("seconds_per_decision", f"must list one number per seat, got {_show(per)}")
    if strict and moves is not None and seconds is not None and per is not None:
        # seconds are rounded to 1e-6 and seconds per decision to 1e-7 (glory_ai.arena.play)
        for p in range(n):
            m, q = moves[p], per[p]
            if (q != 0.0) if m == 0 else abs(q * m - seconds[p]) > 1e-6 + m * 1e-7:
                raise _Bad("seconds_per_decision", f"must be seconds / seat_decisions, got "
                           f"{_show(per)} for {_show(seconds)} s over {_show(moves)} decisions")
    if "roles_led" in rec:
        led = rec["roles_led"]
        if type(led) is not list or len(led) != n:
            raise _Bad("roles_led", f"must hold one dict (role -> turns) per seat, got {_show(led)}")
        try:
            for d in led:
                # min and max of ints (a string among them raises TypeError)
                if type(d) is not dict or not _ROLES.issuperset(d) or (
                        d and not 0 <= min(d.values()) <= max(d.values()) <= (
                            turns if strict else _MAX_DECISIONS)):
                    raise TypeError
        except TypeError:
            raise _Bad("roles_led", "must hold one dict (role -> turns) per seat, got "
                       f"{_show(led)}") from None
    if "bot_seeds" in rec and not _seat_ints(rec["bot_seeds"], n, 0, _SEED_MAX):
        raise _Bad("bot_seeds", f"must list one seed per seat (0 to 2**64 - 1), got "
                   f"{_show(rec['bot_seeds'])}")
    if "functions_used" in rec:
        used = rec["functions_used"]
        try:
            known = type(used) is list and _BUILDINGS.issuperset(used)
        except TypeError:
            known = False
        if not known:
            raise _Bad("functions_used", f"must list building names, got {_show(used)}")
    if "actions" in rec:
        actions = rec["actions"]
        if type(actions) is not list or (strict and len(actions) != decisions):
            raise _Bad("actions", f"must list the {decisions} action ids of the game, got "
                       f"{len(actions) if type(actions) is list else _show(actions)}")
        # their range (a string or null among them raises TypeError); each id's type and
        # legality are the replay's (glory-ai verify)
        try:
            ids = not actions or 0 <= min(actions) <= max(actions) < _ACTION_MAX
        except TypeError:
            ids = False
        if not ids:
            raise _Bad("actions", "must be action ids (integers from 0)")
    for key in ("forfeits", "concessions"):
        if key in rec:
            _check_leaving(key, rec[key], n, decisions)
    for key in ("trusted_seats", "isolated_seats"):
        if key in rec:
            seats = rec[key]
            if (type(seats) is not list or not 0 < len(seats) <= n
                    or not all(type(s) is int and 0 <= s < n for s in seats)):
                raise _Bad(key, f"must list seats below {n}, got {_show(seats)}")


def _check_seat(v: Any, st: Any, score: int, p: int) -> None:
    """One seat's VP breakdown (its parts and total whole VP, the parts adding up to the
    total, the total its score) and structures (building names)."""
    try:
        # every part and the total (all of them together make twice the total): a sum of
        # ints is an int, a float or a string among them is not
        if (type(v) is not dict or (v.keys() != _VP_REQUIRED and v.keys() != _VP_KEYS)
                or type(total := sum(v.values())) is not int or total != 2 * v["total"]):
            raise TypeError
    except TypeError:
        raise _Bad("vp", "must hold one score breakdown per seat (whole VP, its parts adding up "
                   f"to its total), got {_show(v)}") from None
    if v["total"] != score:
        raise _Bad("vp", f"total of seat {p} ({v['total']}) is not its score ({score})")
    try:
        if (type(st) is not dict or st.keys() != _STRUCTURE_KEYS
                or type(st["complete"]) is not list or type(st["incomplete"]) is not list
                or not _BUILDINGS.issuperset(st["complete"]) or not _BUILDINGS.issuperset(st["incomplete"])):
            raise TypeError
    except TypeError:
        raise _Bad("structures", "must be {complete, incomplete} lists of building names per "
                   f"seat, got {_show(st)}") from None


def _check_leaving(key: str, entries: Any, n: int, decisions: int) -> None:
    fields = {"seat", "decision", "reason", "message"} if key == "forfeits" else {"seat", "decision"}
    if type(entries) is not list or not all(
            type(e) is dict and set(e) <= fields and {"seat", "decision"} <= set(e)
            and type(e["seat"]) is int and 0 <= e["seat"] < n
            and type(e["decision"]) is int and 0 <= e["decision"] <= decisions
            and all(type(e[k]) is str and len(e[k]) <= _MAX_TEXT for k in ("reason", "message") if k in e)
            for e in entries):
        raise _Bad(key, f"must be a list of {{\"seat\": 0..{n - 1}, \"decision\": 0..{decisions}"
                   f"{', ...' if key == 'forfeits' else ''}}}, got {_show(entries)}")


def check_record(rec: Mapping[str, Any], config: RunConfig | None = None,
                 where: str = "record") -> int | None:
    """Check one record against the schema (and ``config``'s plan); RecordError if it fails."""
    return RecordSchema(config).check(dict(rec) if not isinstance(rec, dict) else rec, where)
