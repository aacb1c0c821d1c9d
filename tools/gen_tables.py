"""Generate csrc/tables.h: the engine's action space, phases and invariant
codes, from the one description below.

    python tools/gen_tables.py            # rewrite the header
    python tools/gen_tables.py --check    # exit 1 if the header is out of date (CI, tests)

Everything else derives from the header: the C core uses the A_* / PH_* / INV_* constants
and the encode helpers, the Python side reads the block table through
glory_ai.core.engine (glory_ai.actions), and docs/notation.md describes the same blocks.
"""
from __future__ import annotations

import argparse
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
HEADER = ROOT / "csrc" / "tables.h"

# Argument kinds of an action block: (name, count, first value).
CARD = ("card", 44, 1)          # an Order type 1..44
TYPE = ("type", 45, 0)          # a card type 0..44 (Jack included)
BUILDING = ("building", 44, 1)  # an Order type naming a structure
ROLE = ("role", 6, 0)
MATERIAL = ("material", 6, 0)
PLAYER = ("player", 5, 0)
FROM_POOL = ("from_pool", 2, 0)

# The action space: blocks in id order, each (name, arguments, meaning). A block's size is
# the product of its argument counts; an action's offset in its block is the mixed-radix
# number of its arguments (the first argument most significant), each less its first value.
ACTION_BLOCKS = [
    ("SKIP", (), "skip, done, decline (the meaning depends on the phase)"),
    ("THINK_JACK", (), "Thinker: take a Jack (also Tribunal's Jack)"),
    ("THINK_DRAW", (), "Thinker: refill, or draw one card"),
    ("THINK_VOMITORIUM", (), "Vomitorium: discard the whole hand before thinking"),
    ("THINK_LATRINE", (TYPE,), "Latrine: discard one card before thinking"),
    ("PLAY_CARD", (CARD,), "lead or follow with an Order card (its role)"),
    ("PLAY_JACK", (ROLE,), "lead or follow with a Jack as the role"),
    ("PLAY_PETITION", (ROLE, MATERIAL), "lead or follow the role by petition of cards of a material"),
    ("PLAY_CRANE", (CARD,), "Crane: lead or follow Architect with any Order card"),
    ("PETITION_PICK", (CARD,), "pick one card of a petition"),
    ("HIRE_POOL", (CARD,), "Patron: hire from the pool"),
    ("HIRE_DECK", (), "Bar: hire the top card of the deck"),
    ("HIRE_HAND", (CARD,), "Aqueduct: hire from hand"),
    ("TAKE_POOL", (CARD,), "Laborer: take from the pool"),
    ("DOCK_HAND", (CARD,), "Dock: move from hand to stockpile"),
    ("LAY", (CARD,), "Architect/Craftsman/Fountain: lay a foundation on its own material's site"),
    ("LAY_STATUE", (MATERIAL,), "lay a Statue on a site of any material"),
    ("ADD", (BUILDING, CARD), "add a material (stockpile or hand) to an own structure"),
    ("ADD_POOL", (BUILDING, CARD), "Archway: add a material from the pool"),
    ("VAULT_STOCKPILE", (CARD,), "Merchant: vault from the stockpile"),
    ("VAULT_DECK", (), "Atrium: vault the top card of the deck"),
    ("VAULT_HAND", (CARD,), "Basilica: vault from hand"),
    ("REVEAL", (CARD,), "Legionary: reveal a card"),
    ("LEG_TAKE", (CARD,), "Legionary: take a demanded material from the pool"),
    ("GIVE", (CARD,), "a victim gives a demanded card from hand"),
    ("FOUNTAIN_DRAW", (), "Fountain: draw the top card for the Craftsman action"),
    ("FOUNTAIN_KEEP", (), "Fountain: keep the drawn card"),
    ("GIVE_STOCKPILE", (CARD,), "Bridge: a victim gives from the stockpile"),
    ("GIVE_CLIENT", (CARD,), "Colosseum: a victim gives a client"),
    ("GIVE_STRUCTURE", (BUILDING,), "Domus Aurea: a victim gives a structure"),
    ("PRISON", (PLAYER, BUILDING), "Prison: take an opponent's completed structure"),
    ("STAIRWAY", (PLAYER, BUILDING, CARD, FROM_POOL), "Stairway: a material onto an opponent's structure"),
    ("SEWER", (CARD,), "Sewer: move a camp Order to the stockpile"),
    ("SENATE", (), "Senate: take the Jacks opponents played"),
    ("USE_EXTRA", (), "Legionary: use Bridge/Colosseum/Domus Aurea on this victim"),
]

