# The end of the game (R-11): who wins (R-12.3), how the game ends (end_game, the Forum
# conditions and check_forum), and whether one action can end it now (may_end_now,
# every_action_may_end, action_may_end: the search's solver asks them before trying
# actions for a decisive move). The predicates read the same rule helpers as the engine's
# own end checks (ends_on_completion, is_forum, think_draw_count in _turn.pxi,
# in_town_sites in _building.pxi), so a change of an ending rule changes both;
# tests/rules/test_end_predicates.py holds the predicates to playing every legal action.

# ---------------------------------------------------------------------------------------
# Winners (R-12.3)

cdef long standing_of(GameState* s, int p) noexcept nogil:
    # R-12.3, A19: players rank by VP, then by cards in hand (hand_count < 256)
    return <long>score_of(s, p) * 256 + s.players[p].hand_count

cdef int best_players(GameState* s, int candidates) noexcept nogil:
    # the candidates of the best standing (several: a shared victory)
    cdef int p, mask = 0
    cdef long best = -1, key
    for p in range(s.cfg.num_players):
        if not (candidates >> p) & 1:
            continue
        key = standing_of(s, p)
        if key > best:
            best = key
            mask = 1 << p
        elif key == best:
            mask |= 1 << p
    return mask

cdef int winners_mask_of(GameState* s) noexcept nogil:
    return s.turn.winners_mask if s.turn.phase == PH_OVER else 0

cdef void end_game(GameState* s, int reason, int winners_mask) noexcept nogil:
    cdef int p, candidates = 0
    if reason != END_FORUM and reason != END_CONCESSION:
        for p in range(s.cfg.num_players):
            if is_active(s, p, B_STATUE):
                fire(s, B_STATUE)
            if is_active(s, p, B_WALL) and s.players[p].stockpile_count >= 2:
                fire(s, B_WALL)
    s.turn.phase = PH_OVER
    s.turn.end_reason = reason
    if winners_mask == 0:
        for p in range(s.cfg.num_players):
            if not conceded(s, p):
                candidates |= 1 << p
        winners_mask = best_players(s, candidates)
    s.turn.winners_mask = winners_mask

# ---------------------------------------------------------------------------------------
# How the game ends: R-11.1 (deck: think_draw_count and the draws of _roles.pxi; sites:
# lay_foundation; a Catacomb's completion) and the Forum conditions (R-11.2)

cdef inline bint ends_on_completion(const GameState* s, int building) noexcept nogil:
    # R-11.1(3): completing a Catacomb ends the game, unless the variant switches its
    # function off (R-V.3)
    return building == B_CATACOMB and not power_off(s, building)

cdef inline bint is_forum(const GameState* s, int building) noexcept nogil:
    # R-11.2: the buildings whose condition wins the game outright (while their function
    # is on, R-V.3)
    return (building == B_FORUM or building == B_FORUM_ROMANUM) and not power_off(s, building)

cdef bint clientele_covers_all_roles(GameState* s, int p) noexcept nogil:
    # R-11.2: a distinct client for each role; Ludus Magnus makes Merchant clients wild;
    # Storeroom covers Laborer without a client when the clientele is non-empty (A33).
    cdef Player* pl = &s.players[p]
    cdef int r, present, merchants, missing = 0
    # every way to cover the roles takes 5 clients at least (6 roles, Storeroom's Laborer
    # aside; a wild Merchant stands for a missing role one for one): the search asks this
    # after every hire, so the common case returns here
    if pl.clientele_count < 5:
        return False
    present = roles_in(s, pl.clientele, &merchants)
    for r in range(6):
        if r == MERCHANT:
            continue
        if r == LABORER and pl.clientele_count > 0 and is_active(s, p, B_STOREROOM):
            continue
        if not (present >> r) & 1:
            missing += 1
    if is_active(s, p, B_LUDUS_MAGNUS):
        return merchants >= 1 + missing
    return missing == 0 and merchants >= 1

cdef bint forum_condition(GameState* s, int p) noexcept nogil:
    cdef int m
    cdef int have[6]
    if is_active(s, p, B_FORUM) and clientele_covers_all_roles(s, p):
        return True
    if is_active(s, p, B_FORUM_ROMANUM) and clientele_covers_all_roles(s, p):
        memset(have, 0, sizeof(have))
        add_by_material(s, s.players[p].stockpile, have)
        for m in range(NMAT):
            if not have[m]:
                return False
        return True
    return False

cdef bint check_forum(GameState* s) noexcept nogil:
    # R-11.2 / R-14.5: run after every change that can complete a Forum condition.
    cdef uint64_t any_mask = 0
    cdef int p, winners = 0
    cdef uint64_t forum_bits = ((<uint64_t>1) << B_FORUM) | ((<uint64_t>1) << B_FORUM_ROMANUM)
    for p in range(s.cfg.num_players):
        any_mask |= s.active[p]
    if not (any_mask & forum_bits):
        return False
    for p in range(s.cfg.num_players):
        if not conceded(s, p) and forum_condition(s, p):
            winners |= 1 << p
    if winners == 0:
        return False
    fire(s, B_FORUM if s.cfg.mode == MODE_IMPERIUM else B_FORUM_ROMANUM)
    end_game(s, END_FORUM, best_players(s, winners))
    return True

