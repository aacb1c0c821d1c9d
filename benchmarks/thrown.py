"""Thrown games (issue 36): python benchmarks/thrown.py find FOLDER... [--lead 12] [--out FILE]
                         python benchmarks/thrown.py play SUITE --bot SPEC [--opponent SPEC] [--runs R]
                         python benchmarks/thrown.py won SUITE --out FILE [--control SPEC] [--runs R]
                                                     [--opponent SPEC]
                         python benchmarks/thrown.py report RECORD... | paired RECORDS RECORDS [...]
                         python benchmarks/thrown.py merge OUT SUITE...
                         python benchmarks/thrown.py roots SUITE --bots SPEC... [--record RECORDS]
                         python benchmarks/thrown.py cost SUITE --bots SPEC SPEC... [--positions N]

``find`` replays the recorded games of run folders (each holds games.jsonl or games.jsonl.gz)
with the Game API and flags the games a player lost after leading every other player by at
least ``--lead`` VP (``State.scores()``, the VP each would have if the game ended there) at
one of its own decisions (a lead seen only between two of its decisions, before the others
replied, is not one it could play from). Of each such game one position is kept: the
leader's first decision at which its lead was its largest. A suite line holds what rebuilds
the position exactly (seed, player count, mode, variant and the action prefix: no pickled
state), its source (folder, game id), the leader's seat, its lead there, the turn, the VP of
every seat there, the seats' specs, and how the game ended from there: the last turn the lead was
still at least ``--lead``, the end reason and scores, and what each seat gained in VP by kind
(influence, vault, merchant bonus, ...) from the position to the end. A record that does not
replay to its recorded scores and winners (games of an older engine) is counted and skipped;
so are records with forfeits or concessions. Prints the games scanned and thrown per folder
and per spec of the leader's seat (its denominator: the games a seat held that spec).

``play`` plays every position of a suite to its end ``--runs`` times (bot seeds from
``--seed``), with ``--bot`` in the leader's seat and ``--opponent`` in the others (default:
the spec the record had in each seat), and prints a provenance line, one line per position,
then the share of runs the leader still lost (a 95% Wilson interval over runs) and the
positions lost in every run (Wilson over positions). ``--sample N`` plays N positions drawn
with ``--seed``, ``--limit N`` the first N; a position one of whose seats cannot be made (a
recorded spec naming a model file that is gone) is set aside and counted. ``--jobs N`` plays
positions in N processes (the same results: every run's seeds are its own).

``won`` keeps the positions that are won for the leader: it plays every playable position
``--runs`` times with ``--control`` in the leader's seat (default ``ismcts:iters=1000,
omniscient=true``, the all-seeing search, a cheating control that sees every hidden card and
the deck's order) against the others' recorded specs with their budgets of time made
iterations (:func:`fixed_budget`: ``time_ms=T`` or ``cpu_ms=T`` becomes ``iters=100*T``, with
ISMCTS's time defaults kept, so that every run reproduces whatever the machine's load), and
writes those the control won in every run, each with its ``opponents`` (the specs ``play``
then uses in the other seats) and ``control`` (spec, runs, seed). A position where an opponent
played the all-seeing control itself (the information-ceiling matches) is set aside: an
honest leader is not asked to hold a lead against a player who sees its hand. Every
position's bot seeds come from its index in the input suite, so setting some aside changes
no other position's runs (a won suite keeps that index, ``index``, and ``play`` seeds by it).
``won`` of a suite it wrote selects again, on other bot seeds (``--seed``), keeping every
position's index and seeds, and lists in ``selected`` every pass a position was kept by; ``merge``
joins the suites ``won`` wrote of pieces of one suite.
A position the all-seeing search cannot win every time is not one an honest search must
keep: what is left is where "never throw a won game" can be asked of it. ``play --record``
writes every run's result; ``report`` merges the records of a suite played in pieces
(``--start``, ``--limit``) and ``paired`` compares two bots' records position by position.
``roots`` says how won each position looks to a search (the leader's mean reward of the move
it plays there) and, with a record, the runs lost by the positions that read open and won.
``cost`` says what a decision of each bot costs there: the CPU time (this process's clock) of
one search at the leader's decision of ``--positions`` positions spread over the suite, the
bots in turn at each position so that a change of load touches them alike; prints each bot's
milliseconds a decision and its ratio to the first bot's (over all positions, and the median
of the positions' ratios): the budgets ``play`` compares are fair at equal CPU only when these
ratios are near 1.

The shipped ``benchmarks/data/thrown_won.jsonl.gz`` (227 positions) is ``won`` of positions
0-555 of ``benchmarks/data/thrown.jsonl.gz`` (``--runs 2 --seed 0 --limit 556``, the default
control; run in two pieces for time: results/bench/thrown_won_find.txt); positions 556-666
were not classified there. ``benchmarks/data/thrown_sure.jsonl.gz``, the sure suite, is chosen
on other runs than those that score it: the positions of all 667 the control won in 2 runs of
seed 0 and then in 4 of seed 10 (``won`` of the won suite, and of positions 556-666 classified
on seed 0, with ``--runs 4 --seed 10``, in pieces, then ``merge``); score it on other seeds
(results/bench/thrown_sure.txt: seed 20).
"""
from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import orjson