# Decision phases first (contiguous from 0: the player current_player() names decides),
# then the automatic phases that advance() runs, then the end.
DECISION_PHASES = [
    ("LEAD", "lead", "the leader thinks or plays the first action unit (choosing the role)"),
    ("FOLLOW", "follow", "a follower thinks or plays a unit of the led role"),
    ("PETITION", "petition", "picking the cards of a petition"),
    ("PAY_MORE", "pay_more", "Palace: play more units or stop"),
    ("THINK", "think", "an optional granted Thinker action (School, Academy)"),
    ("THINK_CHOICE", "think_choice", "after a Latrine/Vomitorium discard: Jack or draw"),
    ("TRIBUNAL", "tribunal", "after a think: take a Jack or not"),
    ("ACTION", "action", "the actor's current role action (its parts)"),
    ("LEG_REVEAL", "legionary_reveal", "the legionary reveals cards from hand"),
    ("LEG_TAKE", "legionary_take", "the legionary takes demanded materials from the pool"),
    ("LEG_GIVE", "legionary_give", "a victim chooses which demanded cards to give"),
    ("LEG_EXTRA", "legionary_extra", "the legionary decides whether to use an extra on a victim"),
    ("FOUNTAIN", "fountain", "the actor uses or keeps the card a Fountain drew"),
    ("PRISON", "prison", "Prison's owner may exchange its site for a structure"),
    ("STAIRWAY", "stairway", "the Stairway part of an Architect action"),
    ("SEWER", "sewer", "end of turn: camp Orders to the stockpile"),
    ("SENATE", "senate", "end of turn: opponents' Jacks into hand"),
]
AUTOMATIC_PHASES = [
    ("NEXT_FOLLOWER", "next_follower", "find the next follower"),
    ("NEXT_ACTOR", "next_actor", "find the next player to act"),
    ("QUEUE", "queue", "take the actor's next action from its queue"),
    ("LEG_VICTIMS", "legionary_victims", "settle the next Legionary victim"),
    ("EOT", "end_of_turn", "end-of-turn functions: Senate, then Sewer"),
    ("END_TURN", "end_turn", "camps to the pool"),
    ("ACADEMY_NEXT", "academy_next", "Academy thinks"),
    ("NEW_TURN", "new_turn", "the Leader card passes on"),
    ("OVER", "over", "the game is over"),
]

# Codes of the invariant checker (check_state) and of the checked playout (stress_game).
INVARIANTS = [
    ("CARDS", "a card type is not in play exactly as often as the deck holds it"),
    ("SITES", "a material does not have exactly 6 sites"),
    ("ZONE_SIZE", "a zone's size field disagrees with its cards"),
    ("KNOWN", "a known (public) part holds more than its hand or vault, or misses a Jack in hand"),
    ("DECIDER", "the deciding player is not in the game"),
    ("STRUCTURES", "the structure table is malformed"),
    ("FULL_INCOMPLETE", "an incomplete structure holds all its materials"),
    ("EMPTY_DECK", "the deck is empty but the game goes on (R-11.1)"),
    ("NO_LEGAL", "no legal action in a non-terminal state"),
    ("BAD_ACTION_ID", "a legal action id is outside the action space"),
    ("DUPLICATE_ACTION", "an action is listed twice among the legal actions"),
    ("ACTION_FAILED", "a legal action was refused by apply"),
    ("ENDLESS", "a game did not end within 100,000 decisions"),
    ("COMPLETED_SITES", "more completed structures than sites in the players' influence "
                        "(each completion moves its site there)"),
    ("OVERFLOW", "a fixed capacity of the state was exceeded (the actor's queue of pending "
                 "actions is full): the state no longer follows the rules"),
]
# a legal action whose result breaks invariant k is reported as INV_AFTER_ACTION + k
INV_AFTER_ACTION = 20


