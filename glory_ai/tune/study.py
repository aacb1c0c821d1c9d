"""The search of a balance study: an optuna study over the knobs, every trial a rule set
played on the study's shared deals (docs/tuning.md, "The search").

The study lives in optuna's SQLite storage inside the results folder (``study.db``: a real
database, resumable and readable with optuna's own tools). The trials run one after another;
the games of each run on the arena's workers. Before each trial the sampler is made anew,
seeded by the study's seed and the number of trials finished, so that the sequence of
variants depends only on the results so far: a study killed with kill -9 and run again
marks the trial in flight as interrupted, asks for the same variant again (its games are
resumed from its folder) and goes on exactly as it would have.

Single objective: a trial reports its loss after each rung of deals and optuna's successive
halving pruner stops the unpromising ones (poor variants stop after few deals, promising ones
get many). Several objectives kept apart (``combine = "pareto"``): no pruning, every trial
plays every deal, and the result is the Pareto front.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import optuna
from optuna.distributions import BaseDistribution, CategoricalDistribution, IntDistribution
from optuna.trial import TrialState

from ..arena import ArenaError
from ..arena.session import Session
from .config import TuneConfig
from .errors import TooFewGames, TuneError
from .knobs import variant_key, variant_label
from .ntbea import NTBEASampler
from .trials import Measured, combined, losses, measure, play_rule_set, violations

__all__ = ["STUDY_FILE", "TrialResult", "open_study", "run_search", "trial_results"]

STUDY_FILE = "study.db"
TRIALS_DIR = "trials"

optuna.logging.set_verbosity(optuna.logging.WARNING)
log = logging.getLogger("glory_ai.tune")


def _seed(root: int, *parts: int) -> int:
    digest = hashlib.sha256(json.dumps([root, *parts]).encode()).digest()
    return int.from_bytes(digest[:4], "little")


def distributions(config: TuneConfig) -> dict[str, BaseDistribution]:
    """The optuna distribution of every knob: an integer range, or its values as categories."""
    out: dict[str, BaseDistribution] = {}
    for knob in config.knobs:
        if knob.is_range:
            out[knob.name] = IntDistribution(knob.values[0], knob.values[-1])
        else:
            out[knob.name] = CategoricalDistribution(list(knob.values))
    return out


def make_sampler(config: TuneConfig, finished: int) -> optuna.samplers.BaseSampler:
    """The study's sampler, seeded by the study's seed and the number of trials finished."""
    seed = _seed(config.seed, finished)
    startup = max(4, min(10, config.trials // 3))
    if config.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    if config.sampler == "cmaes":
        return optuna.samplers.CmaEsSampler(
            seed=seed, n_startup_trials=startup, independent_sampler=optuna.samplers.RandomSampler(seed=seed)
        )
    if config.sampler == "ntbea":
        return NTBEASampler(seed=seed, startup=min(startup, 4))
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=startup, multivariate=True)


def make_pruner(config: TuneConfig) -> optuna.pruners.BasePruner:
    if config.multi or len(config.rungs) == 1:
        return optuna.pruners.NopPruner()
    return optuna.pruners.SuccessiveHalvingPruner(
        min_resource=config.rungs[0], reduction_factor=config.reduction
    )


def _storage(folder: Path) -> optuna.storages.RDBStorage:
    return optuna.storages.RDBStorage(f"sqlite:///{(folder / STUDY_FILE).resolve()}")


def open_study(config: TuneConfig, folder: Path, finished: int = 0) -> optuna.Study:
    """The study in ``folder/study.db`` (made if new), with the sampler for the next trial."""
    storage = _storage(folder)
    directions: list[optuna.study.StudyDirection] = [optuna.study.StudyDirection.MINIMIZE] * (
        len(config.objectives) if config.multi else 1)
    return optuna.create_study(
        storage=storage,
        study_name=config.name,
        directions=directions,
        sampler=make_sampler(config, finished),
        pruner=make_pruner(config),
        load_if_exists=True,
    )


@dataclass
class TrialResult:
    """One trial as the README and the plots show it."""

    number: int
    state: str  # complete, pruned, refused, interrupted, running
    params: dict[str, Any]
    key: str
    label: str
    variant: dict[str, Any]
    deals: int = 0
    values: list[float] = field(default_factory=list)
    estimates: dict[str, list[float]] = field(default_factory=dict)  # statistic -> est, low, high
    constraints: list[float] = field(default_factory=list)
    reason: str = ""

    @property
    def feasible(self) -> bool:
        return all(v <= 0 for v in self.constraints)


def trial_results(study: optuna.Study) -> list[TrialResult]:
    """Every trial of the study, in order."""
    out = []
    for trial in study.get_trials(deepcopy=False):
        attrs = trial.user_attrs
        if attrs.get("interrupted"):
            state = "interrupted"
        elif attrs.get("refused"):
            state = "refused"
        else:
            state = {
                TrialState.COMPLETE: "complete",
                TrialState.PRUNED: "pruned",
                TrialState.RUNNING: "running",
                TrialState.WAITING: "waiting",
            }.get(trial.state, "failed")
        values = (
            list(trial.values)
            if trial.values
            else (
                [trial.intermediate_values[max(trial.intermediate_values)]]
                if trial.intermediate_values
                else []
            )
        )
        out.append(
            TrialResult(
                trial.number,
                state,
                dict(trial.params),
                attrs.get("key", ""),
                attrs.get("label", ""),
                attrs.get("variant", {}),
                attrs.get("deals", 0),
                values,
                attrs.get("estimates", {}),
                attrs.get("constraints", []),
                attrs.get("refused", ""),
            )
        )
    return out


def _recover(study: optuna.Study, folder: Path, log_line: Callable[[str], object]) -> None:
    """Trials left running by a killed process (the study folder's lock says no other process
    runs them): marked interrupted (failed) and asked again."""
    storage = _storage(folder)
    study_id = storage.get_study_id_from_name(study.study_name)
    for trial in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        trial_id = storage.get_trial_id_from_study_id_trial_number(study_id, trial.number)
        storage.set_trial_user_attr(trial_id, "interrupted", True)
        storage.set_trial_state_values(trial_id, TrialState.FAIL)
        study.enqueue_trial(dict(trial.params), user_attrs={"resumed_from": trial.number})
        log_line(
            f"trial {trial.number} was interrupted: its variant is played again (its finished games are kept)"
        )


def _finished(study: optuna.Study) -> int:
    """Trials that count towards the budget: every one that ended (interrupted ones do not)."""
    return sum(
        1
        for t in study.get_trials(deepcopy=False)
        if t.state != TrialState.RUNNING
        and t.state != TrialState.WAITING
        and not t.user_attrs.get("interrupted")
    )


def _estimates(measured: Measured) -> dict[str, list[float | None]]:
    return {
        name: [round(x, 6) if math.isfinite(x) else None for x in measured.estimate(name)]
        for name in measured.draws
    }


def _set_constraints(trial: optuna.Trial, config: TuneConfig, measured: Measured) -> None:
    """Optuna's own record of the constraints (the samplers read it; set once per trial)."""
    for index, value in enumerate(violations(config, measured.draws)):
        trial.set_constraint(f"constraint{index}", value)


