# Observations (R-5): the observation tensor of one player, as numpy.float32, computed
# from a masked copy of the state. Python-level code; included by engine.pyx.

# Per seat: the structures segment is 5 values per building (incomplete, complete,
# materials, Stairwayed, out of town); flags are led/followed, thought, conceded; lacks is
# one bit per material the hand was seen to lack ("Glory to Rome!").
_SEAT_SEGMENTS = (("hand", 45), ("hand_size", 1), ("camp", 45), ("stockpile", 45),
                  ("vault", 45), ("vault_size", 1), ("clientele", 45), ("influence_sites", 6),
                  ("influence", 1), ("structures", 44 * 5), ("flags", 3), ("lacks", 6))
_SEAT_SIZE = sum(size for _, size in _SEAT_SEGMENTS)
_SEAT_AT = {name: sum(size for _, size in _SEAT_SEGMENTS[:k])
            for k, (name, _) in enumerate(_SEAT_SEGMENTS)}


def observation_tensor_layout(int num_players=5):
    """[(segment name, size)] of State.observation_tensor, in order.

    Seats are relative to the observer (seat 0 = the observer, 1 = the next player
    clockwise, ...); seats beyond the player count are zeros. Counts are raw card counts
    (not normalised). For other players, `hand` and `vault` hold only their public parts.
    `phase` is one-hot over the decision phases, then "over".
    """
    layout = [("num_players", 4), ("imperium", 1), ("phase", GR_NUM_DECISION_PHASES + 1),
              ("decider", 5), ("leader", 5), ("actor", 5), ("led_role", 7), ("demand", 6),
              ("deck_size", 1), ("jack_pile", 1), ("in_town", 6), ("out_of_town", 6),
              ("pool", 45), ("revealed", 45), ("fountain_card", 45)]
    for seat in range(5):
        for name, size in _SEAT_SEGMENTS:
            layout.append((f"seat{seat}.{name}", size))
    return layout


OBSERVATION_TENSOR_SIZE = sum(size for _, size in observation_tensor_layout())


cdef void seat_features(GameState* m, int q, float[:] v, int i):
    # one seat of the observation tensor, segments at their _SEAT_AT offsets from `i`
    cdef Player* pl = &m.players[q]
    cdef Structure* st
    cdef int x, base
    cdef int hand = i + _SEAT_AT["hand"], camp = i + _SEAT_AT["camp"]
    cdef int stockpile = i + _SEAT_AT["stockpile"], vault = i + _SEAT_AT["vault"]
    cdef int clientele = i + _SEAT_AT["clientele"], sites = i + _SEAT_AT["influence_sites"]
    cdef int flags = i + _SEAT_AT["flags"], lacks = i + _SEAT_AT["lacks"]
    cdef int hand_size = i + _SEAT_AT["hand_size"], vault_size = i + _SEAT_AT["vault_size"]
    cdef int influence = i + _SEAT_AT["influence"], structures = i + _SEAT_AT["structures"]
    for x in range(NUM_TYPES):
        v[hand + x] = pl.hand[x]
        v[camp + x] = pl.camp[x]
        v[stockpile + x] = pl.stockpile[x]
        v[vault + x] = pl.vault[x]
        v[clientele + x] = pl.clientele[x]
    v[hand_size] = pl.hand_count
    v[vault_size] = pl.vault_count
    for x in range(6):
        v[sites + x] = pl.influence_sites[x]
        v[lacks + x] = (pl.lacks >> x) & 1
    v[influence] = influence_of(m, q)
    for x in range(m.nstruct):
        st = &m.structures[x]
        if st.owner != q:
            continue
        base = structures + (st.building - 1) * 5
        v[base] = 0 if st.flags & S_COMPLETE else 1
        v[base + 1] = 1 if st.flags & S_COMPLETE else 0
        v[base + 2] = st.nmat
        v[base + 3] = 1 if st.stairway else 0
        v[base + 4] = 1 if st.flags & S_OUT_OF_TOWN else 0
    v[flags] = 1 if pl.flags & P_LED_OR_FOLLOWED else 0
    v[flags + 1] = 1 if pl.flags & P_THOUGHT else 0
    v[flags + 2] = 1 if pl.flags & P_CONCEDED else 0


