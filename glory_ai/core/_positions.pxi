# Positions (docs/notation.md, "Positions"): the `turn` part of a position in public terms
# (names of phases, roles, cards and materials; no internal codes), and the low-level
# setters that glory_ai._positions uses after validating a position. Python-level code.

POSITION_FORMAT = "glory_ai/state"
POSITION_VERSION = 2

_THINK_RETURNS = ("lead", "follow", "queue", "academy")
_SOURCES = ("main", "grant", "bath")
_PARTS = (("main", PART_MAIN), ("deck", PART_DECK), ("hand", PART_HAND))
_ENTRY_KINDS = {E_GRANT: "grant", E_BATH: "bath", E_PATRON_CONT: "patron_rest",
                E_STAIRWAY: "stairway", E_PRISON: "prison"}
_GIVE_KINDS = ("hand", "bridge", "colosseum", "domus_aurea", "done")
_END_STEPS = ("senate", "sewer", "done")
_END_REASONS = ("none", "deck", "sites", "catacomb", "forum", "concession")
_TURN_KEYS = ("phase", "number", "decisions", "leader", "decider", "actor", "led_role",
              "seat_offset", "think_return", "petition", "action", "queue", "legionary",
              "pick_from", "fountain_card", "end_step", "pending_end", "end_reason", "winners")
_PETITION_KEYS = ("material", "picked", "from")
_ACTION_KEYS = ("role", "source", "parts", "stack_base")
_QUEUE_KEYS = ("ready", "clients", "front")
_ENTRY_KEYS = ("kind", "role", "count")
_LEGIONARY_KEYS = ("batch", "revealed_count", "revealed", "demand", "take_left", "give_left",
                   "victim_offset", "give_kind", "give_material", "extra_used")


cdef list _zone(uint8_t* counts):
    # a zone of counts per card type as a sorted list of names
    out = []
    cdef int x
    for x in range(NUM_TYPES):
        if counts[x]:
            out.extend([_NAMES[x]] * counts[x])
    out.sort()
    return out


cdef list _materials(uint8_t* counts):
    out = []
    cdef int m
    for m in range(NMAT):
        out.extend([_MATERIALS[m]] * counts[m])
    return out


cdef object _card_or_none(int card):
    return _NAMES[card] if card else None


cdef dict turn_to_public(GameState* s):
    cdef Turn* t = &s.turn
    cdef int i
    front = [{"kind": _ENTRY_KINDS.get(t.stack_kind[i], str(t.stack_kind[i])),
              "role": _ROLES[t.stack_role[i]], "count": t.stack_count[i]}
             for i in range(t.stack_size)]
    return {
        "phase": _PHASE_LABEL[t.phase],
        "number": t.turn_number,
        "decisions": t.decisions,
        "leader": t.leader,
        "decider": t.decider,
        "actor": t.actor,
        "led_role": None if t.led_role == NO_ROLE else _ROLES[t.led_role],
        "seat_offset": t.seat_offset,
        "think_return": _THINK_RETURNS[t.think_return],
        "petition": {"material": _MATERIALS[t.petition_material], "picked": t.petition_picked,
                     "from": _card_or_none(t.petition_from)},
        "action": {"role": _ROLES[t.action_role], "source": _SOURCES[t.action_source],
                   "parts": [name for name, bit in _PARTS if t.action_parts & bit],
                   "stack_base": t.action_stack_base},
        "queue": {"ready": t.ready_actions, "clients": _zone(t.pending_clients), "front": front},
        "legionary": {
            "batch": t.legionary_batch, "revealed_count": t.legionary_revealed,
            "revealed": _zone(t.revealed), "demand": _materials(t.demand),
            "take_left": _materials(t.take_left), "give_left": _materials(t.give_left),
            "victim_offset": t.victim_offset, "give_kind": _GIVE_KINDS[t.give_kind],
            "give_material": None if t.give_material == NO_ROLE else _MATERIALS[t.give_material],
            "extra_used": bool(t.extra_used)},
        "pick_from": _card_or_none(t.pick_from),
        "fountain_card": _card_or_none(t.fountain_card),
        "end_step": _END_STEPS[t.end_step],
        "pending_end": t.pending_end == END_DECK,
        "end_reason": None if t.end_reason == END_NONE else _END_REASONS[t.end_reason],
        "winners": [p for p in range(s.cfg.num_players) if (t.winners_mask >> p) & 1],
    }


