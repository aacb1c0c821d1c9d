"""Balance tuning: search rule variants for the one that balances the game, and prove it on
fresh deals (``glory-ai tune``, docs/tuning.md).

>>> from glory_ai.tune import parse_knob
>>> knob = parse_knob("points.catacomb", {"low": 0, "high": 3})
>>> knob.name, knob.values
('points.Catacomb', (0, 1, 2, 3))
>>> variant = {}
>>> knob.apply(variant, 2); variant
{'points': {'Catacomb': 2}}

A study config names the bots, the knobs (:mod:`glory_ai.tune.knobs`), the objectives and
constraints (:mod:`glory_ai.tune.objectives`), the search and the validation
(:mod:`glory_ai.tune.config`); :func:`run_tune` runs it into a results folder
(:mod:`glory_ai.tune.runner`).
"""

from .config import TuneConfig, load_tune_config, parse_tune_config
from .errors import TuneError
from .knobs import Knob, SearchSpace, parse_knob
from .runner import is_study, reproduce_study, run_tune

__all__ = [
    "Knob",
    "SearchSpace",
    "TuneConfig",
    "TuneError",
    "is_study",
    "load_tune_config",
    "parse_knob",
    "parse_tune_config",
    "reproduce_study",
    "run_tune",
]
