# The bots' search, in C without the GIL: single-observer Information-Set MCTS (Cowling,
# Powley & Whitehouse 2012), Perfect-Information Monte Carlo (UCT on determinizations) and
# flat Monte Carlo, over the engine's GameState through its C API (engine.pxd). Python
# only parses the spec (glory_ai.bots), starts a search and reads the root statistics.
# The rules stay in the engine: the search asks it whether the game is over, who decides,
# whether one action can end the game, what a step reveals and who wins.
#
# One compilation unit: this file holds the configuration and the search loop (iterate,
# run_tree) and includes, by subject (docs/bots.md, "The search's files"):
#   _model.pxi      evaluation models in C        _policy.pxi    evaluation, one-ply policies
#   _tree.pxi       nodes, trees, compaction      _selection.pxi UCB and the child selection
#   _rollout.pxi    rollouts and rewards          _solver.pxi    proofs and decisive moves
#   _worlds.pxi     the worlds searched (belief)  _searcher.pxi  Searcher, the Python face
#   _tactics.pxi    wins within the turn (the tactical suite, the root win search)
#   _prior.pxi      the learned prior over actions (prior=)
#
# Memory: nodes live in one preallocated array per tree (Node, 64 bytes); children are
# a linked list of node indices. A search adds at most one node per iteration and never
# more than node_cap; at the cap it goes on iterating without expanding (rollouts from
# the frontier), so memory is bounded by node_cap * (64 + 4) bytes per tree (the node
# and its slot in the path buffer; 8 more with prior=, its prior and its cached logits'
# head, and 12 bytes a cached logit) plus one working context (CONTEXT_BYTES) per tree.
#
# No limit here fails silently: the path buffer has a slot per node (a path never visits
# a node twice), the legal-action buffer holds the engine's MAX_LEGAL, availability
# stamps are cleared when they wrap, visit counters stop short of their 32-bit range, a
# PIMC tree keeps room for the root of every world, and anything that goes wrong inside
# the search (an engine state with no legal action, no memory) reaches the caller as an
# exception.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t
from libc.stdlib cimport malloc, free, calloc, realloc
from libc.string cimport memcpy, memset
from libc.math cimport log, sqrt, exp, tanh, ceil

from glory_ai.core.clock cimport gr_now_seconds, gr_thread_cpu_seconds

from glory_ai.core.engine cimport (
    GameState, State, NUM_TYPES, MAX_LEGAL, DECK_CAP, NUM_DISTINCT_ACTIONS, NUM_FEATURES,
    A_THINK_JACK, INV_NO_LEGAL, INV_OVERFLOW, gr_rng_next, gr_rng_below, gr_rng_seed,
    used_size, is_terminal_c, current_player_c, num_players_c, decisions_c, turn_number_c,
    deck_size_c, overflowed_c, hand_cards_c, hidden_hand_cards, conceded, legal_actions_into,
    apply_action_c, score_of, winners_mask_of, standing_of, may_end_now, every_action_may_end,
    action_may_end, any_action_may_end_but_forum, forum_reach, hire_of_roles, result_is_public, own_step_is_private, action_names_hidden_card,
    determinize_c, canonicalize_hidden, check_state, features_c, linear_features_c,
)

from glory_ai.core.engine import INVARIANT_TEXT as _INVARIANT_TEXT

include "_model.pxi"        # evaluation models in C
include "_policy.pxi"       # the evaluation of a position, one-ply policies, PolicyPlayer


# ---- configuration --------------------------------------------------------------------

cdef enum:
    ALG_ISMCTS = 0
    ALG_PIMC = 1
    ALG_FLATMC = 2

cdef enum:
    ROLLOUT_RANDOM = 0
    ROLLOUT_HEURISTIC = 1
    ROLLOUT_MODEL = 2        # a softmax over the one-ply values of the legal actions

cdef enum:
    REWARD_WIN = 0
    REWARD_RANK = 1
    REWARD_MARGIN = 2

# the spec's names of the choices above
_ALGORITHMS = {"ismcts": ALG_ISMCTS, "pimc": ALG_PIMC, "flatmc": ALG_FLATMC}
_ROLLOUTS = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC, "model": ROLLOUT_MODEL}
_REWARDS = {"win": REWARD_WIN, "rank": REWARD_RANK, "margin": REWARD_MARGIN}
#: rollout_others=: "same" plays every player by rollout=
_ROLLOUT_OTHERS = {"same": -1, **_ROLLOUTS}

