"""What can go wrong with a bot: a spec that cannot be built (:class:`SpecError`) and a
user's bot that breaks its interface (:class:`BotError`, docs/extending.md#robustness).

Kept free of imports so that the compiled referee (``_fairplay.pyx``), the arena's loop and
the spec grammar can raise them without importing the rest of :mod:`glory_ai.bots`.
"""
from __future__ import annotations

__all__ = ["BotError", "REASONS", "SpecError"]

#: the ways a bot can break its interface, as ``BotError.reason`` says them
REASONS = ("raised", "mutated", "not_an_action", "illegal", "time_limit", "died")


class SpecError(ValueError):
    """A bot spec that cannot be built: names the part at fault and what is accepted."""


class BotError(Exception):
    """A bot broke its interface at one decision: its ``step`` (or a hook) raised, it
    changed the state it was handed, returned something that is not an action id or an
    action that is not legal, took longer than the move time limit, or its bot host process
    died (``died``: glory_ai.arena.hosted).

    ``reason`` is one of :data:`REASONS`; ``seat`` is the player of the bot when the
    caller knows it (None: the player to move). The arena turns it into a one-line
    :class:`~glory_ai.arena.play.BotFailure` naming the bot, the game and the decision.
    """

    def __init__(self, reason: str, message: str, seat: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.seat = seat

    def __reduce__(self) -> tuple[type[BotError], tuple[str, str, int | None]]:
        # crosses process boundaries (joblib, Dask) with its fields
        return (type(self), (self.reason, self.message, self.seat))

    def __str__(self) -> str:
        return self.message
