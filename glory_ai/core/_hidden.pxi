# Hidden information (R-5): masking what one player cannot know, the information-state
# key, and determinization.

cdef void mask_hidden(GameState* s, int observer) noexcept nogil:
    # Replace everything `observer` cannot know by a fixed filler: other players' hands
    # and vaults keep only their public parts (their sizes stay in the count fields), the
    # deck keeps only its size, a Fountain card is hidden from all but its drawer, and the
    # generator state (which would predict nothing public) is cleared.
    cdef int q
    for q in range(s.cfg.num_players):
        if q == observer:
            continue
        memcpy(s.players[q].hand, s.players[q].hand_known, sizeof(s.players[q].hand))
        memcpy(s.players[q].vault, s.players[q].vault_known, sizeof(s.players[q].vault))
    memset(s.deck, 0, sizeof(s.deck))
    if s.turn.actor != observer:
        s.turn.fountain_card = 0
    s.rng = 0
    # how many decisions were asked depends on hidden hands (forced choices are not asked)
    s.turn.decisions = 0
    # which functions have fired says how the position was reached, not what it is
    s.functions_used = 0

cdef inline uint64_t hash_words(uint8_t* data, size_t size, uint64_t seed) noexcept nogil:
    # A fast non-cryptographic hash of a byte range: a multiply-xorshift step per 8-byte
    # word, then the SplitMix64 finaliser (good avalanche; keys, not security).
    return hash_gap(data, size, 0, 0, seed)

cdef inline uint64_t mix_words(uint64_t h, const uint8_t* data, size_t words) noexcept nogil:
    # the multiply-xorshift step of hash_gap over `words` 8-byte words
    cdef uint64_t word
    cdef size_t k
    for k in range(words):
        memcpy(&word, data + 8 * k, 8)
        h = (h ^ word) * <uint64_t>0xBF58476D1CE4E5B9
        h ^= h >> 31
    return h

cdef inline uint64_t hash_gap(uint8_t* data, size_t size, size_t at, size_t gap,
                              uint64_t seed) noexcept nogil:
    # hash_words of the `size` bytes that data holds with `gap` bytes left out at offset
    # `at` (data[0:at] then data[at + gap:gap + size]), without moving them: the word that
    # spans the gap is put together from both sides (at + 8 <= size when gap is not 0)
    cdef uint64_t h = seed ^ (size * <uint64_t>0x9E3779B97F4A7C15)
    cdef uint64_t word
    cdef size_t i = 0, part
    if gap:
        h = mix_words(h, data, at >> 3)
        i = at & ~(<size_t>7)
        part = at - i                               # bytes of the spanning word before the gap
        if part:
            memcpy(&word, data + i, part)
            memcpy((<uint8_t*>&word) + part, data + at + gap, 8 - part)
            h = (h ^ word) * <uint64_t>0xBF58476D1CE4E5B9
            h ^= h >> 31
            i += 8
        data += gap                                 # logical offset i is data[i + gap] now
    h = mix_words(h, data + i, (size - i) >> 3)
    i = size & ~(<size_t>7)
    word = 0
    memcpy(&word, data + i, size - i)
    h = (h ^ word) * <uint64_t>0x94D049BB133111EB
    h ^= h >> 29
    h *= <uint64_t>0xBF58476D1CE4E5B9
    return h ^ (h >> 32)


# The rules block of the published rules (R-V): cards.csv's materials, no points, every
# function on; filled once at import, read only afterwards
cdef Rules PUBLISHED_RULES
memset(&PUBLISHED_RULES, 0, sizeof(Rules))
memcpy(PUBLISHED_RULES.material, GR_CARD_MATERIAL, sizeof(PUBLISHED_RULES.material))


cdef inline bint rules_are_default(const Rules* rules) noexcept nogil:
    return memcmp(rules, &PUBLISHED_RULES, sizeof(Rules)) == 0