cdef object observation_tensor_of(GameState* m, int player):
    # the tensor of a state already masked for `player`
    import numpy as np
    cdef int n = m.cfg.num_players
    cdef int seat, x, i, who
    out = np.zeros(OBSERVATION_TENSOR_SIZE, dtype=np.float32)
    cdef float[:] v = out
    i = 0
    v[i + n - 2] = 1
    i += 4
    v[i] = 1 if m.cfg.mode == MODE_IMPERIUM else 0
    i += 1
    v[i + (GR_NUM_DECISION_PHASES if m.turn.phase == PH_OVER else m.turn.phase)] = 1
    i += GR_NUM_DECISION_PHASES + 1
    for who in (m.turn.decider, m.turn.leader, m.turn.actor):
        if m.turn.phase != PH_OVER:
            v[i + (who - player + n) % n] = 1    # seats relative to the observer
        i += 5
    v[i + (0 if m.turn.led_role == NO_ROLE else 1 + m.turn.led_role)] = 1
    i += 7
    for x in range(6):
        v[i + x] = m.turn.demand[x]
    i += 6
    v[i] = m.deck_size
    v[i + 1] = m.jack_pile
    i += 2
    for x in range(6):
        v[i + x] = m.in_town[x]
        v[i + 6 + x] = m.out_town[x]
    i += 12
    for x in range(NUM_TYPES):
        v[i + x] = m.pool[x]
        v[i + 45 + x] = m.turn.revealed[x]
    i += 90
    if m.turn.fountain_card:                    # masked unless `player` drew it
        v[i + m.turn.fountain_card] = 1
    i += 45
    for seat in range(5):
        if seat < n:
            seat_features(m, (player + seat) % n, v, i)
        i += _SEAT_SIZE
    return out


# ---------------------------------------------------------------------------------------
# The information-state string, written in C: the observation as compact JSON with sorted
# keys (json.dumps(state.observation(p), sort_keys=True, separators=(",", ":"))), byte for
# byte, without building the dict. Adapters and users key tables on it, so it is on their
# hot path; tests/test_hidden_info.py checks it against the dict in every kind of state.

from libc.string cimport strlen
from cpython.unicode cimport PyUnicode_DecodeASCII

cdef enum:
    INFO_STRING_CAP = 65536     # bytes; a state that needs more (none can) takes the slow path

ctypedef struct JsonOut:
    char* buf
    Py_ssize_t len
    Py_ssize_t cap
    bint failed                 # out of room, or a field outside its table: use the slow path

# The quoted JSON texts of names and labels, by group; a group's entries are its codes.
cdef enum:
    TOK_CARD = 0                # 45 card names
    TOK_MATERIAL = 45           # 6
    TOK_ROLE = 51               # 7 (Thinker last)
    TOK_THINK_RETURN = 58       # 4
    TOK_SOURCE = 62             # 3
    TOK_GIVE_KIND = 65          # 5
    TOK_END_STEP = 70           # 3
    TOK_ENTRY_KIND = 73         # 6 (code 0 unused)
    TOK_END_REASON = 79         # 6 (code 0: null)
    TOK_PART = 85               # 3: main, deck, hand
    TOK_PHASE = 88              # GR_NUM_PHASES
    TOK_CAP = 128

cdef const char* _tok_text[TOK_CAP]
cdef Py_ssize_t _tok_len[TOK_CAP]
cdef uint8_t _material_by_name[6]   # material ids in name order (the sites' keys)
cdef int _cards_before_jack = -1    # Order ids 1..k sort before "Jack" (ids are in name order)


