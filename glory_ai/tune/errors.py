"""The error of the tuner: a config, a knob or a folder that cannot be used."""

from __future__ import annotations

__all__ = ["TuneError"]


class TuneError(ValueError):
    """A study that cannot run as asked: names the file, the key or the knob at fault."""
