"""The action space: consecutive blocks of ids, one block per kind of decision.

The blocks are generated from one description (tools/gen_tables.py, into
csrc/tables.h); this module reads them from the engine. An action's
offset in its block is the mixed-radix number of its arguments, the first most
significant (docs/notation.md, "Action ids").

>>> from glory_ai import actions
>>> actions.encode("lay", "Temple") == actions.block_range("lay").start + 38
True
>>> actions.decode(actions.encode("add", "Temple", "Road"))
('add', ('Temple', 'Road'))
>>> actions.block_of(0)
'skip'
"""
from __future__ import annotations

from dataclasses import dataclass

from .cards import CARD_NAMES, MATERIALS, ROLES, card_id, material_id
from .core.engine import ACTION_BLOCKS, NUM_ACTIONS, decode_action


@dataclass(frozen=True)
class Block:
    """One block of the action space: ids start .. start + size - 1."""

    name: str
    start: int
    size: int
    args: tuple[tuple[str, int, int], ...]   # (argument kind, count, first value)
    meaning: str

    @property
    def ids(self) -> range:
        return range(self.start, self.start + self.size)


BLOCKS: dict[str, Block] = {b[0]: Block(*b) for b in ACTION_BLOCKS}
NUM_DISTINCT_ACTIONS = NUM_ACTIONS


def block_range(name: str) -> range:
    """The ids of a block, e.g. block_range("hire_pool")."""
    return _block(name).ids


def block_of(action: int) -> str:
    """The name of the block an action id belongs to."""
    return decode_action(action)[0]


def _block(name: str) -> Block:
    try:
        return BLOCKS[name]
    except KeyError:
        raise ValueError(f"unknown action block {name!r}; known: {list(BLOCKS)}") from None


def _arg_value(kind: str, value) -> int:
    # names are accepted for cards, roles and materials; numbers for everything
    if isinstance(value, str):
        if kind in ("card", "type", "building"):
            return card_id(value, kind)
        if kind == "role":
            lowered = [r.lower() for r in ROLES]
            if value.strip().lower() in lowered:
                return lowered.index(value.strip().lower())
            raise ValueError(f"role: unknown role {value!r}; expected one of {list(ROLES)}")
        if kind == "material":
            return material_id(value, kind)
    if isinstance(value, bool) and kind != "from_pool":
        raise TypeError(f"{kind}: expected a number or name, got {value!r}")
    return int(value)


def encode(name: str, *args) -> int:
    """The action id of a block and its arguments (card, role and material arguments may be
    given by name): encode("add", "Temple", "Road"), encode("prison", 1, "Bath")."""
    block = _block(name)
    if len(args) != len(block.args):
        kinds = ", ".join(kind for kind, _, _ in block.args) or "no arguments"
        raise ValueError(f"{name} takes {len(block.args)} argument(s) ({kinds}), got {len(args)}")
    offset = 0
    for (kind, count, first), value in zip(block.args, args, strict=True):
        number = _arg_value(kind, value)
        if not first <= number < first + count:
            raise ValueError(f"{name}: {kind} {value!r} is out of range")
        offset = offset * count + number - first
    return block.start + offset


def decode(action: int, names: bool = True) -> tuple[str, tuple]:
    """(block name, arguments) of an action id; with names, cards, roles and materials are
    given by name (the inverse of encode)."""
    name, values = decode_action(action)
    if not names:
        return name, values
    out: list[str | int] = []
    for (kind, _, _), value in zip(_block(name).args, values, strict=True):
        if kind in ("card", "type", "building"):
            out.append(CARD_NAMES[value])
        elif kind == "role":
            out.append(ROLES[value])
        elif kind == "material":
            out.append(MATERIALS[value])
        else:
            out.append(value)
    return name, tuple(out)


__all__ = ["Block", "BLOCKS", "NUM_DISTINCT_ACTIONS", "block_range", "block_of", "encode", "decode"]