def _json_tokens():
    import json
    groups = [(TOK_CARD, _NAMES), (TOK_MATERIAL, _MATERIALS), (TOK_ROLE, _ROLES),
              (TOK_THINK_RETURN, _THINK_RETURNS), (TOK_SOURCE, _SOURCES),
              (TOK_GIVE_KIND, _GIVE_KINDS), (TOK_END_STEP, _END_STEPS),
              (TOK_ENTRY_KIND, [_ENTRY_KINDS.get(k, str(k)) for k in range(6)]),
              (TOK_END_REASON, [None] + [_END_REASON_OF[k].value for k in range(1, 6)]),
              (TOK_PART, [name for name, _ in _PARTS]), (TOK_PHASE, _PHASE_LABEL)]
    tokens = [b""] * TOK_CAP
    for start, names in groups:
        for i, name in enumerate(names):
            tokens[start + i] = json.dumps(name).encode("ascii")
    return tokens


_JSON_TOKEN_BYTES = _json_tokens()      # kept alive: _tok_text points into these


cdef void _load_json_tokens():
    global _cards_before_jack
    cdef int i
    for i in range(TOK_CAP):
        _tok_text[i] = _JSON_TOKEN_BYTES[i]
        _tok_len[i] = len(_JSON_TOKEN_BYTES[i])
    for i, m in enumerate(sorted(range(NMAT), key=lambda m: _MATERIALS[m])):
        _material_by_name[i] = m
    names = list(_NAMES[1:])
    if names != sorted(names):
        raise ImportError("the card ids 1..44 are not in name order (csrc/cards.h)")
    _cards_before_jack = sum(1 for name in names if name < _NAMES[JACK])


if END_CONCESSION != 5 or E_PRISON != 5 or GR_NUM_PHASES > TOK_CAP - TOK_PHASE:
    raise ImportError("the information-state string's token table does not fit csrc/tables.h")
_load_json_tokens()


cdef inline void put(JsonOut* o, const char* text, Py_ssize_t n) noexcept nogil:
    if o.len + n > o.cap:
        o.failed = True
        return
    memcpy(o.buf + o.len, text, n)
    o.len += n

cdef inline void put_text(JsonOut* o, const char* text) noexcept nogil:
    put(o, text, strlen(text))

cdef inline void put_token(JsonOut* o, int group, int code, int count) noexcept nogil:
    if code < 0 or code >= count:
        o.failed = True
        return
    put(o, _tok_text[group + code], _tok_len[group + code])

cdef void put_int(JsonOut* o, long long value) noexcept nogil:
    cdef char digits[24]
    cdef int n = 0
    cdef unsigned long long v = <unsigned long long>(-value if value < 0 else value)
    if value < 0:
        put(o, b"-", 1)
    while True:
        digits[23 - n] = <char>(48 + v % 10)
        n += 1
        v //= 10
        if v == 0:
            break
    put(o, &digits[24 - n], n)

cdef inline void put_bool(JsonOut* o, bint value) noexcept nogil:
    if value:
        put(o, b"true", 4)
    else:
        put(o, b"false", 5)

cdef void put_card_or_null(JsonOut* o, int card) noexcept nogil:
    if card:
        put_token(o, TOK_CARD, card, NUM_TYPES)
    else:
        put(o, b"null", 4)

cdef inline void put_names(JsonOut* o, const uint8_t* counts, uint64_t bits, bint* first) noexcept nogil:
    # the cards of the set bits, ascending, each repeated by its count
    cdef int x, c
    while bits:
        x = lowest_bit(bits)
        bits &= bits - 1
        for c in range(counts[x]):
            if not first[0]:
                put(o, b",", 1)
            first[0] = False
            put_token(o, TOK_CARD, x, NUM_TYPES)