def _section(d, key, keys, field):
    value = d.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{field}: expected a dict, got {value!r:.60}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise ValueError(f"{field}: unknown field(s) {unknown}; known: {list(keys)}")
    return value


def _name_index(value, names, field, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, str):
        lowered = [n.lower() for n in names]
        if value.strip().lower() in lowered:
            return lowered.index(value.strip().lower())
    raise ValueError(f"{field}: expected one of {list(names)}{' or null' if allow_none else ''}, "
                     f"got {value!r:.60}")


def _small_int(value, field, high):
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= high:
        raise ValueError(f"{field}: expected an integer from 0 to {high}, got {value!r:.60}")
    return value


def _card_field(value, field):
    # a card name or null (0)
    if value is None:
        return 0
    if not isinstance(value, str) or value.strip().lower() not in _CARD_INDEX:
        raise ValueError(f"{field}: expected a card name or null, got {value!r:.60}")
    return _CARD_INDEX[value.strip().lower()]


def _card_counts(value, field, jacks):
    if not isinstance(value, list):
        raise ValueError(f"{field}: expected a list of card names")
    counts = [0] * NUM_TYPES
    for i, name in enumerate(value):
        x = _card_field(name, f"{field}[{i}]")
        if x == 0 and not jacks:
            raise ValueError(f"{field}[{i}]: expected an Order card name, got {name!r:.60}")
        counts[x] += 1
        if counts[x] > 255:
            raise ValueError(f"{field}: too many {name}")
    return counts


def _material_counts(value, field):
    if not isinstance(value, list):
        raise ValueError(f"{field}: expected a list of material names")
    counts = [0] * NMAT
    for i, name in enumerate(value):
        counts[_name_index(name, _MATERIALS, f"{field}[{i}]")] += 1
    if max(counts) > 255:
        raise ValueError(f"{field}: too many")
    return counts


