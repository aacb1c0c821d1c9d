"""The parameter type of a bot: :class:`Param` (its type, default, accepted values, meaning)
and how a value is spelled in a spec (:func:`spell_value`). Light: no engine, no bot."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .errors import SpecError

__all__ = ["Param", "spell_value"]


def spell_value(value: Any) -> str:
    """A parameter value as a spec writes it (``true``/``false`` for a flag)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Param:
    """One parameter of a bot: its type, default, accepted values and meaning."""

    name: str
    kind: type
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    #: a spec must give it (a user's factory parameter without a default)
    required: bool = False
    #: other spellings of a value (text -> value), read before the type
    aliases: tuple[tuple[str, str], ...] = ()
    #: the value that plays as the bot played before the parameter existed, for a run that
    #: recorded its parameters without it (BotSpec.played_differences); None: it was there
    #: from the first recorded runs
    before: Any = None

    def describe(self) -> str:
        if self.choices:
            accepted = "|".join(self.choices)
        elif self.kind is bool:
            accepted = "true|false"
        elif self.kind is str:
            accepted = "str"
        else:
            def show(bound: float | None) -> str:
                return "" if bound is None else (f"{int(bound):,}" if self.kind is int else f"{bound:g}")
            low, high = show(self.low), show(self.high)
            accepted = f"{self.kind.__name__} {low}..{high}"
        shown = (f"{self.name} (required, {accepted})" if self.required
                 else f"{self.name}={self.default} ({accepted})")
        return f"{shown}: {self.help}" if self.help else shown

    def parse(self, text: str, bot: str) -> Any:
        where = f"bot spec {bot!r}, parameter {self.name!r}"
        text = dict(self.aliases).get(text, text)
        if self.kind is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on"):
                return True
            if lowered in ("0", "false", "no", "off"):
                return False
            raise SpecError(f"{where}: expected true or false, got {text!r}")
        if self.choices:
            if text not in self.choices:
                raise SpecError(f"{where}: expected one of {'|'.join(self.choices)}, got {text!r}")
            return text
        try:
            value = self.kind(text)
        except ValueError:
            raise SpecError(f"{where}: expected {self.kind.__name__}, got {text!r}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise SpecError(f"{where}: expected a finite number, got {text!r}")
        if (self.low is not None and value < self.low) or (self.high is not None and value > self.high):
            low = "" if self.low is None else f"{self.low:g}"
            high = "" if self.high is None else f"{self.high:g}"
            raise SpecError(f"{where}: {value} is out of range {low}..{high}")
        return value