cdef void put_zone(JsonOut* o, const uint8_t* counts) noexcept nogil:
    # _zone(): the names with repeats, sorted by name: the Order ids are in name order and
    # the Jack goes between those before and after it
    cdef uint64_t bits = zone_mask(counts)
    cdef uint64_t before = ((<uint64_t>1) << (_cards_before_jack + 1)) - 2
    cdef bint first = True
    put(o, b"[", 1)
    put_names(o, counts, bits & before, &first)
    put_names(o, counts, bits & 1, &first)
    put_names(o, counts, bits & ORDER_BITS & ~before, &first)
    put(o, b"]", 1)

cdef void put_materials(JsonOut* o, const uint8_t* counts) noexcept nogil:
    # _materials(): material names with repeats, in material order
    cdef int m, c
    cdef bint first = True
    put(o, b"[", 1)
    for m in range(NMAT):
        for c in range(counts[m]):
            if not first:
                put(o, b",", 1)
            first = False
            put_token(o, TOK_MATERIAL, m, NMAT)
    put(o, b"]", 1)

cdef void put_material_bits(JsonOut* o, int bits) noexcept nogil:
    cdef int m
    cdef bint first = True
    put(o, b"[", 1)
    for m in range(NMAT):
        if (bits >> m) & 1:
            if not first:
                put(o, b",", 1)
            first = False
            put_token(o, TOK_MATERIAL, m, NMAT)
    put(o, b"]", 1)

cdef void put_sites(JsonOut* o, const uint8_t* counts) noexcept nogil:
    # {material: count} with the keys in name order
    cdef int i, m
    put(o, b"{", 1)
    for i in range(NMAT):
        m = _material_by_name[i]
        if i:
            put(o, b",", 1)
        put_token(o, TOK_MATERIAL, m, NMAT)
        put(o, b":", 1)
        put_int(o, counts[m])
    put(o, b"}", 1)

cdef void put_structure(JsonOut* o, Structure* st) noexcept nogil:
    cdef int k
    put_text(o, b'{"building":')
    put_token(o, TOK_CARD, st.building, NUM_TYPES)
    put_text(o, b',"complete":')
    put_bool(o, st.flags & S_COMPLETE)
    put_text(o, b',"materials":[')
    for k in range(st.nmat):
        if k:
            put(o, b",", 1)
        put_token(o, TOK_CARD, st.materials[k], NUM_TYPES)
    put_text(o, b'],"out_of_town":')
    put_bool(o, st.flags & S_OUT_OF_TOWN)
    put_text(o, b',"site":')
    put_token(o, TOK_MATERIAL, st.site, NMAT)
    if st.stairway:
        put_text(o, b',"stairway":')
        put_token(o, TOK_CARD, st.stairway, NUM_TYPES)
    put(o, b"}", 1)

cdef void put_player(JsonOut* o, GameState* s, int q, int observer) noexcept nogil:
    # _player_of() of the masked state, with the observation's changes: sizes for every
    # seat, hand and vault for the observer only
    cdef Player* pl = &s.players[q]
    cdef int i
    cdef bint first = True
    put_text(o, b'{"camp":')
    put_zone(o, pl.camp)
    put_text(o, b',"clientele":')
    put_zone(o, pl.clientele)
    if q == observer:
        put_text(o, b',"hand":')
        put_zone(o, pl.hand)
    put_text(o, b',"hand_size":')
    put_int(o, pl.hand_count)
    put_text(o, b',"influence":')
    put_materials(o, pl.influence_sites)
    put_text(o, b',"known_hand":')
    put_zone(o, pl.hand_known)
    put_text(o, b',"known_vault":')
    put_zone(o, pl.vault_known)
    put_text(o, b',"lacks":')
    put_material_bits(o, pl.lacks)
    put_text(o, b',"stockpile":')
    put_zone(o, pl.stockpile)
    put_text(o, b',"structures":[')
    for i in range(s.nstruct):
        if s.structures[i].owner == q:
            if not first:
                put(o, b",", 1)
            first = False
            put_structure(o, &s.structures[i])
    put_text(o, b'],"turn_state":{"camp_units":')
    put_int(o, pl.camp_units)
    put_text(o, b',"flags":')
    put_int(o, pl.flags)
    put_text(o, b',"jacks_played":')
    put_int(o, pl.jacks_played)
    put(o, b"}", 1)
    if q == observer:
        put_text(o, b',"vault":')
        put_zone(o, pl.vault)
    put_text(o, b',"vault_size":')
    put_int(o, pl.vault_count)
    put(o, b"}", 1)