# ---------------------------------------------------------------------------------------
# Can one action end the game now? Filters for a search looking for a decisive move: each
# may say yes where no action ends the game, never no where one does.

cdef bint any_forum_structure(GameState* s) noexcept nogil:
    cdef int i
    for i in range(s.nstruct):
        if is_forum(s, s.structures[i].building):
            return True
    return False

cdef bint may_end_now(GameState* s, int p) noexcept nogil:
    # Could one action of p end the game with p among its winners? The deck: p's next draw
    # takes its last card (a think draws think_draw_count cards, a Bar, Atrium or Fountain
    # one; an empty deck with an end pending ends it after any action); the sites: one
    # in-town site left (R-11.1(2)); a Catacomb of p's one material short of its cost; a
    # Forum of p's, built or one material short of its cost.
    # Blind spots (tests/rules/test_end_predicates.py shows them): a Catacomb that a
    # Scriptorium completes with fewer materials; a Forum active for p before it is built
    # or before p owns it (a Gate: an unfinished Forum, or one laid with the Gate active;
    # a Stairway on another player's Forum; a Prison taking one). The solver then misses
    # such a win in one move where it looks for decisive moves (the tree search can still
    # find it); the search's moves depend on this filter as it is.
    cdef int i
    cdef Structure* st
    if s.deck_size <= think_draw_count(s, p) or in_town_sites(s) <= 1:
        return True
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p:
            if st.owner > p:
                break           # (the table is grouped by owner, ascending: check_state)
            continue
        if is_forum(s, st.building):
            if st.flags & S_COMPLETE or st.nmat + 1 >= material_value(st.site):
                return True
        elif (ends_on_completion(s, st.building) and not st.flags & S_COMPLETE
              and st.nmat + 1 >= material_value(st.site)):
            return True
    return False

cdef bint any_action_may_end_but_forum(GameState* s) noexcept nogil:
    # every_action_may_end without the Forums: the deck is already empty (the game ends
    # after the current action, R-11.1) or it is a Fountain's choice (it lays, adds or
    # keeps a card drawn, maybe the last)
    return s.turn.pending_end or s.deck_size == 0 or s.turn.phase == PH_FOUNTAIN

cdef bint every_action_may_end(GameState* s) noexcept nogil:
    # Can any action at all end the game here (so that a search must try them all)? Yes
    # when any_action_may_end_but_forum, and whenever a Forum or Forum Romanum is anywhere
    # in the city: its condition is checked after hires, takes, Legionary gives, Sewer
    # moves, Stairways, Prisons and completions (check_forum), too many paths to tell
    # apart cheaply (forum_reach tells which can be whose win).
    return any_action_may_end_but_forum(s) or any_forum_structure(s)

cdef uint64_t may_be_active_after_one_action(GameState* s, int p) noexcept nogil:
    # The buildings whose function may be active for p after one action: a function is
    # active only through a structure (R-10.6, refresh_active): p's own completed one, a
    # Stairwayed completed one, or with Gate one of p's own Marble foundations. One action
    # completes a structure p owns or gives it one another player completed (a Stairway, a
    # Prison), never both a new foundation and its completion; a foundation laid is active
    # at once only with p's Gate active (R-9.1.6). So: what is active, what p owns, what
    # another player completed, and anything while p's Gate is active.
    cdef uint64_t mask = s.active[p]
    cdef int i
    if (mask >> B_GATE) & 1:
        return ~(<uint64_t>0)
    for i in range(s.nstruct):
        if s.structures[i].owner == p or s.structures[i].flags & S_COMPLETE:
            mask |= (<uint64_t>1) << s.structures[i].building
    return mask & ~powers_off_mask(s)

cdef int forum_romanum_stock_short(GameState* s, int p) noexcept nogil:
    # The materials p's stockpile lacks for a Forum Romanum (R-11.2), as one action may
    # change that: a stockpile grows by a Laborer's take, a Dock or a Sewer, one card an
    # action, and in a Legionary action (R-8.5: takes from the pool, gives, a Domus Aurea)
    # by any number, so there 0 (it may be full after it).
    cdef int have[6]
    cdef int m, short = 0
    cdef int phase = s.turn.phase
    if (s.turn.led_role == LEGIONARY or phase == PH_LEG_REVEAL or phase == PH_LEG_TAKE
            or phase == PH_LEG_GIVE or phase == PH_LEG_EXTRA or phase == PH_LEG_VICTIMS):
        return 0
    memset(have, 0, sizeof(have))
    add_by_material(s, s.players[p].stockpile, have)
    for m in range(NMAT):
        if not have[m]:
            short += 1
    return short

