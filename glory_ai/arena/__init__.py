"""Arena: running matches between bots and comparing their results.

>>> from glory_ai.arena import RunConfig, run, summarize
>>> config = RunConfig(specs=("greedy", "random"), deals=2, seed=1)
>>> result = run(config)                  # 2 deals x 2 seatings, nothing written
>>> len(result.records), result.records[0]["game_id"]
(4, '0-0-0')
>>> int(summarize(result.records, config).loc["greedy", "games"])
4

``run(config, out=DIR, n_jobs=J)`` plays in parallel into a resumable run folder;
``glory-ai compare`` is the command line (docs/arena.md).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .plan import FORMATS, ArenaError, GameTask, RunConfig, bot_seed, deal_seed

if TYPE_CHECKING:      # the names __getattr__ imports on first use, for the type checker
    from .play import RECORD_VERSION, TIMING_FIELDS, play_batch, play_game, replay, strip_timing
    from .runner import BACKENDS, RunInterrupted, RunResult, run
    from .storage import load_config, load_records, load_run
    from .summary import DealSPRT, format_table, plot_win_rates, summarize, win_matrix_frame

__all__ = [
    "ArenaError", "BACKENDS", "DealSPRT", "FORMATS", "GameTask", "RECORD_VERSION",
    "RunConfig", "RunInterrupted", "RunResult", "TIMING_FIELDS", "bot_seed", "deal_seed",
    "format_table", "load_config", "load_records", "load_run", "play_batch", "play_game",
    "plot_win_rates", "replay", "run", "strip_timing", "summarize", "win_matrix_frame",
]

# imported on first use, so that a worker importing glory_ai.arena.play does not load
# pandas, scipy or matplotlib
_LAZY = {
    "RECORD_VERSION": "play", "TIMING_FIELDS": "play", "play_batch": "play",
    "play_game": "play", "replay": "play", "strip_timing": "play",
    "load_config": "storage", "load_records": "storage", "load_run": "storage",
    "BACKENDS": "runner", "RunInterrupted": "runner", "RunResult": "runner", "run": "runner",
    "DealSPRT": "summary", "format_table": "summary", "plot_win_rates": "summary",
    "summarize": "summary", "win_matrix_frame": "summary",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
