"""Evaluation speed benchmark:
python3 benchmarks/evaluation.py [--iters N] [--states K] [--rounds R] [--baseline DIR]

ISMCTS iterations per second at the default rollout cutoff (40 decisions, then the
evaluation) on the same 2- and 4-player mid-game states, interleaved (the order rotates
from one search to the next):

  * style: the built-in balanced style (``ismcts``);
  * linear: the same style read from a linear .npz model (``ismcts:eval=PATH``);
  * mlp: a 2x64 MLP with input normalisation (``ismcts:eval=PATH``);
  * baseline (with ``--baseline DIR``): the built-in style of another checkout of glory_ai
    (say, one from before the styles were models), searched in a worker process that
    imports DIR's build, on the same positions and seeds.

Then the cost per player of the feature vector (features_c) and of one evaluation. Times
are CPU time of the searching thread (so the load of other processes matters less);
compare the ratios, taken within each state and round, never absolute figures across
machines. Targets (docs/evaluation.md): the linear model at >= 90% and the MLP at >= 50%
of the style's iterations per second.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from glory_ai.bench import provenance
from glory_ai.bots import make_bot
from glory_ai.bots._search import _evaluation_loop
from glory_ai.bots.bench import mid_game_states
from glory_ai.bots.models import FEATURE_COUNT, load_model, mlp_model, style_model

# The baseline worker: reads {"position", "spec", "seed"} lines, answers {"iterations", "cpu"}
WORKER = """
import json, sys, time
from glory_ai.bots import make_bot
from glory_ai.core.engine import State
for line in sys.stdin:
    job = json.loads(line)
    state = State.from_dict(job["position"])
    bot = make_bot(job["spec"], seed=job["seed"])
    start = time.thread_time_ns()
    bot.step(state)
    cpu = (time.thread_time_ns() - start) / 1e9
    print(json.dumps({"iterations": bot.last_search()["iterations"], "cpu": cpu}), flush=True)
"""


class Baseline:
    """Searches run by another checkout's build, in a worker process."""

    def __init__(self, folder: str) -> None:
        env = dict(os.environ, PYTHONPATH=str(Path(folder).resolve()))
        self.worker = subprocess.Popen([sys.executable, "-c", WORKER], stdin=subprocess.PIPE,
                                       stdout=subprocess.PIPE, text=True, env=env, cwd=folder)

    def rate(self, position: dict, spec: str, seed: int) -> float:
        assert self.worker.stdin is not None and self.worker.stdout is not None
        self.worker.stdin.write(json.dumps({"position": position, "spec": spec, "seed": seed}) + "\n")
        self.worker.stdin.flush()
        answer = self.worker.stdout.readline()
        if not answer:
            raise SystemExit("the baseline worker stopped (see its error above)")
        done = json.loads(answer)
        return done["iterations"] / done["cpu"]

    def close(self) -> None:
        assert self.worker.stdin is not None
        self.worker.stdin.close()
        self.worker.wait()


def write_models(folder: Path, states) -> dict[str, Path]:
    """The balanced style as a linear .npz, and a 2x64 MLP with seeded random weights and
    the input normalisation of the states' features (as a trained model would have)."""
    rng = np.random.default_rng(1)
    features = np.array([state.features(p) for state in states for p in range(state.num_players())])
    mean, scale = features.mean(axis=0), features.std(axis=0)
    scale[scale == 0] = 1.0
    sizes = [FEATURE_COUNT, 64, 64, 1]
    layers = [(rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_out)), rng.normal(0, 0.1, n_out))
              for n_in, n_out in zip(sizes, sizes[1:], strict=False)]
    paths = {"linear": folder / "balanced.npz", "mlp": folder / "mlp_2x64.npz"}
    style_model("balanced").save(paths["linear"])
    mlp_model(layers, "value", mean=mean, scale=scale).save(paths["mlp"])
    return paths