# cheat=: the partial cheating controls (issue 36, docs/strength.md "Never throw a won game"):
# the search sees the others' hands, their vaults, or the deck's order, and deals the rest
cdef enum:
    CHEAT_HANDS = 1
    CHEAT_VAULTS = 2
    CHEAT_DECK = 4
_CHEATS = {"none": 0, "hands": CHEAT_HANDS, "vaults": CHEAT_VAULTS, "hidden": CHEAT_HANDS | CHEAT_VAULTS,
           "deck": CHEAT_DECK}

cdef enum:
    ROOT_MOVER = 255         # the mover recorded on a root node
    CHECK_CLOCK_EVERY = 8    # iterations between clock reads under a time budget

# Visit counts are 32-bit. A search stops iterating once its root has MAX_ROOT_VISITS
# visits (only a time budget of hours could get there: iters is at most 10,000,000), and a
# tree is reused only below REUSE_VISITS_LIMIT, so no count ever wraps.
cdef uint32_t MAX_ROOT_VISITS = 2147483648u        # 2 ** 31
cdef uint32_t REUSE_VISITS_LIMIT = 1073741824u     # 2 ** 30

# What went wrong in a tree's search (Tree.error); the search raises it to the caller.
cdef enum:
    SEARCH_OK = 0
    SEARCH_NO_LEGAL = 1      # a live state without legal actions (Tree.error_detail: the invariant code)
    SEARCH_NO_WINNER = 2     # a finished game without a winner
    SEARCH_OVERFLOW = 3      # a move exceeded a fixed capacity of the engine (apply_action_c -2)
    SEARCH_NO_MEMORY = 4     # (prior=) the cache of logits could not grow


def _overflow_message(who):
    return (f"{who} met a move that exceeds a fixed capacity of the engine: "
            f"{_INVARIANT_TEXT[INV_OVERFLOW]}; the position cannot be played on exactly")


ctypedef struct SearchConfig:
    int algorithm
    int iterations           # total for this tree (0: until the time budget)
    double time_limit        # seconds (0: none)
    bint cpu_clock           # time_limit is the thread's CPU time (cpu_ms), not wall time
    double c                 # exploration constant
    int rollout
    int cutoff               # decisions of rollout before evaluating (0: to the end)
    int reward
    int worlds               # PIMC determinizations for this tree
    double epsilon           # heuristic rollout noise
    double temperature       # VP scale of cutoff rewards (1 for a model of win chances)
    double rollout_temperature   # the softmax of model rollouts
    int node_cap
    Model model              # the evaluation (weights shared read-only by the trees)
    bint solver              # proven results and decisive moves (docs/bots.md, "Proven results")
    double speed             # weight of the game's length in the reward (0: none)
    double vp_weight         # weight of the VP margin in the reward (0: none)
    int belief               # candidate worlds drawn per determinization (1: uniform deals)
    double belief_strength   # (belief) how much an observed decline counts
    bint omniscient          # a cheating control: every world is the true state (never a default)
    int cheat                # a partial cheating control (CHEAT_* bits; never a default)
    int rollout_others       # the rollout policy of the players other than the observer (-1: rollout)
    Model prior_model        # (prior=) the learned prior of this player count (Tree.prior set: on)
    double prior_c           # (prior=) the weight of the prior's bias in selection
    double widen             # (prior=) progressive widening: children allowed, widen * sqrt(visits) (0: off)
    bint forum_threat          # (forum_threat=) no cutoff while a Forum is active for anyone
    bint paired              # (paired=) common random numbers at the root (pair_draws)
    double ahead             # (ahead=) the share of the budget more a root reading ahead gets (0: off)


# Node.flags (with the solver). CERTAIN: the node's line from the root is the observer's own
# decisions only, each leading to the observer's next decision (or the end) without
# touching a hidden card, so the state it stands for is the same, as far as the observer
# can tell, in every world of the root information set. WIN / LOSS: proven for the
# observer from a certain node (whatever the hidden cards: the line involves no one else).
# DECISIVE: the last time the node's action was played, it ended the game with its mover
# the only winner (selection plays it first: every player takes a win it can see).
cdef enum:
    CERTAIN_DEPTH = 256      # certain lines are followed this deep at most (own turns are short)
    F_CERTAIN = 1
    F_WIN = 2
    F_LOSS = 4
    F_DECISIVE = 8