cdef void turn_from_public(GameState* s, d) except *:
    # Fill s.turn from the public `turn` dict (omitted fields: zero / empty / none);
    # ValueError naming the field for anything malformed. Consistency with the rest of the
    # position is checked afterwards by the caller (the invariant checker and a probe).
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players, i, m, x
    if not isinstance(d, dict):
        raise ValueError("turn: expected a dict (as written by to_dict)")
    unknown = sorted(set(d) - set(_TURN_KEYS))
    if unknown:
        raise ValueError(f"turn: unknown field(s) {unknown}; known: {list(_TURN_KEYS)}")
    if "phase" not in d:
        raise ValueError("turn.phase: missing")
    decision_labels = [_PHASE_LABEL[p] for p in range(GR_NUM_DECISION_PHASES)] + ["over"]
    phase = _name_index(d["phase"], decision_labels, "turn.phase")
    memset(t, 0, sizeof(Turn))
    t.phase = PH_OVER if phase == GR_NUM_DECISION_PHASES else phase
    t.turn_number = _small_int(d.get("number", 0), "turn.number", 2 ** 31)
    t.decisions = _small_int(d.get("decisions", 0), "turn.decisions", 2 ** 31)
    t.leader = _small_int(d.get("leader", 0), "turn.leader", n - 1)
    t.decider = _small_int(d.get("decider", t.leader), "turn.decider", n - 1)
    t.actor = _small_int(d.get("actor", t.leader), "turn.actor", n - 1)
    role = _name_index(d.get("led_role"), _ROLES[:6], "turn.led_role", allow_none=True)
    t.led_role = NO_ROLE if role is None else role
    t.seat_offset = _small_int(d.get("seat_offset", 0), "turn.seat_offset", n)
    t.think_return = _name_index(d.get("think_return", "lead"), _THINK_RETURNS, "turn.think_return")

    petition = _section(d, "petition", _PETITION_KEYS, "turn.petition")
    t.petition_material = _name_index(petition.get("material", "Rubble"), _MATERIALS, "turn.petition.material")
    t.petition_picked = _small_int(petition.get("picked", 0), "turn.petition.picked", 3)
    t.petition_from = _card_field(petition.get("from"), "turn.petition.from")

    action = _section(d, "action", _ACTION_KEYS, "turn.action")
    t.action_role = _name_index(action.get("role", "Laborer"), _ROLES, "turn.action.role")
    t.action_source = _name_index(action.get("source", "main"), _SOURCES, "turn.action.source")
    parts = action.get("parts", [])
    if not isinstance(parts, list):
        raise ValueError("turn.action.parts: expected a list of 'main', 'deck', 'hand'")
    for i, part in enumerate(parts):
        t.action_parts |= _PARTS[_name_index(part, [p for p, _ in _PARTS], f"turn.action.parts[{i}]")][1]
    t.action_stack_base = _small_int(action.get("stack_base", 0), "turn.action.stack_base", STACK_CAP)

    queue = _section(d, "queue", _QUEUE_KEYS, "turn.queue")
    t.ready_actions = _small_int(queue.get("ready", 0), "turn.queue.ready", 255)
    clients = _card_counts(queue.get("clients", []), "turn.queue.clients", False)
    for x in range(NUM_TYPES):
        t.pending_clients[x] = clients[x]
    front = queue.get("front", [])
    if not isinstance(front, list) or len(front) > STACK_CAP:
        raise ValueError(f"turn.queue.front: expected a list of at most {STACK_CAP} entries")
    kinds = list(_ENTRY_KINDS.values())
    for i, entry in enumerate(front):
        field = f"turn.queue.front[{i}]"
        if not isinstance(entry, dict) or sorted(entry) != sorted(_ENTRY_KEYS):
            raise ValueError(f"{field}: expected a dict with {list(_ENTRY_KEYS)}")
        t.stack_kind[i] = list(_ENTRY_KINDS)[_name_index(entry["kind"], kinds, f"{field}.kind")]
        t.stack_role[i] = _name_index(entry["role"], _ROLES, f"{field}.role")
        t.stack_count[i] = _small_int(entry["count"], f"{field}.count", 255)
    t.stack_size = len(front)

    legionary = _section(d, "legionary", _LEGIONARY_KEYS, "turn.legionary")
    t.legionary_batch = _small_int(legionary.get("batch", 0), "turn.legionary.batch", 255)
    t.legionary_revealed = _small_int(legionary.get("revealed_count", 0), "turn.legionary.revealed_count", 255)
    revealed = _card_counts(legionary.get("revealed", []), "turn.legionary.revealed", False)
    for x in range(NUM_TYPES):
        t.revealed[x] = revealed[x]
    for key in ("demand", "take_left", "give_left"):
        counts = _material_counts(legionary.get(key, []), f"turn.legionary.{key}")
        for m in range(NMAT):
            if key == "demand":
                t.demand[m] = counts[m]
            elif key == "take_left":
                t.take_left[m] = counts[m]
            else:
                t.give_left[m] = counts[m]
    t.victim_offset = _small_int(legionary.get("victim_offset", 0), "turn.legionary.victim_offset", n)
    t.give_kind = _name_index(legionary.get("give_kind", "hand"), _GIVE_KINDS, "turn.legionary.give_kind")
    material = _name_index(legionary.get("give_material"), _MATERIALS, "turn.legionary.give_material",
                           allow_none=True)
    t.give_material = NO_ROLE if material is None else material
    extra_used = legionary.get("extra_used", False)
    if not isinstance(extra_used, bool):
        raise ValueError("turn.legionary.extra_used: expected true or false")
    t.extra_used = extra_used

    t.pick_from = _card_field(d.get("pick_from"), "turn.pick_from")
    t.fountain_card = _card_field(d.get("fountain_card"), "turn.fountain_card")
    t.end_step = _name_index(d.get("end_step", "senate"), _END_STEPS, "turn.end_step")
    pending_end = d.get("pending_end", False)
    if not isinstance(pending_end, bool):
        raise ValueError("turn.pending_end: expected true or false")
    t.pending_end = END_DECK if pending_end else END_NONE
    reason = d.get("end_reason")
    t.end_reason = END_NONE if reason is None else _name_index(reason, _END_REASONS[1:], "turn.end_reason") + 1
    winners = d.get("winners", [])
    if not isinstance(winners, list):
        raise ValueError("turn.winners: expected a list of players")
    for i, p in enumerate(winners):
        t.winners_mask |= 1 << _small_int(p, f"turn.winners[{i}]", n - 1)
    if (t.phase == PH_OVER) != (t.end_reason != END_NONE) or (t.phase == PH_OVER) != (t.winners_mask != 0):
        raise ValueError("turn: a finished game (phase 'over') has an end_reason and winners, "
                         "and only a finished game has them")


