"""Which search a balance study should use: optuna's samplers against an N-tuple bandit
(NTBEA, the TAG framework's choice) on one study, the same budget of trials for each.

Each sampler runs the study's search several times (study seeds 1..R, the study's rungs and
pruner), and the variant it finds best is then measured on fresh deals (seed --fresh-seed,
--fresh-deals deals, never seen by any search): the loss there is what the designer would
get. Printed per sampler: the mean and the spread of that fresh loss over the repeats, the
mean in-search loss of the variant found (optimistic: it is a maximum over noisy trials),
games played and CPU seconds.

    python benchmarks/tune_samplers.py experiments/tuning/catacomb.toml --repeats 3
    python benchmarks/tune_samplers.py benchmarks/data/catacomb_greedy.toml --repeats 10 --trials 16
    python benchmarks/tune_samplers.py STUDY.toml --samplers tpe ntbea random --trials 20
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from glory_ai.arena.session import Session
from glory_ai.bench import provenance
from glory_ai.tune import TuneConfig, load_tune_config
from glory_ai.tune.study import run_search, trial_results
from glory_ai.tune.trials import combined, measure, play_rule_set


def _cpu() -> float:
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config", help="a study config (glory-ai tune)")
    parser.add_argument("--samplers", nargs="+", default=["tpe", "ntbea", "random"])
    parser.add_argument("--repeats", type=int, default=3, help="searches per sampler (study seeds 1..R)")
    parser.add_argument("--trials", type=int, default=None, help="trials per search (default: the config's)")
    parser.add_argument("--fresh-deals", type=int, default=200)
    parser.add_argument("--fresh-seed", type=int, default=987654321)
    parser.add_argument("--jobs", type=int, default=-1)
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args()
    print(provenance(), flush=True)
    base = load_tune_config(args.config)
    scratch = Path(tempfile.mkdtemp(prefix="tune-samplers-"))
    session = Session(scratch, n_jobs=args.jobs, progress=False)
    with session:
        rows = _compare(args, base, scratch, session)
    _print(args, base, rows)
    return 0


def _compare(args: argparse.Namespace, base: TuneConfig, scratch: Path, session: Session) -> list[dict]:
    fresh_cache: dict[str, float] = {}
    rows = []
    for sampler in args.samplers:
        found, fresh, seconds = [], [], []
        for repeat in range(1, args.repeats + 1):
            config = dataclasses.replace(base, sampler=sampler, seed=repeat,
                                         trials=args.trials or base.trials)
            folder = scratch / f"{sampler}-{repeat}"
            folder.mkdir()
            started = _cpu()
            study = run_search(config, folder, session, log_line=lambda _: None)
            seconds.append(_cpu() - started)
            results = trial_results(study)
            states = {state: sum(t.state == state for t in results)
                      for state in ("complete", "pruned", "refused")}
            done = [t for t in results if t.state == "complete" and t.values]
            best = min(done, key=lambda t: (not t.feasible, t.values[0], t.number))
            found.append(best.values[0])
            if best.key not in fresh_cache:
                where = scratch / "fresh" / best.key
                folders = play_rule_set(config, best.variant, where, args.fresh_deals, seed=args.fresh_seed,
                                        planned=args.fresh_deals, session=session)
                measured = measure(config, folders, args.fresh_deals, draws=0)
                fresh_cache[best.key] = float(combined(config, measured.draws)[0])
            fresh.append(fresh_cache[best.key])
            print(f"{sampler} seed {repeat}: best {best.label!r}: search loss {best.values[0]:.4f}, "
                  f"fresh loss {fresh[-1]:.4f} ({seconds[-1]:.0f} CPU-s; trials "
                  + ", ".join(f"{n} {state}" for state, n in states.items()) + ")", flush=True)
        rows.append({"sampler": sampler, "fresh_mean": statistics.mean(fresh),
                     "fresh_sd": statistics.stdev(fresh) if len(fresh) > 1 else 0.0,
                     "search_mean": statistics.mean(found), "cpu_seconds": statistics.mean(seconds),
                     "fresh": fresh})
    return rows


def _print(args: argparse.Namespace, base: TuneConfig, rows: list[dict]) -> None:
    print(f"\n{base.name}: {args.trials or base.trials} trials per search, {args.repeats} searches per "
          f"sampler, the variant found measured on {args.fresh_deals} fresh deals (lower is better)")
    print("| sampler | fresh loss (mean ± sd) | in-search loss | CPU-s per search |")
    print("|---|---|---|---|")
    for row in sorted(rows, key=lambda r: r["fresh_mean"]):
        print(f"| {row['sampler']} | {row['fresh_mean']:.4f} ± {row['fresh_sd']:.4f} | "
              f"{row['search_mean']:.4f} | {row['cpu_seconds']:.0f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"config": args.config, "rows": rows,
                                               "when": time.strftime("%Y-%m-%d")}, indent=2))


if __name__ == "__main__":
    sys.exit(main())