cdef uint64_t masked_key(GameState* s, int observer, GameState* scratch,
                         uint64_t seed) noexcept nogil:
    # The hash of the state with what `observer` cannot know blanked, over the bytes as the
    # layout had them before the rules block (Config.rules) existed: the bytes after the
    # block are moved back over it and the old size seeds the hash, so every key of the
    # published rules (and every search seeded by one) is what it always was. Rules that
    # differ from the published ones are hashed into the key as well.
    cdef size_t size = used_size(s)
    cdef size_t at = <size_t>(<char*>&s.cfg.rules - <char*>s)
    cdef size_t cut = sizeof(Rules)
    cdef uint64_t key
    memcpy(scratch, s, size)
    mask_hidden(scratch, observer)
    key = hash_gap(<uint8_t*>scratch, size - cut, at, cut, seed ^ <uint64_t>observer)
    if not rules_are_default(&s.cfg.rules):
        key = hash_words(<uint8_t*>&s.cfg.rules, cut, key)
    return key

cdef uint64_t information_state_key_c(GameState* s, int observer, GameState* scratch) noexcept nogil:
    # equal for two states exactly when `observer` cannot tell them apart (up to hash
    # collisions): the hash of the state with everything the observer cannot know blanked
    return masked_key(s, observer, scratch, 0x5851F42D4C957F2D)

cdef enum:
    TAKEN = 255             # a dealt slot of the unknown-card list (greedy fallback)
    DEAL_TRIES = 100000     # rejection rounds before the greedy fallback

cdef inline bint lacks_respected(GameState* s, uint8_t* unknown, int* constrained,
                                 int nconstrained, int* hidden_hand) noexcept nogil:
    # the first slots of `unknown` go, in order, to the constrained hands
    cdef int c, j, i = 0, lacks
    for c in range(nconstrained):
        lacks = s.players[constrained[c]].lacks
        for j in range(hidden_hand[constrained[c]]):
            if (lacks >> mat_of(s, unknown[i])) & 1:
                return False
            i += 1
    return True

cdef bint focus_would_be_asked(GameState* s, uint8_t* cards, int count, int focus) noexcept nogil:
    # decision_would_be_asked() with `cards` added to the focus player's hand for the test
    cdef Player* pl = &s.players[focus]
    cdef int j
    cdef bint asked
    for j in range(count):
        pl.hand[cards[j]] += 1
    asked = decision_would_be_asked(s)
    for j in range(count):
        pl.hand[cards[j]] -= 1
    return asked

cdef int deal_unknown(GameState* s, int observer, uint64_t* rng, int focus) noexcept nogil:
    # Deal every card `observer` cannot know (the deck, the hidden parts of the others'
    # hands and vaults, another player's Fountain card) back into the same places and
    # counts, uniformly at random among the deals that give no hand a material it was
    # seen to lack and, if `focus` >= 0, that leave the focus player (deciding now) a hand
    # with which the engine would ask its pending question. Returns the number of
    # unknown cards.
    cdef uint8_t unknown[DECK_CAP]   # unknown cards are Order cards: at most 255 in a game
    cdef int hidden_hand[5]
    cdef int hidden_vault[5]
    cdef int constrained[5]
    cdef int nconstrained = 0, head = 0, tries, focus_at = -1
    cdef bint ok
    cdef int n = 0, q, x, i, j, k, tmp, c
    cdef bint fountain = (s.turn.phase == PH_FOUNTAIN and s.turn.actor != observer
                          and s.turn.fountain_card != 0)
    cdef Player* pl
    for i in range(s.deck_size):
        unknown[n] = s.deck[i]
        n += 1
    for q in range(s.cfg.num_players):
        hidden_hand[q] = 0
        hidden_vault[q] = 0
        if q == observer:
            continue
        pl = &s.players[q]
        for x in range(NUM_TYPES):
            k = pl.hand[x] - pl.hand_known[x]
            hidden_hand[q] += k
            for j in range(k):
                unknown[n] = x
                n += 1
            pl.hand[x] = pl.hand_known[x]
            k = pl.vault[x] - pl.vault_known[x]
            hidden_vault[q] += k
            for j in range(k):
                unknown[n] = x
                n += 1
            pl.vault[x] = pl.vault_known[x]
        if hidden_hand[q] and (pl.lacks or q == focus):
            if q == focus:
                focus_at = head
            constrained[nconstrained] = q
            nconstrained += 1
            head += hidden_hand[q]
    if fountain:
        unknown[n] = s.turn.fountain_card
        n += 1
    # The constrained hands (seen to lack materials, or the focus) are dealt first, from
    # the front of the list: a partial Fisher-Yates draws their cards, redrawn until they
    # are consistent (the tests look at these hands only, so rejection keeps the deal
    # uniform over the consistent ones); the rest of the list is then shuffled for the
    # deck and the other hidden slots.
    for tries in range(DEAL_TRIES if nconstrained else 1):
        for i in range(head):
            j = i + gr_rng_below(rng, n - i)
            tmp = unknown[i]
            unknown[i] = unknown[j]
            unknown[j] = tmp
        ok = lacks_respected(s, unknown, constrained, nconstrained, hidden_hand)
        if ok and focus_at >= 0:
            ok = focus_would_be_asked(s, &unknown[focus_at], hidden_hand[focus], focus)
        if ok:
            break
    else:
        deal_lacking_greedily(s, unknown, n, constrained, nconstrained, hidden_hand)
    for i in range(head, n - 1):
        j = i + gr_rng_below(rng, n - i)
        tmp = unknown[i]
        unknown[i] = unknown[j]
        unknown[j] = tmp
    k = 0
    for c in range(nconstrained):
        q = constrained[c]
        for j in range(hidden_hand[q]):
            s.players[q].hand[unknown[k]] += 1
            k += 1
        hidden_hand[q] = 0
    for i in range(s.deck_size):
        s.deck[i] = unknown[k]
        k += 1
    for q in range(s.cfg.num_players):
        pl = &s.players[q]
        for j in range(hidden_hand[q]):
            pl.hand[unknown[k]] += 1
            k += 1
        for j in range(hidden_vault[q]):
            pl.vault[unknown[k]] += 1
            k += 1
    if fountain:
        s.turn.fountain_card = unknown[k]
        k += 1
    s.rng = gr_rng_next(rng)
    return n

