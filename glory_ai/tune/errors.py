"""The error of the tuner: a config, a knob or a folder that cannot be used."""

from __future__ import annotations

__all__ = ["TooFewGames", "TuneError"]


class TuneError(ValueError):
    """A study that cannot run as asked: names the file, the key or the knob at fault."""


class TooFewGames(TuneError):
    """A statistic these games leave undefined only for want of games (no building completed
    often enough to compare): more deals may define it, unlike a building out of the deck."""