from glory_ai import Game, State
from glory_ai.arena.play import MAX_DECISIONS, result_fields
from glory_ai.arena.storage import games_file
from glory_ai.bots import make_bot

LEAD = 12
#: iterations a time budget's millisecond stands for in ``won``'s opponents (about what ISMCTS
#: runs at cutoff=40 in a CPU millisecond: results/bench/iteration_cost.txt)
ITERS_PER_MS = 100
#: who plays the other seats without --opponent
OTHERS = "the suite's opponents (a won suite's), else the recorded specs"
#: the all-seeing control ``won`` plays in the leader's seat
CONTROL = "ismcts:iters=1000,omniscient=true"
VP_KINDS = ("influence", "vault", "merchant_bonus", "statue", "wall", "buildings")


def iter_records(folder: str | Path) -> Iterator[dict[str, Any]]:
    """The game records of a run folder (games.jsonl or games.jsonl.gz), one dict each."""
    path = games_file(folder)
    opener = gzip.open if path.name.endswith(".gz") else open
    with opener(path, "rb") as f:
        for line in f:
            if line.strip():
                yield orjson.loads(line)


def new_state(entry: dict[str, Any]) -> State:
    """The initial state of a record or suite entry's game."""
    return Game(entry["num_players"], entry["mode"], **entry["variant"]).new_initial_state(entry["seed"])


def rebuild(entry: dict[str, Any]) -> State:
    """The state of a suite entry: its game's initial state with the action prefix applied."""
    state = new_state(entry)
    for action in entry["actions"]:
        state.apply_action(action)
    return state


def _lead(scores: Sequence[int], player: int) -> int:
    return scores[player] - max(s for q, s in enumerate(scores) if q != player)


def _breakdown(state: State, player: int) -> dict[str, int]:
    parts = state.score_breakdown(player)
    return {k: int(parts.get(k, 0)) for k in VP_KINDS}


def scan(record: dict[str, Any]) -> tuple[list[list[int]], list[int], State]:
    """Replay a record: the scores before every decision, whose decision each was, and the
    final state. Raises ValueError when the record does not replay (an illegal action, or a
    result other than the recorded scores and winners) or holds forfeits or concessions."""
    gid = record.get("game_id", "?")
    if record.get("forfeits") or record.get("concessions"):
        raise ValueError(f"game {gid}: forfeits or concessions are not replayed here")
    state = new_state(record)
    scores, movers = [], []
    for i, action in enumerate(record["actions"]):
        if state.is_terminal() or action not in state.legal_actions():
            raise ValueError(f"game {gid}: action {i} does not replay")
        scores.append(state.scores())
        movers.append(state.current_player())
        state.apply_action(action)
    found = result_fields(state)
    if found["scores"] != record["scores"] or sorted(found["winners"]) != sorted(record["winners"]):
        raise ValueError(f"game {gid}: replays to scores {found['scores']}, winners {found['winners']}; "
                         f"recorded {record['scores']}, {record['winners']}")
    return scores, movers, state


def thrown_position(record: dict[str, Any], lead: int = LEAD, source: str = "") -> dict[str, Any] | None:
    """The suite entry of a record whose loser led by at least ``lead`` VP at some decision
    (the module's doc), or None. Raises ValueError as :func:`scan` does."""
    scores, movers, final = scan(record)
    winners = set(record["winners"])
    best: tuple[int, int, int] | None = None          # (largest lead, -decision, seat)
    for i, row in enumerate(scores):
        p = movers[i]
        if p in winners:
            continue
        here = (_lead(row, p), -i, p)
        if here[0] >= lead and (best is None or here > best):
            best = here
    if best is None:
        return None
    largest, index, leader = best[0], -best[1], best[2]
    state = new_state(record)
    for action in record["actions"][:index]:
        state.apply_action(action)
    held = max(j for j, row in enumerate(scores) if _lead(row, leader) >= lead)
    after = new_state(record)
    for action in record["actions"][:held]:
        after.apply_action(action)
    n = record["num_players"]
    gains = [{k: v - w for (k, v), w in zip(_breakdown(final, p).items(), _breakdown(state, p).values(),
                                            strict=True) if v != w}
             for p in range(n)]
    return {
        "source": source, "game_id": record.get("game_id"), "seed": record["seed"], "num_players": n,
        "mode": record["mode"], "variant": record["variant"], "seats": record["seats"],
        "leader": leader, "lead": largest,
        "turn": state.turn_number(), "decision": index, "phase": state.phase(),
        "scores": scores[index], "held_until_turn": after.turn_number(),
        "end_turn": final.turn_number(), "end_reason": str(final.end_reason()),
        "final_scores": record["scores"], "winners": record["winners"], "gains": gains,
        "actions": record["actions"][:index],
    }


