# The feature vector of a position from one player's view (docs/bots.md, "The feature
# vector"): the quantities the search's evaluation weighs (score, structures under way,
# clients, vault, stockpile, hand, the actions still to come this turn, completed buildings)
# and the game's context (player count, mode, deck, seat). Every built-in style is a linear
# model over these numbers, and learned models read the same ones. Part of the engine's
# single compilation unit; noexcept nogil, writes only the caller's buffer.
#
# The layout (offsets F_*, NUM_FEATURES, FEATURES_VERSION) is declared in engine.pxd;
# a change of meaning or order is a new FEATURES_VERSION (models name the one they were
# made for, and the loader refuses the others).

# The role-gain estimate (pending_gain_*) prices what one action of a role would bring
# with a vector of gain weights in the layout of a linear model's weights: it reads the
# entries at foundation_value, progress_materials, clients_<role>, vault_cards,
# stockpile_useful, hand_cards and completed_<building>, and ignores the others. A style
# (a linear model) prices with its own weights; NULL means the reference weights, the
# balanced style's (glory_ai/bots/styles.py; tests/bots/test_evaluation.py checks that
# they agree), which State.features uses unless told otherwise.
cdef double REFERENCE_GAIN[NUM_FEATURES]


cdef void _fill_reference_gain() noexcept:
    # What the balanced style values: a completed building's function beyond its
    # influence, in the order of the card ids
    cdef int b
    cdef double useful
    memset(REFERENCE_GAIN, 0, sizeof(REFERENCE_GAIN))
    REFERENCE_GAIN[F_FOUNDATION_VALUE] = 0.15
    REFERENCE_GAIN[F_PROGRESS_MATERIALS] = 0.7
    for b in range(6):
        REFERENCE_GAIN[F_CLIENTS + b] = 0.5
    REFERENCE_GAIN[F_VAULT_CARDS] = 0.0
    REFERENCE_GAIN[F_STOCKPILE_USEFUL] = 0.2
    REFERENCE_GAIN[F_HAND_CARDS] = 0.25
    for b in range(1, NUM_TYPES):
        if b == B_TEMPLE:
            useful = 1.0
        elif b == B_VILLA or b == B_GATE:
            useful = 0.3
        elif (b == B_ROAD or b == B_TOWER or b == B_SCRIPTORIUM or b == B_ARCHWAY or b == B_CRANE
                or b == B_SHRINE or b == B_MARKET or b == B_INSULA or b == B_AQUEDUCT
                or b == B_LUDUS_MAGNUS or b == B_CIRCUS_MAXIMUS or b == B_WALL
                or b == B_PALISADE or b == B_FOUNTAIN):
            useful = 0.5
        else:
            useful = 0.0
        REFERENCE_GAIN[F_COMPLETED + b - 1] = useful


_fill_reference_gain()


cdef inline double gain_structure_worth(const double* g, int site, int nmat) noexcept nogil:
    # an incomplete structure: its foundation and the materials on it
    return g[F_FOUNDATION_VALUE] * material_value(site) + g[F_PROGRESS_MATERIALS] * nmat


cdef inline double gain_add(const double* g, GameState* s, Structure* st) noexcept nogil:
    # one more material on st: progress, or completion (its influence, any points of the
    # variant and the building's function, unless switched off, instead of the structure
    # under way)
    cdef int v = material_value(st.site)
    if st.nmat + 1 >= v:
        v += s.cfg.rules.points[st.building]
        if power_off(s, st.building):
            return v - gain_structure_worth(g, st.site, st.nmat)
        return v + g[F_COMPLETED + st.building - 1] - gain_structure_worth(g, st.site, st.nmat)
    return g[F_PROGRESS_MATERIALS]


cdef bint needs_material(GameState* s, int p, int material) noexcept nogil:
    # does an incomplete structure of p take this material as its own (R-9.2.2)?
    cdef int i
    cdef Structure* st
    for i in range(s.nstruct):
        st = &s.structures[i]
        if (st.owner == p and not (st.flags & S_COMPLETE) and mat_of(s, st.building) == material
                and st.nmat < material_value(st.site)):
            return True
    return False