cdef int clientele_roles(GameState* s, int p) noexcept nogil:
    # bit r: p's clientele holds a client of role r (the roles a Forum condition counts)
    cdef int merchants
    return roles_in(s, s.players[p].clientele, &merchants)

cdef int forum_reach(GameState* s, int p, int* roles) noexcept nogil:
    # Can p meet a Forum condition (R-11.2) after one action? 0: maybe after any action;
    # 1: only after a hire of a client of a role in roles[0] (bit r: role r;
    # hire_of_roles), 2: after no action. A hire is the one way a clientele grows, by one
    # client an action (R-8.1). A building counts as it may be after one action
    # (may_be_active_after_one_action): no Forum that may be active, no condition; Ludus
    # Magnus (Merchant clients wild) and Storeroom (Laborer covered for a clientele not
    # empty, A33) as if active when they may be. Where only a Forum Romanum may be active,
    # a stockpile more than one material short (forum_romanum_stock_short) rules it out;
    # else the stockpile is taken as full. With these, p is `short` clients from covering
    # every role, and a client more lowers that by one at most: if it fills a missing
    # role, or is a Merchant where one is missing or (Ludus Magnus) wild.
    cdef Player* pl = &s.players[p]
    cdef uint64_t may = may_be_active_after_one_action(s, p)
    cdef bint ludus = (may >> B_LUDUS_MAGNUS) & 1, storeroom = (may >> B_STOREROOM) & 1
    cdef int r, present, merchants, missing = 0, short
    roles[0] = 0
    if not (may >> B_FORUM) & 1:
        if not (may >> B_FORUM_ROMANUM) & 1 or forum_romanum_stock_short(s, p) > 1:
            return 2
    present = roles_in(s, pl.clientele, &merchants)
    for r in range(6):
        if r != MERCHANT and not (present >> r) & 1 and not (r == LABORER and storeroom):
            missing += 1
            roles[0] |= 1 << r
    if ludus:
        short = 1 + missing - merchants
        roles[0] |= 1 << MERCHANT
    else:
        short = missing + (1 if merchants == 0 else 0)
        if merchants == 0:
            roles[0] |= 1 << MERCHANT
    if short + (1 if pl.clientele_count == 0 else 0) <= 0:
        roles[0] = 0
        return 0
    if short > 1:                        # (after a hire the clientele is not empty)
        roles[0] = 0
        return 2
    return 1


cdef bint action_may_end(GameState* s, int action) noexcept nogil:
    # Can `action` end the game (whoever wins) where every_action_may_end is false? With no
    # Forum in the city the game ends only by a draw of the deck's last card (a think, a
    # Bar or Atrium draw), a foundation on the last in-town site or a Catacomb's
    # completion (R-11.1), and the engine does each of these only inside the decision that
    # asks for it, never in the steps it runs on its own after it. A Forum laid with a Gate
    # active is active at once, so laying one may end it too.
    cdef int phase = s.turn.phase, p = s.turn.decider, building
    if phase == PH_LEAD or phase == PH_FOLLOW or phase == PH_THINK or phase == PH_THINK_CHOICE:
        # a think draws; after a discard (PH_THINK_CHOICE) every option but a Jack does
        if action != A_THINK_DRAW and (phase != PH_THINK_CHOICE or action == A_THINK_JACK):
            return False
        return s.deck_size <= think_draw_count(s, p)
    if phase != PH_ACTION:
        return False
    if action == A_HIRE_DECK or action == A_VAULT_DECK or action == A_FOUNTAIN_DRAW:
        return s.deck_size <= 1
    if A_LAY <= action < A_LAY_STATUE:
        building = action - A_LAY + 1
        return in_town_sites(s) <= 1 or is_forum(s, building)
    if A_LAY_STATUE <= action < A_ADD:
        return in_town_sites(s) <= 1
    if A_ADD <= action < A_VAULT_STOCKPILE:
        # A_ADD and A_ADD_POOL: building(44) x card(44), the building first
        building = ((action - A_ADD) % (A_ADD_POOL - A_ADD)) // 44 + 1
        return ends_on_completion(s, building)
    return False

cdef bint result_is_public(GameState* s, int observer, int action) noexcept nogil:
    # Are the winners of a game that `action` just ended the same in every world
    # `observer` cannot tell apart? The scores read the vaults (R-12.1): so when no other
    # player holds a hidden vault card, or when a Forum condition ended the game (R-11.2:
    # its owner wins outright; only a Stairway could make two players meet it at once and
    # bring the scores in).
    cdef int q, x
    if s.turn.end_reason == END_FORUM and not (A_STAIRWAY <= action < A_SEWER):
        return True
    for q in range(s.cfg.num_players):
        if q == observer:
            continue
        for x in range(NUM_TYPES):
            if s.players[q].vault[x] != s.players[q].vault_known[x]:
                return False
    return True