def find(folders: Sequence[str], lead: int, out: str | None) -> list[dict[str, Any]]:
    """Scan the folders and write the suite (gzip JSON lines); prints the counts."""
    from glory_ai.bench import provenance

    print(provenance())
    suite: list[dict[str, Any]] = []
    seat_games: Counter[str] = Counter()
    thrown_by_spec: Counter[str] = Counter()
    games = 0
    print(f"# games lost from a lead of >= {lead} VP; folder: scanned, skipped (does not replay), thrown")
    for folder in folders:
        scanned = skipped = thrown = 0
        for record in iter_records(folder):
            scanned += 1
            try:
                entry = thrown_position(record, lead, source=str(folder))
            except ValueError:
                skipped += 1
                continue
            games += 1
            seat_games.update(record["seats"])
            if entry is not None:
                thrown += 1
                thrown_by_spec[entry["seats"][entry["leader"]]] += 1
                suite.append(entry)
        print(f"{folder}: {scanned} scanned, {skipped} skipped, {thrown} thrown", flush=True)
    print(f"# total: {games} games replayed ({sum(seat_games.values())} seat-games), {len(suite)} thrown")
    print("# by the spec of the leader's seat: thrown / games a seat held the spec")
    for spec, held in sorted(seat_games.items(), key=lambda kv: (-thrown_by_spec[kv[0]], kv[0])):
        print(f"{thrown_by_spec[spec]:4d} / {held:5d}  {spec}")
    if out:
        _write_suite(out, suite)
    return suite


