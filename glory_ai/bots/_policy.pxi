# The C-level evaluation and heuristic policy (docs/bots.md, "Evaluation"): one function
# that estimates what a position is worth to each player in VP, weighted by a playing
# style, and a policy that picks the legal action whose result evaluates best for the
# player to move (one-ply lookahead). The heuristic bots, the greedy bot, heuristic
# rollouts and cutoff evaluations in the search all use these, without the GIL.
#
# Included by _search.pyx; every function is noexcept nogil and allocation-free.

# A playing style: weights of the evaluation. Values are in VP per unit.
ctypedef struct Style:
    double role[6]            # how much the style values one action of each role
    double foundation         # an incomplete structure, per point of its site's value
    double progress           # a material on an incomplete structure, per point of site value
    double client             # a client (times role[] of its role)
    double vault              # a vaulted card beyond its VP (merchant styles)
    double stockpile          # a card in the stockpile
    double card               # a card in hand (up to the refill size)
    double jack               # a Jack in hand
    double pending            # an action unit already played this turn (times its role's gain)
    double building[NUM_TYPES]  # a completed building of this type, beyond its influence


cdef inline double uniform01(uint64_t* rng) noexcept nogil:
    return (gr_rng_next(rng) >> 11) * (1.0 / 9007199254740992.0)


cdef inline int site_value(int material) noexcept nogil:
    return material_value(material)


cdef inline double structure_worth(Style* w, int site, int nmat) noexcept nogil:
    # an incomplete structure: its foundation and the materials on it
    return w.foundation * site_value(site) + w.progress * nmat


cdef double add_gain(Style* w, Structure* st) noexcept nogil:
    # what one more material on st is worth to p: progress, or completion (its influence
    # and the building's function instead of the structure under way)
    cdef int v = site_value(st.site)
    if st.nmat + 1 >= v:
        return v + w.building[st.building] - structure_worth(w, st.site, st.nmat)
    return w.progress


cdef bint needs_material(GameState* s, int p, int material) noexcept nogil:
    # does an incomplete structure of p take this material as its own (R-9.2.2)?
    cdef int i
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if (st.owner == p and not (st.flags & S_COMPLETE) and mat_of(st.building) == material
                and st.nmat < site_value(st.site)):
            return True
    return False


cdef double stock_value(GameState* s, int p, Style* w, int material) noexcept nogil:
    # what one more card of this material in p's stockpile is worth (as evaluate() counts it)
    if needs_material(s, p, material):
        return w.stockpile + 0.4 * w.progress
    if s.players[p].vault_count < vault_limit(s, p):
        return w.stockpile + 0.5 * w.vault
    return 0.25 * w.stockpile


cdef double role_gain(GameState* s, int p, Style* w, int role) noexcept nogil:
    # What one action of `role` would gain p now, in the style's VP: the best single use
    # of the role, estimated without playing it (0 when the action could do nothing).
    cdef Player* pl = &s.players[p]
    cdef int x, i, q, n = s.cfg.num_players, supply
    cdef double best = 0, gain, expected
    cdef Structure* st
    if role == LABORER:
        for x in range(1, NUM_TYPES):
            if s.pool[x]:
                gain = stock_value(s, p, w, mat_of(x))
                if gain > best:
                    best = gain
        return best
    if role == PATRON:
        if pl.clientele_count >= clientele_limit(s, p):
            return 0
        for x in range(1, NUM_TYPES):
            if s.pool[x] and w.client * w.role[mat_of(x)] > best:
                best = w.client * w.role[mat_of(x)]
        return best
    if role == MERCHANT:
        if pl.vault_count >= vault_limit(s, p):
            return 0
        for x in range(1, NUM_TYPES):
            if pl.stockpile[x]:
                gain = material_value(mat_of(x)) + w.vault - w.stockpile
                if gain > best:
                    best = gain
        return best
    if role == LEGIONARY:
        # a demand of the most useful revealable material: what it brings to the
        # stockpile, plus the card the victim loses, times the chance the victim has one
        for x in range(1, NUM_TYPES):
            if not pl.hand[x]:
                continue
            expected = 0
            for q in range(n):
                if q == p or conceded(s, q) or (s.players[q].lacks >> mat_of(x)) & 1:
                    continue                    # a victim seen to have none gives nothing
                if is_active(s, q, B_WALL) or (is_active(s, q, B_PALISADE) and not is_active(s, p, B_BRIDGE)):
                    continue                    # immune (R-8.5.5)
                if n > 3 and (q - p + n) % n != 1 and (q - p + n) % n != n - 1:
                    continue
                expected += 0.6 if s.players[q].hand_count >= 4 else 0.15 * s.players[q].hand_count
            gain = expected * (stock_value(s, p, w, mat_of(x)) + w.card)
            if gain > best:
                best = gain
        return best
    # Architect (materials from the stockpile) and Craftsman (from hand): the best
    # material for an own structure, or a foundation from hand on an in-town site
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p or (st.flags & S_COMPLETE):
            continue
        for x in range(1, NUM_TYPES):
            if mat_of(x) != mat_of(st.building):
                continue
            if (role == ARCHITECT and pl.stockpile[x]) or (role == CRAFTSMAN and pl.hand[x]):
                gain = add_gain(w, st) - (w.stockpile if role == ARCHITECT else w.card)
                if gain > best:
                    best = gain
                break
    for x in range(1, NUM_TYPES):
        if pl.hand[x] and s.in_town[mat_of(x)] and owned_structure(s, p, x) < 0:
            # a foundation, and the materials at hand to complete it (as evaluate() counts)
            supply = -1                                    # the foundation card itself
            for i in range(1, NUM_TYPES):
                if mat_of(i) == mat_of(x):
                    supply += pl.hand[i] + pl.stockpile[i]
            if supply > site_value(mat_of(x)):
                supply = site_value(mat_of(x))
            gain = structure_worth(w, mat_of(x), 0) + 0.4 * w.progress * supply - w.card
            if gain > best:
                best = gain
    return best


