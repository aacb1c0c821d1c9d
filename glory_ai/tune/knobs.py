"""The knobs a study turns: which rule options vary, over which values (docs/tuning.md).

A knob is a variant key of the engine (docs/rules.md, "Rule variants"), either a whole
option (``refill_size``, ``petition_size``, ``in_town_sites``) or one building's entry of a
per-building option, written ``OPTION.BUILDING``:

=====================  ==========================================  =====================
knob                   what it sets                                values
=====================  ==========================================  =====================
``copies.NAME``        copies of the building in the deck          0..12
``removed.NAME``       the building taken out of the deck          true / false
``materials.NAME``     the building's material (its colour)        Rubble ... Marble
``points.NAME``        VP for each completed one (0: none)         0..9
``powers_off.NAME``    its function never applies                  true / false
``refill_size``        the hand refill size                        1..20
``petition_size``      Republic petitions                          2..3
``in_town_sites``      in-town sites per material                  1..6
=====================  ==========================================  =====================

In a config a knob takes a list of values (``"materials.Catacomb" = ["Stone", "Marble"]``)
or an integer range (``"points.Catacomb" = {low = 0, high = 6}``). Every value is checked
against the engine's own rules before any game is played: a knob the engine does not know,
or a value it refuses, is a :class:`~glory_ai.tune.config.TuneError` naming the knob.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cards import CARD_COPIES, CARD_MATERIAL, CARD_NAMES, MATERIALS
from ..core.config import GameConfig
from .errors import TuneError

__all__ = ["Knob", "SearchSpace", "parse_knob", "variant_key", "variant_label"]

#: whole-option knobs and their integer ranges (the engine checks them again)
WHOLE = {"refill_size": (1, 20), "petition_size": (2, 3), "in_town_sites": (1, 6)}
#: per-building knobs: the variant option each sets, and the kind of its values
PER_BUILDING = {
    "copies": "int",
    "removed": "bool",
    "materials": "material",
    "points": "int",
    "powers_off": "bool",
}
_INT_RANGES = {"copies": (0, 12), "points": (0, 9)}
_BUILDINGS = {name.lower(): name for name in CARD_NAMES[1:]}
#: more values than this in one knob is a range for a bandit to sample, not to enumerate
MAX_VALUES = 64


@dataclass(frozen=True)
class Knob:
    """One rule option a study varies: its name (``points.Catacomb``), the variant option it
    sets (``points``), the building (or None for a whole option) and its values in order."""

    name: str
    option: str
    building: str | None
    values: tuple[Any, ...]

    @property
    def is_range(self) -> bool:
        """Integer values low..high (sampled as an integer, not as categories)."""
        return (
            len(self.values) > 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in self.values)
            and list(self.values) == list(range(self.values[0], self.values[-1] + 1))
        )

    def apply(self, variant: dict[str, Any], value: Any) -> None:
        """Set this knob to ``value`` in ``variant`` (a dict of Game options, changed in place)."""
        if self.building is None:
            variant[self.option] = value
            return
        if self.option in ("removed", "powers_off"):
            names = [n for n in variant.get(self.option, ()) if n != self.building]
            if value:
                names.append(self.building)
            if names:
                variant[self.option] = sorted(names)
            else:
                variant.pop(self.option, None)
            return
        table = dict(variant.get(self.option, {}))
        table.pop(self.building, None)
        # a value the printed card has is no entry at all: the same rules, the same variant
        if value != _printed(self.option, self.building):
            table[self.building] = value
        if table:
            variant[self.option] = dict(sorted(table.items()))
        else:
            variant.pop(self.option, None)

    def describe(self, value: Any) -> str:
        """The knob at ``value`` in a designer's words."""
        if self.building is None:
            return f"{self.option.replace('_', ' ')} {value}"
        name = self.building
        return {
            "copies": f"{value} {name} card{'s' if value != 1 else ''}",
            "removed": f"{name} out of the deck" if value else f"{name} in the deck",
            "materials": f"{name} made of {value}",
            "points": f"{name} worth {value} VP" if value else f"{name} worth no extra VP",
            "powers_off": f"{name}'s power off" if value else f"{name}'s power on",
        }[self.option]