cdef void put_turn(JsonOut* o, GameState* s, int observer) noexcept nogil:
    # turn_to_public() of the masked state: no decision count, and a Fountain card only
    # for its drawer
    cdef Turn* t = &s.turn
    cdef int i, p
    cdef bint first = True
    put_text(o, b'{"action":{"parts":[')
    for i in range(3):
        if t.action_parts & (1 << i):              # PART_MAIN, PART_DECK, PART_HAND
            if not first:
                put(o, b",", 1)
            first = False
            put_token(o, TOK_PART, i, 3)
    put_text(o, b'],"role":')
    put_token(o, TOK_ROLE, t.action_role, 7)
    put_text(o, b',"source":')
    put_token(o, TOK_SOURCE, t.action_source, 3)
    put_text(o, b',"stack_base":')
    put_int(o, t.action_stack_base)
    put_text(o, b'},"actor":')
    put_int(o, t.actor)
    put_text(o, b',"decider":')
    put_int(o, t.decider)
    put_text(o, b',"decisions":0,"end_reason":')
    if t.end_reason == END_NONE:
        put(o, b"null", 4)
    else:
        put_token(o, TOK_END_REASON, t.end_reason, 6)
    put_text(o, b',"end_step":')
    put_token(o, TOK_END_STEP, t.end_step, 3)
    put_text(o, b',"fountain_card":')
    put_card_or_null(o, t.fountain_card if t.actor == observer else 0)
    put_text(o, b',"leader":')
    put_int(o, t.leader)
    put_text(o, b',"led_role":')
    if t.led_role == NO_ROLE:
        put(o, b"null", 4)
    else:
        put_token(o, TOK_ROLE, t.led_role, 7)
    put_text(o, b',"legionary":{"batch":')
    put_int(o, t.legionary_batch)
    put_text(o, b',"demand":')
    put_materials(o, t.demand)
    put_text(o, b',"extra_used":')
    put_bool(o, t.extra_used)
    put_text(o, b',"give_kind":')
    put_token(o, TOK_GIVE_KIND, t.give_kind, 5)
    put_text(o, b',"give_left":')
    put_materials(o, t.give_left)
    put_text(o, b',"give_material":')
    if t.give_material == NO_ROLE:
        put(o, b"null", 4)
    else:
        put_token(o, TOK_MATERIAL, t.give_material, NMAT)
    put_text(o, b',"revealed":')
    put_zone(o, t.revealed)
    put_text(o, b',"revealed_count":')
    put_int(o, t.legionary_revealed)
    put_text(o, b',"take_left":')
    put_materials(o, t.take_left)
    put_text(o, b',"victim_offset":')
    put_int(o, t.victim_offset)
    put_text(o, b'},"number":')
    put_int(o, t.turn_number)
    put_text(o, b',"pending_end":')
    put_bool(o, t.pending_end == END_DECK)
    put_text(o, b',"petition":{"from":')
    put_card_or_null(o, t.petition_from)
    put_text(o, b',"material":')
    put_token(o, TOK_MATERIAL, t.petition_material, NMAT)
    put_text(o, b',"picked":')
    put_int(o, t.petition_picked)
    put_text(o, b'},"phase":')
    put_token(o, TOK_PHASE, t.phase, GR_NUM_PHASES)
    put_text(o, b',"pick_from":')
    put_card_or_null(o, t.pick_from)
    put_text(o, b',"queue":{"clients":')
    put_zone(o, t.pending_clients)
    put_text(o, b',"front":[')
    for i in range(t.stack_size):
        if i:
            put(o, b",", 1)
        put_text(o, b'{"count":')
        put_int(o, t.stack_count[i])
        put_text(o, b',"kind":')
        put_token(o, TOK_ENTRY_KIND, t.stack_kind[i], 6)
        put_text(o, b',"role":')
        put_token(o, TOK_ROLE, t.stack_role[i], 7)
        put(o, b"}", 1)
    put_text(o, b'],"ready":')
    put_int(o, t.ready_actions)
    put_text(o, b'},"seat_offset":')
    put_int(o, t.seat_offset)
    put_text(o, b',"think_return":')
    put_token(o, TOK_THINK_RETURN, t.think_return, 4)
    put_text(o, b',"winners":[')
    first = True
    for p in range(s.cfg.num_players):
        if (t.winners_mask >> p) & 1:
            if not first:
                put(o, b",", 1)
            first = False
            put_int(o, p)
    put_text(o, b"]}")

