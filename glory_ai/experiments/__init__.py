"""Experiments: configs in experiments/NAME.toml run into results/NAME/, reproducibly.

>>> from glory_ai.experiments import parse_experiment
>>> exp = parse_experiment({"seed": 3, "matchup": [{"name": "duel", "specs": ["greedy", "random"],
...                                                  "deals": 2}]}, "demo")
>>> [(run.name, run.config.total_games) for run in exp.runs()]
[('duel', 4)]

``glory-ai run experiments/NAME.toml`` runs one (docs/experiments.md);
``glory-ai reproduce results/NAME`` re-runs it and checks the records are identical.
"""
from .config import Experiment, ExperimentError, Matchup, PlannedRun, load_experiment, parse_experiment
from .runner import ReproduceReport, manifest, reproduce, run_experiment

__all__ = ["Experiment", "ExperimentError", "Matchup", "PlannedRun", "ReproduceReport",
           "load_experiment", "manifest", "parse_experiment", "reproduce", "run_experiment"]
