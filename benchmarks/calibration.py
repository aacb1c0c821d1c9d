"""Calibration of the paired-deal statistics: python3 benchmarks/calibration.py [--runs N] [--quick]

Plays synthetic matches and fields with known strengths and a deal effect
(glory_ai.analysis.stats.calibration) and prints, as Markdown tables (docs/statistics.md shows
them):

1. head to head: how often the nominal 95% interval of A's score covers the truth, from the
   pentanomial model (paired.paired_estimate) and from games taken as independent (Wilson);
2. fields of 3: the same for each spec's win share, deal bootstrap against Wilson;
3. the SPRT: how often it accepts H1 when H0 holds (alpha) and H0 when H1 holds (beta),
   for the pentanomial model (normalized and logistic Elo) and the trinomial one;
4. re-runs: how often a correct re-run is flagged by paired.rerun_test and by the rule
   "the new win rate lies outside the old 95% interval".

Effects: "none"; "seat" (a deal favours one seat: logit effect ~ N(0, 1.5²)); "spec" (a
deal suits one player: ~ N(0, 1.5²)). Every figure is seeded: the same command prints the
same tables. --runs scales every count of simulated runs (default 4000 matches); --quick
divides them by 10.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from glory_ai.analysis.stats import calibration as C
from glory_ai.analysis.stats import paired

EFFECTS = {"none": {}, "seat": {"seat_sd": 1.5}, "spec": {"spec_sd": 1.5},
           "seat+spec": {"seat_sd": 1.0, "spec_sd": 1.0}}


def se_note(runs: int, p: float = 0.95) -> str:
    return f"{100 * (p * (1 - p) / runs) ** 0.5:.1f}"


def head_to_head(runs: int) -> None:
    print(f"\n### Head to head: coverage of the 95% interval of A's score ({runs} matches "
          f"per row; simulation standard error ~{se_note(runs)} points)\n")
    print("| deal effect | A's score | deals | pentanomial | independent (Wilson) "
          "| mean width, pentanomial | mean width, independent |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    seed = 0
    for name, effect in EFFECTS.items():
        for score in (0.5, 0.64, 0.8):
            for deals in (30, 100, 400):
                seed += 1
                model = C.Match(**effect).with_score(score)
                r = C.match_coverage(model, deals, runs, seed=seed)
                print(f"| {name} | {score:.2f} | {deals} | {100 * r['paired']:.1f}% "
                      f"| {100 * r['independent']:.1f}% | {r['paired_width']:.3f} "
                      f"| {r['independent_width']:.3f} |")


def fields(runs: int) -> None:
    print(f"\n### Fields of 3: coverage of the 95% interval of each spec's win share ({runs} "
          f"fields of 3 specs per row, strengths 0.5, 0, -0.5)\n")
    print("| deal effect | deals | deal bootstrap | independent (Wilson) | mean width, bootstrap "
          "| mean width, independent |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    seed = 100
    for name, effect in EFFECTS.items():
        for deals in (30, 100):
            seed += 1
            r = C.field_coverage(C.Field(**effect), deals, runs, seed=seed)
            print(f"| {name} | {deals} | {100 * r['bootstrap']:.1f}% | {100 * r['independent']:.1f}% "
                  f"| {r['bootstrap_width']:.3f} | {r['independent_width']:.3f} |")


SPRTS = [  # label, cells, Elo model, elo0, elo1
    ("pentanomial, normalized Elo [0, 40]", 5, "normalized", 0.0, 40.0),
    ("pentanomial, logistic Elo [0, 25]", 5, "logistic", 0.0, 25.0),
    ("trinomial (independent games), logistic Elo [0, 25]", 3, "logistic", 0.0, 25.0),
]


def sprts(runs: int) -> None:
    print(f"\n### SPRT error rates, alpha = beta = 5% ({runs} tests per cell; simulation "
          f"standard error ~{se_note(runs, 0.05)} points)\n")
    print("| deal effect | model and bounds | accepts H1 under H0 (alpha) | mean deals "
          "| accepts H0 under H1 (beta) | mean deals |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    seed = 200
    for name in ("none", "seat", "spec"):
        base = C.Match(**EFFECTS[name])
        for label, cells, elo_model, elo0, elo1 in SPRTS:
            if elo_model == "normalized":
                h0, h1 = base.with_nelo(elo0), base.with_nelo(elo1)
            else:
                h0 = base.with_score(1 / (1 + 10 ** (-elo0 / 400)))
                h1 = base.with_score(1 / (1 + 10 ** (-elo1 / 400)))
            seed += 1
            under0 = C.sprt_errors(h0, elo0, elo1, runs, seed=seed, elo_model=elo_model, cells=cells)
            under1 = C.sprt_errors(h1, elo0, elo1, runs, seed=seed + 1000, elo_model=elo_model,
                                   cells=cells)
            print(f"| {name} | {label} | {100 * under0['H1']:.2f}% | {under0['deals']:.0f} "
                  f"| {100 * under1['H0']:.2f}% | {under1['deals']:.0f} |", flush=True)


def reruns(runs: int) -> None:
    print(f"\n### Re-runs: how often a correct re-run (100 deals, A's score 60%) is flagged "
          f"({runs} pairs of runs per row)\n")
    print(f"| deal effect | rerun_test, alpha = {paired.RERUN_ALPHA:g} | new rate outside "
          "the old 95% interval |")
    print("| --- | ---: | ---: |")
    for k, (name, effect) in enumerate(EFFECTS.items()):
        r = C.rerun_false_alarms(C.Match(**effect).with_score(0.6), 100, runs, seed=300 + k)
        print(f"| {name} | {100 * r['test']:.2f}% | {100 * r['outside_interval']:.1f}% |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4000, help="simulated matches per row")
    parser.add_argument("--quick", action="store_true", help="a tenth of the runs")
    args = parser.parse_args()
    runs = max(10, args.runs // 10 if args.quick else args.runs)
    start = time.time()
    print(f"`python3 benchmarks/calibration.py{' '.join([''] + sys.argv[1:])}` "
          f"(load average {os.getloadavg()[0]:.1f})")
    head_to_head(runs)
    fields(max(10, runs // 4))
    sprts(runs)
    reruns(5 * runs)
    print(f"\n({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