cdef Py_ssize_t write_information_state(GameState* s, int observer, char* buf, Py_ssize_t cap,
                                        const char* tail, Py_ssize_t tail_len) noexcept nogil:
    # State.observation(observer) as compact JSON with sorted keys, up to the "variant"
    # and "version" fields, which `tail` holds. Returns the length, or -1 (slow path).
    cdef JsonOut o
    cdef int q
    o.buf = buf
    o.len = 0
    o.cap = cap
    o.failed = False
    put_text(&o, b'{"deck_size":')
    put_int(&o, s.deck_size)
    put_text(&o, b',"format":"glory_ai/state","jack_pile":')
    put_int(&o, s.jack_pile)
    put_text(&o, b',"leader":')
    put_int(&o, s.turn.leader)
    if s.cfg.mode == MODE_IMPERIUM:
        put_text(&o, b',"mode":"imperium","num_players":')
    else:
        put_text(&o, b',"mode":"republic","num_players":')
    put_int(&o, s.cfg.num_players)
    put_text(&o, b',"observer":')
    put_int(&o, observer)
    put_text(&o, b',"out_of_play":')
    put_zone(&o, s.out_of_play)
    put_text(&o, b',"players":[')
    for q in range(s.cfg.num_players):
        if q:
            put(&o, b",", 1)
        put_player(&o, s, q, observer)
    put_text(&o, b'],"pool":')
    put_zone(&o, s.pool)
    put_text(&o, b',"sites":{"in_town":')
    put_sites(&o, s.in_town)
    put_text(&o, b',"out_of_town":')
    put_sites(&o, s.out_town)
    put_text(&o, b'},"turn":')
    put_turn(&o, s, observer)
    put(&o, tail, tail_len)
    return -1 if o.failed else o.len


_variant_tail_of = (None, b"")          # (config, tail): the last config asked, in one slot


cdef bytes variant_tail(config):
    # ',"variant":{...},"version":2}': the end of the string, the same for every state of
    # a game (the variant's JSON is built by json, as the slow path does)
    global _variant_tail_of
    cached = _variant_tail_of
    if cached[0] is config:
        return cached[1]
    import json
    tail = (',"variant":' + json.dumps(config.variant(), sort_keys=True, separators=(",", ":"))
            + f',"version":{POSITION_VERSION}}}').encode("ascii")
    _variant_tail_of = (config, tail)
    return tail


cdef str information_state_string_of(State st, int observer):
    cdef bytes tail = variant_tail(st._config)
    cdef char* buf = <char*>malloc(INFO_STRING_CAP)
    cdef Py_ssize_t n
    if buf == NULL:
        raise MemoryError()
    try:
        n = write_information_state(st.s, observer, buf, INFO_STRING_CAP, tail, len(tail))
        if n >= 0:
            return PyUnicode_DecodeASCII(buf, n, NULL)
    finally:
        free(buf)
    import json
    return json.dumps(st.observation(observer), sort_keys=True, separators=(",", ":"))
