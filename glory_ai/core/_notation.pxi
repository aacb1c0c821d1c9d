# Notation (docs/notation.md): card, material and role names and their lookups, the action
# space table for Python, decoding action ids into (block, arguments), and the readable text
# of an action in a state. Python-level code (with the GIL); included by engine.pyx.

_MATERIALS = ("Rubble", "Wood", "Concrete", "Brick", "Stone", "Marble")
_ROLES = ("Laborer", "Craftsman", "Architect", "Legionary", "Merchant", "Patron", "Thinker")
_MATERIAL_INDEX = {name.lower(): i for i, name in enumerate(_MATERIALS)}


def card_id(name, field="card"):
    """The card type of a name ("Jack" included); ValueError naming the field if unknown."""
    if not isinstance(name, str):
        raise ValueError(f"{field}: card names are strings, got {name!r:.80}")
    try:
        return _CARD_INDEX[name.strip().lower()]
    except KeyError:
        raise ValueError(f"{field}: unknown card name {name!r:.80}") from None


def material_id(name, field="material"):
    """The material id of a name; ValueError naming the field if unknown."""
    if not isinstance(name, str) or name.strip().lower() not in _MATERIAL_INDEX:
        raise ValueError(f"{field}: unknown material {name!r:.80}; expected one of {list(_MATERIALS)}")
    return _MATERIAL_INDEX[name.strip().lower()]


def _action_blocks():
    """The action space as generated in tables.h: a tuple of
    (name, start, size, ((argument kind, count, first value), ...), meaning)."""
    blocks = []
    cdef int b, k, kind
    for b in range(GR_NUM_ACTION_BLOCKS):
        args = []
        for k in range(GR_ACTION_BLOCK_NARGS[b]):
            kind = GR_ACTION_BLOCK_ARGS[b][k]
            args.append((GR_ARG_KIND_NAME[kind].decode(), GR_ARG_KIND_COUNT[kind],
                         GR_ARG_KIND_FIRST[kind]))
        start = GR_ACTION_BLOCK_START[b]
        blocks.append((GR_ACTION_BLOCK_NAME[b].decode(), start,
                       GR_ACTION_BLOCK_START[b + 1] - start, tuple(args),
                       GR_ACTION_BLOCK_MEANING[b].decode()))
    return tuple(blocks)


ACTION_BLOCKS = _action_blocks()


def decode_action(int action):
    """(block name, argument values) of an action id: the inverse of glory_ai.actions.encode."""
    if not 0 <= action < NUM_DISTINCT_ACTIONS:
        raise ValueError(f"{action} is not an action id (0..{NUM_DISTINCT_ACTIONS - 1})")
    cdef int b = gr_action_block(action)
    name, start, size, args, _ = ACTION_BLOCKS[b]
    offset = action - start
    values = []
    for _, count, first in reversed(args):       # the last argument is least significant
        values.append(offset % count + first)
        offset //= count
    return name, tuple(reversed(values))


# The text of A_SKIP in the phases where it always reads the same
_SKIP_TEXT = {
    PH_LEG_REVEAL: "legionary: done revealing", PH_LEG_TAKE: "legionary: done taking",
    PH_THINK: "think: skip", PH_TRIBUNAL: "tribunal: skip", PH_PETITION: "petition: done",
    PH_STAIRWAY: "stairway: skip", PH_PRISON: "prison: skip", PH_SEWER: "sewer: done",
    PH_SENATE: "senate: skip", PH_PAY_MORE: "done",
}
_EXTRA_NAMES = ("hand", "Bridge", "Colosseum", "Domus Aurea")