def _building(name: str, knob: str) -> str:
    found = _BUILDINGS.get(name.strip().lower())
    if found is None:
        raise TuneError(f"knob {knob!r}: {name!r} is not a building (the names of cards.csv, e.g. Catacomb)")
    return found


def _values(knob: str, kind: str, spec: Any, low: int, high: int) -> tuple[Any, ...]:
    """The values a config gives a knob: a list, or {low, high} for an integer range."""
    if isinstance(spec, Mapping):
        if kind != "int":
            raise TuneError(
                f"knob {knob!r}: a range {{low, high}} is for integer knobs; give a list of values"
            )
        unknown = sorted(set(spec) - {"low", "high"})
        if unknown or "low" not in spec or "high" not in spec:
            raise TuneError(f"knob {knob!r}: a range is {{low = L, high = H}}, got {dict(spec)!r}")
        a, b = spec["low"], spec["high"]
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (a, b)) or a > b:
            raise TuneError(
                f"knob {knob!r}: low and high must be integers with low <= high, got {a!r}, {b!r}"
            )
        spec = list(range(a, b + 1))
    if not isinstance(spec, list) or not spec:
        raise TuneError(f"knob {knob!r}: expected a non-empty list of values or {{low = L, high = H}}")
    if len(spec) > MAX_VALUES:
        raise TuneError(f"knob {knob!r}: {len(spec)} values; at most {MAX_VALUES}")
    out: list[Any] = []
    for value in spec:
        if kind == "bool":
            if not isinstance(value, bool):
                raise TuneError(f"knob {knob!r}: expected true or false, got {value!r}")
        elif kind == "material":
            if not isinstance(value, str) or value.strip().capitalize() not in MATERIALS:
                raise TuneError(f"knob {knob!r}: {value!r} is not a material; one of {', '.join(MATERIALS)}")
            value = value.strip().capitalize()
        else:
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise TuneError(
                    f"knob {knob!r}: {value!r} is out of range; expected an integer from {low} to {high}"
                )
        if value in out:
            raise TuneError(f"knob {knob!r}: the value {value!r} is listed twice")
        out.append(value)
    return tuple(out)


def parse_knob(name: str, spec: Any) -> Knob:
    """A knob from its config entry (``name = [values]`` or ``name = {low, high}``)."""
    if not isinstance(name, str):
        raise TuneError(f"knob {name!r}: a knob is named by a string")
    option, dot, building = name.strip().partition(".")
    option = option.lower()
    if not dot:
        if option in WHOLE:
            low, high = WHOLE[option]
            return Knob(name, option, None, _values(name, "int", spec, low, high))
        known = [*WHOLE, *(f"{o}.BUILDING" for o in PER_BUILDING)]
        raise TuneError(f"unknown knob {name!r}; known: {', '.join(known)}")
    if option not in PER_BUILDING:
        known = [*WHOLE, *(f"{o}.BUILDING" for o in PER_BUILDING)]
        raise TuneError(f"unknown knob {name!r}; known: {', '.join(known)}")
    found = _building(building, name)
    low, high = _INT_RANGES.get(option, (0, 0))
    return Knob(f"{option}.{found}", option, found, _values(name, PER_BUILDING[option], spec, low, high))


def variant_key(mode: str, variant: Mapping[str, Any]) -> str:
    """A short stable name of a rule set (mode and variant options): the folder of its games."""
    text = json.dumps({"mode": mode, "variant": variant}, sort_keys=True, separators=(",", ":"))
    return "v-" + hashlib.sha256(text.encode()).hexdigest()[:12]