def _run_trial(
    config: TuneConfig,
    study: optuna.Study,
    folder: Path,
    session: Session,
    log_line: Callable[[str], object],
    progress: Callable[[int, int], object],
) -> None:
    """Ask, play rung by rung (reporting and maybe pruning), tell."""
    trial = study.ask(distributions(config))
    params = {k.name: trial.params[k.name] for k in config.knobs}
    variant = config.space.variant(params)
    key = variant_key(config.mode, variant)
    label = variant_label(config.knobs, params, config.space.published())
    for name, value in (("key", key), ("label", label), ("variant", variant)):
        trial.set_user_attr(name, value)
    problem = config.space.problem(params)
    if problem:
        trial.set_user_attr("refused", problem)
        study.tell(trial, state=TrialState.FAIL)
        log_line(f"trial {trial.number}: {label}: refused ({problem})")
        return
    measured: Measured | None = None
    for rung in config.rungs:
        folders = play_rule_set(
            config,
            variant,
            folder / TRIALS_DIR / key,
            rung,
            seed=config.seed,
            planned=config.rungs[-1],
            session=session,
        )
        try:
            measured = measure(config, folders, rung, seed=_seed(config.seed, rung))
        except TooFewGames as error:
            if rung != config.rungs[-1]:
                # too few games to define it yet: play on to the next rung (nothing reported,
                # so the pruner neither keeps nor stops the trial on a value it does not have)
                progress(trial.number, rung)
                log_line(f"trial {trial.number}: {label}: no value after {rung} deals ({error}); playing on")
                continue
            trial.set_user_attr("refused", str(error))
            study.tell(trial, state=TrialState.FAIL)
            log_line(f"trial {trial.number}: {label}: refused ({error})")
            return
        except TuneError as error:
            # a statistic these rules leave undefined (a building out of the deck): no value
            trial.set_user_attr("refused", str(error))
            study.tell(trial, state=TrialState.FAIL)
            log_line(f"trial {trial.number}: {label}: refused ({error})")
            return
        progress(trial.number, rung)
        trial.set_user_attr("deals", rung)
        trial.set_user_attr("estimates", _estimates(measured))
        trial.set_user_attr("constraints", violations(config, measured.draws))
        if config.multi:
            continue
        loss = float(combined(config, measured.draws)[0])
        trial.report(loss, rung)
        if rung != config.rungs[-1] and trial.should_prune():
            _set_constraints(trial, config, measured)
            study.tell(trial, state=TrialState.PRUNED)
            log_line(f"trial {trial.number}: {label}: stopped after {rung} deals (loss {loss:.4g})")
            return
    assert measured is not None
    values = (
        [float(loss[0]) for loss in losses(config, measured.draws)]
        if config.multi
        else [float(combined(config, measured.draws)[0])]
    )
    _set_constraints(trial, config, measured)
    study.tell(trial, values if config.multi else values[0])
    held = "" if all(v <= 0 for v in violations(config, measured.draws)) else ", a constraint broken"
    log_line(
        f"trial {trial.number}: {label}: loss {', '.join(f'{v:.4g}' for v in values)} "
        f"after {config.rungs[-1]} deals{held}"
    )


def run_search(
    config: TuneConfig,
    folder: Path,
    session: Session,
    *,
    log_line: Callable[[str], object] = print,
    progress: Callable[[int, int], object] = lambda trial, deals: None,
    trials: int | None = None,
) -> optuna.Study:
    """Run (or resume) the study's trials until ``trials`` (default: the config's) have ended."""
    budget = config.trials if trials is None else trials
    study = open_study(config, folder)
    _recover(study, folder, log_line)
    while (done := _finished(study)) < budget:
        study = open_study(config, folder, finished=done)
        try:
            _run_trial(config, study, folder, session, log_line, progress)
        except ArenaError as error:
            raise TuneError(f"trial {done}: {error}") from None
    return study