# The game length in the reward: decisions since the root per player, scaled so that a
# game ending LENGTH_SCALE decisions per player later keeps exp(-1) of the speed bonus.
cdef double LENGTH_SCALE = 8.0
# VP scale of the margin part of the reward (tanh(margin / MARGIN_SCALE)).
cdef double MARGIN_SCALE = 8.0

#: the solver's marks by name (test hooks)
_FLAG_BITS = {"certain": F_CERTAIN, "win": F_WIN, "loss": F_LOSS, "decisive": F_DECISIVE}


include "_tree.pxi"         # nodes and trees
include "_prior.pxi"        # the learned prior over actions
include "_selection.pxi"    # which child an iteration follows
include "_rollout.pxi"      # rollouts, cutoff evaluations and rewards
include "_solver.pxi"       # proven results and decisive moves
include "_worlds.pxi"       # the worlds searched


# ---- the search loop --------------------------------------------------------------------

cdef void iterate(Tree* t, bint fresh_world) noexcept nogil:
    # Selection (select_child), expansion of one untried action, rollout, backpropagation
    # of the reward vector. The world is the root determinized afresh (ISMCTS, flat MC) or
    # the fixed world of a PIMC round (fresh_world False: t.fixed_world holds it).
    cdef GameState* w = &t.world
    cdef int node = t.root_index, depth = 0, n, i, child, best, untried, pick, mover, p
    cdef bint decisive, expand
    cdef float prob = 0
    cdef Node* nd
    if fresh_world:
        if t.cfg.paired:
            pair_draws(t)
        deal_world(t, w)
    else:
        memcpy(w, &t.fixed_world, used_size(&t.fixed_world))
    t.path[0] = node
    while not is_terminal_c(w):
        if t.cfg.algorithm == ALG_FLATMC and depth >= 1:
            break
        n = legal_actions_into(w, t.legal)
        mover = current_player_c(w)
        if depth < CERTAIN_DEPTH:
            t.path_legal[depth] = n
        best = select_child(t, node, n, mover, &untried, &decisive)
        # (a decisive child below the root is played before any untried action; the root
        # tries every action, so that the shortest proven win is among its children)
        expand = untried > 0 and not t.full and not (decisive and depth > 0)
        if expand:
            prob = 0
            pick = decisive_action(w, t.legal, untried, mover, &t.scratch) if t.cfg.solver else -1
            if pick == -2:
                t.error = SEARCH_OVERFLOW
                return
            # (widen=) a node with its share of children follows one, unless none is legal here
            expand = pick >= 0 or best < 0 or not widen_closed(t, node)
        if expand:
            if pick < 0 and t.prior != NULL:
                pick = prior_pick(t, node, w, untried, mover, &prob)    # the highest prior first
                if t.error:
                    return
            elif pick < 0:
                pick = t.legal[gr_rng_below(&t.rng, untried)]
            child = add_child(t, node, pick, mover)
            if child >= 0:
                t.nodes[child].avail = 1
                if t.prior != NULL:
                    t.prior[child] = prob
                if not play_step(t, w, node, child, depth):
                    return
                depth += 1
                t.path[depth] = child
                break
        if best < 0:
            break                                  # tree full and nothing known here
        if not play_step(t, w, node, best, depth):
            return                                 # (nothing backed up: the search raises)
        node = best
        depth += 1
        t.path[depth] = node
    rollout(t, w)
    if t.error == SEARCH_OVERFLOW:
        return
    for i in range(depth + 1):
        nd = &t.nodes[t.path[i]]
        nd.visits += 1
        nd.length += <float>t.length
        for p in range(t.num_players):
            nd.reward[p] += t.rewards[p]
    if t.cfg.solver:
        update_proofs(t, depth)


cdef inline double budget_clock(Tree* t) noexcept nogil:
    # the clock a budget of time is kept on: the thread's CPU time (cpu_ms) or wall time
    return gr_thread_cpu_seconds() if t.cfg.cpu_clock else gr_now_seconds()


