"""Rule variants: one validated config object per game (docs/rules.md §3, §15, §16 A1)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeGuard

from .cards import CARD_COPIES, CARD_MATERIAL, CARD_MODE, CARD_NAMES, MATERIALS, card_id, material_id

# the seed range lives in a module that imports nothing (the engine imports it too); these
# names are re-exported here, the home of the rule and game options
from .seeds import MAX_SEED as MAX_SEED
from .seeds import SEED_RANGE as SEED_RANGE
from .seeds import check_seed as check_seed
from .seeds import seed_error as seed_error

MODES = ("republic", "imperium")


def is_int(value: object) -> TypeGuard[int]:
    # bool is an int subclass, but True is never a count
    return isinstance(value, int) and not isinstance(value, bool)

def _check_count(name: str, value: object, low: int, high: int) -> None:
    """A count option: TypeError for a non-integer (as everywhere in the API: players,
    seeds, actions), ValueError for an integer out of range."""
    if not is_int(value):
        raise TypeError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be an integer from {low} to {high}, got {value!r}")


#: variant keys accepted by Game(...) and State.from_dict(...)["variant"]
VARIANT_KEYS = ("petition_size", "refill_size", "in_town_sites", "copies", "removed",
                "materials", "points", "powers_off")
#: the range of a building's points (R-V.2)
POINTS_RANGE = (1, 9)


def _building(knob: str, name: object) -> int:
    """The card type of a building name given to a knob; ValueError naming the knob for an
    unknown name or a Jack."""
    card = card_id(name, knob)
    if card == 0:
        raise ValueError(f"{knob}: a Jack is not a building ({knob} names Order cards), got {name!r}")
    return card


def _building_map(knob: str, given: object, what: str) -> dict[int, object]:
    """{card type: value} of a knob that maps building names to values; TypeError if it is
    no mapping, ValueError naming the knob for a bad or repeated name."""
    if not isinstance(given, Mapping):
        raise TypeError(f"{knob} must map building names to {what}, got {given!r:.80}")
    out: dict[int, object] = {}
    for name, value in given.items():
        card = _building(knob, name)
        if card in out:
            raise ValueError(f"{knob}: {CARD_NAMES[card]} is given twice")
        out[card] = value
    return out


@dataclass(frozen=True)
class GameConfig:
    """Everything that defines the rules of one game.

    ``petition_size``: Republic petition size (R-6.6, ruling A1; default 2). Imperium
    petitions are 3 cards, 2 with Circus, so the option is refused there.
    ``refill_size``: hand refill size before Shrine/Temple (R-7.2).
    ``in_town_sites``: in-town sites per material (default: the number of players, R-4.2).
    ``copies``: copies per building name (overrides cards.csv). ``removed``: building names
    taken out of the deck.

    The designer knobs (docs/rules.md R-V), each taken by the engine's rules: ``materials``
    maps building names to the material their cards are in this game (R-V.1), ``points``
    building names to the extra VP (1 to 9) of each completed structure of them (R-V.2), and
    ``powers_off`` lists the buildings whose function never applies (R-V.3). Names are stored
    as cards.csv spells them, in card order (``powers_off`` sorted).
    """

    num_players: int = 2
    mode: str = "republic"
    petition_size: int | None = None
    refill_size: int = 5
    in_town_sites: int | None = None
    copies: Mapping[str, int] = field(default_factory=dict)
    removed: tuple[str, ...] = ()
    materials: Mapping[str, str] = field(default_factory=dict)
    points: Mapping[str, int] = field(default_factory=dict)
    powers_off: tuple[str, ...] = ()
    # deck_copies(), computed once in __post_init__: every new game of this config reads it
    _deck_copies: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())
    # card_materials(), building_points() and powers_off_mask(): the rules block of a game
    _card_materials: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())
    _building_points: tuple[int, ...] = field(init=False, repr=False, compare=False, default=())
    _powers_off_mask: int = field(init=False, repr=False, compare=False, default=0)

    def __post_init__(self) -> None:
        _check_count("num_players", self.num_players, 2, 5)
        if not isinstance(self.mode, str):
            raise TypeError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.mode == "imperium" and self.petition_size is not None:
            raise ValueError("petition_size applies to the Republic mode only: Imperium petitions "
                             "take 3 cards (2 with Circus)")
        if self.petition_size is None:
            object.__setattr__(self, "petition_size", 3 if self.mode == "imperium" else 2)
        _check_count("petition_size", self.petition_size, 2, 3)
        _check_count("refill_size", self.refill_size, 1, 20)
        if self.in_town_sites is not None:
            _check_count("in_town_sites", self.in_town_sites, 1, 6)
        if not isinstance(self.copies, Mapping):
            raise TypeError("copies must map building names to counts")
        for name, count in self.copies.items():
            if card_id(name, "copies") == 0:
                raise ValueError("copies: the 6 Jacks are not a building (copies names Order cards)")
            _check_count(f"copies[{name!r}]", count, 0, 12)
        if isinstance(self.removed, (str, bytes, Mapping)):
            raise TypeError("removed must be a list of building names")
        try:
            removed = tuple(self.removed)         # once: an iterator can be read only once
        except TypeError:
            raise TypeError("removed must be a list of building names") from None
        for name in removed:
            if card_id(name, "removed") == 0:
                raise ValueError("removed: the Jacks cannot be removed (removed names Order cards)")
        object.__setattr__(self, "removed", removed)
        object.__setattr__(self, "copies", dict(self.copies))
        self._check_knobs()
        object.__setattr__(self, "_deck_copies", tuple(self._count_copies()))
        orders = sum(self.deck_copies()[1:])
        if orders > 255:
            raise ValueError("the deck may hold at most 255 Order cards")
        hand = 4 if self.mode == "imperium" else 5
        needed = self.num_players * (hand + 1) + 10
        if orders < needed:
            raise ValueError(f"the deck holds {orders} Order cards; {self.num_players} players need "
                             f"at least {needed} (hands, the first-leader deal and a playable deck)")

    def _check_knobs(self) -> None:
        """Validate and normalise materials, points and powers_off, and fill the rules block
        they give (R-V)."""
        materials = list(CARD_MATERIAL)
        chosen = _building_map("materials", self.materials, "material names")
        for card, name in chosen.items():
            if not isinstance(name, str):
                raise TypeError(f"materials[{CARD_NAMES[card]!r}] must be a material name, "
                                f"one of {list(MATERIALS)}, got {name!r:.80}")
            materials[card] = material_id(name, f"materials[{CARD_NAMES[card]!r}]")
        points = [0] * len(CARD_NAMES)
        low, high = POINTS_RANGE
        for card, value in _building_map("points", self.points, f"points ({low} to {high})").items():
            _check_count(f"points[{CARD_NAMES[card]!r}]", value, low, high)
            assert is_int(value)
            points[card] = value
        not_a_list = TypeError(f"powers_off must be a list of building names, got {self.powers_off!r:.80}")
        if isinstance(self.powers_off, (str, bytes, Mapping)):
            raise not_a_list
        try:
            names = tuple(self.powers_off)    # once: an iterator can be read only once
        except TypeError:
            raise not_a_list from None
        off = 0
        for name in names:
            card = _building("powers_off", name)
            if off >> card & 1:
                raise ValueError(f"powers_off: {CARD_NAMES[card]} is given twice")
            off |= 1 << card
        cards = range(1, len(CARD_NAMES))
        object.__setattr__(self, "materials", {CARD_NAMES[c]: MATERIALS[materials[c]]
                                               for c in cards if c in chosen})
        object.__setattr__(self, "points", {CARD_NAMES[c]: points[c] for c in cards if points[c]})
        object.__setattr__(self, "powers_off", tuple(CARD_NAMES[c] for c in cards if off >> c & 1))
        object.__setattr__(self, "_card_materials", tuple(materials))
        object.__setattr__(self, "_building_points", tuple(points))
        object.__setattr__(self, "_powers_off_mask", off)

    def card_materials(self) -> tuple[int, ...]:
        """The material id of each card type in this game (index 0, the Jack: -1): cards.csv's
        (CARD_MATERIAL) but where ``materials`` says otherwise (R-V.1). The role of a card is
        ROLES[its material]."""
        return self._card_materials

    def material_of(self, card: int | str) -> int:
        """The material id of a card type or name in this game (-1 for the Jack)."""
        return self._card_materials[card_id(card) if isinstance(card, str) else card]

    def building_points(self) -> tuple[int, ...]:
        """The extra VP of each completed structure, by card type (R-V.2; 0: none)."""
        return self._building_points

    def powers_off_mask(self) -> int:
        """Bit b set: building b's function never applies in this game (R-V.3)."""
        return self._powers_off_mask

    def power_on(self, card: int | str) -> bool:
        """Whether a building's function applies in this game (R-V.3)."""
        return not self._powers_off_mask >> (card_id(card) if isinstance(card, str) else card) & 1

    @classmethod
    def from_options(cls, num_players: int, mode: str = "republic", **variant) -> GameConfig:
        unknown = sorted(set(variant) - set(VARIANT_KEYS))
        if unknown:
            raise ValueError(f"unknown variant option(s) {unknown}; known: {list(VARIANT_KEYS)}")
        if isinstance(mode, str):
            mode = mode.lower()
        return cls(num_players=num_players, mode=mode, **variant)

    @property
    def in_town(self) -> int:
        return self.num_players if self.in_town_sites is None else self.in_town_sites

    def deck_copies(self) -> list[int]:
        """Copies of each card type (index 0 = Jack) in this game's deck."""
        return list(self._deck_copies)

    def _count_copies(self) -> list[int]:
        keep_mode = 2 if self.mode == "republic" else 1
        copies = [0] * len(CARD_NAMES)
        copies[0] = 6
        overrides = {card_id(k, "copies"): v for k, v in self.copies.items()}
        removed = {card_id(k, "removed") for k in self.removed}
        for card in range(1, len(CARD_NAMES)):
            if CARD_MODE[card] not in (0, keep_mode) or card in removed:
                continue
            copies[card] = overrides.get(card, CARD_COPIES[card])
        return copies

    def variant(self) -> dict:
        """The JSON-safe variant options (for to_dict and records)."""
        out: dict = {"refill_size": self.refill_size}
        if self.mode == "republic":
            out = {"petition_size": self.petition_size, **out}
        if self.in_town_sites is not None:
            out["in_town_sites"] = self.in_town_sites
        if self.copies:
            out["copies"] = dict(self.copies)
        if self.removed:
            out["removed"] = list(self.removed)
        if self.materials:
            out["materials"] = dict(self.materials)
        if self.points:
            out["points"] = dict(self.points)
        if self.powers_off:
            out["powers_off"] = list(self.powers_off)
        return out