# ---- low-level setters used by glory_ai._positions (validated there) -------------------

cdef uint8_t* _zone_array(State st, str name, int player) except NULL:
    cdef Player* pl
    if name == "pool":
        return st.s.pool
    if name == "out_of_play":
        return st.s.out_of_play
    pl = &st.s.players[player]
    if name == "hand":
        return pl.hand
    if name == "camp":
        return pl.camp
    if name == "stockpile":
        return pl.stockpile
    if name == "vault":
        return pl.vault
    if name == "clientele":
        return pl.clientele
    if name == "known_hand":
        return pl.hand_known
    if name == "known_vault":
        return pl.vault_known
    raise ValueError(f"unknown zone {name!r}")


def _set_zone(State st, str name, int player, list counts):
    cdef uint8_t* arr = _zone_array(st, name, player)
    cdef Player* pl = &st.s.players[player]
    cdef int x
    for x in range(NUM_TYPES):
        arr[x] = counts[x]
    if name not in ("pool", "out_of_play"):
        pl.hand_count = sum(pl.hand[x] for x in range(NUM_TYPES))
        pl.stockpile_count = sum(pl.stockpile[x] for x in range(NUM_TYPES))
        pl.vault_count = sum(pl.vault[x] for x in range(NUM_TYPES))
        pl.clientele_count = sum(pl.clientele[x] for x in range(NUM_TYPES))


def _set_deck(State st, list top_first, bint shuffle):
    cdef int i, j, tmp
    st.s.deck_size = len(top_first)
    for i, x in enumerate(reversed(top_first)):
        st.s.deck[i] = x
    if shuffle:
        for i in range(st.s.deck_size - 1, 0, -1):
            j = gr_rng_below(&st.s.rng, i + 1)
            tmp = st.s.deck[i]
            st.s.deck[i] = st.s.deck[j]
            st.s.deck[j] = tmp


def _set_misc(State st, jack_pile, in_town, out_town, leader, functions_used):
    st.s.jack_pile = jack_pile
    for m in range(NMAT):
        st.s.in_town[m] = in_town[m]
        st.s.out_town[m] = out_town[m]
    st.s.turn.leader = leader
    st.s.functions_used = functions_used


def _set_rng(State st, uint64_t value):
    st.s.rng = value


def _set_player(State st, int player, influence_sites, structures, turn_state, int lacks=0):
    cdef Player* pl = &st.s.players[player]
    cdef Structure* structure
    for m in range(NMAT):
        pl.influence_sites[m] = influence_sites[m]
    if st.s.nstruct + len(structures) > MAX_STRUCTURES:
        raise ValueError(f"players[{player}].structures: at most {MAX_STRUCTURES} structures in all")
    for building, site, flags, materials, stairway in structures:
        structure = &st.s.structures[st.s.nstruct]
        st.s.nstruct += 1
        structure.owner = player
        structure.building = building
        structure.site = site
        structure.flags = flags
        structure.nmat = len(materials)
        for k in range(3):
            structure.materials[k] = materials[k] if k < len(materials) else 0
        structure.stairway = stairway
    pl.lacks = lacks
    pl.camp_units = turn_state.get("camp_units", 0)
    pl.flags = turn_state.get("flags", 0)
    pl.jacks_played = turn_state.get("jacks_played", 0)


def _set_turn(State st, turn):
    """Fill the turn from its public form, then refresh the derived fields."""
    turn_from_public(st.s, turn)
    refresh_active(st.s)


def _begin(State st):
    """Start the leader's turn (a position written without a turn)."""
    refresh_active(st.s)
    begin_turn(st.s)
