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
