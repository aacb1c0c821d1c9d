"""The analysis frame of game records: one row per game per seat, built column by column
(C-level iteration over the records and numpy, no Python loop over rows); the columns are
listed in :mod:`glory_ai.analysis.load`, which reads runs into it. Here too: the record
check (a record that is not a well-formed game record is an AnalysisError naming it) and
the names of the columns."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..cards import CARD_NAMES, ROLES
from ..core.enums import EndReason
from . import AnalysisError

#: the 44 buildings (every Order card type, alphabetical as in glory_ai.cards)
BUILDINGS: tuple[str, ...] = tuple(CARD_NAMES[1:])
#: prefix of the per-building indicator columns (``completed:Forum Romanum``)
COMPLETED = "completed:"
#: prefix of the roles-led columns (``led:Laborer``)
LED = "led:"
#: the VP components of a record's ``vp`` (they add up to its ``total``)
VP_COMPONENTS = ("influence", "vault", "merchant_bonus", "statue", "wall")
VP_COLUMNS = tuple(f"vp_{c}" for c in VP_COMPONENTS)
#: the VP of a variant's building points (docs/rules.md, R-V.2): a component of the records
#: of such variants only, and a column (``vp_buildings``) only of frames holding one
VP_BUILDINGS = "buildings"
#: the end reasons of the engine, in display order
END_REASONS = tuple(reason.value for reason in EndReason)

RECORD_VERSIONS = (1,)

#: record fields every game must have (the timing fields, actions and roles_led are optional)
REQUIRED = ("game_id", "deal", "pairing", "rotation", "seed", "seats", "num_players", "mode",
            "variant", "scores", "winners", "vp", "structures", "end_reason", "turns",
            "decisions")
_PER_SEAT = ("seats", "scores", "vp", "structures")


def _fmt_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{k}:{_fmt_value(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_fmt_value(v) for v in value) + "]"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def variant_key(variant: Mapping[str, Any]) -> str:
    """A stable text key of a rule variant: ``key=value`` pairs sorted by key, lists in
    brackets (``petition_size=2 refill_size=5 removed=[Bath,Sewer]``); ``default`` if empty.

    >>> variant_key({"refill_size": 5, "petition_size": 2})
    'petition_size=2 refill_size=5'
    >>> variant_key({"removed": ["Sewer", "Bath"], "copies": {"Forum": 2}})
    'copies={Forum:2} removed=[Sewer,Bath]'
    """
    if not variant:
        return "default"
    return " ".join(f"{k}={_fmt_value(variant[k])}" for k in sorted(variant))



_get = operator.itemgetter


def _check_record(rec: dict[str, Any], where: str) -> None:
    """One record's fields: present, of the right types, a player count from 2 to 5 and one
    entry per seat; ``where`` names it (``FILE: line N``)."""
    missing = [k for k in REQUIRED if k not in rec]
    if missing:
        raise AnalysisError(f"{where} is not a game record: no " + ", ".join(missing))
    gid = rec["game_id"]
    at = f"{where} (game {gid})"
    version = rec.get("record_version", 1)
    if version not in RECORD_VERSIONS:
        raise AnalysisError(f"{at} has record_version {version!r}; this analysis reads "
                            f"{list(RECORD_VERSIONS)}")
    n = rec["num_players"]
    if type(n) is not int or not 2 <= n <= 5:
        raise AnalysisError(f"{at}: num_players is {n!r}, expected 2 to 5")
    for key in ("deal", "pairing", "rotation", "seed", "turns", "decisions"):
        if type(rec[key]) is not int or rec[key] < 0:
            raise AnalysisError(f"{at}: {key} must be a non-negative integer, got {rec[key]!r:.80}")
    for key in _PER_SEAT:
        value = rec[key]
        if type(value) is not list or len(value) != n:
            raise AnalysisError(f"{at}: {key} must list one entry per seat ({n}), "
                                f"got {value!r:.80}")
    if not all(isinstance(s, str) for s in rec["seats"]):
        raise AnalysisError(f"{at}: seats must be bot specs (strings), got {rec['seats']!r:.80}")
    if not all(type(s) in (int, float) for s in rec["scores"]):
        raise AnalysisError(f"{at}: scores must be numbers, got {rec['scores']!r:.80}")
    winners = rec["winners"]
    if type(winners) is not list or any(type(w) is not int or not 0 <= w < n for w in winners):
        raise AnalysisError(f"{at}: winners must be seat numbers below {n}, got {winners!r:.80}")
    if type(rec["variant"]) is not dict:
        raise AnalysisError(f"{at}: variant must be an object, got {rec['variant']!r:.80}")
    for v in rec["vp"]:
        if type(v) is not dict or not all(type(v.get(c, 0)) in (int, float) for c in VP_COMPONENTS):
            raise AnalysisError(f"{at}: vp must hold one score breakdown per seat, got {v!r:.80}")
    for st in rec["structures"]:
        if (type(st) is not dict or type(st.get("complete")) is not list
                or type(st.get("incomplete")) is not list
                or not all(isinstance(b, str) for b in st["complete"])):
            raise AnalysisError(f"{at}: structures must be {{complete, incomplete}} lists of "
                                f"building names per seat, got {st!r:.80}")
    for key in ("seat_decisions", "seconds", "seconds_per_decision"):
        if key in rec and (type(rec[key]) is not list or len(rec[key]) != n):
            raise AnalysisError(f"{at}: {key} must list one number per seat, got {rec[key]!r:.80}")
    led = rec.get("roles_led")
    if led is not None and (type(led) is not list or len(led) != n
                            or not all(type(d) is dict for d in led)):
        raise AnalysisError(f"{at}: roles_led must hold one dict (role -> turns) per seat, "
                            f"got {led!r:.80}")



def frame_of_records(records: Iterable[Mapping[str, Any]], label: str = "records") -> pd.DataFrame:
    """The frame of :func:`load_runs` (one row per game per seat) from game records in
    memory, e.g. those of ``glory_ai.arena.run(...).records``, as one run named ``label``;
    the games in the order given. A record that is not a well-formed game record is an
    AnalysisError naming it (``record N``, from 1)."""
    recs = [r if type(r) is dict else dict(r) for r in records]
    if not recs:
        raise AnalysisError("no games (the list of records is empty)")
    try:
        frame = _build([(label, recs)])
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError, IndexError) as exc:
        if isinstance(exc, AnalysisError):
            raise
        for number, rec in enumerate(recs, start=1):
            _check_record(rec, f"record {number}")
        raise AnalysisError(f"cannot read the records ({type(exc).__name__}: {exc})") from None
    frame.attrs["runs"] = [{"label": label, "games": len(recs)}]
    return frame


_chain = itertools.chain.from_iterable


class _Rows:
    """Where the records' seats land in the frame: ``g`` games (``recs``), ``n`` rows, the
    game of each row and the first row of each game; and the columns made from them."""

    def __init__(self, recs: list[dict[str, Any]]) -> None:
        self.recs = recs
        self.g = g = len(recs)
        self.nplayers = np.fromiter(map(_get("num_players"), recs), dtype=np.int64, count=g)
        if ((self.nplayers < 2) | (self.nplayers > 5)).any():
            raise ValueError("num_players out of range")
        for key in _PER_SEAT:
            if not np.array_equal(np.fromiter(map(len, map(_get(key), recs)), np.int64, g),
                                  self.nplayers):
                raise ValueError(f"{key}: not one entry per seat")
        self.n = int(self.nplayers.sum())
        self.game_of_row = np.repeat(np.arange(g), self.nplayers)
        self.offsets = np.zeros(g, dtype=np.int64)
        np.cumsum(self.nplayers[:-1], out=self.offsets[1:])

    def per_game(self, key: str, dtype: Any) -> np.ndarray:
        return np.fromiter(map(_get(key), self.recs), dtype=dtype, count=self.g)[self.game_of_row]

    def per_seat(self, key: str, dtype: Any) -> np.ndarray:
        return np.fromiter(_chain(map(_get(key), self.recs)), dtype=dtype, count=self.n)

    def game_categorical(self, values: Iterable[Any], sort: bool = True
                         ) -> tuple[pd.Categorical, np.ndarray, pd.Index]:
        codes, uniques = pd.factorize(np.fromiter(values, dtype=object, count=self.g), sort=sort)
        return pd.Categorical.from_codes(codes[self.game_of_row], categories=uniques), codes, uniques



def _build(parts: Sequence[tuple[str, list[dict[str, Any]]]]) -> pd.DataFrame:
    """The frame of the (label, records) of each run, column by column: C-level iteration
    over the records (map, itemgetter, chain, fromiter) and numpy; a record of the wrong
    shape raises (see load_runs)."""
    rows = _Rows([r for _, records in parts for r in records])
    run_of_game = np.repeat(np.arange(len(parts)), [len(records) for _, records in parts])
    cols: dict[str, Any] = {}
    cols["run"] = pd.Categorical.from_codes(run_of_game[rows.game_of_row],
                                            categories=[label for label, _ in parts])
    cols["game"] = rows.game_of_row
    cols["game_id"] = rows.game_categorical(map(str, map(_get("game_id"), rows.recs)), sort=False)[0]
    cols["deal"] = rows.per_game("deal", np.int64)
    cols["pairing"] = rows.per_game("pairing", np.int64)
    cols["rotation"] = rows.per_game("rotation", np.int64)
    cols["seed"] = rows.per_game("seed", np.uint64)
    cols["num_players"] = rows.nplayers[rows.game_of_row]
    _rules_columns(rows, cols)
    cols["seat"] = np.arange(rows.n) - np.repeat(rows.offsets, rows.nplayers)
    cols["spec"] = pd.Categorical(np.fromiter(_chain(map(_get("seats"), rows.recs)), dtype=object,
                                              count=rows.n))
    won, score = _outcome_columns(rows, cols)
    _structure_columns(rows, cols)
    cols["end_reason"] = rows.game_categorical(map(str, map(_get("end_reason"), rows.recs)))[0]
    cols["turns"] = rows.per_game("turns", np.int64)
    cols["decisions"] = rows.per_game("decisions", np.int64)
    _time_and_role_columns(rows, cols)
    frame = pd.DataFrame(cols)
    # place: winners first, then by VP; equal keys share the better place
    key = pd.Series(np.where(won, 1e9, 0.0) + score)
    frame["rank"] = key.groupby(rows.game_of_row).rank(method="min", ascending=False).to_numpy(np.int64)
    return frame


def _rules_columns(rows: _Rows, cols: dict[str, Any]) -> None:
    """``mode``, ``variant``, ``variant_dict`` and ``rules``."""
    recs, g = rows.recs, rows.g
    cols["mode"], mode_codes, modes = rows.game_categorical(map(str, map(_get("mode"), recs)))
    # variants: repr() finds the distinct ones; one key and one shared dict for each
    variants = list(map(_get("variant"), recs))
    rep_codes, reps = pd.factorize(np.fromiter(map(repr, variants), dtype=object, count=g))
    firsts = np.full(len(reps), -1)
    firsts[rep_codes[::-1]] = np.arange(g)[::-1]          # first game of each variant
    distinct = [variants[i] for i in firsts]
    if not all(type(v) is dict for v in distinct):
        raise ValueError("variant is not an object")
    keys = [variant_key(v) for v in distinct]
    key_codes, key_names = pd.factorize(np.asarray(keys, dtype=object)[rep_codes], sort=True)
    cols["variant"] = pd.Categorical.from_codes(key_codes[rows.game_of_row], categories=key_names)
    shared = {k: v for k, v in zip(keys, distinct, strict=True)}
    dicts = np.empty(len(key_names), dtype=object)
    for i, k in enumerate(key_names):
        dicts[i] = shared[k]
    cols["variant_dict"] = dicts[key_codes][rows.game_of_row]
    rule_codes, rule_names = pd.factorize(
        np.char.add(np.char.add(np.asarray(modes, dtype=str)[mode_codes], " "),
                    np.asarray(key_names, dtype=str)[key_codes]), sort=True)
    cols["rules"] = pd.Categorical.from_codes(rule_codes[rows.game_of_row], categories=rule_names)


def _outcome_columns(rows: _Rows, cols: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """``win_share``, ``won``, ``score``, ``rank`` (a placeholder) and the VP breakdown;
    returns (won, score) for the ranks."""
    recs, n = rows.recs, rows.n
    winners = list(map(_get("winners"), recs))
    winners_count = np.fromiter(map(len, winners), dtype=np.int64, count=rows.g)
    winners_flat = np.fromiter(_chain(winners), dtype=np.int64, count=int(winners_count.sum()))
    if ((winners_flat < 0) | (winners_flat >= np.repeat(rows.nplayers, winners_count))).any():
        raise ValueError("a winner is not a seat of the game")
    won = np.zeros(n, dtype=bool)
    won[np.repeat(rows.offsets, winners_count) + winners_flat] = True
    cols["win_share"] = np.where(won, 1.0 / np.maximum(winners_count, 1)[rows.game_of_row], 0.0)
    cols["won"] = won
    score = rows.per_seat("scores", np.int64 if _all_int(recs, "scores") else np.float64)
    cols["score"] = score
    cols["rank"] = np.zeros(n, dtype=np.int64)          # filled by _build
    vps = list(_chain(map(_get("vp"), recs)))
    for comp, col in zip(VP_COMPONENTS, VP_COLUMNS, strict=True):
        try:
            cols[col] = np.fromiter(map(_get(comp), vps), dtype=np.int64, count=n)
        except KeyError:                  # a component missing from older records: 0
            cols[col] = np.fromiter((v.get(comp, 0) for v in vps), dtype=np.int64, count=n)
    if any(VP_BUILDINGS in v for v in vps):
        cols[f"vp_{VP_BUILDINGS}"] = np.fromiter((v.get(VP_BUILDINGS, 0) for v in vps), dtype=np.int64,
                                                 count=n)
    return won, score


def _structure_columns(rows: _Rows, cols: dict[str, Any]) -> None:
    """The completed lists, their counts and one indicator column per building."""
    n = rows.n
    structures = list(_chain(map(_get("structures"), rows.recs)))
    complete = list(map(_get("complete"), structures))
    if not all(type(c) is list for c in complete):
        raise ValueError("structures: complete is not a list")
    incomplete = np.fromiter(map(len, map(_get("incomplete"), structures)), dtype=np.int64, count=n)
    lengths = np.fromiter(map(len, complete), dtype=np.int64, count=n)
    names = list(_chain(complete))
    index = {b: i for i, b in enumerate(BUILDINGS)}
    buildings = list(BUILDINGS)
    try:
        codes = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
    except KeyError:                 # names from another card set: extra columns, sorted
        extra = set(names) - set(index)
        if not all(isinstance(name, str) for name in extra):
            raise ValueError("structures: a building name is not a string") from None
        for name in sorted(extra):
            index[name] = len(buildings)
            buildings.append(name)
        codes = np.fromiter(map(index.__getitem__, names), dtype=np.int64, count=len(names))
    matrix = np.zeros((n, len(buildings)), dtype=bool)
    matrix[np.repeat(np.arange(n), lengths), codes] = True
    cols["completed"] = np.fromiter(complete, dtype=object, count=n)
    cols["n_completed"] = lengths
    cols["n_incomplete"] = incomplete
    for i, name in enumerate(buildings):
        cols[COMPLETED + str(name)] = matrix[:, i]


def _time_and_role_columns(rows: _Rows, cols: dict[str, Any]) -> None:
    """The seats' decisions and think time (NaN where a record lacks them) and, when some
    record carries ``roles_led``, the ``led:ROLE`` columns (NaN for the records without)."""
    recs, n = rows.recs, rows.n
    has = operator.contains
    for key, dtype in (("seat_decisions", np.int64), ("seconds", np.float64),
                       ("seconds_per_decision", np.float64)):
        if all(map(has, recs, itertools.repeat(key))):
            cols[key] = rows.per_seat(key, dtype)
        else:
            cols[key] = np.fromiter(_chain(r.get(key) or [np.nan] * r["num_players"] for r in recs),
                                    dtype=np.float64, count=n)
    present = np.fromiter(map(has, recs, itertools.repeat("roles_led")), dtype=bool, count=rows.g)
    if not present.any():
        return
    if present.all():
        led = list(_chain(map(_get("roles_led"), recs)))
    else:
        led = list(_chain(r.get("roles_led") or [{}] * r["num_players"] for r in recs))
    if len(led) != n or not all(type(d) is dict for d in led):
        raise ValueError("roles_led is not one dict per seat")
    roles = list(ROLES) + sorted(set().union(*led) - set(ROLES))
    for role in roles:
        values = np.fromiter(map(operator.methodcaller("get", role, 0), led),
                             dtype=np.float64, count=n)
        values[~present[rows.game_of_row]] = np.nan
        cols[LED + role] = values


def _all_int(recs: list[dict[str, Any]], key: str) -> bool:
    """Are the values of a per-seat key all integers (VP are; a hand-made record may not)?"""
    return all(type(x) is int for x in itertools.chain.from_iterable(map(_get(key), recs)))


def completed_columns(frame: pd.DataFrame) -> list[str]:
    """The per-building indicator columns of a frame, in order."""
    return [c for c in frame.columns if isinstance(c, str) and c.startswith(COMPLETED)]


def led_columns(frame: pd.DataFrame) -> list[str]:
    """The roles-led columns of a frame (none if its records carried no ``roles_led``)."""
    return [c for c in frame.columns if isinstance(c, str) and c.startswith(LED)]


_GAME_COLUMNS = ("run", "game", "game_id", "deal", "pairing", "rotation", "seed", "num_players",
                 "mode", "variant", "variant_dict", "rules", "end_reason", "turns", "decisions")


def games(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per game (the per-game columns, plus ``specs``: the line-up as text and
    ``winners``: the number of winners), indexed by ``game``."""
    first = frame.loc[frame["seat"] == 0, [c for c in _GAME_COLUMNS if c in frame.columns]]
    out = first.set_index("game")
    out["winners"] = frame.groupby("game", sort=True)["won"].sum().reindex(out.index)
    return out