def search_rates(specs: dict[str, str], states, rounds: int,
                 baseline: Baseline | None) -> dict[str, list[float]]:
    """Iterations per CPU second of one search of each spec, per state and round, the
    specs in a rotating order (so none always runs first)."""
    labels = list(specs) + (["baseline"] if baseline else [])
    rates: dict[str, list[float]] = {label: [] for label in labels}
    positions = [state.to_dict() for state in states] if baseline else []
    for r in range(rounds):
        for i, state in enumerate(states):
            shift = (r + i) % len(labels)
            for label in labels[shift:] + labels[:shift]:
                if label == "baseline":
                    assert baseline is not None
                    rates[label].append(baseline.rate(positions[i], specs["style"], i))
                    continue
                bot = make_bot(specs[label], seed=i)
                start = time.thread_time_ns()
                bot.step(state)
                elapsed = (time.thread_time_ns() - start) / 1e9
                rates[label].append(bot.last_search()["iterations"] / elapsed)
    return rates


def evaluation_costs(models: dict[str, object], states, rounds: int, repeats: int) -> dict[str, float]:
    """ns per player of features_c alone and of each model's evaluation, interleaved."""
    samples: dict[str, list[float]] = {"features": [], **{label: [] for label in models}}
    for _ in range(rounds):
        for label in samples:
            start = time.thread_time_ns()
            if label == "features":
                done = _evaluation_loop(states, models["style"], repeats, True)
            else:
                done = _evaluation_loop(states, models[label], repeats)
            samples[label].append((time.thread_time_ns() - start) / done)
    return {label: statistics.median(values) for label, values in samples.items()}


def ratio(rates: dict[str, list[float]], label: str, against: str) -> float:
    return statistics.median(a / b for a, b in zip(rates[label], rates[against], strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0].rstrip(':'))
    parser.add_argument("--iters", type=int, default=4000, help="iterations per search (default 4000)")
    parser.add_argument("--states", type=int, default=6, help="mid-game states per player count (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over the states (default 3)")
    parser.add_argument("--baseline", metavar="DIR",
                        help="also search with the built-in style of the glory_ai checkout in DIR (built)")
    args = parser.parse_args()
    print(provenance(), flush=True)
    baseline = Baseline(args.baseline) if args.baseline else None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for num_players in (2, 4):
                states = mid_game_states(num_players, args.states, seed=num_players * 100)
                paths = write_models(Path(tmp), states)
                specs = {"style": f"ismcts:iters={args.iters}",
                         "linear": f"ismcts:iters={args.iters},eval={paths['linear']}",
                         "mlp": f"ismcts:iters={args.iters},eval={paths['mlp']}"}
                rates = search_rates(specs, states, args.rounds, baseline)
                print(f"{num_players} players, ISMCTS cutoff 40, {args.iters} iterations, "
                      f"{len(rates['style'])} searches each (median it/s; median of the paired ratios):")
                print(f"  {'built-in balanced style':<28} {statistics.median(rates['style']):>9,.0f} it/s")
                for label, text in (("linear", "linear .npz (the style)"), ("mlp", "2x64 MLP .npz")):
                    print(f"  {text:<28} {statistics.median(rates[label]):>9,.0f} it/s  "
                          f"x{ratio(rates, label, 'style'):.3f} of the style")
                if baseline:
                    print(f"  {'baseline: style of ' + Path(args.baseline).name:<28} "
                          f"{statistics.median(rates['baseline']):>9,.0f} it/s  "
                          f"(the style here: x{ratio(rates, 'style', 'baseline'):.3f} of it; "
                          f"the linear .npz x{ratio(rates, 'linear', 'baseline'):.3f}, "
                          f"the MLP x{ratio(rates, 'mlp', 'baseline'):.3f})")
                models = {"style": style_model("balanced"), "linear": load_model(paths["linear"]),
                          "mlp": load_model(paths["mlp"])}
                costs = evaluation_costs(models, states, rounds=5, repeats=2000)
                print(f"  per player: features_c {costs['features']:.0f} ns; evaluation with the style "
                      f"{costs['style']:.0f} ns, the linear .npz {costs['linear']:.0f} ns, "
                      f"the MLP {costs['mlp']:.0f} ns")
    finally:
        if baseline:
            baseline.close()
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