cdef int actions_to_come(GameState* s, int p) noexcept nogil:
    # Actions of the led role p will still perform this turn (camp units and matching
    # clients; 0 once p has acted or the turn is over).
    cdef Turn* t = &s.turn
    cdef int n = s.cfg.num_players, x, offset, units
    cdef int phase = t.phase
    cdef bint paying
    if phase == PH_OVER or t.led_role == NO_ROLE or t.led_role > 5:
        return 0
    if phase == PH_SEWER or phase == PH_SENATE:
        return 0
    offset = (p - t.leader + n) % n
    paying = (phase == PH_LEAD or phase == PH_FOLLOW or phase == PH_PAY_MORE
              or phase == PH_PETITION or ((phase == PH_THINK_CHOICE or phase == PH_TRIBUNAL)
                                          and t.think_return <= 1))
    if not paying and offset <= t.seat_offset:
        # p has acted, or is acting: its choices are judged by what they do, not by the
        # potential they would keep for later actions (which would favour skipping)
        return 0
    units = s.players[p].camp_units
    if units == 0:
        return 0
    for x in range(1, NUM_TYPES):
        if s.players[p].clientele[x] and mat_of(x) == t.led_role:
            units += s.players[p].clientele[x]
    return units


cdef double evaluate(GameState* s, int p, Style* w) noexcept nogil:
    # What the position is worth to p, in VP-like units: the score now (R-12) plus the
    # style's value of what p has under way and of the actions p will still take this turn.
    cdef Player* pl = &s.players[p]
    cdef double value = score_of(s, p)
    cdef int i, x, cards, units, needed, room
    cdef int supply[6]
    cdef Structure* st
    # materials at hand (hand and stockpile) by material, each counted once below
    memset(supply, 0, sizeof(supply))
    for x in range(1, NUM_TYPES):
        supply[mat_of(x)] += pl.hand[x] + pl.stockpile[x]
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p:
            continue
        if st.flags & S_COMPLETE:
            value += w.building[st.building]
        else:
            value += structure_worth(w, st.site, st.nmat)
            # a foundation is worth the materials at hand that can complete it
            needed = site_value(st.site) - st.nmat
            if needed > supply[mat_of(st.building)]:
                needed = supply[mat_of(st.building)]
            supply[mat_of(st.building)] -= needed
            value += w.progress * 0.4 * needed
    for x in range(1, NUM_TYPES):
        if pl.clientele[x]:
            value += w.client * w.role[mat_of(x)] * pl.clientele[x]
    value += w.vault * pl.vault_count
    if vault_limit(s, p) > pl.vault_count:
        value += 0.3 * w.vault * (vault_limit(s, p) - pl.vault_count)   # room to vault into
    # the stockpile: full value for materials an own structure still needs or that the
    # vault has room for, a quarter for the rest (nothing to use them on yet)
    room = vault_limit(s, p) - pl.vault_count
    for x in range(1, NUM_TYPES):
        if not pl.stockpile[x]:
            continue
        for i in range(pl.stockpile[x]):
            if needs_material(s, p, mat_of(x)):
                value += w.stockpile
            elif room > 0:
                value += w.stockpile
                room -= 1
            else:
                value += 0.25 * w.stockpile
    cards = pl.hand_count - pl.hand[JACK]
    if cards > refill_size(s, p):
        # cards beyond the refill size still count, for less (so drawing one beats
        # taking a Jack that would only be hoarded)
        value += 0.4 * w.card * (cards - refill_size(s, p))
        cards = refill_size(s, p)
    value += w.card * cards
    # Jacks: the first two are worth the most (a flexible lead or follow)
    value += w.jack * (pl.hand[JACK] if pl.hand[JACK] < 2 else 2 + 0.15 * (pl.hand[JACK] - 2))
    units = actions_to_come(s, p)
    if units:
        value += w.pending * w.role[s.turn.led_role] * role_gain(s, p, w, s.turn.led_role) * units
    return value


