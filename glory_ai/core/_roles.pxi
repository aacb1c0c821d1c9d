# The role actions other than Legionary (R-8.1-8.4, R-8.6: Patron, Laborer, Architect,
# Craftsman, Merchant): their options (gen_action) and their effects (apply_role_action),
# the parts of an action and the Stairway part after an Architect action, and the building
# functions that are decisions of their own: Fountain, Stairway, Prison. Legionary is in
# _legionary.pxi, building itself in _building.pxi.

cdef int gen_action(GameState* s, uint16_t* out, bint first_only) noexcept nogil:
    # The non-skip options of the actor's current action; with first_only, stop at one.
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef int role = t.action_role
    cdef int n = 0, x, i, base
    cdef Structure* st
    cdef uint8_t* zone
    cdef uint64_t bits
    if role == PATRON:
        if pl.clientele_count < clientele_limit(s, p):
            if not (t.action_parts & PART_MAIN):
                bits = zone_mask(s.pool) & ORDER_BITS
                while bits:
                    x = lowest_bit(bits)
                    bits &= bits - 1
                    out[n] = A_HIRE_POOL + x - 1
                    n += 1
                    if first_only:
                        return n
            if not (t.action_parts & PART_DECK) and s.deck_size > 0 and is_active(s, p, B_BAR):
                out[n] = A_HIRE_DECK
                n += 1
                if first_only:
                    return n
            if not (t.action_parts & PART_HAND) and is_active(s, p, B_AQUEDUCT):
                bits = zone_mask(pl.hand) & ORDER_BITS
                while bits:
                    x = lowest_bit(bits)
                    bits &= bits - 1
                    out[n] = A_HIRE_HAND + x - 1
                    n += 1
                    if first_only:
                        return n
    elif role == LABORER:
        if not (t.action_parts & PART_MAIN):
            bits = zone_mask(s.pool) & ORDER_BITS
            while bits:
                x = lowest_bit(bits)
                bits &= bits - 1
                out[n] = A_TAKE_POOL + x - 1
                n += 1
                if first_only:
                    return n
        if not (t.action_parts & PART_HAND) and is_active(s, p, B_DOCK):
            bits = zone_mask(pl.hand) & ORDER_BITS
            while bits:
                x = lowest_bit(bits)
                bits &= bits - 1
                out[n] = A_DOCK_HAND + x - 1
                n += 1
                if first_only:
                    return n
    elif role == MERCHANT:
        if pl.vault_count < vault_limit(s, p):
            if not (t.action_parts & PART_MAIN):
                bits = zone_mask(pl.stockpile) & ORDER_BITS
                while bits:
                    x = lowest_bit(bits)
                    bits &= bits - 1
                    out[n] = A_VAULT_STOCKPILE + x - 1
                    n += 1
                    if first_only:
                        return n
                if s.deck_size > 0 and is_active(s, p, B_ATRIUM):
                    out[n] = A_VAULT_DECK
                    n += 1
                    if first_only:
                        return n
            if not (t.action_parts & PART_HAND) and is_active(s, p, B_BASILICA):
                bits = zone_mask(pl.hand) & ORDER_BITS
                while bits:
                    x = lowest_bit(bits)
                    bits &= bits - 1
                    out[n] = A_VAULT_HAND + x - 1
                    n += 1
                    if first_only:
                        return n
    elif role == ARCHITECT or role == CRAFTSMAN:
        if t.action_parts & PART_MAIN:
            return 0
        bits = zone_mask(pl.hand) & ORDER_BITS         # a foundation from hand
        while bits:
            x = lowest_bit(bits)
            bits &= bits - 1
            n += gen_foundations(s, p, x, role, out + n)
            if first_only and n:
                return n
        for i in range(s.nstruct):                      # a material to an own structure
            st = &s.structures[i]
            if st.owner != p or (st.flags & S_COMPLETE):
                continue
            base = A_ADD + (st.building - 1) * 44 - 1
            zone = &pl.stockpile[0] if role == ARCHITECT else &pl.hand[0]
            bits = zone_mask(zone) & ORDER_BITS
            while bits:
                x = lowest_bit(bits)
                bits &= bits - 1
                if material_fits(s, p, st, x):
                    out[n] = base + x
                    n += 1
                    if first_only:
                        return n
            if role == ARCHITECT and is_active(s, p, B_ARCHWAY):    # R-8.3.2
                base = A_ADD_POOL + (st.building - 1) * 44 - 1
                bits = zone_mask(s.pool) & ORDER_BITS
                while bits:
                    x = lowest_bit(bits)
                    bits &= bits - 1
                    if material_fits(s, p, st, x):
                        out[n] = base + x
                        n += 1
                        if first_only:
                            return n
        if role == CRAFTSMAN and s.deck_size > 0 and is_active(s, p, B_FOUNTAIN):
            out[n] = A_FOUNTAIN_DRAW                    # R-8.4.2
            n += 1
    return n

