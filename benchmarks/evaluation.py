"""Evaluation speed benchmark: python benchmarks/evaluation.py [--iters N] [--states K] [--rounds R]

ISMCTS iterations per second at the default rollout cutoff (40 decisions, then the
evaluation) with the built-in balanced style, with the same style read from a linear .npz
model (eval=PATH), and with a 2x64 MLP (eval=PATH), interleaved on the same 2- and
4-player mid-game states; then the cost of the feature vector (features_c) and of one
evaluation (features and model) per player. Times are CPU time of the searching thread,
so the load of other processes matters less; compare the ratios, which are taken within
each state and round. Targets: the linear model at >= 90% and the MLP at >= 50% of the
style's iterations per second.
"""
import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from glory_ai.bots import make_bot
from glory_ai.bots._search import _evaluation_loop
from glory_ai.bots.bench import mid_game_states
from glory_ai.bots.models import FEATURE_COUNT, load_model, mlp_model, style_model


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


def search_rates(specs: dict[str, str], states, rounds: int) -> dict[str, list[float]]:
    """Iterations per CPU second of one search of each spec, per state and round, the
    specs in a rotating order (so none always runs first)."""
    rates: dict[str, list[float]] = {label: [] for label in specs}
    labels = list(specs)
    for r in range(rounds):
        for i, state in enumerate(states):
            shift = (r + i) % len(labels)
            for label in labels[shift:] + labels[:shift]:
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iters", type=int, default=4000, help="iterations per search (default 4000)")
    parser.add_argument("--states", type=int, default=6, help="mid-game states per player count (default 6)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over the states (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for num_players in (2, 4):
            states = mid_game_states(num_players, args.states, seed=num_players * 100)
            paths = write_models(Path(tmp), states)
            specs = {"style": f"ismcts:iters={args.iters}",
                     "linear": f"ismcts:iters={args.iters},eval={paths['linear']}",
                     "mlp": f"ismcts:iters={args.iters},eval={paths['mlp']}"}
            rates = search_rates(specs, states, args.rounds)
            style = statistics.median(rates["style"])
            print(f"{num_players} players, ISMCTS cutoff 40, {args.iters} iterations, "
                  f"{len(rates['style'])} searches each:")
            print(f"  {'built-in balanced style':<26} {style:>9,.0f} it/s")
            for label, text in (("linear", "linear .npz (the style)"), ("mlp", "2x64 MLP .npz")):
                ratio = statistics.median(a / b for a, b in zip(rates[label], rates["style"], strict=True))
                rate = statistics.median(rates[label])
                print(f"  {text:<26} {rate:>9,.0f} it/s  x{ratio:.3f} of the style")
            models = {"style": style_model("balanced"), "linear": load_model(paths["linear"]),
                      "mlp": load_model(paths["mlp"])}
            costs = evaluation_costs(models, states, rounds=5, repeats=2000)
            print(f"  per player: features_c {costs['features']:.0f} ns; evaluation with the style "
                  f"{costs['style']:.0f} ns, the linear .npz {costs['linear']:.0f} ns, "
                  f"the MLP {costs['mlp']:.0f} ns")


if __name__ == "__main__":
    main()
