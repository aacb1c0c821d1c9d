"""Analysis at scale: python3 benchmarks/analysis_scale.py [--games 10000 100000 1000000]

For each number of games N: synthetic records (benchmarks/analysis.py's generator: real
greedy/heuristic records copied with new ids, seeds, scores and buildings; 2, 3 and 4 players,
40/30/30% of the games) in DIR/N/, then, each in a process of its own (so that its peak memory
is its own, read from getrusage):

* ``columns``: the runs' columns files made from the records (once per run; later reads reuse them);
* ``compare table``: compare's summary of the 2-player run (summarize_run: from its columns);
* ``report tables``: every table and sentence of the report over the three runs (build_report
  of Runs: the runs' columns files read a row group at a time, each section from its sums),
  no figures;
* ``report``: write_report (tables, figures, HTML);
* with --records, the same two tables from the records (GLORY_AI_COLUMNS=0: today's reader
  of every record), for comparison;
* with --dask-rows ROWS, the report's tables over ROWS seat-games or more (the largest size's
  runs copied into several folders, hard links) with a local Dask cluster of 2 worker
  processes as the report's client: CPU-s here and in the workers, wall time, peak memory
  here and in the largest worker.

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
#: the per-deal sums the deal bootstrap reads (win share and seat-games per deal and spec, each
#: run's columns file), by three engines: arrow's reader a row group at a time into numpy,
#: arrow's own group_by over the columns, and DuckDB's SQL over the Parquet files
ENGINE_STEPS = {
    "deal sums: arrow + numpy": (
        "import numpy as np, pyarrow.parquet as pq\n"
        "from glory_ai.analysis.columns import ensure_columns\n"
        "for f in FOLDERS:\n"
        "    source = pq.ParquetFile(ensure_columns(f))\n"
        "    sums = np.zeros(0); games = np.zeros(0); codes = {}\n"
        "    for batch in source.iter_batches(columns=['deal', 'spec', 'win_share'], use_threads=False):\n"
        "        spec = batch.column(1).dictionary_encode()\n"
        "        # the batch's own dictionary mapped to the run's spec codes (a handful of names)\n"
        "        local = np.array([codes.setdefault(n, len(codes)) for n in spec.dictionary.to_pylist()])\n"
        "        key = batch.column(0).to_numpy() * 8 + local[np.asarray(spec.indices)]\n"
        "        n = int(key.max()) + 1\n"
        "        if n > len(sums):\n"
        "            sums = np.pad(sums, (0, n - len(sums))); games = np.pad(games, (0, n - len(games)))\n"
        "        sums[:n] += np.bincount(key, weights=batch.column(2).to_numpy(), minlength=n)\n"
        "        games[:n] += np.bincount(key, minlength=n)\n"),
    "deal sums: arrow group_by": (
        "import pyarrow.parquet as pq\n"
        "from glory_ai.analysis.columns import ensure_columns\n"
        "for f in FOLDERS:\n"
        "    t = pq.read_table(ensure_columns(f), columns=['deal', 'spec', 'win_share'], use_threads=False)\n"
        "    t.group_by(['deal', 'spec']).aggregate([('win_share', 'sum'), ('win_share', 'count')])\n"),
    "deal sums: duckdb": (
        "import duckdb\n"
        "from glory_ai.analysis.columns import ensure_columns\n"
        "con = duckdb.connect(config={'threads': 1})\n"
        "for f in FOLDERS:\n"
        "    con.execute(\"select deal, spec, sum(win_share), count(*) from read_parquet(?) \"\n"
        "                \"group by deal, spec\", [str(ensure_columns(f))]).fetchnumpy()\n"),
}

#: the report's tables on a local Dask cluster (2 worker processes): CPU-s of this process and
#: of the workers (children, counted once they end), peak memory of this process and of the
#: largest worker
DASK_STEP = (
    "import distributed\n"
    "from glory_ai.analysis.report import Runs, build_report\n"
    "with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,\n"
    "                              dashboard_address=None) as cluster, \\\n"
    "        distributed.Client(cluster) as client:\n"
    "    build_report(Runs(FOLDERS, client=client), figures=False)\n")

MEASURE = """
import json, resource, sys, time, warnings
warnings.simplefilter("ignore")
FOLDERS = {folders!r}
started = time.perf_counter()
{code}
usage = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({{"cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024,
                  "wall": time.perf_counter() - started,
                  "children_cpu": children.ru_utime + children.ru_stime,
                  "children_rss_mb": children.ru_maxrss / 1024}}))
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


def copies(root: Path, source: list[Path], rows: int) -> list[Path]:
    """Run folders holding at least ``rows`` seat-games: the ``source`` runs copied (hard
    links: their records and columns files are the same files, their identity unchanged)
    into ``root``/copyN/ as many times as it takes."""
    import shutil

    import pyarrow.parquet as pq

    per_copy = sum(pq.ParquetFile(f / "games.parquet").metadata.num_rows for f in source)
    folders = []
    for n in range(1, -(-rows // per_copy) + 1):
        for folder in source:
            target = root / f"copy{n}" / folder.name
            if not target.exists():
                shutil.copytree(folder, target, copy_function=os.link)
            folders.append(target)
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
    parser.add_argument("--engines", action="store_true",
                        help="also the per-deal sums by arrow + numpy, arrow's group_by and DuckDB")
    parser.add_argument("--dask-rows", type=int, default=0, metavar="ROWS",
                        help="also the report's tables over ROWS seat-games or more (the largest "
                             "size's runs copied into several folders) on a local Dask cluster")
    args = parser.parse_args()
    from glory_ai.bench import provenance

    print(provenance("python benchmarks/analysis_scale.py " + " ".join(sys.argv[1:])))
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
        if args.engines:
            steps.update(ENGINE_STEPS)
        for name, code in steps.items():
            env = dict(os.environ)
            if name.endswith("(records)"):
                env["GLORY_AI_COLUMNS"] = "0"
            figures = measure(code, folders, env)
            rows.append((games, name, figures))
            print(f"  {name:<26} {figures['cpu']:8.1f} CPU-s  {figures['rss_mb']:7.0f} MB peak", flush=True)
    if args.dask_rows:
        import pyarrow.parquet as pq

        largest = synthesise(Path(args.keep) / str(max(args.games)), max(args.games))
        folders = copies(Path(args.keep) / f"dask-{args.dask_rows}", largest, args.dask_rows)
        rows_in = sum(pq.ParquetFile(f / "games.parquet").metadata.num_rows for f in folders)
        figures = measure(DASK_STEP, folders, dict(os.environ))
        name = f"report tables, dask ({rows_in:,} rows, {len(folders)} runs)"
        rows.append((max(args.games), name, figures))
        print(f"  {name}: {figures['cpu']:.1f} CPU-s here + {figures['children_cpu']:.1f} in the workers, "
              f"{figures['wall']:.0f} s wall, {figures['rss_mb']:.0f} MB peak here, "
              f"{figures['children_rss_mb']:.0f} MB in the largest worker", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("\n| games | step | CPU-s | peak MB |\n|---:|---|---:|---:|")
    for games, name, figures in rows:
        print(f"| {games:,} | {name} | {figures['cpu']:.1f} | {figures['rss_mb']:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
