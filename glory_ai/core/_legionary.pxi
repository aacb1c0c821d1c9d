# Legionary (R-8.5): reveals, taking from the pool, victims, and the Bridge / Colosseum /
# Domus Aurea extras.

# ---------------------------------------------------------------------------------------
# Legionary (R-8.5)

cdef inline int revealable(GameState* s, Player* pl, int card) noexcept nogil:
    cdef int r = <int>pl.hand[card] - <int>s.turn.revealed[card]
    return r if r > 0 else 0

cdef void start_legionary(GameState* s, int batch) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl = &s.players[t.actor]
    cdef int x
    # a batch beyond 255 cannot matter: no hand holds more than 255 cards to reveal
    t.legionary_batch = batch if batch < 255 else 255
    t.legionary_revealed = 0
    t.pick_from = 1
    memset(t.demand, 0, sizeof(t.demand))
    for x in range(1, NUM_TYPES):
        if revealable(s, pl, x):
            t.phase = PH_LEG_REVEAL
            return
    t.phase = PH_QUEUE                              # nothing to reveal: the batch is lost

cdef bint can_take_from_pool(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int x
    for x in range(t.pick_from, NUM_TYPES):
        if s.pool[x] and t.take_left[mat_of(s, x)]:
            return True
    return False

cdef void after_reveal(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    if t.legionary_revealed == 0:
        t.phase = PH_QUEUE
        return
    memcpy(t.take_left, t.demand, sizeof(t.demand))
    t.pick_from = 1
    if can_take_from_pool(s):
        t.phase = PH_LEG_TAKE
    else:
        t.victim_offset = 1
        t.phase = PH_LEG_VICTIMS

cdef bint is_victim(GameState* s, int legionary, int offset) noexcept nogil:
    # R-8.5.4, R-8.5.5
    cdef int n = s.cfg.num_players
    cdef int v = (legionary + offset) % n
    cdef bint bridge = is_active(s, legionary, B_BRIDGE)
    if conceded(s, v):
        return False
    if not bridge and n > 3 and offset != 1 and offset != n - 1:
        return False
    if is_active(s, v, B_WALL):
        fire(s, B_WALL)
        return False
    if is_active(s, v, B_PALISADE):
        if not bridge:
            fire(s, B_PALISADE)
            return False
        fire(s, B_BRIDGE)
    if bridge and n > 3 and offset != 1 and offset != n - 1:
        fire(s, B_BRIDGE)
    return True

cdef inline bint structure_matches(GameState* s, Structure* st, int victim, int m) noexcept nogil:
    # Domus Aurea: a material-free incomplete structure whose foundation or site is m
    return (st.owner == victim and not (st.flags & S_COMPLETE) and st.nmat == 0
            and (mat_of(s, st.building) == m or st.site == m))

cdef int give_candidates(GameState* s, int victim, int kind, int m, int start,
                         int* kinds, int* first) noexcept nogil:
    # how many things of material m the victim could give in this kind (ids >= start)
    cdef Player* pl = &s.players[victim]
    cdef int x, i, c, total = 0
    kinds[0] = 0
    first[0] = -1
    if kind == GIVE_STRUCTURE:
        for x in range(start, NUM_TYPES):
            i = owned_structure(s, victim, x)
            if i >= 0 and structure_matches(s, &s.structures[i], victim, m):
                total += 1
                kinds[0] += 1
                if first[0] < 0:
                    first[0] = x
        return total
    for x in range(start, NUM_TYPES):
        if mat_of(s, x) != m:
            continue
        if kind == GIVE_HAND:
            c = pl.hand[x]
        elif kind == GIVE_STOCKPILE:
            c = pl.stockpile[x]
        else:
            c = pl.clientele[x]
        if c:
            total += c
            kinds[0] += 1
            if first[0] < 0:
                first[0] = x
    return total

cdef void give_one(GameState* s, int victim, int kind, int x) noexcept nogil:
    cdef Player* vp = &s.players[victim]
    cdef Player* lp = &s.players[s.turn.actor]
    cdef int i
    if kind == GIVE_HAND:                           # R-8.5.6
        hand_remove(vp, x, True)
        lp.stockpile[x] += 1
        lp.stockpile_count += 1
    elif kind == GIVE_STOCKPILE:                    # Bridge
        fire(s, B_BRIDGE)
        vp.stockpile[x] -= 1
        vp.stockpile_count -= 1
        lp.stockpile[x] += 1
        lp.stockpile_count += 1
    elif kind == GIVE_CLIENT:                       # Colosseum
        fire(s, B_COLOSSEUM)
        vp.clientele[x] -= 1
        vp.clientele_count -= 1
        lp.vault[x] += 1
        lp.vault_known[x] += 1
        lp.vault_count += 1
    else:                                           # Domus Aurea
        fire(s, B_DOMUS_AUREA)
        i = owned_structure(s, victim, x)
        lp.influence_sites[s.structures[i].site] += 1
        lp.stockpile[x] += 1
        lp.stockpile_count += 1
        remove_structure(s, i)
        refresh_active(s)

cdef inline bint kind_applies(GameState* s, int kind) noexcept nogil:
    cdef int p = s.turn.actor
    if kind == GIVE_HAND:
        return True
    if kind == GIVE_STOCKPILE:
        return is_active(s, p, B_BRIDGE)
    if kind == GIVE_CLIENT:
        return s.cfg.mode == MODE_IMPERIUM and is_active(s, p, B_COLOSSEUM)
    return s.cfg.mode == MODE_REPUBLIC and is_active(s, p, B_DOMUS_AUREA)

cdef inline int give_need(GameState* s, int kind, int m) noexcept nogil:
    # Colosseum clients only while the legionary's vault is below its limit (A14)
    cdef int need = s.turn.give_left[m]
    cdef int room
    if kind == GIVE_CLIENT:
        room = vault_limit(s, s.turn.actor) - s.players[s.turn.actor].vault_count
        if room < need:
            need = room if room > 0 else 0
    return need

cdef bint extra_has_candidates(GameState* s, int victim) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int m, kinds, first
    for m in range(NMAT):
        if (t.demand[m] and give_need(s, t.give_kind, m)
                and give_candidates(s, victim, t.give_kind, m, 1, &kinds, &first)):
            return True
    return False

cdef inline bint give_forced(int total, int kinds, int need) noexcept nogil:
    # the victim has no choice: it gives all it has, or all candidates are of one type
    return total <= need or kinds == 1

cdef bint settle_forced_gives(GameState* s, int victim) noexcept nogil:
    # Give whatever the victim has no choice about, kind by kind (hand, then the Bridge,
    # Colosseum and Domus Aurea extras) and material by material. Returns True when a
    # decision is needed and sets it up: the legionary choosing whether to use an extra
    # against this victim (R-8.5.7), or the victim choosing which card (give_kind and
    # give_mat name it; picks go upwards from leg_last).
    cdef Turn* t = &s.turn
    cdef int m, total, kinds, first, need, start
    while t.give_kind < GIVE_KINDS:
        if kind_applies(s, t.give_kind):
            if t.give_kind != GIVE_HAND and not t.extra_used:
                if extra_has_candidates(s, victim):
                    t.phase = PH_LEG_EXTRA
                    t.decider = t.actor
                    return True
                t.extra_used = 1
            if t.extra_used or t.give_kind == GIVE_HAND:
                for m in range(NMAT):
                    while t.give_left[m]:
                        need = give_need(s, t.give_kind, m)
                        start = t.pick_from if m == t.give_material else 1
                        total = give_candidates(s, victim, t.give_kind, m, start, &kinds, &first)
                        if need == 0 or total == 0:
                            if (total == 0 and start == 1 and t.give_kind == GIVE_HAND):
                                # "Glory to Rome!": everyone now knows it has no m card
                                s.players[victim].lacks |= 1 << m
                            t.give_left[m] = 0
                        elif give_forced(total, kinds, need):
                            give_one(s, victim, t.give_kind, first)
                            t.give_left[m] -= 1
                        else:
                            if t.give_material != m:
                                t.give_material = m
                                t.pick_from = 1
                            t.phase = PH_LEG_GIVE
                            t.decider = victim
                            return True
        t.give_kind += 1
        t.extra_used = 0
        memcpy(t.give_left, t.demand, sizeof(t.demand))
        t.give_material = NO_ROLE
        t.pick_from = 1
    return False

cdef void step_victims(GameState* s) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players
    cdef int v
    while t.victim_offset < n:
        if is_victim(s, t.actor, t.victim_offset):
            v = (t.actor + t.victim_offset) % n
            memcpy(t.give_left, t.demand, sizeof(t.demand))
            t.give_kind = GIVE_HAND
            t.extra_used = 0
            t.give_material = NO_ROLE
            t.pick_from = 1
            if settle_forced_gives(s, v):
                return
        t.victim_offset += 1
    t.decider = t.actor
    t.give_kind = 0
    t.give_material = 0
    t.pick_from = 0
    if check_forum(s):                              # R-8.5.8
        return
    t.phase = PH_QUEUE

cdef int gen_legionary(GameState* s, uint16_t* out) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl
    cdef int n = 0, x, m, need, total, kinds, first, base
    if t.phase == PH_LEG_REVEAL:
        pl = &s.players[t.actor]
        for x in range(t.pick_from, NUM_TYPES):
            if revealable(s, pl, x):
                out[n] = A_REVEAL + x - 1
                n += 1
    elif t.phase == PH_LEG_TAKE:
        for x in range(t.pick_from, NUM_TYPES):
            if s.pool[x] and t.take_left[mat_of(s, x)]:
                out[n] = A_LEG_TAKE + x - 1
                n += 1
    elif t.phase == PH_LEG_EXTRA:
        out[0] = A_USE_EXTRA
        n = 1
    else:
        # a pick x is legal if enough candidates >= x remain to finish (no dead ends)
        m = t.give_material
        need = give_need(s, t.give_kind, m)
        if t.give_kind == GIVE_HAND:
            base = A_GIVE
        elif t.give_kind == GIVE_STOCKPILE:
            base = A_GIVE_STOCKPILE
        elif t.give_kind == GIVE_CLIENT:
            base = A_GIVE_CLIENT
        else:
            base = A_GIVE_STRUCTURE
        for x in range(t.pick_from, NUM_TYPES):
            total = give_candidates(s, t.decider, t.give_kind, m, x, &kinds, &first)
            if total < need:
                break
            if first == x:
                out[n] = base + x - 1
                n += 1
        return n                                    # giving is mandatory: no skip
    out[n] = A_SKIP
    return n + 1

cdef void apply_legionary(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef Player* pl
    cdef int x, v
    if t.phase == PH_LEG_REVEAL:
        if action == A_SKIP:
            after_reveal(s)
            return
        x = action - A_REVEAL + 1                   # R-8.5.2
        pl = &s.players[t.actor]
        t.revealed[x] += 1
        if pl.hand_known[x] < t.revealed[x]:
            pl.hand_known[x] = t.revealed[x]
        t.demand[mat_of(s, x)] += 1
        t.legionary_revealed += 1
        t.pick_from = x
        if t.legionary_revealed >= t.legionary_batch:
            after_reveal(s)
            return
        for x in range(t.pick_from, NUM_TYPES):
            if revealable(s, pl, x):
                return
        after_reveal(s)
    elif t.phase == PH_LEG_TAKE:
        if action != A_SKIP:                        # R-8.5.3
            x = action - A_LEG_TAKE + 1
            s.pool[x] -= 1
            pl = &s.players[t.actor]
            pl.stockpile[x] += 1
            pl.stockpile_count += 1
            t.take_left[mat_of(s, x)] -= 1
            t.pick_from = x
            if can_take_from_pool(s):
                return
        t.victim_offset = 1
        t.phase = PH_LEG_VICTIMS
    elif t.phase == PH_LEG_EXTRA:                   # R-8.5.7: the legionary's choice
        v = (t.actor + t.victim_offset) % s.cfg.num_players
        if action == A_USE_EXTRA:
            t.extra_used = 1
        else:
            t.give_kind += 1
            t.extra_used = 0
            memcpy(t.give_left, t.demand, sizeof(t.demand))
            t.give_material = NO_ROLE
            t.pick_from = 1
        if settle_forced_gives(s, v):
            return
        t.victim_offset += 1
        t.phase = PH_LEG_VICTIMS
    else:                                           # R-8.5.6 / R-8.5.7: the victim's choice
        if action >= A_GIVE_STRUCTURE:
            x = action - A_GIVE_STRUCTURE + 1
        elif action >= A_GIVE_CLIENT:
            x = action - A_GIVE_CLIENT + 1
        elif action >= A_GIVE_STOCKPILE:
            x = action - A_GIVE_STOCKPILE + 1
        else:
            x = action - A_GIVE + 1
        v = t.decider
        give_one(s, v, t.give_kind, x)
        t.give_left[t.give_material] -= 1
        t.pick_from = x
        if settle_forced_gives(s, v):
            return
        t.victim_offset += 1
        t.phase = PH_LEG_VICTIMS