cdef int gen_fountain(GameState* s, uint16_t* out) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int card = t.fountain_card
    cdef int i, n
    cdef Structure* st
    n = gen_foundations(s, p, card, CRAFTSMAN, out)
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner == p and not (st.flags & S_COMPLETE) and material_fits(s, p, st, card):
            out[n] = A_ADD + (st.building - 1) * 44 + card - 1
            n += 1
    out[n] = A_FOUNTAIN_KEEP
    return n + 1

cdef int gen_stairway(GameState* s, uint16_t* out, bint first_only) noexcept nogil:
    # R-8.3.4: a material onto an opponent's completed structure without one yet
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef bint archway = is_active(s, p, B_ARCHWAY)
    cdef int n = 0, i, x, base
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner == p or not (st.flags & S_COMPLETE) or st.stairway:
            continue
        base = A_STAIRWAY + (st.owner * 44 + st.building - 1) * 88
        for x in range(1, NUM_TYPES):
            if (pl.stockpile[x] or (archway and s.pool[x])) and material_fits(s, p, st, x):
                if pl.stockpile[x]:
                    out[n] = base + (x - 1) * 2
                    n += 1
                if archway and s.pool[x]:
                    out[n] = base + (x - 1) * 2 + 1
                    n += 1
                if first_only:
                    return n
    return n

cdef int gen_prison(GameState* s, uint16_t* out) noexcept nogil:
    cdef int p = s.turn.actor
    cdef int n = 0, i
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if (st.owner != p and (st.flags & S_COMPLETE) and not conceded(s, st.owner)
                and owned_structure(s, p, st.building) < 0):
            out[n] = A_PRISON + st.owner * 44 + st.building - 1
            n += 1
    return n

cdef void end_action(GameState* s) noexcept nogil:
    # After a part of an action: go on with its other parts if any, else the next action.
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    cdef Turn* t = &s.turn
    if t.phase == PH_OVER:
        return
    if t.action_role == ARCHITECT:
        architect_done(s)
        return
    if gen_action(s, probe, True) > 0:
        t.phase = PH_ACTION
        t.decider = t.actor
    else:
        t.phase = PH_QUEUE

cdef void architect_done(GameState* s) noexcept nogil:
    # R-8.3.4: the Stairway part comes after the main part and the grants it caused, so its
    # entry goes below anything this action pushed on the stack. Those grants (or a Prison
    # exchange, or a foundation with a Gate) may complete, lay or take a Stairway, so whether
    # it is active is decided when the entry is reached (R-14.1), not now.
    cdef Turn* t = &s.turn
    cdef int at = t.action_stack_base
    t.phase = PH_QUEUE
    if t.stack_size >= STACK_CAP:
        s.overflow |= OVERFLOW_STACK                # the Stairway part is lost: say so
        return
    if at > t.stack_size:
        at = t.stack_size
    memmove(&t.stack_kind[at + 1], &t.stack_kind[at], t.stack_size - at)
    memmove(&t.stack_role[at + 1], &t.stack_role[at], t.stack_size - at)
    memmove(&t.stack_count[at + 1], &t.stack_count[at], t.stack_size - at)
    t.stack_kind[at] = E_STAIRWAY
    t.stack_role[at] = ARCHITECT
    t.stack_count[at] = 1
    t.stack_size += 1

