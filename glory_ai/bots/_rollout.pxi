# Rollouts and rewards (docs/bots.md, "Rewards"): the vector reward of a finished game
# (terminal_rewards) or of a live one from the evaluation at the cutoff (cutoff_values,
# cutoff_rewards), mixed with the game's length and the VP margin (mix_rewards); the
# rollout that plays to the end or the cutoff with the configured policy, taking decisive
# moves with the solver; and apply_checked, how the search applies an action.
#
# Included by _search.pyx; every search-time function is noexcept nogil.

from glory_ai.core.engine cimport clientele_roles, forum_active_for, MERCHANT

cdef void terminal_rewards(Tree* t, GameState* s) noexcept nogil:
    # Vector reward of a finished game for every player (docs/bots.md, "Rewards").
    cdef int n = num_players_c(s), p, q, winners = winners_mask_of(s), count = 0
    cdef int best_other
    cdef long sp, sq
    cdef double beats
    for p in range(n):
        if (winners >> p) & 1:
            count += 1
    if count == 0:
        t.error = SEARCH_NO_WINNER
        for p in range(n):
            t.rewards[p] = 0
        return
    for p in range(n):
        if t.cfg.reward == REWARD_WIN:
            t.rewards[p] = (1.0 / count) if (winners >> p) & 1 else 0.0
        elif t.cfg.reward == REWARD_RANK:
            beats = 0
            for q in range(n):
                if q == p:
                    continue
                if (winners >> p) & 1 and not (winners >> q) & 1:
                    beats += 1
                elif (winners >> q) & 1 and not (winners >> p) & 1:
                    pass
                else:
                    sp = standing_of(s, p)
                    sq = standing_of(s, q)
                    beats += 1.0 if sp > sq else (0.5 if sp == sq else 0.0)
            t.rewards[p] = beats / (n - 1)
        else:
            best_other = -1000
            for q in range(n):
                if q != p and score_of(s, q) > best_other:
                    best_other = score_of(s, q)
            t.rewards[p] = 0.5 + 0.5 * tanh((score_of(s, p) - best_other) / 8.0)
            if (winners >> p) & 1:
                t.rewards[p] = 0.5 + 0.5 * t.rewards[p]
            else:
                t.rewards[p] = 0.5 * t.rewards[p]


cdef void cutoff_values(Tree* t, GameState* s) noexcept nogil:
    # The evaluation of a live position for every player, in VP, into t.values (a player
    # who conceded: -1e9). The one place the search calls the evaluation.
    cdef int p
    for p in range(num_players_c(s)):
        t.values[p] = -1e9 if conceded(s, p) else evaluate(s, p, &t.cfg.model, &t.eval_scratch)


cdef void cutoff_rewards(Tree* t, GameState* s) noexcept nogil:
    # A live position scored by the evaluation: win = softmax of the evaluations over
    # `temperature` VP, rank = mean pairwise logistic, margin = tanh of the lead.
    cdef int n = num_players_c(s), p, q
    cdef double* ev = t.values
    cdef double total = 0, best, acc
    cutoff_values(t, s)
    best = ev[0]
    for p in range(n):
        if ev[p] > best:
            best = ev[p]
    for p in range(n):
        if t.cfg.reward == REWARD_WIN:
            t.rewards[p] = exp((ev[p] - best) / t.cfg.temperature) if ev[p] > -1e8 else 0.0
            total += t.rewards[p]
        elif t.cfg.reward == REWARD_RANK:
            acc = 0
            for q in range(n):
                if q != p:
                    acc += 1.0 / (1.0 + exp(-(ev[p] - ev[q]) / t.cfg.temperature))
            t.rewards[p] = acc / (n - 1)
        else:
            acc = -1e9
            for q in range(n):
                if q != p and ev[q] > acc:
                    acc = ev[q]
            t.rewards[p] = 0.5 + 0.5 * tanh((ev[p] - acc) / t.cfg.temperature)
    if t.cfg.reward == REWARD_WIN:
        for p in range(n):
            t.rewards[p] /= total


cdef void mix_rewards(Tree* t, GameState* s) noexcept nogil:
    # Keep a preference when the outcome is settled (docs/bots.md, "Rewards"): with the
    # base reward b of a player, the game length L (decisions since the root per player)
    # and the VP margin m over the best other player (at a cutoff: the evaluations'),
    #   (1 - vp) * (b + speed * (1 - exp(-L / LENGTH_SCALE)) * (1 - 2b)) + vp * (0.5 + 0.5 tanh(m / 8))
    # a winner (b = 1) gains by ending sooner, a loser (b = 0) by lasting longer, a player
    # whose fate is open (b = 1/2) is indifferent to the length; the margin part prefers
    # the bigger win and the closer loss. Every entry stays within 0..1.
    cdef int n = num_players_c(s), p, q
    cdef double late = 1.0 - exp(-t.length / LENGTH_SCALE)
    cdef double mine, best_other, base, margin
    cdef bint over = is_terminal_c(s)
    for p in range(n):
        base = t.rewards[p]
        base = base + t.cfg.speed * late * (1.0 - 2.0 * base)
        if t.cfg.vp_weight > 0:
            mine = score_of(s, p) if over else t.values[p]
            best_other = -1e9
            for q in range(n):
                if q != p:
                    margin = score_of(s, q) if over else t.values[q]
                    if margin > best_other:
                        best_other = margin
            if mine < -1e8 or best_other < -1e8:
                margin = 0.0 if mine < -1e8 else 1.0     # a conceded player: the worst or best
            else:
                margin = 0.5 + 0.5 * tanh((mine - best_other) / MARGIN_SCALE)
            base = (1.0 - t.cfg.vp_weight) * base + t.cfg.vp_weight * margin
        t.rewards[p] = base


