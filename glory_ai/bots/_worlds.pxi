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


cdef void reveal_cheat(GameState* root, int observer, int cheat) noexcept nogil:
    # (cheat=hands, vaults, hidden: a control, never a default) the others' hands or vaults
    # made public at the root: determinization deals only what is still unknown, and the
    # information-set keys and the solver's public results see them as known
    cdef int q
    for q in range(root.cfg.num_players):
        if q == observer:
            continue
        if cheat & CHEAT_HANDS:
            memcpy(root.players[q].hand_known, root.players[q].hand, sizeof(root.players[q].hand))
        if cheat & CHEAT_VAULTS:
            memcpy(root.players[q].vault_known, root.players[q].vault, sizeof(root.players[q].vault))


cdef inline void deal_hidden(Tree* t, GameState* w) noexcept nogil:
    # one determinization of w; cheat=deck keeps the root's true deck order and deals the
    # others' hidden hand and vault cards among themselves (the deck left out of the deal;
    # the consistency tests of the deal then see an empty deck: a control, not a player)
    cdef int size
    if not t.cfg.cheat & CHEAT_DECK:
        determinize_c(w, t.observer, &t.rng)
        return
    size = w.deck_size
    w.deck_size = 0
    determinize_c(w, t.observer, &t.rng)
    w.deck_size = size


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
    deal_hidden(t, w)
    if t.cfg.belief <= 1 or not t.has_belief:
        return
    total = exp(belief_log_weight(t, w))
    for k in range(1, t.cfg.belief):
        memcpy(&t.scratch, &t.root, used_size(&t.root))
        deal_hidden(t, &t.scratch)
        weight = exp(belief_log_weight(t, &t.scratch))
        total += weight
        if uniform01(&t.rng) * total < weight:
            memcpy(w, &t.scratch, used_size(&t.root))