def block_size(args) -> int:
    size = 1
    for _, count, _ in args:
        size *= count
    return size


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render() -> str:
    out = ["/* Generated by tools/gen_tables.py: do not edit by hand. */",
           "#ifndef GLORY_TABLES_H", "#define GLORY_TABLES_H", "#include <stdint.h>", ""]

    out.append("/* ---- the action space: blocks of consecutive ids ---- */")
    out.append("enum {")
    start = 0
    starts = []
    for name, args, meaning in ACTION_BLOCKS:
        starts.append(start)
        shape = " x ".join(f"{a[0]}({a[1]})" for a in args) or "1"
        out.append(f"    A_{name} = {start},  /* {shape}: {meaning} */")
        start += block_size(args)
    out.append(f"    GR_NUM_ACTIONS = {start},")
    out.append(f"    GR_NUM_ACTION_BLOCKS = {len(ACTION_BLOCKS)},")
    out.append("    GR_MAX_ACTION_ARGS = 4")
    out.append("};")
    out.append("")
    out.append("/* Argument kinds: an argument's values run from its first value for its count. */")
    kinds = [CARD, TYPE, BUILDING, ROLE, MATERIAL, PLAYER, FROM_POOL]
    out.append("enum {")
    for i, (kname, _, _) in enumerate(kinds):
        out.append(f"    GR_ARG_{kname.upper()} = {i},")
    out.append(f"    GR_NUM_ARG_KINDS = {len(kinds)}")
    out.append("};")
    out.append("static const char *const GR_ARG_KIND_NAME[GR_NUM_ARG_KINDS] = {"
               + ", ".join(c_string(k[0]) for k in kinds) + "};")
    out.append("static const uint8_t GR_ARG_KIND_COUNT[GR_NUM_ARG_KINDS] = {"
               + ", ".join(str(k[1]) for k in kinds) + "};")
    out.append("static const uint8_t GR_ARG_KIND_FIRST[GR_NUM_ARG_KINDS] = {"
               + ", ".join(str(k[2]) for k in kinds) + "};")
    out.append("")
    out.append("static const char *const GR_ACTION_BLOCK_NAME[GR_NUM_ACTION_BLOCKS] = {")
    out.extend(f"    {c_string(name.lower())}," for name, _, _ in ACTION_BLOCKS)
    out.append("};")
    out.append("static const char *const GR_ACTION_BLOCK_MEANING[GR_NUM_ACTION_BLOCKS] = {")
    out.extend(f"    {c_string(meaning)}," for _, _, meaning in ACTION_BLOCKS)
    out.append("};")
    out.append("static const uint16_t GR_ACTION_BLOCK_START[GR_NUM_ACTION_BLOCKS + 1] = {"
               + ", ".join(str(s) for s in starts + [start]) + "};")
    out.append("static const uint8_t GR_ACTION_BLOCK_NARGS[GR_NUM_ACTION_BLOCKS] = {"
               + ", ".join(str(len(args)) for _, args, _ in ACTION_BLOCKS) + "};")
    out.append("/* argument kinds per block (255 = unused) */")
    out.append("static const uint8_t GR_ACTION_BLOCK_ARGS[GR_NUM_ACTION_BLOCKS][GR_MAX_ACTION_ARGS] = {")
    for _, args, _ in ACTION_BLOCKS:
        ids = [str(kinds.index(a)) for a in args] + ["255"] * (4 - len(args))
        out.append("    {" + ", ".join(ids) + "},")
    out.append("};")
    out.append("")
    out.append("/* The block of an action id (binary search over the starts). */")
    out.append("static inline int gr_action_block(int action) {")
    out.append("    int lo = 0, hi = GR_NUM_ACTION_BLOCKS - 1;")
    out.append("    while (lo < hi) {")
    out.append("        int mid = (lo + hi + 1) >> 1;")
    out.append("        if (GR_ACTION_BLOCK_START[mid] <= action) lo = mid; else hi = mid - 1;")
    out.append("    }")
    out.append("    return lo;")
    out.append("}")
    out.append("")
    out.append("/* Encoders of the blocks with several arguments "
               "(one-argument blocks: start + value - first). */")
    for name, args, _ in ACTION_BLOCKS:
        if len(args) < 2:
            continue
        params = ", ".join(f"int {a[0]}" for a in args)
        expr = f"({args[0][0]} - {args[0][2]})" if args[0][2] else args[0][0]
        for a in args[1:]:
            term = f"({a[0]} - {a[2]})" if a[2] else a[0]
            expr = f"({expr}) * {a[1]} + {term}"
        out.append(f"static inline int gr_encode_{name.lower()}({params}) {{ return A_{name} + {expr}; }}")
    out.append("")

    out.append("/* ---- phases: decision phases are 0 .. GR_NUM_DECISION_PHASES - 1 ---- */")
    out.append("enum {")
    phases = DECISION_PHASES + AUTOMATIC_PHASES
    for i, (name, _, meaning) in enumerate(phases):
        out.append(f"    PH_{name} = {i},  /* {meaning} */")
    out.append(f"    GR_NUM_DECISION_PHASES = {len(DECISION_PHASES)},")
    out.append(f"    GR_NUM_PHASES = {len(phases)}")
    out.append("};")
    out.append("static const char *const GR_PHASE_NAME[GR_NUM_PHASES] = {")
    out.extend(f"    {c_string(label)}," for _, label, _ in phases)
    out.append("};")
    out.append("")

    out.append("/* ---- invariant codes (0 = every invariant holds) ---- */")
    out.append("enum {")
    for i, (name, _) in enumerate(INVARIANTS, 1):
        out.append(f"    INV_{name} = {i},")
    out.append(f"    GR_NUM_INVARIANTS = {len(INVARIANTS)},")
    out.append(f"    INV_AFTER_ACTION = {INV_AFTER_ACTION}  /* + k: a legal action broke invariant k */")
    out.append("};")
    out.append("static const char *const GR_INVARIANT_TEXT[GR_NUM_INVARIANTS + 1] = {")
    out.append('    "every invariant holds",')
    out.extend(f"    {c_string(text)}," for _, text in INVARIANTS)
    out.append("};")
    out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the header is up to date")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not HEADER.exists() or HEADER.read_text() != text:
            print(f"{HEADER.relative_to(ROOT)} is out of date: run python tools/gen_tables.py",
                  file=sys.stderr)
            return 1
        return 0
    HEADER.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
