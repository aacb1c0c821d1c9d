"""What an iteration of the defaults costs, against another build of the same search:
python benchmarks/iteration_cost_solver.py [--vs CHECKOUT] [--rounds R] [--players 2 3 4]

From the positions of benchmarks/prior_cost.py (every 5th decision of two games of
heuristic:epsilon=0.2 per player count, deals 500 and 501), prints the CPU milliseconds a
decision of `ismcts:iters=1000,reuse=false` (the defaults) and of the plain search of
before the solver (OLD, same iterations), and the iterations a decision under
`ismcts:cpu_ms=20` (the thread's CPU clock). With --vs, the same measurement of the build
in CHECKOUT (a source tree with its extensions built in place, put first on PYTHONPATH)
runs in turn with this one, a round each, R rounds: each figure is then the ratio this
build / that one, round by round (a drift of the machine's speed moves both sides of a
pair), its median and its range, and a 95% t-interval of the mean ratio. Both sides run in
child processes of the same Python; each names its build first.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

OLD = "c=0.7,cutoff=40,solver=false,speed=0,vp=0,final=visits,eval=style,turnwin=0"
SPECS = {"defaults": "ismcts:iters=1000,reuse=false", "OLD": f"ismcts:iters=1000,reuse=false,{OLD}"}
TIMED = "ismcts:cpu_ms=20,reuse=false"
T95 = {1: 12.71, 2: 4.30, 3: 3.18, 4: 2.78, 5: 2.57, 6: 2.45, 7: 2.36, 8: 2.31, 9: 2.26, 10: 2.23}


def measure(players: list[int]) -> dict[str, float]:
    """This process's build: per player count, CPU ms a decision of each spec and the mean
    iterations a decision under TIMED."""
    from glory_ai import build_info
    from glory_ai.bots import make_bot
    from glory_ai.bots.bench import states_along_games

    out: dict[str, float] = {}
    for n in players:
        states = states_along_games(n, 2, spec="heuristic:epsilon=0.2", first_deal=500, every=5)
        for label, spec in SPECS.items():
            start = time.process_time()
            for i, state in enumerate(states):
                make_bot(spec, seed=i).step(state)
            out[f"{n}p {label} CPU ms a decision"] = (time.process_time() - start) * 1000 / len(states)
        done = 0
        for i, state in enumerate(states):
            bot = make_bot(TIMED, seed=i)
            bot.step(state)
            done += bot.last_search()["iterations"]
        out[f"{n}p cpu_ms=20 iterations a decision"] = done / len(states)
    out["build"] = str(build_info().get("source_hash"))[:12]  # type: ignore[assignment]
    return out


def child(checkout: Path | None, players: list[int]) -> dict[str, float]:
    env = dict(os.environ)
    if checkout is not None:
        env["PYTHONPATH"] = str(checkout) + os.pathsep + env.get("PYTHONPATH", "")
    args = [sys.executable, __file__, "--worker", "--players", *map(str, players)]
    done = subprocess.run(args, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def interval(ratios: list[float]) -> str:
    mean = statistics.fmean(ratios)
    if len(ratios) < 2:
        return f"x{mean:.3f}"
    half = T95.get(len(ratios) - 1, 2.0) * statistics.stdev(ratios) / len(ratios) ** 0.5
    return f"x{mean:.3f} [{mean - half:.3f}, {mean + half:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vs", type=Path, help="a checkout of another build, its extensions built in place")
    parser.add_argument("--rounds", type=int, default=5, help="rounds of each build (default 5)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4],
                        help="player counts (default 2 3 4)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rounds < 1 or any(not 2 <= n <= 5 for n in args.players):
        parser.error("--rounds is at least 1 and --players within 2..5")
    if args.vs is not None and not (args.vs / "glory_ai" / "__init__.py").is_file():
        parser.error(f"--vs {args.vs}: no glory_ai package there")
    if args.worker:
        print(json.dumps(measure(args.players)))
        return
    from glory_ai.bench import provenance

    print(provenance(), flush=True)
    mine: list[dict[str, float]] = []
    theirs: list[dict[str, float]] = []
    for _ in range(args.rounds):
        mine.append(child(None, args.players))
        if args.vs is not None:
            theirs.append(child(args.vs, args.players))
    against = f", against build {theirs[0]['build']} ({args.vs})" if theirs else ""
    print(f"this build {mine[0]['build']}{against}")
    for key in mine[0]:
        if key == "build":
            continue
        ours = [m[key] for m in mine]
        line = f"{key:<36} {statistics.median(ours):>9.2f}"
        if theirs:
            other = [t[key] for t in theirs]
            ratios = [a / b for a, b in zip(ours, other, strict=True)]
            line += (f"  against {statistics.median(other):>9.2f}:  ratio median"
                     f" x{statistics.median(ratios):.3f} (x{min(ratios):.3f} to x{max(ratios):.3f}),"
                     f" mean {interval(ratios)}")
        print(line, flush=True)


if __name__ == "__main__":
    main()
