"""Thrown games (issue 36): python benchmarks/thrown.py find FOLDER... [--lead 12] [--out FILE]
                         python benchmarks/thrown.py play SUITE --bot SPEC [--opponent SPEC] [--runs R]

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
recorded spec naming a model file that is gone) is set aside and counted.
"""
from __future__ import annotations

import argparse
import gzip
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from glory_ai import Game, State
from glory_ai.arena.play import MAX_DECISIONS, result_fields
from glory_ai.arena.storage import games_file
from glory_ai.bots import make_bot

LEAD = 12
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
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        with gzip.GzipFile(out, "wb", mtime=0) as f:        # the same bytes from the same records
            for entry in suite:
                f.write(orjson.dumps(entry) + b"\n")
        print(f"# wrote {len(suite)} positions to {out}")
    return suite


def load_suite(path: str | Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rb") as f:
        return [orjson.loads(line) for line in f if line.strip()]


def _bot_seed(seed: int, index: int, run: int, seat: int) -> int:
    return (seed * 1_000_003 + index * 10_007 + run * 101 + seat) % (2 ** 31)


def play_out(entry: dict[str, Any], bot: str, opponent: str | None, seed: int, index: int = 0,
             run: int = 0) -> bool:
    """Play an entry's position to the end with ``bot`` in the leader's seat: True when the
    leader is among the winners (a game stopped at MAX_DECISIONS is adjudicated)."""
    state = rebuild(entry)
    leader = entry["leader"]
    bots = [make_bot(bot if q == leader else opponent or entry["seats"][q], _bot_seed(seed, index, run, q))
            for q in range(entry["num_players"])]
    while not state.is_terminal() and state.decisions() < MAX_DECISIONS:
        state.apply_action(bots[state.current_player()].step(state))
    return leader in result_fields(state)["winners"]


def _wilson(k: int, n: int) -> tuple[float, float]:
    from glory_ai.analysis.stats.intervals import wilson

    low, high = wilson([k], [n])
    return float(low[0]), float(high[0])


def _playable(entry: dict[str, Any], bot: str, opponent: str | None) -> bool:
    """Whether every seat's bot can be made (a recorded spec may name a model file that is gone)."""
    try:
        for q in range(entry["num_players"]):
            make_bot(bot if q == entry["leader"] else opponent or entry["seats"][q], 0)
    except (ValueError, OSError, KeyError):
        return False
    return True


def play(suite_path: str, bot: str, opponent: str | None, runs: int, seed: int,
         limit: int | None = None, sample: int | None = None) -> tuple[int, int, int, int]:
    """Play the suite (its first ``limit`` positions, or ``sample`` of them drawn with
    ``seed``); prints a line per position and the summary. Returns (runs lost, runs,
    positions lost in every run, positions)."""
    from glory_ai.bench import provenance

    print(provenance())
    suite = list(enumerate(load_suite(suite_path)))[:limit]
    if sample is not None and sample < len(suite):
        suite = sorted(random.Random(seed).sample(suite, sample), key=lambda pair: pair[0])
    playable = [(index, entry) for index, entry in suite if _playable(entry, bot, opponent)]
    print(f"# {len(playable)} positions x {runs} runs ({len(suite) - len(playable)} set aside: a seat's "
          f"spec cannot be made); {bot} in the leader's seat, {opponent or 'the recorded specs'} "
          f"elsewhere; bot seeds from {seed}")
    suite = playable
    rows = []
    start = time.time()
    for index, entry in suite:
        results = [play_out(entry, bot, opponent, seed, index, run) for run in range(runs)]
        losses = results.count(False)
        rows.append((entry, losses))
        print(f"{index:3d} {entry['source']} {entry['game_id']} seat {entry['leader']} "
              f"lead {entry['lead']} ({entry['scores']}) turn {entry['turn']}: lost {losses}/{runs} "
              f"[{time.time() - start:.0f} s]", flush=True)
    lost, always = summarize(rows, runs, "")
    for low_lead, high_lead in BANDS:
        summarize([(e, k) for e, k in rows if low_lead <= e["lead"] <= high_lead], runs,
                  f" (lead {low_lead}-{high_lead})" if high_lead < 999 else f" (lead {low_lead} or more)")
    return lost, len(rows) * runs, always, len(rows)


#: the lead bands of play's summary (VP)
BANDS = ((12, 14), (15, 19), (20, 999))


def summarize(rows: Sequence[tuple[dict[str, Any], int]], runs: int, label: str) -> tuple[int, int]:
    """Print the runs the leader lost and the positions lost in every run (each with its
    Wilson interval) of (entry, runs lost) rows; returns those two counts."""
    lost = sum(k for _, k in rows)
    always = sum(k == runs for _, k in rows)
    total = len(rows) * runs
    low, high = _wilson(lost, total)
    print(f"# the leader lost {lost} of {total} runs{label}: {lost / max(total, 1):.3f} "
          f"[{low:.3f}, {high:.3f}]")
    low, high = _wilson(always, len(rows))
    print(f"# positions lost in every run{label}: {always} of {len(rows)}: "
          f"{always / max(len(rows), 1):.3f} [{low:.3f}, {high:.3f}]")
    return lost, always


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    f = sub.add_parser("find", help="replay run folders and write the suite of thrown games")
    f.add_argument("folders", nargs="+")
    f.add_argument("--lead", type=int, default=LEAD)
    f.add_argument("--out", default=None)
    p = sub.add_parser("play", help="play a suite's positions to the end")
    p.add_argument("suite")
    p.add_argument("--bot", required=True)
    p.add_argument("--opponent", default=None)
    p.add_argument("--runs", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--limit", type=int, default=None, help="only the first N positions")
    p.add_argument("--sample", type=int, default=None, help="N positions drawn with --seed")
    args = parser.parse_args(argv)
    if args.command == "find":
        find(args.folders, args.lead, args.out)
    else:
        play(args.suite, args.bot, args.opponent, args.runs, args.seed, args.limit, args.sample)


if __name__ == "__main__":
    sys.exit(main())
