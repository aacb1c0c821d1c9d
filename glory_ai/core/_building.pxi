# Building (R-9): which materials fit a structure (Road, Tower, Scriptorium), sites and
# out-of-town foundations, the structure table, laying a foundation, adding a material,
# completion and its grants. The role actions that build are in _roles.pxi.

cdef bint material_fits(GameState* s, int p, Structure* st, int card) noexcept nogil:
    # R-9.2.2
    cdef int m = mat_of(s, card)
    cdef int fm = mat_of(s, st.building)
    if m == fm:
        return True
    if st.building == B_STATUE and m == st.site and not power_off(s, B_STATUE):
        return True
    if is_active(s, p, B_ROAD) and (fm == STONE or st.site == STONE):
        return True
    if is_active(s, p, B_TOWER) and m == RUBBLE:
        return True
    if is_active(s, p, B_SCRIPTORIUM) and m == MARBLE:
        return True
    return False

cdef void note_material_rule(GameState* s, int p, Structure* st, int card) noexcept nogil:
    # which function (if any) made this material legal, for the firing counters
    cdef int m = mat_of(s, card)
    if m == mat_of(s, st.building) or (st.building == B_STATUE and m == st.site):
        return
    if is_active(s, p, B_ROAD) and (mat_of(s, st.building) == STONE or st.site == STONE):
        fire(s, B_ROAD)
    elif is_active(s, p, B_TOWER) and m == RUBBLE:
        fire(s, B_TOWER)
    elif is_active(s, p, B_SCRIPTORIUM) and m == MARBLE:
        fire(s, B_SCRIPTORIUM)

cdef int site_option(GameState* s, int p, int building, int site, int role) noexcept nogil:
    # 0: illegal, 1: in town (one action), 2: out of town (R-9.1.2 - R-9.1.5)
    if owned_structure(s, p, building) >= 0:
        return 0
    if s.in_town[site] > 0:
        return 1
    if s.out_town[site] > 0 and (is_active(s, p, B_TOWER) or can_pair(s, role)):
        return 2
    return 0

cdef inline int in_town_sites(GameState* s) noexcept nogil:
    # the in-town sites left: taking the last ends the game (R-11.1(2))
    cdef int m, sites = 0
    for m in range(NMAT):
        sites += s.in_town[m]
    return sites

cdef int insert_structure(GameState* s, int owner) noexcept nogil:
    # a new slot in the structure table, kept grouped by owner (then by arrival):
    # equal states have equal bytes
    cdef int at = 0
    while at < s.nstruct and s.structures[at].owner <= owner:
        at += 1
    memmove(&s.structures[at + 1], &s.structures[at], (s.nstruct - at) * sizeof(Structure))
    memset(&s.structures[at], 0, sizeof(Structure))
    s.structures[at].owner = owner
    s.nstruct += 1
    return at

cdef void remove_structure(GameState* s, int idx) noexcept nogil:
    memmove(&s.structures[idx], &s.structures[idx + 1], (s.nstruct - idx - 1) * sizeof(Structure))
    s.nstruct -= 1
    memset(&s.structures[s.nstruct], 0, sizeof(Structure))

cdef bint prison_has_target(GameState* s, int p) noexcept nogil:
    cdef int i
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p and (st.flags & S_COMPLETE) and not conceded(s, st.owner) \
                and owned_structure(s, p, st.building) < 0:
            return True
    return False

cdef void complete_structure(GameState* s, int p, int idx) noexcept nogil:
    # R-9.3
    cdef Player* pl = &s.players[p]
    cdef Structure* st = &s.structures[idx]
    cdef int building = st.building
    st.flags |= S_COMPLETE
    pl.influence_sites[st.site] += 1
    refresh_active(s)
    if power_off(s, building):                      # R-V.3: the site's influence only
        check_forum(s)
        return
    if ends_on_completion(s, building):             # R-11.1(3)
        fire(s, building)
        end_game(s, END_CATACOMB, 0)
        return
    if building == B_AMPHITHEATRE:                  # R-9.3.2: grants to the front
        fire(s, building)
        push_entry(s, E_GRANT, CRAFTSMAN, influence_of(s, p))
    elif building == B_FOUNDRY:
        fire(s, building)
        push_entry(s, E_GRANT, LABORER, influence_of(s, p))
    elif building == B_GARDEN:
        fire(s, building)
        push_entry(s, E_GRANT, PATRON, influence_of(s, p))
    elif building == B_SCHOOL:
        fire(s, building)
        push_entry(s, E_GRANT, THINKER, influence_of(s, p))
    elif building == B_PRISON and prison_has_target(s, p):
        push_entry(s, E_PRISON, 0, 1)
    check_forum(s)

cdef void lay_foundation(GameState* s, int p, int building, int site, int role,
                         bint from_hand) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef int where = site_option(s, p, building, site, role)
    cdef int idx
    cdef Structure* st
    if from_hand:
        actor_hand_remove(s, p, building, True)
    idx = insert_structure(s, p)
    st = &s.structures[idx]
    st.building = building
    st.site = site
    if where == 1:
        s.in_town[site] -= 1
    else:
        s.out_town[site] -= 1
        st.flags = S_OUT_OF_TOWN
        if is_active(s, p, B_TOWER):
            fire(s, B_TOWER)
        else:
            consume_pair(s, role)                   # R-9.1.4
    if building == B_STATUE and site != mat_of(s, B_STATUE):
        fire(s, B_STATUE)
    if role == CRAFTSMAN:
        pl.flags |= P_CRAFTED
    if mat_of(s, building) == MARBLE and is_active(s, p, B_GATE) and not power_off(s, building):
        fire(s, B_GATE)
        refresh_active(s)                           # R-9.1.6 Gate
        if check_forum(s):
            return
    if where == 1 and in_town_sites(s) == 0:         # R-11.1(2): only taking an in-town site
        end_game(s, END_SITES, 0)

cdef void add_material(GameState* s, int p, int idx, int card, int role) noexcept nogil:
    cdef Player* pl = &s.players[p]
    cdef Structure* st = &s.structures[idx]
    cdef int m = mat_of(s, card)
    note_material_rule(s, p, st, card)
    st.materials[st.nmat] = card
    st.nmat += 1
    if role == CRAFTSMAN:
        pl.flags |= P_CRAFTED
    if st.nmat >= material_value(st.site):                                  # R-9.2.3
        complete_structure(s, p, idx)
    elif m == MARBLE and is_active(s, p, B_SCRIPTORIUM):
        fire(s, B_SCRIPTORIUM)
        complete_structure(s, p, idx)
    elif (st.building == B_VILLA and role == ARCHITECT and m == STONE      # R-8.3.3
            and not power_off(s, B_VILLA)):
        fire(s, B_VILLA)
        complete_structure(s, p, idx)

cdef int gen_foundations(GameState* s, int p, int card, int role, uint16_t* out) noexcept nogil:
    cdef int m, n = 0
    if card == B_STATUE and not power_off(s, B_STATUE):
        for m in range(NMAT):
            if site_option(s, p, card, m, role):
                out[n] = A_LAY_STATUE + m
                n += 1
    elif site_option(s, p, card, mat_of(s, card), role):   # (a Statue switched off: R-V.3)
        out[n] = A_LAY + card - 1
        n += 1
    return n