def load_suite(path: str | Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def _bot_seed(seed: int, index: int, run: int, seat: int) -> int:
    return (seed * 1_000_003 + index * 10_007 + run * 101 + seat) % (2 ** 31)


def fixed_budget(spec: str) -> str:
    """``spec`` with a budget of time (``time_ms=T`` or ``cpu_ms=T``) made ``iters=100*T``
    (:data:`ITERS_PER_MS`), the options a time budget brings to ISMCTS (``cutoff=40``) written
    out unless given; any other spec as it is (one that does not parse too: it is set aside
    when played)."""
    from glory_ai.bots.builtin_params import TIME_DEFAULTS, TIMED_BOT
    from glory_ai.bots.grammar import join_spec
    from glory_ai.bots.spec import BotSpec

    try:
        parsed = BotSpec.parse(spec)
    except (ValueError, OSError):
        return spec
    given = dict(parsed.given)
    ms = float(given.pop("time_ms", 0) or 0) + float(given.pop("cpu_ms", 0) or 0)
    if not parsed.builtin or ms <= 0:
        return spec
    pairs = [("iters", str(round(ms * ITERS_PER_MS)))] + [(k, v) for k, v in given.items() if k != "iters"]
    if parsed.name == TIMED_BOT:
        pairs += [(k, str(v)) for k, v in TIME_DEFAULTS.items() if k not in given]
    return join_spec(parsed.name, pairs)


def _seat_spec(entry: dict[str, Any], seat: int, bot: str, opponent: str | None) -> str:
    """The spec of ``seat`` when ``entry`` is played with ``bot`` in the leader's seat."""
    if seat == entry["leader"]:
        return bot
    return opponent or entry.get("opponents", entry["seats"])[seat]


def play_out(entry: dict[str, Any], bot: str, opponent: str | None, seed: int, index: int = 0,
             run: int = 0) -> bool:
    """Play an entry's position to the end with ``bot`` in the leader's seat and ``opponent``
    elsewhere (None: the entry's ``opponents``, else the recorded specs): True when the
    leader is among the winners (a game stopped at MAX_DECISIONS is adjudicated)."""
    state = rebuild(entry)
    leader = entry["leader"]
    bots = [make_bot(_seat_spec(entry, q, bot, opponent), _bot_seed(seed, index, run, q))
            for q in range(entry["num_players"])]
    while not state.is_terminal() and state.decisions() < MAX_DECISIONS:
        state.apply_action(bots[state.current_player()].step(state))
    return leader in result_fields(state)["winners"]


def _share(k: int, n: int, low: float, high: float) -> str:
    """k of n as a percentage with its interval (low, high: shares)."""
    return f"{100 * k / max(n, 1):.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def _wilson(k: int, n: int) -> tuple[float, float]:
    from glory_ai.analysis.stats.intervals import wilson

    low, high = wilson([k], [n])
    return float(low[0]), float(high[0])


def _playable(entry: dict[str, Any], bot: str, opponent: str | None) -> bool:
    """Whether every seat's bot can be made (a recorded spec may name a model file that is gone)."""
    try:
        for q in range(entry["num_players"]):
            make_bot(_seat_spec(entry, q, bot, opponent), 0)
    except (ValueError, OSError, KeyError):
        return False
    return True


def _runs_of(job: tuple[int, dict[str, Any], str, str | None, int, int]) -> list[bool]:
    index, entry, bot, opponent, seed, runs = job
    return [play_out(entry, bot, opponent, seed, index, run) for run in range(runs)]


def _key(index: int, entry: dict[str, Any]) -> int:
    """The index a position's bot seeds come from: its index in the suite ``won`` read it from
    (``index``, kept in the entry), else its index in this suite."""
    return int(entry.get("index", index))


def _play_all(suite: Sequence[tuple[int, dict[str, Any]]], bot: str, opponent: str | None, runs: int,
              seed: int, jobs: int) -> list[tuple[int, dict[str, Any], list[bool]]]:
    """Every position's runs (True: the leader won), a line printed per position, in order."""
    out = []
    start = time.time()
    work = [(_key(index, entry), entry, bot, opponent, seed, runs) for index, entry in suite]
    pool = ProcessPoolExecutor(jobs) if jobs > 1 else None
    try:
        results = pool.map(_runs_of, work) if pool else map(_runs_of, work)
        for (index, entry), wins in zip(suite, results, strict=True):
            out.append((index, entry, wins))
            print(f"{index:3d} {entry['source']} {entry['game_id']} seat {entry['leader']} "
                  f"lead {entry['lead']} ({entry['scores']}) turn {entry['turn']}: "
                  f"lost {wins.count(False)}/{runs} [{time.time() - start:.0f} s]", flush=True)
    finally:
        if pool:
            pool.shutdown()
    return out


def _chosen(suite_path: str, bot: str, opponent: str | None, runs: int, seed: int, limit: int | None,
            sample: int | None, start: int = 0) -> list[tuple[int, dict[str, Any]]]:
    """The positions played (from ``start`` the first ``limit``, or ``sample`` drawn with
    ``seed``) whose seats can all be made; prints the header line."""
    suite = list(enumerate(load_suite(suite_path)))[start:][:limit]
    if sample is not None and sample < len(suite):
        suite = sorted(random.Random(seed).sample(suite, sample), key=lambda pair: pair[0])
    playable = [(index, entry) for index, entry in suite if _playable(entry, bot, opponent)]
    print(f"# {len(playable)} positions x {runs} runs ({len(suite) - len(playable)} set aside: a seat's "
          f"spec cannot be made); {bot} in the leader's seat, {opponent or OTHERS} "
          f"elsewhere; bot seeds from {seed}")
    return playable


def play(suite_path: str, bot: str, opponent: str | None, runs: int, seed: int,
         limit: int | None = None, sample: int | None = None, jobs: int = 1,
         record: str | None = None, start: int = 0) -> tuple[int, int, int, int]:
    """Play the suite (its first ``limit`` positions, or ``sample`` of them drawn with
    ``seed``); prints a line per position and the summary, and writes every run's result to
    ``record`` (JSON: the spec, and per position its index and runs won) for :func:`paired`.
    Returns (runs lost, runs, positions lost in every run, positions)."""
    from glory_ai.bench import provenance

    print(provenance())
    played = _play_all(_chosen(suite_path, bot, opponent, runs, seed, limit, sample, start), bot, opponent,
                       runs, seed, jobs)
    rows = [(entry, won.count(False)) for _, entry, won in played]
    lost, always = _summaries(rows, runs)
    if record:
        Path(record).write_bytes(orjson.dumps({
            "bot": bot, "seed": seed, "runs": runs,
            "results": {str(_key(index, entry)): wins for index, entry, wins in played},
            "leads": {str(_key(index, entry)): entry["lead"] for index, entry, _ in played}}))
    return lost, len(rows) * runs, always, len(rows)


def won(suite_path: str, out: str, control: str, runs: int, seed: int, jobs: int = 1,
        limit: int | None = None, opponent: str | None = None, start: int = 0) -> list[dict[str, Any]]:
    """Write the positions of the suite the all-seeing ``control`` won in each of ``runs``
    runs, against the recorded specs with fixed budgets (or ``opponent`` in every other
    seat; the module's doc); returns them."""
    from glory_ai.bench import provenance

    print(provenance())
    entries = list(enumerate(dict(entry, opponents=[opponent or fixed_budget(q) for q in entry["seats"]])
                             for entry in load_suite(suite_path)))[start:][:limit]
    cheated = [index for index, entry in entries if _cheating_opponent(entry)]
    suite = [(index, entry) for index, entry in entries
             if index not in cheated and _playable(entry, control, None)]
    print(f"# {len(suite)} positions x {runs} runs ({len(cheated)} set aside: an opponent sees the hidden "
          f"cards; {len(entries) - len(cheated) - len(suite)}: a seat's spec cannot be made); {control} in "
          f"the leader's seat, {opponent or 'the recorded specs with fixed budgets'} elsewhere; bot seeds "
          f"from {seed}")
    this = {"spec": control, "runs": runs, "seed": seed}
    kept = [dict(entry, index=_key(index, entry), control=this, selected=[*_selections(entry), this])
            for index, entry, results in _play_all(suite, control, None, runs, seed, jobs) if all(results)]
    low, high = _wilson(len(kept), len(suite))
    print(f"# won in every run: {len(kept)} of {len(suite)} positions: "
          f"{_share(len(kept), len(suite), low, high)}")
    for low_lead, high_lead in BANDS:
        band = [e for _, e in suite if low_lead <= e["lead"] <= high_lead]
        held = sum(low_lead <= e["lead"] <= high_lead for e in kept)
        print(f"#   lead {low_lead}-{min(high_lead, 99)}: {held} of {len(band)}")
    _write_suite(out, kept)
    return kept


def _selections(entry: dict[str, Any]) -> list[dict[str, Any]]:
    """The passes of ``won`` an entry has already been kept by (a suite it wrote is read again:
    every pass it won, oldest first)."""
    if "selected" in entry:
        return list(entry["selected"])
    return [entry["control"]] if "control" in entry else []


def merge(out: str, pieces: Sequence[str]) -> list[dict[str, Any]]:
    """Write the suites ``pieces`` (``won`` of parts of one suite) as one, in the order of their
    positions' index; a position in two pieces is refused."""
    entries = [entry for piece in pieces for entry in load_suite(piece)]
    if any("index" not in e for e in entries):
        raise SystemExit("error: merge joins suites written by won (each position with its index)")
    entries.sort(key=lambda e: int(e["index"]))
    keys = Counter(int(e["index"]) for e in entries)
    twice = sorted(k for k, n in keys.items() if n > 1)
    if twice:
        raise SystemExit(f"error: positions {twice} are in more than one piece")
    _write_suite(out, entries)
    return entries


def _cheating_opponent(entry: dict[str, Any]) -> bool:
    """Whether a seat other than the leader's played the all-seeing control (omniscient=true):
    an honest leader is not asked to hold a lead against a player who sees its hand."""
    from glory_ai.bots.spec import BotSpec

    for q, spec in enumerate(entry["seats"]):
        try:
            if q != entry["leader"] and BotSpec.parse(spec).params.get("omniscient"):
                return True
        except (ValueError, OSError):
            continue
    return False


def _write_suite(out: str, suite: Sequence[dict[str, Any]]) -> None:
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(out, "wb", mtime=0) as f:        # the same bytes from the same records
        for entry in suite:
            f.write(orjson.dumps(entry) + b"\n")
    print(f"# wrote {len(suite)} positions to {out}")


def _lost_by_position(first: str, second: str
                      ) -> tuple[dict[str, Any], dict[str, Any], int, dict[str, tuple[int, int]]]:
    """Two ``play --record`` files (each may be several, comma-separated, merged) of one seed:
    both records, the runs paired, and per common position the runs each lost."""
    a, b = ({**merged[0], "results": merged[1]} for merged in (_merged(first.split(",")),
                                                              _merged(second.split(","))))
    if a["seed"] != b["seed"]:
        raise SystemExit(f"error: not paired: bot seeds from {a['seed']} against {b['seed']}")
    runs = min(a["runs"], b["runs"])
    if a["runs"] != b["runs"] and (a.get("printed") or b.get("printed")):
        raise SystemExit("error: a play's printed lines give counts of runs only: pair them with equal runs")
    common = sorted(set(a["results"]) & set(b["results"]), key=int)
    if not common:
        raise SystemExit("error: the two records share no position")
    return a, b, runs, {k: (a["results"][k][:runs].count(False), b["results"][k][:runs].count(False))
                        for k in common}


def _bootstrap(diffs: Sequence[int], total: int, resamples: int) -> tuple[float, float]:
    """A 95% bootstrap interval of sum(diffs) / total, resampling the positions."""
    draw = random.Random(0)
    boot = sorted(sum(draw.choices(diffs, k=len(diffs))) / total for _ in range(resamples))
    return boot[int(0.025 * resamples)], boot[int(0.975 * resamples) - 1]


def paired(first: str, second: str, *more: str, resamples: int = 10_000) -> tuple[float, float, float]:
    """The difference in the share of runs lost between two ``play --record`` files (each
    may be several, comma-separated, merged) of the same suite and seed (second minus first),
    over the positions both played and the runs both made (run r of a position has the same
    bot seeds in both: the first min(runs) runs are paired), with a 95% bootstrap interval
    over positions (the runs of a position stay together); printed. ``more`` holds further
    pairs (first, second) of other seeds: each pair is printed, then all pooled, a position's
    runs of every seed staying together in the bootstrap; the pooled figures are returned."""
    if len(more) % 2:
        raise SystemExit("error: paired takes records in pairs: FIRST SECOND [FIRST SECOND ...]")
    by_position: dict[str, list[int]] = {}
    lost_first = lost_second = total = 0
    for one, other in zip((first, *more[::2]), (second, *more[1::2]), strict=True):
        a, b, runs, lost = _lost_by_position(one, other)
        diffs = [y - x for x, y in lost.values()]
        low, high = _bootstrap(diffs, len(lost) * runs, resamples)
        share = 100 * sum(diffs) / (len(lost) * runs)
        print(f"# {len(lost)} positions x {runs} runs: {a['bot']} lost {sum(x for x, _ in lost.values())}, "
              f"{b['bot']} lost {sum(y for _, y in lost.values())}; difference {share:+.1f} points "
              f"[{100 * low:+.1f}, {100 * high:+.1f}] of the runs lost (second minus first; bootstrap over "
              f"positions)")
        if not (a.get("printed") or b.get("printed")):      # a printed play has counts, not runs
            pairs = [(x, y) for k in lost for x, y in zip(a["results"][k][:runs], b["results"][k][:runs],
                                                          strict=True)]
            alone_a, alone_b = sum(y and not x for x, y in pairs), sum(x and not y for x, y in pairs)
            print(f"# runs lost by {a['bot']} alone: {alone_a}, by {b['bot']} alone: {alone_b}, by both: "
                  f"{sum(not (x or y) for x, y in pairs)}")
        for k, (x, y) in lost.items():
            by_position.setdefault(k, []).append(y - x)
        lost_first += sum(x for x, _ in lost.values())
        lost_second += sum(y for _, y in lost.values())
        total += len(lost) * runs
    diffs = [sum(d) for d in by_position.values()]
    low, high = _bootstrap(diffs, total, resamples)
    if more:
        print(f"# pooled, {len(more) // 2 + 1} seeds: {len(by_position)} positions, {total} runs each: "
              f"the first lost {lost_first} ({100 * lost_first / total:.1f}%), the second {lost_second} "
              f"({100 * lost_second / total:.1f}%); difference {100 * sum(diffs) / total:+.1f} points "
              f"[{100 * low:+.1f}, {100 * high:+.1f}] (second minus first; bootstrap over positions)")
    return sum(diffs) / total, low, high


def _summaries(rows: Sequence[tuple[dict[str, Any], int]], runs: int) -> tuple[int, int]:
    """The summary of all rows, then of each lead band (:func:`summarize`)."""
    lost, always = summarize(rows, runs, "")
    for low_lead, high_lead in BANDS:
        summarize([(e, k) for e, k in rows if low_lead <= e["lead"] <= high_lead], runs,
                  f" (lead {low_lead}-{high_lead})" if high_lead < 999 else f" (lead {low_lead} or more)")
    return lost, always


def _leader_bot(spec: str, seed: int, index: int, entry: dict[str, Any]):
    """`spec` in the leader's seat of a suite position, seeded as ``play``'s first run there."""
    return make_bot(spec, _bot_seed(seed, _key(index, entry), 0, entry["leader"]))


def roots(suite_path: str, bots: Sequence[str], seed: int, record: str | None = None) -> list[list[float]]:
    """How won each position looks to each bot: the mean reward, for the leader, of the move
    its search plays there (one search, seeded as ``play``'s first run); prints the median and
    the shares at 0.8 or more and below 0.6, and, with a ``play --record`` file of the suite,
    the share of runs lost by the positions below and above 0.7 of the first bot."""
    from glory_ai.bench import provenance

    print(provenance())
    suite = list(enumerate(load_suite(suite_path)))
    means: list[list[float]] = []
    for spec in bots:
        row = []
        for index, entry in suite:
            bot = _leader_bot(spec, seed, index, entry)
            bot.step(rebuild(entry))
            found = bot.last_search()
            if found is None and len(rebuild(entry).legal_actions()) > 1:
                raise SystemExit(f"error: roots needs search bots; {spec} does not search")
            # (a forced move: no search, the position left out)
            row.append(found["actions"][0]["mean_reward"][entry["leader"]] if found else float("nan"))
        ordered = sorted(v for v in row if v == v)
        median = ordered[len(ordered) // 2]
        print(f"# {spec}: {len(ordered)} positions, the leader's root mean: median {median:.3f}; "
              f"0.8 or more: {sum(v >= 0.8 for v in row)}, below 0.6: {sum(v < 0.6 for v in row)}")
        means.append(row)
    if record and means:
        results = _merged(record.split(","))[1]
        for label, keep in (("below 0.7", lambda v: v < 0.7), ("0.7 or more", lambda v: v >= 0.7)):
            runs = [results[str(_key(i, e))] for (i, e), v in zip(suite, means[0], strict=True)
                    if keep(v) and str(_key(i, e)) in results]
            lost, total = sum(r.count(False) for r in runs), sum(len(r) for r in runs)
            low, high = _wilson(lost, total)
            print(f"# positions whose root mean is {label}: {len(runs)}; runs lost {lost} of {total}: "
                  f"{_share(lost, total, low, high)}")
    return means


def cost(suite_path: str, bots: Sequence[str], positions: int, seed: int = 0) -> dict[str, list[float]]:
    """CPU seconds of one decision of each bot at the leader's decision of `positions`
    positions spread evenly over the suite (seeded as ``play``'s first run), the bots in turn
    at each position; prints every bot's mean in ms and its ratios to the first bot's."""
    from glory_ai.bench import provenance

    if positions < 1 or not bots:
        raise SystemExit("error: cost needs --positions of at least 1 and at least one bot")
    print(provenance())
    suite = list(enumerate(load_suite(suite_path)))
    step = max(1, len(suite) // positions)
    chosen = suite[::step][:positions]
    spent: dict[str, list[float]] = {spec: [] for spec in bots}
    for index, entry in chosen:
        state = rebuild(entry)
        for spec in bots:
            bot = _leader_bot(spec, seed, index, entry)
            start = time.process_time()
            bot.step(state)
            spent[spec].append(time.process_time() - start)
    first = spent[bots[0]]
    for spec in bots:
        mine = spent[spec]
        ratios = sorted(m / f for m, f in zip(mine, first, strict=True) if f > 0)
        median = ratios[len(ratios) // 2] if ratios else float("nan")
        total = sum(mine) / sum(first) if sum(first) > 0 else float("nan")
        print(f"# {spec}: {1000 * sum(mine) / len(mine):.1f} ms of CPU a decision over {len(mine)} "
              f"positions; against {bots[0]}: x{total:.2f} in all, median x{median:.2f}")
    return spent


def _merged(records: Sequence[str]) -> tuple[dict[str, Any], dict[str, list[bool]], dict[str, int]]:
    """``play --record`` files of one bot, seed and runs merged: the first, every position's
    runs and its lead, by the position's key."""
    loaded = [_printed(path) if path.endswith(".txt") else orjson.loads(Path(path).read_bytes())
              for path in records]
    first = loaded[0]
    if any((r["bot"], r["seed"], r["runs"]) != (first["bot"], first["seed"], first["runs"]) for r in loaded):
        raise SystemExit("error: the records are not of one bot, seed and runs")
    return (first, {k: v for r in loaded for k, v in r["results"].items()},
            {k: v for r in loaded for k, v in r.get("leads", {}).items()})


def _printed(path: str) -> dict[str, Any]:
    """A record read from what ``play`` printed (its lines, for a play stopped before it wrote
    its record): the runs of a position are counts only, so it pairs with equal runs alone."""
    lines = Path(path).read_text().splitlines()
    header = re.search(r"thrown\.py play (\S+) .*--bot (\S+)", lines[0]) if lines else None
    if header is None:
        raise SystemExit(f"error: {path}: not the output of thrown.py play")
    option = {k: int(v) for k, v in re.findall(r"--(runs|seed|start) (\d+)", lines[0])}
    suite = load_suite(header.group(1))
    results, leads = {}, {}
    for line in lines:
        row = re.match(r"\s*(\d+) .* lead (\d+) .*: lost (\d+)/(\d+) \[", line)
        if row:
            index, lead, lost, runs = (int(g) for g in row.groups())
            key = str(_key(index, suite[index]))
            results[key] = [False] * lost + [True] * (runs - lost)
            leads[key] = lead
    return {"bot": header.group(2), "seed": option.get("seed", 0), "runs": option.get("runs", 1),
            "results": results, "leads": leads, "printed": True}


def report(records: Sequence[str]) -> tuple[int, int]:
    """The summary of ``play --record`` files of one bot, seed and runs (the parts of one
    suite played in pieces, ``--start``/``--limit``), merged; printed."""
    first, results, leads = _merged(records)
    print(f"# {first['bot']}: {len(results)} positions x {first['runs']} runs, bot seeds from "
          f"{first['seed']} ({len(records)} records merged)")
    return _summaries([({"lead": leads[k]}, v.count(False)) for k, v in results.items()], first["runs"])


#: the lead bands of play's summary (VP)
BANDS = ((12, 14), (15, 19), (20, 999))


def summarize(rows: Sequence[tuple[dict[str, Any], int]], runs: int, label: str) -> tuple[int, int]:
    """Print the runs the leader lost and the positions lost in every run (each with its
    Wilson interval) of (entry, runs lost) rows; returns those two counts."""
    lost = sum(k for _, k in rows)
    always = sum(k == runs for _, k in rows)
    total = len(rows) * runs
    low, high = _wilson(lost, total)
    print(f"# the leader lost {lost} of {total} runs{label}: {_share(lost, total, low, high)}")
    low, high = _wilson(always, len(rows))
    print(f"# positions lost in every run{label}: {always} of {len(rows)}: "
          f"{_share(always, len(rows), low, high)}")
    return lost, always


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("find", help="replay run folders and write the suite of thrown games")
    f.add_argument("folders", nargs="+")
    f.add_argument("--lead", type=int, default=LEAD)
    f.add_argument("--out", default=None)
    # what play and won share: a suite's positions played by processes, seeded by index
    playing = argparse.ArgumentParser(add_help=False)
    playing.add_argument("suite")
    playing.add_argument("--opponent", default=None, help="this spec in every other seat instead")
    playing.add_argument("--seed", type=int, default=0)
    playing.add_argument("--jobs", type=int, default=1, help="processes")
    playing.add_argument("--limit", type=int, default=None, help="only the first N positions")
    playing.add_argument("--start", type=int, default=0,
                         help="skip the first N positions (seeds stay by index)")
    p = sub.add_parser("play", parents=[playing], help="play a suite's positions to the end")
    p.add_argument("--bot", required=True)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--sample", type=int, default=None, help="N positions drawn with --seed")
    p.add_argument("--record", default=None, help="write every run's result here (JSON, for paired)")
    w = sub.add_parser("won", parents=[playing],
                       help="keep the positions the all-seeing control wins in every run")
    w.add_argument("--out", required=True)
    w.add_argument("--control", default=CONTROL)
    w.add_argument("--runs", type=int, default=2)
    o = sub.add_parser("roots", help="the leader's root mean of each position, per bot")
    o.add_argument("suite")
    o.add_argument("--bots", nargs="+", required=True)
    o.add_argument("--seed", type=int, default=0)
    o.add_argument("--record", default=None, help="play --record files of the first bot (comma-separated)")
    c = sub.add_parser("cost", help="the CPU time of a decision of each bot at the suite's positions")
    c.add_argument("suite")
    c.add_argument("--bots", nargs="+", required=True)
    c.add_argument("--positions", type=int, default=40)
    c.add_argument("--seed", type=int, default=0)
    r = sub.add_parser("report", help="the summary of play --record files merged")
    r.add_argument("records", nargs="+")
    m = sub.add_parser("merge", help="join suites written by won of parts of one suite")
    m.add_argument("out")
    m.add_argument("pieces", nargs="+")
    d = sub.add_parser("paired", help="the paired difference of two play --record files")
    d.add_argument("first")
    d.add_argument("second")
    d.add_argument("more", nargs="*", help="more pairs FIRST SECOND, of other seeds: pooled")
    args = parser.parse_args(argv)
    if getattr(args, "runs", 1) < 1 or getattr(args, "jobs", 1) < 1:
        parser.error("--runs and --jobs must be at least 1")
    if args.command == "find":
        find(args.folders, args.lead, args.out)
    elif args.command == "won":
        won(args.suite, args.out, args.control, args.runs, args.seed, args.jobs, args.limit, args.opponent,
            args.start)
    elif args.command == "merge":
        merge(args.out, args.pieces)
    elif args.command == "paired":
        paired(args.first, args.second, *args.more)
    elif args.command == "report":
        report(args.records)
    elif args.command == "roots":
        roots(args.suite, args.bots, args.seed, args.record)
    elif args.command == "cost":
        cost(args.suite, args.bots, args.positions, args.seed)
    else:
        play(args.suite, args.bot, args.opponent, args.runs, args.seed, args.limit, args.sample, args.jobs,
             args.record, args.start)


if __name__ == "__main__":
    sys.exit(main())
