"""The seed range, checked in one place by every entry point that takes a seed.

A seed is the 64-bit value the engine's generator starts from (csrc/rng.h): an integer from
0 to 2**64 - 1. The engine (``new_initial_state``, ``determinize``, playouts, positions),
the bots, the fair-play referee, the arena's run config, experiment configs and the command
line's ``--seed`` all refuse anything else with the same words, so a seed that one of them
accepts is accepted by all. (``glory_ai.core.config`` re-exports these names; this module
imports nothing, so the compiled engine can import it without a cycle.)

>>> check_seed(MAX_SEED) == 2**64 - 1
True
>>> check_seed(-1)
Traceback (most recent call last):
...
ValueError: seed must be an integer from 0 to 2**64 - 1, got -1
"""
from __future__ import annotations

import operator

__all__ = ["MAX_SEED", "SEED_RANGE", "check_seed", "seed_error"]

#: the largest seed: seeds are the generator's 64-bit values, 0 to 2**64 - 1
MAX_SEED = 2**64 - 1
#: the words every refusal of a seed uses
SEED_RANGE = "an integer from 0 to 2**64 - 1"


def seed_error(value: object, what: str = "seed") -> str:
    """The message refusing ``value`` as ``what`` (its repr cut short: a seed is one line)."""
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return f"{what} must be {SEED_RANGE}, got {shown}"


def check_seed(value: object, what: str = "seed") -> int:
    """``value`` as a seed (a Python int; numpy integers are accepted, a bool is not).

    TypeError for a value that is not an integer, ValueError for an integer outside 0 to
    :data:`MAX_SEED`, both with the message of :func:`seed_error` (``what`` names the
    argument or field)."""
    if not isinstance(value, bool):
        try:
            seed = operator.index(value)            # type: ignore[arg-type]
        except TypeError:
            pass
        else:
            if 0 <= seed <= MAX_SEED:
                return seed
            raise ValueError(seed_error(value, what))
    raise TypeError(seed_error(value, what))