cdef void hire(GameState* s, int card, int part) noexcept nogil:
    # R-8.1: the card is already taken from its source
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    if is_active(s, p, B_INSULA) or is_active(s, p, B_AQUEDUCT):
        if pl.clientele_count >= influence_of(s, p):
            fire(s, B_INSULA if is_active(s, p, B_INSULA) else B_AQUEDUCT)
    pl.clientele[card] += 1
    pl.clientele_count += 1
    t.action_parts |= part
    if check_forum(s):                              # R-8.1.6
        return
    if is_active(s, p, B_BATH):                     # R-8.1.5: the hire acts at once
        fire(s, B_BATH)
        push_entry(s, E_PATRON_CONT, PATRON, t.action_parts)
        push_entry(s, E_BATH, mat_of(s, card), 1)
        t.phase = PH_QUEUE                          # the Patron action resumes afterwards

cdef void apply_role_action(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef int x, idx, building, role = t.action_role
    if action == A_SKIP:
        if role == ARCHITECT:
            architect_done(s)
        else:
            t.phase = PH_QUEUE
        return
    if action < A_HIRE_DECK:                           # R-8.1.1
        x = action - A_HIRE_POOL + 1
        s.pool[x] -= 1
        hire(s, x, PART_MAIN)
    elif action == A_HIRE_DECK:                        # R-8.1.2 Bar
        fire(s, B_BAR)
        x = deck_draw(s)
        hire(s, x, PART_DECK)
        if s.deck_size == 0 and t.phase != PH_OVER:
            end_game(s, END_DECK, 0)
            return
    elif action < A_TAKE_POOL:                         # R-8.1.3 Aqueduct
        fire(s, B_AQUEDUCT)
        x = action - A_HIRE_HAND + 1
        actor_hand_remove(s, p, x, True)
        hire(s, x, PART_HAND)
    elif action < A_DOCK_HAND:                         # R-8.2.1
        x = action - A_TAKE_POOL + 1
        s.pool[x] -= 1
        pl.stockpile[x] += 1
        pl.stockpile_count += 1
        t.action_parts |= PART_MAIN
        if check_forum(s):
            return
    elif action < A_LAY:                               # R-8.2.2 Dock
        fire(s, B_DOCK)
        x = action - A_DOCK_HAND + 1
        actor_hand_remove(s, p, x, True)
        pl.stockpile[x] += 1
        pl.stockpile_count += 1
        t.action_parts |= PART_HAND
        if check_forum(s):
            return
    elif action < A_LAY_STATUE:                        # R-9.1
        x = action - A_LAY + 1
        t.action_parts |= PART_MAIN
        lay_foundation(s, p, x, mat_of(s, x), role, True)
    elif action < A_ADD:
        t.action_parts |= PART_MAIN
        lay_foundation(s, p, B_STATUE, action - A_LAY_STATUE, role, True)
    elif action < A_VAULT_STOCKPILE:                   # R-9.2
        t.action_parts |= PART_MAIN
        if action < A_ADD_POOL:
            idx = action - A_ADD
            building = idx // 44 + 1
            x = idx % 44 + 1
            if role == ARCHITECT:
                pl.stockpile[x] -= 1
                pl.stockpile_count -= 1
            else:
                actor_hand_remove(s, p, x, True)
        else:
            fire(s, B_ARCHWAY)
            idx = action - A_ADD_POOL
            building = idx // 44 + 1
            x = idx % 44 + 1
            s.pool[x] -= 1
        add_material(s, p, owned_structure(s, p, building), x, role)
    elif action < A_VAULT_DECK:                        # R-8.6.1
        x = action - A_VAULT_STOCKPILE + 1
        if pl.vault_count >= influence_of(s, p):
            fire(s, B_MARKET)
        pl.stockpile[x] -= 1
        pl.stockpile_count -= 1
        pl.vault[x] += 1
        pl.vault_known[x] += 1
        pl.vault_count += 1
        t.action_parts |= PART_MAIN
    elif action == A_VAULT_DECK:                       # R-8.6.2 Atrium
        fire(s, B_ATRIUM)
        x = deck_draw(s)
        pl.vault[x] += 1
        pl.vault_count += 1
        t.action_parts |= PART_MAIN
        if s.deck_size == 0:
            end_game(s, END_DECK, 0)
            return
    elif action < A_REVEAL:                            # R-8.6.3 Basilica
        fire(s, B_BASILICA)
        x = action - A_VAULT_HAND + 1
        actor_hand_remove(s, p, x, False)
        pl.vault[x] += 1
        pl.vault_count += 1
        t.action_parts |= PART_HAND
    else:                                              # R-8.4.2 Fountain: look at the top card
        fire(s, B_FOUNTAIN)
        t.fountain_card = deck_draw(s)
        if s.deck_size == 0:
            t.pending_end = END_DECK                   # R-11.1(1): after this action
        t.action_parts |= PART_MAIN
        t.phase = PH_FOUNTAIN
        return
    if t.phase == PH_ACTION:
        end_action(s)

cdef void apply_fountain(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int card = t.fountain_card
    cdef int idx
    t.fountain_card = 0
    t.phase = PH_ACTION
    if action == A_FOUNTAIN_KEEP:
        hand_add(&s.players[p], card, False)
    elif action < A_LAY_STATUE:
        lay_foundation(s, p, card, mat_of(s, card), CRAFTSMAN, False)
    elif action < A_ADD:
        lay_foundation(s, p, card, action - A_LAY_STATUE, CRAFTSMAN, False)
    else:
        idx = action - A_ADD
        add_material(s, p, owned_structure(s, p, idx // 44 + 1), card, CRAFTSMAN)
    if t.pending_end and t.phase != PH_OVER:
        t.pending_end = 0
        end_game(s, END_DECK, 0)
        return
    t.pending_end = 0
    if t.phase != PH_OVER:
        t.phase = PH_QUEUE

cdef void apply_stairway(GameState* s, int action) noexcept nogil:
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef Player* pl = &s.players[p]
    cdef int idx, owner, building, card, i
    t.phase = PH_QUEUE
    if action == A_SKIP:
        return
    fire(s, B_STAIRWAY)
    idx = action - A_STAIRWAY
    card = (idx >> 1) % 44 + 1
    building = (idx >> 1) // 44 % 44 + 1
    owner = (idx >> 1) // (44 * 44)
    if idx & 1:
        fire(s, B_ARCHWAY)
        s.pool[card] -= 1
    else:
        pl.stockpile[card] -= 1
        pl.stockpile_count -= 1
    i = owned_structure(s, owner, building)
    s.structures[i].stairway = card
    refresh_active(s)
    check_forum(s)

cdef void apply_prison(GameState* s, int action) noexcept nogil:
    # R-13 #29: the Prison's site goes to the opponent; their structure comes to us whole
    cdef Turn* t = &s.turn
    cdef int p = t.actor
    cdef int owner, building, i, prison, site
    cdef Structure taken
    t.phase = PH_QUEUE
    if action == A_SKIP:
        return
    fire(s, B_PRISON)
    owner = (action - A_PRISON) // 44
    building = (action - A_PRISON) % 44 + 1
    prison = owned_structure(s, p, B_PRISON)
    site = s.structures[prison].site
    s.players[p].influence_sites[site] -= 1
    s.players[owner].influence_sites[site] += 1
    i = owned_structure(s, owner, building)
    taken = s.structures[i]
    remove_structure(s, i)
    i = insert_structure(s, p)
    s.structures[i] = taken
    s.structures[i].owner = p
    refresh_active(s)
    check_forum(s)