cdef void rollout(Tree* t, GameState* s) noexcept nogil:
    # Play from s to the end (or `cutoff` decisions) and set t.rewards and t.length.
    cdef int n, made = 0, p, policy
    while not is_terminal_c(s):
        if t.cfg.cutoff and made >= t.cfg.cutoff and not (t.cfg.forum_threat and forum_active(s)):
            cutoff_rewards(t, s)
            finish_rewards(t, s)
            return
        n = legal_actions_into(s, t.legal)
        if n <= 0:
            # an engine bug: the caller raises it, naming the broken invariant
            t.error = SEARCH_NO_LEGAL
            t.error_detail = check_state(s) or INV_NO_LEGAL
            for p in range(t.num_players):
                t.rewards[p] = 0
            return
        p = -1
        if t.cfg.solver:
            # every player takes a win it has in one action (decisive moves)
            p = decisive_action(s, t.legal, n, current_player_c(s), &t.scratch)
        if p == -1 and t.cfg.forum_threat:
            p = forum_hire(s, t.legal, n, &t.rng)
        if p == -1:
            policy = t.cfg.rollout
            if t.cfg.rollout_others >= 0 and current_player_c(s) != t.observer:
                policy = t.cfg.rollout_others        # opponent-aware rollouts (rollout_others=)
            if policy == ROLLOUT_HEURISTIC:
                p = policy_choose(s, t.legal, n, &t.cfg.model, t.cfg.epsilon, &t.rng,
                                  &t.scratch, &t.eval_scratch)
            elif policy == ROLLOUT_MODEL:
                p = softmax_choose(s, t.legal, n, &t.cfg.model, t.cfg.rollout_temperature,
                                   &t.rng, &t.scratch, &t.eval_scratch)
            else:
                p = t.legal[gr_rng_below(&t.rng, n)]
        if not apply_checked(t, s, p):
            return
        made += 1
    terminal_rewards(t, s)
    finish_rewards(t, s)


cdef bint forum_active(GameState* s) noexcept nogil:
    # (forum_threat=) is a Forum or Forum Romanum active for any player? Its win comes by
    # hires the evaluation at the cutoff does not weigh, so the rollout plays on to see it
    cdef int p
    for p in range(num_players_c(s)):
        if forum_active_for(s, p):
            return True
    return False


cdef int forum_hire(GameState* s, uint16_t* legal, int n, uint64_t* rng) noexcept nogil:
    # (forum_threat=) a hire, drawn uniformly, that may bring the mover's active Forum a
    # client of a role it lacks (or a Merchant, wild with Ludus Magnus), or -1: random
    # rollouts hardly ever hire toward a Forum, so without it the threat stays unseen
    cdef int p = current_player_c(s), roles, count = 0, i, pick
    if not forum_active_for(s, p):
        return -1
    roles = (~clientele_roles(s, p) & 0x3f) | (1 << MERCHANT)
    for i in range(n):
        if hire_of_roles(s, legal[i], roles):
            count += 1
    if count == 0:
        return -1
    pick = gr_rng_below(rng, count)
    for i in range(n):
        if hire_of_roles(s, legal[i], roles):
            if pick == 0:
                return legal[i]
            pick -= 1
    return -1


cdef inline bint apply_checked(Tree* t, GameState* s, int action) noexcept nogil:
    # Apply an action in the search; False, with the tree's error set, when it exceeded a
    # fixed capacity of the engine (apply_action_c -2, or -2 from a trial of the policy or
    # of decisive_action): the state no longer follows the rules, so nothing searched
    # from it can be trusted and the caller raises.
    if action >= 0 and apply_action_c(s, action) != -2:
        return True
    t.error = SEARCH_OVERFLOW
    return False


cdef inline void finish_rewards(Tree* t, GameState* s) noexcept nogil:
    # the game length of this iteration, and the mix of the reward with it and the margin
    t.length = <double>decisions_c(s) / num_players_c(s)
    if t.cfg.speed > 0 or t.cfg.vp_weight > 0:
        mix_rewards(t, s)


def _rewards(State state, reward="win", double temperature=4.0, style=None, model=None,
             double speed=0.0, double vp=0.0):
    """The reward vector the search gives `state`: the result of a finished game, or the
    cutoff evaluation of a live one (with `model`, else `style`, default balanced; a model
    of win chances takes temperature 1, as in the search), mixed with the game length
    (`speed`: the state's decision count stands for the decisions since the root) and the
    VP margin (`vp`)."""
    cdef CompiledModel compiled = _compiled(style, model)
    cdef Tree* t = tree_new(1)
    cdef int p
    if t == NULL:
        raise MemoryError()
    try:
        t.cfg.reward = _REWARDS[reward]
        t.cfg.temperature = temperature if compiled.model.output == "value" else 1.0
        t.num_players = num_players_c(state.s)
        t.cfg.model = compiled.m
        t.cfg.speed = speed
        t.cfg.vp_weight = vp
        if is_terminal_c(state.s):
            terminal_rewards(t, state.s)
        else:
            cutoff_rewards(t, state.s)
        finish_rewards(t, state.s)
        return [t.rewards[p] for p in range(t.num_players)]
    finally:
        tree_free(t)
