"""Arena: playing matches between bots, seeding them and storing their records.

>>> from glory_ai.arena import RunConfig, run
>>> config = RunConfig(specs=("greedy", "random"), deals=2, seed=1)
>>> result = run(config)                  # 2 deals x 2 seatings, nothing written
>>> len(result.records), result.records[0]["game_id"]
(4, '0-0-0')

``run(config, out=DIR, n_jobs=J)`` plays in parallel into a resumable run folder, which
:func:`load_records` and :func:`load_run` read back (docs/arena.md); a command holds its
folder for the whole life of its runs in a :class:`Session` (lock, fresh start, code check,
stopping rule, SIGTERM). The statistics of the records (win rates, ratings, the SPRT) are
:mod:`glory_ai.analysis.stats`; ``glory-ai compare`` is the command line. Nothing here
imports pandas, scipy or matplotlib: a worker imports :mod:`glory_ai.arena.play`, and with
it this package.
"""
from .plan import FORMATS, ArenaError, GameTask, RunConfig, bot_seed, deal_seed
from .play import RECORD_VERSION, TIMING_FIELDS, play_batch, play_game, replay, strip_timing
from .runner import BACKENDS, RunInterrupted, RunResult, StoppingRule, run
from .session import Session
from .storage import load_config, load_records, load_run, read_records

__all__ = [
    "ArenaError", "BACKENDS", "FORMATS", "GameTask", "RECORD_VERSION", "RunConfig",
    "RunInterrupted", "RunResult", "Session", "StoppingRule", "TIMING_FIELDS", "bot_seed",
    "deal_seed", "load_config", "load_records", "load_run", "play_batch", "play_game",
    "read_records", "replay", "run", "strip_timing",
]