cdef double gain_stock(const double* g, GameState* s, int p, int material) noexcept nogil:
    # one more card of this material in p's stockpile (as the stockpile features count it)
    if needs_material(s, p, material):
        return g[F_STOCKPILE_USEFUL] + 0.4 * g[F_PROGRESS_MATERIALS]
    if s.players[p].vault_count < vault_limit(s, p):
        return g[F_STOCKPILE_USEFUL] + 0.5 * g[F_VAULT_CARDS]
    return 0.25 * g[F_STOCKPILE_USEFUL]


cdef double role_gain(const double* g, GameState* s, int p, int role) noexcept nogil:
    # What one action of `role` would gain p now, priced with the gain weights g: the best
    # single use of the role, estimated without playing it (0 when it could do nothing).
    cdef Player* pl = &s.players[p]
    cdef int x, i, q, n = s.cfg.num_players, supply
    cdef double best = 0, gain, expected
    cdef Structure* st
    if role == LABORER:
        for x in range(1, NUM_TYPES):
            if s.pool[x]:
                gain = gain_stock(g, s, p, mat_of(s, x))
                if gain > best:
                    best = gain
        return best
    if role == PATRON:
        if pl.clientele_count >= clientele_limit(s, p):
            return 0
        for x in range(1, NUM_TYPES):
            if s.pool[x] and g[F_CLIENTS + mat_of(s, x)] > best:
                best = g[F_CLIENTS + mat_of(s, x)]
        return best
    if role == MERCHANT:
        if pl.vault_count >= vault_limit(s, p):
            return 0
        for x in range(1, NUM_TYPES):
            if pl.stockpile[x]:
                gain = material_value(mat_of(s, x)) + g[F_VAULT_CARDS] - g[F_STOCKPILE_USEFUL]
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
                if q == p or conceded(s, q) or (s.players[q].lacks >> mat_of(s, x)) & 1:
                    continue                    # a victim seen to have none gives nothing
                if is_active(s, q, B_WALL) or (is_active(s, q, B_PALISADE) and not is_active(s, p, B_BRIDGE)):
                    continue                    # immune (R-8.5.5)
                if n > 3 and (q - p + n) % n != 1 and (q - p + n) % n != n - 1:
                    continue
                expected += 0.6 if s.players[q].hand_count >= 4 else 0.15 * s.players[q].hand_count
            gain = expected * (gain_stock(g, s, p, mat_of(s, x)) + g[F_HAND_CARDS])
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
            if mat_of(s, x) != mat_of(s, st.building):
                continue
            if (role == ARCHITECT and pl.stockpile[x]) or (role == CRAFTSMAN and pl.hand[x]):
                gain = gain_add(g, s, st) - (g[F_STOCKPILE_USEFUL] if role == ARCHITECT else g[F_HAND_CARDS])
                if gain > best:
                    best = gain
                break
    for x in range(1, NUM_TYPES):
        if pl.hand[x] and s.in_town[mat_of(s, x)] and owned_structure(s, p, x) < 0:
            # a foundation, and the materials at hand to complete it (as materials_at_hand
            # counts them)
            supply = -1                                    # the foundation card itself
            for i in range(1, NUM_TYPES):
                if mat_of(s, i) == mat_of(s, x):
                    supply += pl.hand[i] + pl.stockpile[i]
            if supply > material_value(mat_of(s, x)):
                supply = material_value(mat_of(s, x))
            gain = (gain_structure_worth(g, mat_of(s, x), 0) + 0.4 * g[F_PROGRESS_MATERIALS] * supply
                    - g[F_HAND_CARDS])
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
        if s.players[p].clientele[x] and mat_of(s, x) == t.led_role:
            units += s.players[p].clientele[x]
    return units


ctypedef struct FeatureSink:
    # where collect_features puts each feature: into the vector `out` (zeroed first), or,
    # with out NULL, into the weighted sum `total` (a linear model, without the vector)
    double* out
    const double* weights
    double total


cdef inline void emit(FeatureSink* k, int index, double value) noexcept nogil:
    # a feature's value, or a part of it (a feature never emitted is 0)
    if k.out != NULL:
        k.out[index] += value
    else:
        k.total += k.weights[index] * value


