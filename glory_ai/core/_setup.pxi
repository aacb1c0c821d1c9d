# Setup (R-4): the deal of a new game (setup_game, an entry point of engine.pxd).

cdef void setup_game(GameState* s, uint64_t seed, const uint8_t* top, int ntop) noexcept nogil:
    # R-4: shuffle, deal hands, deal for the first leader.
    cdef int n = s.cfg.num_players
    cdef int x, c, i, j, tmp, p, m, best, remaining
    cdef int dealt[5]
    cdef int candidates = (1 << n) - 1
    cdef int unlisted[45]
    s.rng = gr_rng_seed(seed)
    s.deck_size = 0
    for x in range(NUM_TYPES):
        unlisted[x] = s.cfg.copies[x]
    for i in range(ntop):                             # a known top of the deck (validated)
        unlisted[top[i]] -= 1
    for x in range(1, NUM_TYPES):
        for c in range(unlisted[x]):
            s.deck[s.deck_size] = x
            s.deck_size += 1
    for i in range(s.deck_size - 1, 0, -1):          # Fisher-Yates
        j = gr_rng_below(&s.rng, i + 1)
        tmp = s.deck[i]
        s.deck[i] = s.deck[j]
        s.deck[j] = tmp
    for i in range(ntop - 1, -1, -1):                 # top[0] ends on top
        s.deck[s.deck_size] = top[i]
        s.deck_size += 1
    s.jack_pile = 6
    for m in range(NMAT):                             # R-4.2
        s.in_town[m] = s.cfg.in_town_per_material
        s.out_town[m] = 6 - s.cfg.in_town_per_material
    for p in range(n):                                # R-4.5
        for i in range(s.cfg.hand_orders):
            hand_add(&s.players[p], deck_draw(s), False)
        for i in range(s.cfg.hand_jacks):
            s.jack_pile -= 1
            hand_add(&s.players[p], JACK, True)
    while True:                                       # R-4.6
        if s.deck_size < n:
            break                                     # (config guarantees enough cards)
        best = NUM_TYPES
        for p in range(n):
            if (candidates >> p) & 1:
                dealt[p] = deck_draw(s)
                s.pool[dealt[p]] += 1
                if dealt[p] < best:
                    best = dealt[p]
        remaining = 0
        for p in range(n):
            if (candidates >> p) & 1 and dealt[p] == best:
                remaining |= 1 << p
        candidates = remaining
        if candidates & (candidates - 1) == 0:
            break
    p = 0
    while not (candidates >> p) & 1:
        p += 1
    s.turn.leader = p
    begin_turn(s)
