"""Analysis benchmark: python3 benchmarks/analysis.py [--games N] [--report]

Synthesises N game records (default 100,000) in three run folders -- 2, 3 and 4 players,
40%/30%/30% of the games, about 3 seats a game on average (~290,000 rows for 100,000 games)
-- by copying real records (a few dozen `greedy`/`heuristic` games played first, their
action lists kept so the lines have their real length) and varying their ids, seeds,
scores, VP breakdowns, winners, completed buildings, end reasons and lengths. Then times
`load_runs` on the three folders and every table of glory_ai.analysis.stats (per player count
where a table needs one), and with --report the whole report (figures and HTML) too.
The load average is printed: figures taken while other processes run are not comparable.
With --keep DIR the synthetic runs stay in DIR and the next run with the same DIR and
--games reuses them.
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from glory_ai.analysis import load as load_mod
from glory_ai.analysis import stats as T
from glory_ai.arena import RunConfig, run
from glory_ai.arena.play import encode_record

SPECS = {
    2: ["greedy", "heuristic:style=builder", "heuristic:style=merchant", "random"],
    3: ["greedy", "heuristic:style=legionary", "heuristic:style=patron"],
    4: ["greedy", "heuristic:style=builder", "heuristic:style=merchant", "heuristic:style=patron"],
}
SHARE = {2: 0.4, 3: 0.3, 4: 0.3}
REASONS = ["deck", "sites", "catacomb", "forum"]


def templates(players: int) -> list[dict]:
    """Real records to copy: a short run of the benchmark's specs."""
    specs = SPECS[players]
    config = RunConfig.for_games(specs, 24 if players > 2 else 12 * len(specs), players=players,
                                 seed=players)
    return run(config, n_jobs=1, progress=False).records


