# The worlds a search plays in: a determinization of the root information set, uniform
# or (belief > 1) drawn among candidates by the likelihood of what the other players chose
# (docs/bots.md, "Opponent-aware determinization").
#
# Included by _search.pyx; noexcept nogil.

cdef double belief_log_weight(Tree* t, GameState* s) noexcept nogil:
    # (belief) log-likelihood of a world's hidden hands under the evidence: the sum over
    # every other player's hidden hand cards of t.belief[player][card] (each <= 0)
    cdef int q, x, k
    cdef double total = 0
    for q in range(num_players_c(s)):
        if q == t.observer:
            continue
        for x in range(NUM_TYPES):
            k = hidden_hand_cards(s, q, x)
            if k > 0:
                total += k * t.belief[q][x]
    return total


cdef void deal_world(Tree* t, GameState* w) noexcept nogil:
    # A world of the root information set into w: one uniform determinization, or (belief
    # = K > 1, with evidence) one of K uniform ones drawn with probability proportional to
    # the likelihood of the other players' observed choices (sampling-importance
    # resampling, kept one at a time: candidate k replaces the kept one with probability
    # weight_k / the weights so far).
    cdef int k
    cdef double weight, total
    memcpy(w, &t.root, used_size(&t.root))
    if t.cfg.omniscient:
        return          # the cheating control: the root is the true state, hidden cards and all
    determinize_c(w, t.observer, &t.rng)
    if t.cfg.belief <= 1 or not t.has_belief:
        return
    total = exp(belief_log_weight(t, w))
    for k in range(1, t.cfg.belief):
        memcpy(&t.scratch, &t.root, used_size(&t.root))
        determinize_c(&t.scratch, t.observer, &t.rng)
        weight = exp(belief_log_weight(t, &t.scratch))
        total += weight
        if uniform01(&t.rng) * total < weight:
            memcpy(w, &t.scratch, used_size(&t.root))