cdef str action_text(GameState* s, int action):
    # Readable text of an action id in the state s (docs/notation.md, "Grammar").
    cdef Turn* t = &s.turn
    cdef int phase = t.phase
    block, args = decode_action(action)
    card = _NAMES[args[len(args) - 1]] if args and block not in ("play_jack", "play_petition", "lay_statue") else None
    role_word = _ROLES[t.action_role].lower() if t.action_role < 7 else "action"
    if phase == PH_FOUNTAIN:
        role_word = "fountain"
    victim = (t.actor + t.victim_offset) % s.cfg.num_players
    if block == "skip":
        if phase == PH_ACTION:
            return f"{role_word}: {'done' if t.action_parts else 'skip'}"
        if phase == PH_LEG_EXTRA:
            return f"legionary: spare P{victim} ({_EXTRA_NAMES[t.give_kind % 4]})"
        return _SKIP_TEXT.get(phase, "done")
    if block == "think_jack":
        return "tribunal: take Jack" if phase == PH_TRIBUNAL else "think: take Jack"
    if block == "think_draw":
        if s.players[t.decider].hand_count < refill_size(s, t.decider):
            return "think: refill"
        return "think: draw 1"
    if block == "think_vomitorium":
        return "think: discard hand (Vomitorium)"
    if block == "think_latrine":
        return f"think: discard {card} (Latrine)"
    verb = "lead" if (phase == PH_LEAD or (phase in (PH_PAY_MORE, PH_PETITION) and t.seat_offset == 0)) else "follow"
    if block == "play_card":
        return f"{verb} {_ROLES[mat_of(s, args[0])]} with {card}"
    if block == "play_jack":
        return f"{verb} {_ROLES[args[0]]} with Jack"
    if block == "play_petition":
        return f"{verb} {_ROLES[args[0]]} by petition of {_ROLES[args[1]]}"
    if block == "play_crane":
        return f"{verb} Architect with {card} (Crane)"
    if block == "petition_pick":
        return f"petition: {card}"
    if block == "hire_pool":
        return f"patron: hire {card} from pool"
    if block == "hire_deck":
        return "patron: hire top of deck"
    if block == "hire_hand":
        return f"patron: hire {card} from hand"
    if block == "take_pool":
        return f"laborer: take {card} from pool"
    if block == "dock_hand":
        return f"laborer: move {card} from hand"
    if block in ("lay", "lay_statue"):
        if block == "lay":
            text = f"{role_word}: lay {card}"
            site = mat_of(s, args[0])
        else:
            site = args[0]
            text = f"{role_word}: lay Statue on {_MATERIALS[site]}"
        if phase in (PH_ACTION, PH_FOUNTAIN) and s.in_town[site] == 0:
            text += " out of town"
        return text
    if block == "add":
        return f"{role_word}: add {card} to {_NAMES[args[0]]}"
    if block == "add_pool":
        return f"{role_word}: add {card} from pool to {_NAMES[args[0]]}"
    if block == "vault_stockpile":
        return f"merchant: vault {card} from stockpile"
    if block == "vault_deck":
        return "merchant: vault top of deck"
    if block == "vault_hand":
        return f"merchant: vault {card} from hand"
    if block == "reveal":
        return f"legionary: reveal {card}"
    if block == "leg_take":
        return f"legionary: take {card} from pool"
    if block == "give":
        return f"give {card}"
    if block == "fountain_draw":
        return "craftsman: draw from deck (Fountain)"
    if block == "fountain_keep":
        if phase == PH_FOUNTAIN and t.fountain_card:
            return f"fountain: keep {_NAMES[t.fountain_card]}"
        return "fountain: keep the card"
    if block == "give_stockpile":
        return f"give {card} from stockpile"
    if block == "give_client":
        return f"give client {card}"
    if block == "give_structure":
        return f"give structure {card}"
    if block == "prison":
        return f"prison: take {card} from P{args[0]}"
    if block == "stairway":
        source = " from pool" if args[3] else ""
        return f"stairway: add {_NAMES[args[2]]}{source} to {_NAMES[args[1]]} of P{args[0]}"
    if block == "sewer":
        return f"sewer: move {card} to stockpile"
    if block == "senate":
        return "senate: take Jacks"
    if phase == PH_LEG_EXTRA:                      # use_extra
        return f"legionary: use {_EXTRA_NAMES[t.give_kind % 4]} on P{victim}"
    return "legionary: use extra"