cdef void deal_lacking_greedily(GameState* s, uint8_t* unknown, int n, int* constrained,
                                int nconstrained, int* hidden_hand) noexcept nogil:
    # Fallback when rejection found no consistent deal (the constraints are very tight):
    # move to the front, hand by hand, the first cards each constrained hand may hold.
    # Not uniform, and a later hand can be left with lacked cards only if an earlier one
    # took the few it could hold.
    cdef uint8_t order[DECK_CAP]     # as many as `unknown`
    cdef int c, i, k, got, q, lacks
    k = 0
    for c in range(nconstrained):
        q = constrained[c]
        lacks = s.players[q].lacks
        got = 0
        for i in range(n):
            if got == hidden_hand[q]:
                break
            if unknown[i] != TAKEN and not ((lacks >> mat_of(s, unknown[i])) & 1):
                order[k] = unknown[i]
                unknown[i] = TAKEN
                k += 1
                got += 1
        for i in range(n):                          # (only if impossible: any cards)
            if got == hidden_hand[q]:
                break
            if unknown[i] != TAKEN:
                order[k] = unknown[i]
                unknown[i] = TAKEN
                k += 1
                got += 1
    for i in range(n):
        if unknown[i] != TAKEN:
            order[k] = unknown[i]
            k += 1
    memcpy(unknown, order, n)


cdef bint decision_would_be_asked(GameState* s) noexcept nogil:
    # The engine asks only real choices (forced ones are settled at once), so a pending
    # question tells every player something about the decider's hidden hand. True if
    # this world would ask it too; each test is the one the engine itself applies.
    cdef Turn* t = &s.turn
    cdef uint16_t probe[16]     # first_only writes at most 6 (Statue sites)
    cdef int x, total, kinds, first, need
    if t.phase == PH_ACTION:                        # start_action / end_action probe
        return gen_action(s, probe, True) > 0
    if t.phase == PH_LEG_REVEAL:                    # start_legionary / apply_legionary
        for x in range(t.pick_from, NUM_TYPES):
            if revealable(s, &s.players[t.actor], x):
                return True
        return False
    if t.phase == PH_LEG_GIVE:                      # settle_forced_gives
        need = give_need(s, t.give_kind, t.give_material)
        total = give_candidates(s, t.decider, t.give_kind, t.give_material, t.pick_from,
                                &kinds, &first)
        return need > 0 and total > 0 and not give_forced(total, kinds, need)
    if t.phase == PH_PETITION:                      # petition_continue
        petition_scan(s, &total, &kinds)
        need = petition_min(s, t.decider) - t.petition_picked
        if need <= 0:
            return total > 0
        return total > need and not petition_pick_forced(s, total, kinds)
    return True