cdef inline void emit_pair(FeatureSink* k, int first, double a, int second, double b) noexcept nogil:
    # two parts added to the sum as one term
    if k.out != NULL:
        k.out[first] += a
        k.out[second] += b
    else:
        k.total += k.weights[first] * a + k.weights[second] * b


cdef inline void emit_product(FeatureSink* k, int index, double gain, int units) noexcept nogil:
    # a feature that is gain times units (the weight multiplies the gain first)
    if k.out != NULL:
        k.out[index] += gain * units
    else:
        k.total += k.weights[index] * gain * units


cdef void collect_features(GameState* s, int p, const double* gain, FeatureSink* k) noexcept nogil:
    # Every feature of p. A linear model's sum is taken term by term in this order, and
    # the order is part of the contract: it is the order, and each term the expression,
    # in which the search has always valued a position under a style, so that a style
    # evaluated as a linear model gives the very same number (and the same games).
    cdef Player* pl = &s.players[p]
    cdef int n = s.cfg.num_players
    cdef int i, x, m, cards, units, needed, room, vault_room, jacks, limit, count
    cdef int supply[6]
    cdef bint needs[6]
    cdef Structure* st
    emit(k, F_SCORE, score_of(s, p))
    emit(k, F_INFLUENCE, influence_of(s, p))
    # own structures in the order they were begun: a completed one by its building; an
    # incomplete one by its foundation, its materials, and the materials at hand (hand and
    # stockpile, each counted once) that can still complete it
    memset(supply, 0, sizeof(supply))
    memset(needs, 0, sizeof(needs))
    for x in range(1, NUM_TYPES):
        supply[mat_of(s, x)] += pl.hand[x] + pl.stockpile[x]
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p:
            continue
        if st.flags & S_COMPLETE:
            if not power_off(s, st.building):           # (a function switched off: R-V.3)
                emit(k, F_COMPLETED + st.building - 1, 1)
            continue
        emit_pair(k, F_FOUNDATION_VALUE, material_value(st.site), F_PROGRESS_MATERIALS, st.nmat)
        m = mat_of(s, st.building)
        if st.nmat < material_value(st.site):
            needs[m] = True
        needed = material_value(st.site) - st.nmat
        if needed > supply[m]:
            needed = supply[m]
        supply[m] -= needed
        emit(k, F_MATERIALS_AT_HAND, needed)
    for x in range(1, NUM_TYPES):
        if pl.clientele[x]:
            emit(k, F_CLIENTS + mat_of(s, x), pl.clientele[x])
    limit = clientele_limit(s, p)
    if limit > pl.clientele_count:
        emit(k, F_CLIENT_ROOM, limit - pl.clientele_count)
    emit(k, F_VAULT_CARDS, pl.vault_count)
    vault_room = vault_limit(s, p) - pl.vault_count
    if vault_room > 0:
        emit(k, F_VAULT_ROOM, vault_room)
    # the stockpile, card by card: useful for a material an own structure still needs or
    # that the vault has room for, excess for the rest (nothing to use them on yet)
    room = vault_room
    for x in range(1, NUM_TYPES):
        count = pl.stockpile[x]
        if not count:
            continue
        for i in range(count):
            if needs[mat_of(s, x)]:
                emit(k, F_STOCKPILE_USEFUL, 1)
            elif room > 0:
                emit(k, F_STOCKPILE_USEFUL, 1)
                room -= 1
            else:
                emit(k, F_STOCKPILE_EXCESS, 1)
    # cards in hand beyond the refill size, and up to it (drawing one should beat taking
    # a Jack that would only be hoarded)
    cards = pl.hand_count - pl.hand[JACK]
    if cards > refill_size(s, p):
        emit(k, F_HAND_CARDS_BEYOND, cards - refill_size(s, p))
        cards = refill_size(s, p)
    emit(k, F_HAND_CARDS, cards)
    # Jacks: the first two are worth the most (a flexible lead or follow), each further
    # one 0.15 of one
    jacks = pl.hand[JACK]
    emit(k, F_JACKS, jacks if jacks < 2 else 2 + 0.15 * (jacks - 2))
    if jacks > 2:
        emit(k, F_JACKS_BEYOND, jacks - 2)
    units = actions_to_come(s, p)
    if units:
        if gain == NULL:
            gain = &REFERENCE_GAIN[0]
        emit(k, F_PENDING_UNITS, units)
        emit_product(k, F_PENDING_GAIN + s.turn.led_role, role_gain(gain, s, p, s.turn.led_role), units)
    # the game's context
    emit(k, F_PLAYERS + n - 2, 1)
    if s.cfg.mode == MODE_IMPERIUM:
        emit(k, F_IMPERIUM, 1)
    emit(k, F_DECK_CARDS, s.deck_size)
    emit(k, F_TURN_ORDER, (p - s.turn.leader + n) % n)