def variant_label(
    knobs: Sequence[Knob], params: Mapping[str, Any], base: Mapping[str, Any] | None = None
) -> str:
    """A trial's variant in words: each knob that differs from the published rules (``base``
    holds the values the knobs take there), "the published rules" when none does."""
    parts = []
    for knob in knobs:
        value = params[knob.name]
        if base is not None and base.get(knob.name) == value:
            continue
        parts.append(knob.describe(value))
    return ", ".join(parts) if parts else "the published rules"


class SearchSpace:
    """The knobs of a study over fixed rules (mode, player counts and the variant options
    every trial shares): turns a trial's knob values into a rule variant and checks that the
    engine can deal it."""

    def __init__(
        self, knobs: Sequence[Knob], mode: str, players: Sequence[int], base_variant: Mapping[str, Any]
    ) -> None:
        names = [k.name for k in knobs]
        if len(set(names)) != len(names):
            raise TuneError(f"a knob is given twice: {sorted({n for n in names if names.count(n) > 1})}")
        self.knobs = tuple(knobs)
        self.mode = mode
        self.players = tuple(players)
        self.base_variant = dict(base_variant)
        self._check_base()
        for knob in self.knobs:
            for value in knob.values:
                problem = self.problem({knob.name: value}, partial=True)
                if problem:
                    raise TuneError(f"knob {knob.name!r} = {value!r}: {problem}")

    def _check_base(self) -> None:
        problem = self._rules_problem(self.base_variant)
        if problem:
            raise TuneError(f"[play] variant: {problem}")

    def _rules_problem(self, variant: Mapping[str, Any]) -> str | None:
        for players in self.players:
            try:
                GameConfig.from_options(players, self.mode, **dict(variant))
            except (TypeError, ValueError) as error:
                return f"{error} ({players} players)"
        return None

    def variant(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """The Game options of a trial: the base variant with each knob set."""
        variant = json.loads(json.dumps(self.base_variant))
        for knob in self.knobs:
            if knob.name in params:
                knob.apply(variant, params[knob.name])
        return variant

    def problem(self, params: Mapping[str, Any], partial: bool = False) -> str | None:
        """Why the engine cannot deal the trial's rules, or None (every knob given unless
        ``partial``)."""
        missing = [k.name for k in self.knobs if k.name not in params]
        if missing and not partial:
            return f"no value for {', '.join(missing)}"
        return self._rules_problem(self.variant(params))

    def published(self) -> dict[str, Any]:
        """Each knob's value in the base rules where it is one of its values (the published
        rules, for a study whose base variant is empty), for labels."""
        out: dict[str, Any] = {}
        config = GameConfig.from_options(self.players[0], self.mode, **self.base_variant)
        copies = dict(zip(CARD_NAMES, config.deck_copies(), strict=True))
        for knob in self.knobs:
            if knob.building is None:
                value: Any = getattr(config, knob.option, None)
                if knob.option == "in_town_sites" and value is None:
                    value = config.in_town
            elif knob.option == "copies":
                value = copies[knob.building]
            elif knob.option in ("removed", "powers_off"):
                value = knob.building in self.base_variant.get(knob.option, ())
            elif knob.option == "points":
                value = self.base_variant.get("points", {}).get(knob.building, 0)
            else:
                value = self.base_variant.get("materials", {}).get(
                    knob.building, _printed_material(knob.building)
                )
            if value in knob.values:
                out[knob.name] = value
        return out

    def size(self) -> int:
        """The number of distinct variants (the product of the knobs' value counts)."""
        total = 1
        for knob in self.knobs:
            total *= len(knob.values)
        return total


def _printed_material(building: str) -> str:
    return MATERIALS[CARD_MATERIAL[CARD_NAMES.index(building)]]


def _printed(option: str, building: str) -> Any:
    """The value a per-building option has on the printed card (copies, points, material)."""
    if option == "copies":
        return CARD_COPIES[CARD_NAMES.index(building)]
    if option == "points":
        return 0
    return _printed_material(building)