def synthesise(base: list[dict], games: int, players: int, folder: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    buildings = np.array(load_mod.BUILDINGS)
    folder.mkdir(parents=True, exist_ok=True)
    config = RunConfig.for_games(SPECS[players], games, players=players, seed=seed)
    (folder / "config.json").write_text(json.dumps({
        "format": "glory_ai/arena-run", "format_version": 1, "version": "0.1.0",
        "description": f"synthetic benchmark run ({games} games, {players} players)",
        "games_per_deal": config.games_per_deal, "total_games": games,
        "config": config.to_dict()}, indent=2) + "\n")
    specs = SPECS[players]
    # seat strength: the first spec wins most (a visible ladder); a small first-seat edge
    strength = np.linspace(1.0, 0.4, len(specs))
    with open(folder / "games.jsonl", "w", encoding="utf-8") as out:
        lines = []
        for i in range(games):
            rec = copy.copy(base[i % len(base)])
            deal, rotation = divmod(i, players)
            rec["game_id"] = f"{deal}-0-{rotation}"
            rec["deal"], rec["pairing"], rec["rotation"] = deal, 0, rotation
            rec["seed"] = int(rng.integers(0, 2**63))
            seats = [specs[(s + rotation) % len(specs)] for s in range(players)]
            if len(specs) > players:                      # a pairing of a round robin
                pick = rng.choice(len(specs), size=players, replace=False)
                seats = [specs[j] for j in pick]
            rec["seats"] = seats
            power = (np.array([strength[specs.index(s)] for s in seats])
                     * (1 + 0.05 * (np.arange(players) == 0)))
            vp = []
            scores = []
            structures = []
            for s in range(players):
                n_built = int(rng.integers(0, 9))
                built = rng.choice(buildings, size=n_built, replace=False).tolist()
                influence = 2 + 2 * n_built + int(rng.integers(0, 4))
                vault = int(rng.poisson(12 * power[s]))
                bonus = int(rng.choice([0, 3, 6, 9], p=[0.4, 0.3, 0.2, 0.1]))
                statue = 3 if "Statue" in built else 0
                wall = int(rng.integers(0, 4)) if "Wall" in built else 0
                total = influence + vault + bonus + statue + wall
                vp.append({"influence": influence, "vault": vault, "merchant_bonus": bonus,
                           "statue": statue, "wall": wall, "total": total})
                scores.append(total)
                structures.append({"complete": built,
                                   "incomplete": rng.choice(buildings, size=int(rng.integers(0, 4)),
                                                            replace=False).tolist()})
            best = max(scores)
            winners = [s for s in range(players) if scores[s] == best]
            rec["vp"], rec["scores"], rec["structures"] = vp, scores, structures
            rec["winners"] = winners
            rec["returns"] = [1 / len(winners) if s in winners else 0.0 for s in range(players)]
            rec["end_reason"] = REASONS[int(rng.choice(4, p=[0.5, 0.35, 0.12, 0.03]))]
            rec["turns"] = int(rng.integers(20, 140))
            rec["decisions"] = int(rec["turns"] * (2 + players) + rng.integers(0, 50))
            lines.append(encode_record(rec))
            if len(lines) == 5000:
                out.write("\n".join(lines) + "\n")
                lines = []
        if lines:
            out.write("\n".join(lines) + "\n")


def timed(label: str, fn, results: dict) -> object:
    start = time.perf_counter()
    value = fn()
    results[label] = time.perf_counter() - start
    print(f"  {label:<40} {results[label]:7.2f} s", flush=True)
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--report", action="store_true", help="also time write_report")
    parser.add_argument("--keep", metavar="DIR",
                        help="write the runs here (kept, and reused by the next --keep DIR) "
                             "instead of a temporary folder")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep) if args.keep else Path(tmp)
        folders = []
        start = time.perf_counter()
        reused = 0
        for players in (2, 3, 4):
            n = int(round(args.games * SHARE[players]))
            folder = root / f"synthetic-{players}p"
            games_file = folder / "games.jsonl"
            if args.keep and games_file.exists() and \
                    json.loads((folder / "config.json").read_text())["total_games"] == n:
                reused += 1                   # --keep DIR of an earlier run: the same records
            else:
                synthesise(templates(players), n, players, folder, seed=players)
            folders.append(folder)
        size = sum((f / "games.jsonl").stat().st_size for f in folders)
        print(f"{'reused' if reused == 3 else 'synthesised'} {args.games} records "
              f"({size / 1e6:.0f} MB of JSON lines) in {time.perf_counter() - start:.1f} s")
        results: dict[str, float] = {}
        frame = timed("load_runs (3 runs)", lambda: load_mod.load_runs(folders), results)
        print(f"  -> {len(frame)} rows, {frame['game'].nunique()} games, {frame.shape[1]} columns")
        timed("win_rates", lambda: T.win_rates(frame), results)
        timed("win_rates by num_players", lambda: T.win_rates(frame, by="num_players"), results)
        timed("win_rates by num_players, seat",
              lambda: T.win_rates(frame, by=["num_players", "seat"]), results)
        for k in (2, 3, 4):
            timed(f"finishing_matrix ({k} players)",
                  lambda k=k: T.finishing_matrix(frame, num_players=k), results)
            timed(f"ratings ({k} players)", lambda k=k: T.ratings(frame, num_players=k), results)
        timed("seat_advantage", lambda: T.seat_advantage(frame), results)
        timed("seat_tests", lambda: T.seat_tests(frame), results)
        timed("building_strength", lambda: T.building_strength(frame), results)
        timed("vp_breakdown", lambda: T.vp_breakdown(frame, by="num_players"), results)
        timed("end_conditions", lambda: T.end_conditions(frame, by="num_players"), results)
        timed("game_length", lambda: T.game_length(frame), results)
        timed("compare_variants (by run, 2p vs 2p halves)",
              lambda: T.compare_variants(frame[frame["num_players"] == 2].assign(
                  half=np.where(frame.loc[frame["num_players"] == 2, "deal"] % 2 == 0, "even", "odd")),
                  by="half"), results)
        tables = sum(v for k, v in results.items() if not k.startswith("load"))
        print(f"load {results['load_runs (3 runs)']:.2f} s + every table {tables:.2f} s = "
              f"{results['load_runs (3 runs)'] + tables:.2f} s for {args.games} games")
        if args.report:
            from glory_ai.analysis.report import write_report
            out = root / "report"
            timed("write_report (tables, figures, HTML)", lambda: write_report(folders, out), results)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