cdef double eval_relative(GameState* s, int p, Style* w) noexcept nogil:
    # p's evaluation less the best other player's (what a one-ply choice maximises),
    # weighted up as the deck runs down: a player ahead prefers the game to move towards
    # its end (R-11.1(1)), so two one-ply players cannot stall a game they do not tie
    cdef double mine = evaluate(s, p, w), best = -1e9, other
    cdef int q
    for q in range(s.cfg.num_players):
        if q == p or conceded(s, q):
            continue
        other = evaluate(s, q, w)
        if other > best:
            best = other
    if best <= -1e9:
        return mine
    return (mine - best) * (1.0 + 0.01 * (DECK_CAP - s.deck_size))


cdef double outcome_value(GameState* s, int p) noexcept nogil:
    # a finished game: a large bonus for winning on top of the VP margin
    cdef int mask = winners_mask_of(s)
    return 1000.0 if (mask >> p) & 1 else -1000.0


# One-ply players can cycle without end: lead with a Jack, act to no effect, take the Jack
# back when thinking, and never draw. Hands only gain Order cards from the deck, so once no
# one takes Jacks every card played must first be drawn and the deck runs out (R-11.1(1)).
# After STALL_TURNS turns (ordinary games last 30-120) the policy takes no more Jacks.
cdef enum:
    STALL_TURNS = 200

cdef enum:
    POLICY_OVERFLOW = -2     # policy_choose: a trial state exceeded an engine capacity


cdef int policy_choose(GameState* s, uint16_t* legal, int n, Style* w, double epsilon,
                       uint64_t* rng, GameState* scratch) noexcept nogil:
    # One-ply lookahead: the legal action after which eval_relative() is highest for the
    # player to move (ties broken at random); with probability epsilon a uniform random
    # action instead (rollout noise). `scratch` is caller memory for the trial states.
    # POLICY_OVERFLOW when a trial exceeded a fixed capacity of the engine (its state is
    # no longer exact, so no value of it can be trusted): the caller raises.
    cdef int p = s.turn.decider
    cdef int i, best = 0, ties = 0
    cdef double value, best_value = -1e18
    cdef size_t size = used_size(s)
    cdef bint long_game
    if n == 1:
        return legal[0]
    if epsilon > 0 and uniform01(rng) < epsilon:
        return legal[gr_rng_below(rng, n)]
    long_game = s.turn.turn_number >= STALL_TURNS
    for i in range(n):
        if long_game and legal[i] == A_THINK_JACK and n > 1:
            continue                   # after STALL_TURNS turns: no Jack taken back (see below)
        memcpy(scratch, s, size)
        if apply_action_c(scratch, legal[i]) == -2:
            return POLICY_OVERFLOW
        if scratch.turn.phase == PH_OVER:
            value = outcome_value(scratch, p) + eval_relative(scratch, p, w)
        else:
            value = eval_relative(scratch, p, w)
        if value > best_value + 1e-9:
            best_value = value
            best = i
            ties = 1
        elif value > best_value - 1e-9:
            ties += 1
            if gr_rng_below(rng, ties) == 0:
                best = i
    return legal[best]
