"""Engine speed benchmark: python benchmarks/engine.py [--seconds S]

Prints CPU ns per clone(), legal_actions() and apply_action() from Python (medians of
interleaved rounds with their quartiles), and random full games and decisions per CPU second
(one core, C-level random_playout) for 2 and 4 players. Targets: clone <= 150 ns; >= 5,000
random 2-player games per second.
"""
import argparse

from glory_ai.bench import provenance, run

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=2.0, help="time per playout measurement")
    args = parser.parse_args()
    print(provenance(), flush=True)
    run(args.seconds)