cdef inline bint out_of_time(Tree* t, long done, double start, double share) noexcept nogil:
    # under a time budget, checked every CHECK_CLOCK_EVERY iterations: `share` of the
    # budget is spent (`start`: budget_clock when the tree began)
    return done % CHECK_CLOCK_EVERY == 0 and budget_clock(t) - start > t.cfg.time_limit * share


cdef void run_tree(Tree* t) noexcept nogil:
    # Run this tree's share of the search: cfg.iterations (or until cfg.time_limit, on the
    # wall clock or the thread's CPU clock); with
    # the solver, stop early once the root is settled (root_settled: nothing left to search).
    cdef double start = gr_now_seconds()
    cdef double budget_start = budget_clock(t)
    cdef long done = 0, per_world, target, budget
    cdef double share
    cdef int world_index
    cdef bint timed = t.cfg.time_limit > 0
    t.growth_cap = t.cfg.node_cap
    if t.count == 0 and t.cfg.algorithm != ALG_PIMC:
        t.root_index = new_node(t, 0, ROOT_MOVER)
    if t.cfg.solver:
        t.nodes[t.root_index].flags |= F_CERTAIN       # the root is the observer's information set
    if t.cfg.algorithm == ALG_PIMC:
        # UCT on each of `worlds` fixed determinizations; the trees are kept one after
        # another in the same node array (each rooted at a node whose mover is
        # ROOT_MOVER), and the caller merges the root statistics of all of them. Each
        # world's tree stops growing early enough to leave a node for every later root
        # (worlds <= node_cap: glory_ai.bots checks it). A root settled in one world is
        # settled in all (the proofs hold whatever the hidden cards): the search stops.
        per_world = t.cfg.iterations // t.cfg.worlds if t.cfg.iterations else 0
        for world_index in range(t.cfg.worlds):
            t.growth_cap = t.cfg.node_cap - (t.cfg.worlds - 1 - world_index)
            t.root_index = new_node(t, 0, ROOT_MOVER)
            if t.root_index < 0:
                break                              # unreachable while worlds <= node_cap
            if t.cfg.solver:
                t.nodes[t.root_index].flags |= F_CERTAIN
            deal_world(t, &t.fixed_world)
            target = per_world + (1 if world_index < t.cfg.iterations % t.cfg.worlds else 0)
            if timed:
                target = 1 << 30
            done = 0
            while done < target and t.nodes[t.root_index].visits < MAX_ROOT_VISITS:
                iterate(t, False)
                done += 1
                t.iterations_done += 1
                if root_settled(t) or t.error:
                    break
                if timed and out_of_time(t, done, budget_start, (world_index + 1.0) / t.cfg.worlds):
                    break
            if root_settled(t) or t.error:
                break
    else:
        # ISMCTS and flat MC; ahead= grants more once, when the budget is spent (root_ahead)
        budget = t.cfg.iterations
        share = 1.0
        while t.nodes[t.root_index].visits < MAX_ROOT_VISITS:
            if not timed and done >= budget:
                if t.cfg.ahead <= 0 or budget > t.cfg.iterations or not root_ahead(t):
                    break
                budget += <long>(t.cfg.ahead * t.cfg.iterations)
            iterate(t, True)
            done += 1
            t.iterations_done += 1
            if root_settled(t) or t.error:
                break
            if timed and out_of_time(t, done, budget_start, share):
                if t.cfg.ahead <= 0 or share > 1.0 or not root_ahead(t):
                    break
                share += t.cfg.ahead
    t.seconds += gr_now_seconds() - start


cdef bint root_ahead(Tree* t) noexcept nogil:
    # (ahead=) The root reads the observer as the likeliest winner: its mean reward over
    # every iteration so far is above every other player's. What a decision where a lead
    # is at stake looks like to the search itself: it uses no card the player cannot see.
    cdef Node* root = &t.nodes[t.root_index]
    cdef int p
    if root.visits == 0:
        return False
    for p in range(t.num_players):
        if p != t.observer and root.reward[p] >= root.reward[t.observer]:
            return False
    return True


include "_tactics.pxi"      # wins within the turn (the tactical suite, turnwin=)
include "_searcher.pxi"     # Searcher, the Python face, and its statistics
