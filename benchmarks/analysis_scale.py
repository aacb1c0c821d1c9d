"""Analysis at scale: python3 benchmarks/analysis_scale.py [--games 10000 100000 1000000]

For each number of games N: synthetic records (benchmarks/analysis.py's generator: real
greedy/heuristic records copied with new ids, seeds, scores and buildings; 2, 3 and 4 players,
40/30/30% of the games) in DIR/N/, then, each in a process of its own (so that its peak memory
is its own, read from getrusage):

* ``columns``: the runs' columns files made from the records (once per run; later reads reuse them);
* ``compare table``: compare's summary of the 2-player run (summarize_run: from its columns);
* ``report tables``: every table and sentence of the report over the three runs (build_report
  of Runs, a section's columns at a time), no figures;
* ``report``: write_report (tables, figures, HTML);
* with --records, the same two tables from the records (GLORY_AI_COLUMNS=0: today's reader
  of every record), for comparison.

Printed per step: CPU seconds (user + system) and peak resident memory. The load average is
printed too: figures taken while other processes run are not comparable across runs.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

STEPS = {
    "columns": "from glory_ai.analysis.columns import ensure_columns\n"
               "for f in FOLDERS: ensure_columns(f)\n",
    "compare table": "from glory_ai.analysis.stats.summary import summarize_run\n"
                     "from glory_ai.arena.storage import load_config\n"
                     "summarize_run(FOLDERS[0], load_config(FOLDERS[0]))\n",
    "report tables": "from glory_ai.analysis.report import Runs, build_report\n"
                     "build_report(Runs(FOLDERS), figures=False)\n",
    "report": "import tempfile\nfrom glory_ai.analysis.report import write_report\n"
              "write_report(FOLDERS, tempfile.mkdtemp())\n",
}
RECORD_STEPS = {
    "compare table (records)": "from glory_ai.analysis.stats.summary import summarize\n"
                               "from glory_ai.arena import load_records\n"
                               "from glory_ai.arena.storage import load_config\n"
                               "summarize(load_records(FOLDERS[0]), load_config(FOLDERS[0]))\n",
    "report tables (records)": "from glory_ai.analysis.load import load_runs\n"
                               "from glory_ai.analysis.report import build_report\n"
                               "build_report(load_runs(FOLDERS), figures=False)\n",
}

MEASURE = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
FOLDERS = {folders!r}
started = time.perf_counter()
{code}
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
                  "wall": time.perf_counter() - started}}))
"""


def synthesise(root: Path, games: int) -> list[Path]:
    """The three synthetic runs of ``games`` games under ``root`` (kept for the next call)."""
    sys.path.insert(0, str(HERE))
    import analysis as generator

    folders = []
    for players in (2, 3, 4):
        n = int(round(games * generator.SHARE[players]))
        folder = root / f"synthetic-{players}p"
        config = folder / "config.json"
        if not (config.exists() and json.loads(config.read_text())["total_games"] == n):
            generator.synthesise(generator.templates(players), n, players, folder, seed=players)
        folders.append(folder)
    return folders


def measure(code: str, folders: list[Path], env: dict[str, str]) -> dict[str, float]:
    script = MEASURE.format(folders=[str(f) for f in folders], code=code)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=False)
    if out.returncode:
        raise SystemExit(out.stderr)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--keep", metavar="DIR", default="/tmp/glory-analysis-scale",
                        help="where the synthetic runs are kept between calls")
    parser.add_argument("--records", action="store_true", help="also the tables from the records")
    parser.add_argument("--no-report", action="store_true", help="leave out write_report (figures)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    rows = []
    for games in args.games:
        started = time.perf_counter()
        folders = synthesise(Path(args.keep) / str(games), games)
        print(f"{games:,} games: records ready in {time.perf_counter() - started:.0f} s", flush=True)
        steps = dict(STEPS)
        if args.no_report:
            steps.pop("report")
        if args.records:
            steps.update(RECORD_STEPS)
        for name, code in steps.items():
            env = dict(os.environ)
            if name.endswith("(records)"):
                env["GLORY_AI_COLUMNS"] = "0"
            figures = measure(code, folders, env)
            rows.append((games, name, figures))
            print(f"  {name:<26} {figures['cpu']:8.1f} CPU-s  {figures['rss_mb']:7.0f} MB peak", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("\n| games | step | CPU-s | peak MB |\n|---:|---|---:|---:|")
    for games, name, figures in rows:
        print(f"| {games:,} | {name} | {figures['cpu']:.1f} | {figures['rss_mb']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