cdef void features_c(const GameState* s, int p, const double* gain, double* out) noexcept nogil:
    cdef FeatureSink sink
    memset(out, 0, NUM_FEATURES * sizeof(double))
    sink.out = out
    sink.weights = NULL
    sink.total = 0
    collect_features(<GameState*>s, p, gain, &sink)     # read only: the helpers take a plain pointer


cdef double linear_features_c(const GameState* s, int p, const double* weights,
                              const double* gain) noexcept nogil:
    cdef FeatureSink sink
    sink.out = NULL
    sink.weights = weights
    sink.total = 0
    collect_features(<GameState*>s, p, gain, &sink)
    return sink.total


# ---- the Python face: names and the reference weights ---------------------------------

def _feature_names():
    roles = ("laborer", "craftsman", "architect", "legionary", "merchant", "patron")
    buildings = [GR_CARD_NAME[x].decode().lower().replace(" ", "_") for x in range(1, NUM_TYPES)]
    names = ["score", "influence", "foundation_value", "progress_materials", "materials_at_hand"]
    names += [f"clients_{role}" for role in roles]
    names += ["client_room", "vault_cards", "vault_room", "stockpile_useful", "stockpile_excess",
              "hand_cards", "hand_cards_beyond", "jacks", "jacks_beyond", "pending_units"]
    names += [f"pending_gain_{role}" for role in roles]
    names += [f"completed_{building}" for building in buildings]
    names += ["players_2", "players_3", "players_4", "players_5", "imperium", "deck_cards", "turn_order"]
    offsets = {"score": F_SCORE, "influence": F_INFLUENCE, "foundation_value": F_FOUNDATION_VALUE,
               "progress_materials": F_PROGRESS_MATERIALS, "materials_at_hand": F_MATERIALS_AT_HAND,
               "clients_laborer": F_CLIENTS, "client_room": F_CLIENT_ROOM, "vault_cards": F_VAULT_CARDS,
               "vault_room": F_VAULT_ROOM, "stockpile_useful": F_STOCKPILE_USEFUL,
               "stockpile_excess": F_STOCKPILE_EXCESS, "hand_cards": F_HAND_CARDS,
               "hand_cards_beyond": F_HAND_CARDS_BEYOND, "jacks": F_JACKS, "jacks_beyond": F_JACKS_BEYOND,
               "pending_units": F_PENDING_UNITS, "pending_gain_laborer": F_PENDING_GAIN,
               "completed_academy": F_COMPLETED, "players_2": F_PLAYERS, "imperium": F_IMPERIUM,
               "deck_cards": F_DECK_CARDS, "turn_order": F_TURN_ORDER}
    if len(names) != NUM_FEATURES or any(names[at] != name for name, at in offsets.items()):
        raise ImportError("the feature names do not match the offsets of engine.pxd")
    return tuple(names)


#: the names of the features (State.features), in order; meanings in docs/bots.md
FEATURE_NAMES = _feature_names()
#: how many features there are, and the version of their meaning and order
FEATURE_COUNT = len(FEATURE_NAMES)
FEATURE_SET_VERSION = FEATURES_VERSION


#: the reference gain weights (the balanced style's, at the entries the role-gain estimate
#: reads; 0 elsewhere): how State.features prices the pending_gain_* features by default
REFERENCE_GAIN_WEIGHTS = tuple(REFERENCE_GAIN[i] for i in range(NUM_FEATURES))