cdef int determinize_c(GameState* s, int observer, uint64_t* rng) noexcept nogil:
    # deal_unknown() with the decider as its focus when another player is being asked to
    # act, reveal, choose which demanded cards to give or pick petition cards: being
    # asked tells the observer that the decider's hand allows a real choice. Other pending
    # decisions (lead, follow, Palace units, Fountain, ...) are always asked.
    cdef int phase = s.turn.phase
    if s.turn.decider == observer or not (phase == PH_ACTION or phase == PH_LEG_REVEAL
                                          or phase == PH_LEG_GIVE or phase == PH_PETITION):
        return deal_unknown(s, observer, rng, -1)
    return deal_unknown(s, observer, rng, s.turn.decider)


cdef void canonicalize_hidden(GameState* s, int observer) noexcept nogil:
    # The unknown cards of deal_unknown(), counted by type and dealt back in ascending
    # type order: deck bottom to top, then each other player's hidden hand part and hidden
    # vault part, then another player's Fountain card. Only counts the observer knows
    # decide where each card goes, so states of one information set agree byte for byte.
    cdef int counts[45]
    cdef int q, x, k, j, next_type = 0
    cdef int hidden_hand[5]
    cdef int hidden_vault[5]
    cdef bint fountain = (s.turn.phase == PH_FOUNTAIN and s.turn.actor != observer
                          and s.turn.fountain_card != 0)
    cdef Player* pl
    memset(counts, 0, sizeof(counts))
    for j in range(s.deck_size):
        counts[s.deck[j]] += 1
    for q in range(s.cfg.num_players):
        hidden_hand[q] = 0
        hidden_vault[q] = 0
        if q == observer:
            continue
        pl = &s.players[q]
        for x in range(NUM_TYPES):
            k = pl.hand[x] - pl.hand_known[x]
            counts[x] += k
            hidden_hand[q] += k
            pl.hand[x] = pl.hand_known[x]
            k = pl.vault[x] - pl.vault_known[x]
            counts[x] += k
            hidden_vault[q] += k
            pl.vault[x] = pl.vault_known[x]
    if fountain:
        counts[s.turn.fountain_card] += 1
    for j in range(s.deck_size):
        while counts[next_type] == 0:
            next_type += 1
        s.deck[j] = next_type
        counts[next_type] -= 1
    for q in range(s.cfg.num_players):
        pl = &s.players[q]
        for j in range(hidden_hand[q] + hidden_vault[q]):
            while counts[next_type] == 0:
                next_type += 1
            if j < hidden_hand[q]:
                pl.hand[next_type] += 1
            else:
                pl.vault[next_type] += 1
            counts[next_type] -= 1
    if fountain:
        while counts[next_type] == 0:
            next_type += 1
        s.turn.fountain_card = next_type
    s.rng = 0
    s.turn.decisions = 0


cdef bint own_step_is_private(GameState* before, GameState* after, int observer) noexcept nogil:
    # Did the observer's decision, taken on `before`, reach `after` (its own next decision
    # or the end) without touching anything it cannot see? Within its own action segment
    # the engine reads no hidden card unless some other player is involved (a Legionary
    # victim, a follower acting, a draw from the deck); so: no card left the deck, no
    # other player's cards, counts or known lacks changed, the turn, the actor and its seat
    # are the same, and the next decision is not an end-of-turn step (those come after the
    # other players' actions). A search takes such a step as the same in every world of
    # the observer's information set (docs/bots.md, "Proven results").
    cdef int q
    cdef bint over = after.turn.phase == PH_OVER
    if before.turn.actor != observer or after.turn.actor != observer:
        return False
    if after.deck_size != before.deck_size or after.turn.turn_number != before.turn.turn_number:
        return False
    if after.turn.seat_offset != before.turn.seat_offset:
        return False
    if not over:
        if after.turn.decider != observer:
            return False
        if (after.turn.phase == PH_SEWER or after.turn.phase == PH_SENATE
                or after.turn.think_return == CTX_ACADEMY):
            return False
    for q in range(after.cfg.num_players):
        if q != observer and memcmp(&before.players[q], &after.players[q], sizeof(Player)) != 0:
            return False
    return True


cdef bint action_names_hidden_card(GameState* s, int action, int observer) noexcept nogil:
    # Does `action`, taken in s by the player to move, name a card `observer` did not see?
    # A Basilica vault from hand (R-8.6.3) puts a hand card face down: its id says which.
    return A_VAULT_HAND <= action < A_REVEAL and s.turn.decider != observer
