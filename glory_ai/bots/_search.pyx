# The bots' search, in C without the GIL: single-observer Information-Set MCTS (Cowling,
# Powley & Whitehouse 2012), Perfect-Information Monte Carlo (UCT on determinizations) and
# flat Monte Carlo, over the engine's GameState through its C API (engine.pxd). Python
# only parses the spec (glory_ai.bots), starts a search and reads the root statistics.
#
# Memory: nodes live in one preallocated array per tree (Node, 64 bytes); children are
# a linked list of node indices. A search adds at most one node per iteration and never
# more than node_cap; at the cap it goes on iterating without expanding (rollouts from
# the frontier), so memory is bounded by node_cap * (64 + 4) bytes per tree (the node
# and its slot in the path buffer) plus one working context (CONTEXT_BYTES) per tree.
#
# No limit here fails silently: the path buffer has a slot per node (a path never visits
# a node twice), the legal-action buffer holds the engine's MAX_LEGAL, availability
# stamps are cleared when they wrap, visit counters stop short of their 32-bit range, a
# PIMC tree keeps room for the root of every world, and anything that goes wrong inside
# the search (an engine state with no legal action, no memory) reaches the caller as an
# exception.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int32_t
from libc.stdlib cimport malloc, free, calloc
from libc.string cimport memcpy, memset, memcmp
from libc.math cimport log, sqrt, exp, tanh

from glory_ai.core.clock cimport gr_now_seconds

from glory_ai.core.engine cimport (
    GameState, Player, Structure, Turn, State, NUM_TYPES, JACK, MAX_LEGAL, NO_ROLE, DECK_CAP,
    NUM_DISTINCT_ACTIONS, LABORER, CRAFTSMAN, ARCHITECT, LEGIONARY, MERCHANT, PATRON,
    S_COMPLETE, PH_OVER, PH_LEAD, PH_FOLLOW, PH_PAY_MORE, PH_PETITION, PH_THINK, PH_THINK_CHOICE,
    PH_ACTION, PH_FOUNTAIN, A_THINK_DRAW, A_HIRE_DECK, A_VAULT_DECK, A_FOUNTAIN_DRAW, A_LAY,
    A_LAY_STATUE, A_ADD, A_ADD_POOL, A_VAULT_STOCKPILE,
    PH_TRIBUNAL, PH_SEWER, PH_SENATE, A_VAULT_HAND, A_REVEAL, A_THINK_JACK, B_WALL, B_PALISADE, B_BRIDGE,
    A_STAIRWAY, A_SEWER, CTX_ACADEMY, END_FORUM, B_CATACOMB, B_FORUM, B_FORUM_ROMANUM,
    INV_NO_LEGAL, INV_OVERFLOW, gr_rng_next, gr_rng_below, gr_rng_seed, used_size, is_active, mat_of,
    material_value, clientele_limit, vault_limit, refill_size, owned_structure, conceded,
    legal_actions_into, apply_action_c, score_of, winners_mask_of, determinize_c,
    canonicalize_hidden, check_state, NUM_FEATURES, features_c, linear_features_c,
)

include "_model.pxi"
include "_policy.pxi"

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)


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

ctypedef struct SearchConfig:
    int algorithm
    int iterations           # total for this tree (0: until the time budget)
    double time_limit        # seconds (0: none)
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


# ---- the tree ---------------------------------------------------------------------------

ctypedef struct Node:
    double reward[5]         # reward sums per player
    uint32_t visits
    uint32_t avail           # times this node's action was available at its parent
    int32_t first_child
    int32_t next_sibling
    uint16_t action          # the action leading here from the parent
    uint8_t mover            # the player who chose it (ROOT_MOVER on a root)
    uint8_t flags            # F_* (solver)
    float length             # sum of the game lengths backed up (decisions per player)


ctypedef struct Tree:
    # One search thread's whole working set (64-byte aligned, never shared).
    GameState root           # the canonical root (what the observer knows)
    GameState world          # this iteration's determinized world
    GameState scratch        # trial states of the heuristic policy
    GameState fixed_world    # the world of the current PIMC round
    double belief[5][NUM_TYPES]   # (belief) log-likelihood per hidden card of a player's hand
    EvalScratch eval_scratch # this thread's feature vector and hidden layers
    SearchConfig cfg
    Node* nodes              # node_cap nodes
    int* path                # this iteration's path from the root: node_cap + 1 slots
    int count
    int growth_cap           # children are added while count < growth_cap (<= node_cap)
    int root_index           # the node this iteration starts from
    int observer
    int num_players
    uint64_t rng
    uint32_t stamp
    uint32_t* legal_stamp    # per action id: stamp of the node visit where it was legal
    uint32_t* seen_stamp     # per action id: stamp of the visit where a child had it
    uint16_t legal[MAX_LEGAL]
    double rewards[5]
    double values[5]         # the cutoff evaluation of each player (cutoff_values)
    double length            # the game length of this iteration (decisions per player)
    int path_legal[CERTAIN_DEPTH]  # legal actions at each certain node of the path (solver)
    int has_belief           # (belief) some player's hand has evidence
    long certainty_conflicts # a certain node whose step touched hidden cards in another world
    long iterations_done
    double seconds
    int full                 # a child could not be added: the node cap was reached
    int error                # SEARCH_OK, or what went wrong (raised by the caller)
    int error_detail


#: bytes of one tree node, and of one tree's working context besides its nodes
NODE_BYTES = sizeof(Node)
CONTEXT_BYTES = sizeof(Tree) + 2 * NUM_DISTINCT_ACTIONS * sizeof(uint32_t)


cdef Tree* tree_new(int node_cap) noexcept nogil:
    cdef void* memory = NULL
    cdef Tree* t
    if posix_memalign(&memory, 64, sizeof(Tree)) != 0:
        return NULL
    t = <Tree*>memory
    memset(t, 0, sizeof(Tree))
    memory = NULL
    if posix_memalign(&memory, 64, <size_t>node_cap * sizeof(Node)) == 0:
        t.nodes = <Node*>memory                # each node on its own cache line
    t.path = <int*>malloc((<size_t>node_cap + 1) * sizeof(int))
    t.legal_stamp = <uint32_t*>calloc(NUM_DISTINCT_ACTIONS, sizeof(uint32_t))
    t.seen_stamp = <uint32_t*>calloc(NUM_DISTINCT_ACTIONS, sizeof(uint32_t))
    if t.nodes == NULL or t.path == NULL or t.legal_stamp == NULL or t.seen_stamp == NULL:
        tree_free(t)
        return NULL
    t.cfg.node_cap = node_cap
    t.growth_cap = node_cap
    return t


cdef void tree_free(Tree* t) noexcept nogil:
    if t == NULL:
        return
    free(t.nodes)
    free(t.path)
    free(t.legal_stamp)
    free(t.seen_stamp)
    free(t)


cdef inline int new_node(Tree* t, int action, int mover) noexcept nogil:
    # a root (mover ROOT_MOVER) may take any free slot; a child only one below growth_cap
    cdef Node* node
    cdef int cap = t.cfg.node_cap if mover == ROOT_MOVER else t.growth_cap
    if t.count >= cap:
        t.full = 1
        return -1
    node = &t.nodes[t.count]
    memset(node, 0, sizeof(Node))
    node.first_child = -1
    node.next_sibling = -1
    node.action = action
    node.mover = mover
    t.count += 1
    return t.count - 1


cdef inline int add_child(Tree* t, int parent, int action, int mover) noexcept nogil:
    cdef int child = new_node(t, action, mover)
    if child < 0:
        return -1
    t.nodes[child].next_sibling = t.nodes[parent].first_child
    t.nodes[parent].first_child = child
    return child


cdef inline int find_child(Tree* t, int parent, int action) noexcept nogil:
    cdef int child = t.nodes[parent].first_child
    while child >= 0:
        if t.nodes[child].action == action:
            return child
        child = t.nodes[child].next_sibling
    return -1


cdef inline uint32_t next_stamp(Tree* t) noexcept nogil:
    # A fresh stamp for one node visit; when the 32-bit counter wraps, both tables are
    # cleared so that no old entry can equal a new stamp.
    t.stamp += 1
    if t.stamp == 0:
        memset(t.legal_stamp, 0, NUM_DISTINCT_ACTIONS * sizeof(uint32_t))
        memset(t.seen_stamp, 0, NUM_DISTINCT_ACTIONS * sizeof(uint32_t))
        t.stamp = 1
    return t.stamp


# ---- rewards ----------------------------------------------------------------------------

cdef void terminal_rewards(Tree* t, GameState* s) noexcept nogil:
    # Vector reward of a finished game for every player (docs/bots.md, "Rewards").
    cdef int n = s.cfg.num_players, p, q, winners = winners_mask_of(s), count = 0
    cdef int sp, sq, best_other
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
                    sp = score_of(s, p) * 64 + s.players[p].hand_count
                    sq = score_of(s, q) * 64 + s.players[q].hand_count
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
    for p in range(s.cfg.num_players):
        t.values[p] = -1e9 if conceded(s, p) else evaluate(s, p, &t.cfg.model, &t.eval_scratch)


cdef void cutoff_rewards(Tree* t, GameState* s) noexcept nogil:
    # A live position scored by the evaluation: win = softmax of the evaluations over
    # `temperature` VP, rank = mean pairwise logistic, margin = tanh of the lead.
    cdef int n = s.cfg.num_players, p, q
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
    cdef int n = s.cfg.num_players, p, q
    cdef double late = 1.0 - exp(-t.length / LENGTH_SCALE)
    cdef double mine, best_other, base, margin
    cdef bint over = s.turn.phase == PH_OVER
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
    cdef int n, made = 0, p
    while s.turn.phase != PH_OVER:
        if t.cfg.cutoff and made >= t.cfg.cutoff:
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
            p = decisive_action(s, t.legal, n, s.turn.decider, &t.scratch)
        if p == -1:
            if t.cfg.rollout == ROLLOUT_HEURISTIC:
                p = policy_choose(s, t.legal, n, &t.cfg.model, t.cfg.epsilon, &t.rng,
                                  &t.scratch, &t.eval_scratch)
            elif t.cfg.rollout == ROLLOUT_MODEL:
                p = softmax_choose(s, t.legal, n, &t.cfg.model, t.cfg.rollout_temperature,
                                   &t.rng, &t.scratch, &t.eval_scratch)
            else:
                p = t.legal[gr_rng_below(&t.rng, n)]
        if not apply_checked(t, s, p):
            return
        made += 1
    terminal_rewards(t, s)
    finish_rewards(t, s)


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
    t.length = <double>s.turn.decisions / s.cfg.num_players
    if t.cfg.speed > 0 or t.cfg.vp_weight > 0:
        mix_rewards(t, s)


# ---- one iteration ----------------------------------------------------------------------

cdef inline double ucb_score(Node* nd, int mover, double c) noexcept nogil:
    # the mover's mean reward plus the exploration term over availability (Cowling et
    # al. 2012); an unvisited child comes first
    if nd.visits == 0:
        return 1e300
    return nd.reward[mover] / nd.visits + c * sqrt(log(<double>nd.avail) / nd.visits)


cdef int select_child(Tree* t, int node, int n, int mover, int* untried, bint* decisive) noexcept nogil:
    # The children of `node` whose action is among the n legal actions of this world
    # (t.legal) are available: each counts one more availability, and the best of them is
    # returned (ISMCTS, PIMC: the highest UCB score, the first in the child list on ties;
    # flat MC: the least visited, round robin), or -1 if none is available. The legal
    # actions no child has yet (untried) are left at the front of t.legal, their number
    # in untried[0]. With the solver, an available child that won the game for its mover
    # when last played, or is proven to win, is returned instead (decisive[0] set), and a
    # child proven lost is taken only when nothing else is available.
    cdef uint32_t stamp = next_stamp(t)
    cdef int i, child, best = -1, count = 0, win = -1
    cdef double best_score = -1e300, score
    cdef Node* nd
    cdef bint solver = t.cfg.solver
    for i in range(n):
        t.legal_stamp[t.legal[i]] = stamp
    child = t.nodes[node].first_child
    while child >= 0:
        nd = &t.nodes[child]
        if t.legal_stamp[nd.action] == stamp:
            t.seen_stamp[nd.action] = stamp
            nd.avail += 1
            if t.cfg.algorithm == ALG_FLATMC:
                score = -<double>nd.visits
            else:
                score = ucb_score(nd, mover, t.cfg.c)
            if solver:
                if nd.flags & F_LOSS:
                    score = -1e299
                elif nd.flags & (F_DECISIVE | F_WIN) and (win < 0 or (nd.flags & F_DECISIVE
                                                                   and not t.nodes[win].flags & F_DECISIVE)):
                    win = child                    # an immediate win first, then a proven one
            if score > best_score:
                best_score = score
                best = child
        child = nd.next_sibling
    for i in range(n):
        if t.seen_stamp[t.legal[i]] != stamp:
            t.legal[count] = t.legal[i]
            count += 1
    untried[0] = count
    decisive[0] = win >= 0
    return win if win >= 0 else best


cdef bint own_step_is_certain(Tree* t, GameState* before, GameState* after) noexcept nogil:
    # Did the observer's action, played on `before`, reach `after` (its own next decision
    # or the end) without touching anything it cannot see? Within its own action segment
    # the engine reads no hidden card unless some other player is involved (a Legionary
    # victim, a follower acting, a draw from the deck); so: no card left the deck, no
    # other player's cards, counts or known lacks changed, the turn, the actor and its seat
    # are the same, and the next decision is not an end-of-turn step (those come after the
    # other players' actions). See docs/bots.md, "Proven results".
    cdef int q
    cdef int observer = t.observer
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


cdef bint result_is_public(Tree* t, GameState* s, int action) noexcept nogil:
    # Are the winners of a finished game the same in every world? The scores read the
    # vaults (R-12.1): so when no other player holds a hidden vault card, or when a Forum
    # condition ended the game (R-11.2: its owner wins outright; only a Stairway could
    # make two players meet it at once and bring the scores in).
    cdef int q, x
    if s.turn.end_reason == END_FORUM and not (A_STAIRWAY <= action < A_SEWER):
        return True
    for q in range(s.cfg.num_players):
        if q == t.observer:
            continue
        for x in range(NUM_TYPES):
            if s.players[q].vault[x] != s.players[q].vault_known[x]:
                return False
    return True


cdef inline bint play_step(Tree* t, GameState* w, int parent, int child, int depth) noexcept nogil:
    # Play a child's action on the world; with the solver, mark what it did: the game won
    # by its mover (DECISIVE), a certain step of the observer, and a proven end. False if
    # the move exceeded an engine capacity (apply_checked).
    cdef Node* nd = &t.nodes[child]
    cdef int winners
    cdef bint watch
    if not t.cfg.solver:
        return apply_checked(t, w, nd.action)
    watch = (t.nodes[parent].flags & F_CERTAIN) and nd.mover == t.observer and depth + 1 < CERTAIN_DEPTH
    if watch:
        memcpy(&t.scratch, w, used_size(w))
    if not apply_checked(t, w, nd.action):
        return False
    winners = winners_mask_of(w) if w.turn.phase == PH_OVER else 0
    if winners == (1 << nd.mover):
        nd.flags |= F_DECISIVE
    else:
        nd.flags &= ~F_DECISIVE
    if not watch:
        return True
    if own_step_is_certain(t, &t.scratch, w) and (not winners or result_is_public(t, w, nd.action)):
        # (an end whose winners read hidden cards is not certain: it differs by world)
        nd.flags |= F_CERTAIN
        if winners == (1 << t.observer):
            nd.flags |= F_WIN
        elif winners and not (winners >> t.observer) & 1:
            nd.flags |= F_LOSS
    elif nd.flags & F_CERTAIN:
        t.certainty_conflicts += 1           # never expected: the tests count these
    return True


cdef void update_proofs(Tree* t, int depth) noexcept nogil:
    # After an iteration, from the deepest certain node of the path up: a certain node (the
    # observer to move) is won if one of its children is, lost if every legal action has a
    # child and all are lost. Stops at the first node whose status does not change.
    cdef int i, node, child, count
    cdef bint win, all_lost
    cdef uint8_t before
    i = depth - 1
    if i > CERTAIN_DEPTH - 1:
        i = CERTAIN_DEPTH - 1
    while i >= 0:
        node = t.path[i]
        if not t.nodes[node].flags & F_CERTAIN:
            i -= 1
            continue
        before = t.nodes[node].flags
        win = False
        all_lost = True
        count = 0
        child = t.nodes[node].first_child
        while child >= 0:
            count += 1
            if t.nodes[child].flags & F_WIN:
                win = True
                break
            if not t.nodes[child].flags & F_LOSS:
                all_lost = False
            child = t.nodes[child].next_sibling
        if win:
            t.nodes[node].flags |= F_WIN
        elif all_lost and count > 0 and count == t.path_legal[i]:
            t.nodes[node].flags |= F_LOSS
        if t.nodes[node].flags == before:
            return
        i -= 1


cdef bint root_settled(Tree* t) noexcept nogil:
    # (solver) Nothing left to search: the root is proven lost, or proven won by an
    # immediate win or with every root action tried (no shorter win can be missing).
    cdef Node* root = &t.nodes[t.root_index]
    cdef int child, count = 0
    if not t.cfg.solver or not root.flags & (F_WIN | F_LOSS):
        return False
    if root.flags & F_LOSS:
        return True
    child = root.first_child
    while child >= 0:
        if t.nodes[child].flags & F_WIN and t.nodes[child].first_child < 0:
            return True
        count += 1
        child = t.nodes[child].next_sibling
    return count == t.path_legal[0]


cdef bint may_end_now(GameState* s, int p) noexcept nogil:
    # Could one action of p end the game (R-11.1)? A draw of the deck's last card (a think
    # refills up to the refill size; a Fountain, Bar or Atrium draws one), the last in-town
    # site, one material short of a Catacomb of p's, or a Forum of p's (built, or one
    # material short). A cheap filter before looking for a decisive move: no other single
    # action of p ends the game.
    cdef int i, m, sites = 0, draw
    cdef Structure* st
    draw = refill_size(s, p) - s.players[p].hand_count
    if s.deck_size <= (draw if draw > 1 else 1):
        return True
    for m in range(6):
        sites += s.in_town[m]
    if sites <= 1:
        return True
    for i in range(s.nstruct):
        st = &s.structures[i]
        if st.owner != p:
            continue
        if st.building == B_FORUM or st.building == B_FORUM_ROMANUM:
            if st.flags & S_COMPLETE or st.nmat + 1 >= material_value(st.site):
                return True
        elif st.building == B_CATACOMB and not st.flags & S_COMPLETE and st.nmat + 1 >= material_value(st.site):
            return True
    return False


cdef bint every_action_may_end(GameState* s) noexcept nogil:
    # Can any action at all end the game here (so that decisive_action must try them all)?
    # Yes when the deck is already empty (the game ends after the current action, R-11.1),
    # at a Fountain's choice (it lays, adds or keeps a card drawn, maybe the last), and
    # whenever a Forum or Forum Romanum is anywhere in the city: its condition is checked
    # after hires, takes, Legionary gives, Sewer moves, Stairways, Prisons and completions
    # (check_forum), too many paths to tell apart cheaply.
    cdef int i
    if s.turn.pending_end or s.deck_size == 0 or s.turn.phase == PH_FOUNTAIN:
        return True
    for i in range(s.nstruct):
        if s.structures[i].building == B_FORUM or s.structures[i].building == B_FORUM_ROMANUM:
            return True
    return False


cdef bint action_may_end(GameState* s, int action, int sites) noexcept nogil:
    # Can `action` end the game (whoever wins) where every_action_may_end is false? With no
    # Forum in the city the game ends only by a draw of the deck's last card (a think, a
    # Bar or Atrium draw), a foundation on the last in-town site (`sites` of them are
    # left) or a Catacomb's completion (R-11.1), and the engine does each of these only
    # inside the decision that asks for it, never in the steps it runs on its own after
    # it. A Forum laid with a Gate active is active at once, so laying one may end it too.
    # Exact for decisive_action: it may pass an action that does not end the game, never
    # the other way round (tests/bots/test_search_solver.py compares both scans).
    cdef int phase = s.turn.phase, p = s.turn.decider, draw, building
    if phase == PH_LEAD or phase == PH_FOLLOW or phase == PH_THINK or phase == PH_THINK_CHOICE:
        # a think draws up to the refill size, at least one card (do_think)
        if action != A_THINK_DRAW and (phase != PH_THINK_CHOICE or action == A_THINK_JACK):
            return False
        draw = refill_size(s, p) - s.players[p].hand_count
        return s.deck_size <= (draw if draw > 1 else 1)
    if phase != PH_ACTION:
        return False
    if action == A_HIRE_DECK or action == A_VAULT_DECK or action == A_FOUNTAIN_DRAW:
        return s.deck_size <= 1
    if A_LAY <= action < A_LAY_STATUE:
        building = action - A_LAY + 1
        return sites <= 1 or building == B_FORUM or building == B_FORUM_ROMANUM
    if A_LAY_STATUE <= action < A_ADD:
        return sites <= 1
    if A_ADD <= action < A_VAULT_STOCKPILE:
        # A_ADD and A_ADD_POOL: building(44) x card(44), the building first
        building = ((action - A_ADD) % (A_ADD_POOL - A_ADD)) // 44 + 1
        return building == B_CATACOMB
    return False


cdef int decisive_action(GameState* s, uint16_t* actions, int n, int mover, GameState* scratch,
                         bint every=False) noexcept nogil:
    # (solver) the first of the n actions after which the game is over with the mover its
    # only winner, or -1; looked for only where the mover may end the game now, and (unless
    # `every`, the reference scan of the tests) only among the actions that can end it at
    # all (action_may_end), which finds the same first one at a fraction of the trials.
    # -2 if a trial exceeded an engine capacity (apply_checked).
    cdef int i, m, sites = 0
    if not may_end_now(s, mover):
        return -1
    if not every:
        every = every_action_may_end(s)
        for m in range(6):
            sites += s.in_town[m]
    for i in range(n):
        if not every and not action_may_end(s, actions[i], sites):
            continue
        memcpy(scratch, s, used_size(s))
        if apply_action_c(scratch, actions[i]) == -2:
            return -2
        if scratch.turn.phase == PH_OVER and winners_mask_of(scratch) == (1 << mover):
            return actions[i]
    return -1


cdef void iterate(Tree* t, bint fresh_world) noexcept nogil:
    # Selection (select_child), expansion of one untried action, rollout, backpropagation
    # of the reward vector. The world is the root determinized afresh (ISMCTS, flat MC) or
    # the fixed world of a PIMC round (fresh_world False: t.fixed_world holds it).
    cdef GameState* w = &t.world
    cdef int node = t.root_index, depth = 0, n, i, child, best, untried, pick, mover, p
    cdef bint decisive
    cdef Node* nd
    if fresh_world:
        deal_world(t, w)
    else:
        memcpy(w, &t.fixed_world, used_size(&t.fixed_world))
    t.path[0] = node
    while w.turn.phase != PH_OVER:
        if t.cfg.algorithm == ALG_FLATMC and depth >= 1:
            break
        n = legal_actions_into(w, t.legal)
        mover = w.turn.decider
        if depth < CERTAIN_DEPTH:
            t.path_legal[depth] = n
        best = select_child(t, node, n, mover, &untried, &decisive)
        # (a decisive child below the root is played before any untried action; the root
        # tries every action, so that the shortest proven win is among its children)
        if untried > 0 and not t.full and not (decisive and depth > 0):
            pick = decisive_action(w, t.legal, untried, mover, &t.scratch) if t.cfg.solver else -1
            if pick == -2:
                t.error = SEARCH_OVERFLOW
                return
            if pick < 0:
                pick = t.legal[gr_rng_below(&t.rng, untried)]
            child = add_child(t, node, pick, mover)
            if child >= 0:
                t.nodes[child].avail = 1
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


cdef inline bint out_of_time(Tree* t, long done, double start, double share) noexcept nogil:
    # under a time budget, checked every CHECK_CLOCK_EVERY iterations: `share` of the
    # budget is spent
    return done % CHECK_CLOCK_EVERY == 0 and gr_now_seconds() - start > t.cfg.time_limit * share


cdef void run_tree(Tree* t) noexcept nogil:
    # Run this tree's share of the search: cfg.iterations (or until cfg.time_limit); with
    # the solver, stop early once the root is settled (root_settled: nothing left to search).
    cdef double start = gr_now_seconds()
    cdef long done = 0, per_world, target
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
                if timed and out_of_time(t, done, start, (world_index + 1.0) / t.cfg.worlds):
                    break
            if root_settled(t) or t.error:
                break
    else:
        while t.nodes[t.root_index].visits < MAX_ROOT_VISITS:
            if not timed and done >= t.cfg.iterations:
                break
            iterate(t, True)
            done += 1
            t.iterations_done += 1
            if root_settled(t) or t.error:
                break
            if timed and out_of_time(t, done, start, 1.0):
                break
    t.seconds += gr_now_seconds() - start


cdef double belief_log_weight(Tree* t, GameState* s) noexcept nogil:
    # (belief) log-likelihood of a world's hidden hands under the evidence: the sum over
    # every other player's hidden hand cards of t.belief[player][card] (each <= 0)
    cdef int q, x, k
    cdef double total = 0
    for q in range(s.cfg.num_players):
        if q == t.observer:
            continue
        for x in range(NUM_TYPES):
            k = s.players[q].hand[x] - s.players[q].hand_known[x]
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


# ---- Python face ------------------------------------------------------------------------

import random as _random

from glory_ai.core.engine import INVARIANT_TEXT as _INVARIANT_TEXT

_ALGORITHMS = {"ismcts": ALG_ISMCTS, "pimc": ALG_PIMC, "flatmc": ALG_FLATMC}


def _overflow_message(who):
    return (f"{who} met a move that exceeds a fixed capacity of the engine: "
            f"{_INVARIANT_TEXT[INV_OVERFLOW]}; the position cannot be played on exactly")
#: how the move is chosen from the root statistics (_order_rows)
_FINAL_RULES = ("visits", "robust")


def _order_rows(list stats, int player, uint64_t key, bint flat, final):
    """Sort root rows (Searcher.last_stats["actions"]) best first, in place. final=visits:
    the most visited (flat MC: the best mean reward, then visits), then the lowest action
    id. final=robust: a proven win first (the shortest), a proven loss last (the longest
    first); among the rest the most visited (flat MC: the best mean), then the best mean
    (flat MC: visits), then the shorter game when the mean says winning and the longer
    when losing, then a draw seeded by `key`, never the action id. Returns whether that
    draw decided between the first two rows."""
    if final == "visits":
        if flat:
            stats.sort(key=lambda row: (-row["mean_reward"][player], -row["visits"], row["action"]))
        else:
            stats.sort(key=lambda row: (-row["visits"], row["action"]))
        return False
    draw = _random.Random(key ^ 0x5DEECE66D)
    keyed = []
    for row in stats:
        mean = row["mean_reward"][player]
        if row["proven"] == "win":
            order = (0, row["proof_length"], -mean, 0.0)
        elif row["proven"] == "loss":
            order = (2, -row["proof_length"], -mean, 0.0)
        else:
            length = row["mean_length"] if mean >= 0.5 else -row["mean_length"]
            first, second = (-mean, -row["visits"]) if flat else (-row["visits"], -mean)
            order = (1, first, second, length)
        keyed.append((order, draw.random(), row))
    keyed.sort(key=lambda item: (item[0], item[1]))
    stats[:] = [item[2] for item in keyed]
    return len(keyed) > 1 and keyed[0][0] == keyed[1][0]


cdef int _proof_length(Tree* t, int node, bint won):
    # the own decisions of a proven line from `node` (its action counted): a win takes the
    # shortest proven-won child, a loss the longest (every child of a lost node is lost)
    cdef int child, best = -1, steps
    child = t.nodes[node].first_child
    while child >= 0:
        if t.nodes[child].flags & (F_WIN if won else F_LOSS):
            steps = _proof_length(t, child, won)
            if best < 0 or (won and steps < best) or (not won and steps > best):
                best = steps
        child = t.nodes[child].next_sibling
    return 1 + (best if best > 0 else 0)


cdef class Searcher:
    """A search bot's engine: one or more trees (root parallelism), their settings and,
    with reuse, the trees kept between moves. Built by glory_ai.bots from a spec."""

    cdef Tree** trees
    cdef int ntrees
    cdef int threads
    cdef SearchConfig cfg
    cdef uint64_t seed
    cdef bint reuse
    cdef CompiledModel _model         # owns the weights cfg.model points to
    cdef State _last_state            # (reuse) the state of the last search, and its player
    cdef int _last_player
    cdef public object last_stats
    cdef object final                 # how the move is chosen from the root statistics

    def __cinit__(self):
        self.trees = NULL
        self.ntrees = 0

    def __init__(self, *, algorithm, iterations, time_ms, c, rollout, cutoff, reward, worlds,
                 epsilon, temperature, node_cap, model, trees, threads, reuse, seed,
                 rollout_temperature=0.5, solver=False, speed=0.0, vp=0.0, final="visits", belief=1,
                 belief_strength=0.5):
        cdef int i
        if final not in _FINAL_RULES:
            raise ValueError(f"final must be one of {', '.join(_FINAL_RULES)}, got {final!r}")
        if not 0 <= speed <= 0.5 or not 0 <= vp <= 1 or not 1 <= belief <= 1000 or not 0 <= belief_strength <= 1:
            raise ValueError("speed 0..0.5, vp 0..1, belief 1..1000 and belief_strength 0..1")
        self.final = final
        self.cfg.solver = solver
        self.cfg.speed = speed
        self.cfg.vp_weight = vp
        self.cfg.belief = belief
        self.cfg.belief_strength = belief_strength
        self.cfg.algorithm = _ALGORITHMS[algorithm]
        self.cfg.iterations = iterations
        self.cfg.time_limit = time_ms / 1000.0
        self.cfg.c = c
        self.cfg.rollout = {"random": ROLLOUT_RANDOM, "heuristic": ROLLOUT_HEURISTIC,
                            "model": ROLLOUT_MODEL}[rollout]
        self.cfg.cutoff = cutoff
        self.cfg.reward = {"win": REWARD_WIN, "rank": REWARD_RANK, "margin": REWARD_MARGIN}[reward]
        self.cfg.worlds = worlds
        self.cfg.epsilon = epsilon
        # a model of win chances gives calibrated logits: no VP scale applies to them
        self.cfg.temperature = temperature if model.output == "value" else 1.0
        self.cfg.rollout_temperature = rollout_temperature
        self.cfg.node_cap = node_cap
        self._model = CompiledModel(model)
        self.cfg.model = self._model.m
        if self.cfg.algorithm == ALG_PIMC and worlds > node_cap:
            raise ValueError(f"PIMC needs a node per world: worlds ({worlds}) exceeds node_cap ({node_cap})")
        self.threads = threads
        self.reuse = reuse and self.cfg.algorithm == ALG_ISMCTS
        self.seed = seed
        self._last_state = None
        self.last_stats = None
        self.trees = <Tree**>calloc(trees, sizeof(Tree*))
        if self.trees == NULL:
            raise MemoryError()
        self.ntrees = trees
        for i in range(trees):
            self.trees[i] = tree_new(node_cap)
            if self.trees[i] == NULL:
                raise MemoryError(f"cannot allocate a search tree of {node_cap} nodes")

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.ntrees):
                tree_free(self.trees[i])
            free(self.trees)

    def search(self, State state, int player, uint64_t key, belief=None):
        """Search from `state` for `player` (who must be to move) and return the root
        statistics, best first (the bot plays the first row's action); they are also in
        last_stats with the totals. `key` seeds this search (the bot derives it from its
        seed and what the player knows, so searches reproduce). `belief` (used when the
        searcher deals belief > 1 candidate worlds): per player, a log-likelihood (<= 0)
        per card type of each hidden card in that player's hand, or None."""
        cdef int i
        cdef list tree_ids = list(range(self.ntrees))
        cdef long reused
        table = self._belief_table(state, player, belief)
        reused = self._follow(state, player) if self.reuse else -1
        for i in range(self.ntrees):
            self._prepare(self.trees[i], state, player, i, key, reused >= 0)
            self._set_belief(self.trees[i], table)
        if self.threads > 1 and self.ntrees > 1:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=min(self.threads, self.ntrees)) as pool:
                list(pool.map(self._run_one, tree_ids))
        else:
            for i in tree_ids:
                self._run_one(i)
        self._raise_errors()
        return self._collect(state, player, max(reused, 0), key)

    cdef object _belief_table(self, State state, int player, belief):
        # the evidence as a checked table [player][card type], or None without any
        cdef int n = state.s.cfg.num_players
        if belief is None or self.cfg.belief <= 1:
            return None
        table = [[float(v) for v in row] for row in belief]
        if len(table) != n or any(len(row) != NUM_TYPES for row in table):
            raise ValueError(f"belief: {n} rows of {NUM_TYPES} log-likelihoods, one per player")
        if any(not -1e6 <= v <= 0 for row in table for v in row):
            raise ValueError("belief: log-likelihoods must be within -1e6..0")
        if not any(v for q, row in enumerate(table) if q != player for v in row):
            return None
        return table

    cdef void _set_belief(self, Tree* t, table) except *:
        cdef int q, x
        t.has_belief = table is not None
        if table is None:
            return
        for q in range(len(table)):
            for x in range(NUM_TYPES):
                t.belief[q][x] = table[q][x]

    def _run_one(self, int i):
        cdef Tree* t = self.trees[i]
        with nogil:
            run_tree(t)

    cdef void _prepare(self, Tree* t, State state, int player, int index, uint64_t key,
                       bint kept) except *:
        cdef uint64_t mix
        memcpy(&t.root, state.s, used_size(state.s))
        canonicalize_hidden(&t.root, player)
        t.observer = player
        t.num_players = state.s.cfg.num_players
        t.cfg = self.cfg
        if self.cfg.iterations:
            # trees share the iterations; the first ones take the remainder
            t.cfg.iterations = self.cfg.iterations // self.ntrees + (1 if index < self.cfg.iterations % self.ntrees else 0)
        mix = gr_rng_seed(self.seed ^ (<uint64_t>index * <uint64_t>0x9E3779B97F4A7C15))   # wraps mod 2**64
        t.rng = gr_rng_seed(mix ^ key)
        t.iterations_done = 0
        t.seconds = 0
        t.full = 0
        t.certainty_conflicts = 0
        t.error = SEARCH_OK
        if not kept:
            t.count = 0
        t.root_index = 0

    cdef void _raise_errors(self) except *:
        cdef int i
        cdef Tree* t
        for i in range(self.ntrees):
            t = self.trees[i]
            if t.error == SEARCH_NO_LEGAL:
                raise RuntimeError(
                    "the search met a live position with no legal action, an engine bug "
                    f"(invariant {t.error_detail}: {_INVARIANT_TEXT.get(t.error_detail, '?')})")
            if t.error == SEARCH_NO_WINNER:
                raise RuntimeError("the search met a finished game without a winner, an engine bug")
            if t.error == SEARCH_OVERFLOW:
                raise RuntimeError(_overflow_message("the search"))

    # ---- tree reuse ----

    def _follow(self, State state, int player):
        """(reuse) Keep, in every tree, the subtree of the moves played since the last
        search, restricted at its root to the actions legal now, when `state` continues
        that search's state for the same player; otherwise empty the trees. Returns the
        nodes kept in all (0 when starting afresh) and remembers `state` as the last."""
        cdef int i
        cdef long kept = 0
        moves = self._moves_since_last(state, player)
        legal = set(state.legal_actions()) if moves is not None else None
        for i in range(self.ntrees):
            if moves is not None and self._keep_subtree(self.trees[i], moves, legal):
                kept += self.trees[i].count
            else:
                self.trees[i].count = 0
        self._last_state = state.clone()
        self._last_player = player
        return kept

    cdef object _moves_since_last(self, State state, int player):
        # The actions played since the last search if `state` is that search's state after
        # them, as far as `player` can tell (the replay reaches the same information
        # state); None otherwise. History alone does not say it: two positions loaded from
        # dicts, or two new games, both start with an empty history.
        cdef State last = self._last_state
        if last is None or player != self._last_player or last.config() != state.config():
            return None
        before = last.history()
        now = state.history()
        if len(now) < len(before) or now[:len(before)] != before:
            return None
        moves = now[len(before):]
        replay = last.clone()
        for action in moves:
            if A_VAULT_HAND <= action < A_REVEAL and replay.current_player() != player:
                # an opponent's Basilica vault from hand names a card the player did not
                # see: following it down the tree would use that card
                return None
            try:
                replay.apply_action(action)
            except ValueError:
                return None
        if replay.information_state_key(player) != state.information_state_key(player):
            return None
        return moves

    cdef bint _keep_subtree(self, Tree* t, list moves, set legal) except -1:
        # Descend from the old root along `moves`; keep that subtree (compacted to the
        # front of the node array) as the new root, without the root children whose action
        # is not legal now (a node after the player's own draw was expanded in worlds
        # where the player held other cards).
        cdef int node = 0, child, previous
        if t.count == 0:
            return False
        for action in moves:
            child = find_child(t, node, action)
            if child < 0:
                return False
            node = child
        if t.nodes[node].visits >= REUSE_VISITS_LIMIT:
            return False
        previous = -1
        child = t.nodes[node].first_child
        while child >= 0:
            if t.nodes[child].action in legal:
                previous = child
            elif previous < 0:
                t.nodes[node].first_child = t.nodes[child].next_sibling
            else:
                t.nodes[previous].next_sibling = t.nodes[child].next_sibling
            child = t.nodes[child].next_sibling
        if compact_subtree(t, node) < 0:
            raise MemoryError("no memory to keep the search tree between moves")
        if self.cfg.solver:
            # what is certain from the old root stays so from this node; the lines from
            # here are followed afresh from the new root
            t.nodes[0].flags |= F_CERTAIN
        return True

    # ---- results ----

    cdef object _collect(self, State state, int player, long reused, uint64_t key):
        # merge the root children of every tree (every PIMC world) by action, and order
        # them best first by the `final` rule (_order_rows)
        cdef int i, child, p, n = state.s.cfg.num_players
        cdef Tree* t
        cdef Node* nd
        visits = {}
        rewards = {}
        avail = {}
        lengths = {}
        proofs = {}
        iterations = 0
        seconds = 0.0
        nodes = 0
        conflicts = 0
        for i in range(self.ntrees):
            t = self.trees[i]
            iterations += t.iterations_done
            seconds = max(seconds, t.seconds)
            nodes += t.count
            conflicts += t.certainty_conflicts
            for root in self._roots(t):
                child = t.nodes[root].first_child
                while child >= 0:
                    nd = &t.nodes[child]
                    a = nd.action
                    visits[a] = visits.get(a, 0) + nd.visits
                    avail[a] = avail.get(a, 0) + nd.avail
                    lengths[a] = lengths.get(a, 0.0) + nd.length
                    sums = rewards.setdefault(a, [0.0] * n)
                    for p in range(n):
                        sums[p] += nd.reward[p]
                    if nd.flags & (F_WIN | F_LOSS):
                        # a proof holds in every tree and world: keep the shortest win,
                        # the longest loss
                        won = bool(nd.flags & F_WIN)
                        steps = _proof_length(t, child, won)
                        known = proofs.get(a)
                        if known is None or (won and steps < known[1]) or (not won and steps > known[1]):
                            proofs[a] = ("win" if won else "loss", steps)
                    child = nd.next_sibling
        stats = []
        for a, v in visits.items():
            proof = proofs.get(a)
            stats.append({"action": a, "visits": v, "available": avail[a],
                          "mean_reward": [r / v if v else 0.0 for r in rewards[a]],
                          "proven": proof[0] if proof else None,
                          "proof_length": proof[1] if proof else 0,
                          "mean_length": lengths[a] / v if v else 0.0})
        tie_broken = _order_rows(stats, player, key, self.cfg.algorithm == ALG_FLATMC, self.final)
        self.last_stats = {"actions": stats, "iterations": iterations, "seconds": seconds,
                           "nodes": nodes, "reused_nodes": reused, "trees": self.ntrees,
                           "node_cap_reached": any(self.trees[i].full for i in range(self.ntrees)),
                           "tie_broken": tie_broken, "certainty_conflicts": conflicts}
        return stats

    cdef list _roots(self, Tree* t):
        # the root node of each tree in t's node array: one, or one per PIMC world
        cdef int i
        if t.count == 0:
            return []
        if self.cfg.algorithm != ALG_PIMC:
            return [0]
        return [i for i in range(t.count) if t.nodes[i].mover == ROOT_MOVER]

    # ---- test hooks ----

    def _tree(self, int index, bint flags=False):
        """Tree `index` as nested dicts from its root(s) (a list: one root, or one per PIMC
        world): action, mover, visits, available, reward (sums), children (in list order);
        with `flags`, also the solver's marks ("certain", "win", "loss", "decisive") and
        the sum of the game lengths backed up ("length")."""
        if not 0 <= index < self.ntrees:
            raise IndexError(f"no tree {index} (there are {self.ntrees})")
        cdef Tree* t = self.trees[index]
        return [_node_dict(t, root, flags) for root in self._roots(t)]

    def _sample_worlds(self, State state, int player, uint64_t key, belief, int count):
        """`count` worlds the first tree would search from `state` for `player` (seeded by
        `key`, dealt with `belief` as the search deals them): each as every player's hand
        (card ids, sorted; the player's own as it is)."""
        cdef Tree* t = self.trees[0]
        cdef int i, q, x, k
        table = self._belief_table(state, player, belief)
        self._prepare(t, state, player, 0, key, False)
        self._set_belief(t, table)
        worlds = []
        for i in range(count):
            with nogil:
                deal_world(t, &t.world)
            worlds.append([[x for x in range(NUM_TYPES) for k in range(t.world.players[q].hand[x])]
                           for q in range(t.num_players)])
        return worlds

    def _set_stamp(self, uint32_t value):
        """Set every tree's availability stamp counter (to test its wrap-around)."""
        cdef int i
        for i in range(self.ntrees):
            self.trees[i].stamp = value

    def _check_trees(self):
        """What is wrong with the trees (an empty list when every invariant holds): every
        node reached once from a root, counts within the cap, visits and availability
        consistent between parents and children, reward sums within their bounds."""
        cdef int i
        problems = []
        for i in range(self.ntrees):
            problems.extend(f"tree {i}: {text}" for text in _tree_problems(self.trees[i], self._roots(self.trees[i])))
        return problems


cdef dict _node_dict(Tree* t, int index, bint flags):
    cdef Node* nd = &t.nodes[index]
    cdef int child = nd.first_child, p
    children = []
    while child >= 0:
        children.append(_node_dict(t, child, flags))
        child = t.nodes[child].next_sibling
    out = {"action": nd.action, "mover": nd.mover, "visits": nd.visits, "available": nd.avail,
           "reward": [nd.reward[p] for p in range(t.num_players)], "children": children}
    if flags:
        out["flags"] = {name for name, bit in (("certain", F_CERTAIN), ("win", F_WIN), ("loss", F_LOSS),
                                               ("decisive", F_DECISIVE)) if nd.flags & bit}
        out["length"] = nd.length
    return out


cdef list _tree_problems(Tree* t, list roots):
    cdef int node, child, p, reached = 0
    cdef Node* nd
    cdef Node* ch
    cdef double total
    cdef long child_visits
    problems = []
    if t.count > t.cfg.node_cap:
        problems.append(f"{t.count} nodes exceed the cap of {t.cfg.node_cap}")
        return problems
    seen = bytearray(t.count)
    parent_of = {}
    stack = list(roots)
    for node in roots:
        if t.nodes[node].mover != ROOT_MOVER:
            problems.append(f"root {node} has mover {t.nodes[node].mover}")
    while stack:
        node = stack.pop()
        if seen[node]:
            problems.append(f"node {node} is reached twice")
            return problems
        seen[node] = 1
        reached += 1
        nd = &t.nodes[node]
        total = 0
        for p in range(t.num_players):
            if not -1e-9 <= nd.reward[p] <= nd.visits + 1e-9:
                problems.append(f"node {node}: reward sum {nd.reward[p]} of player {p} outside 0..{nd.visits}")
            total += nd.reward[p]
        if (t.cfg.reward == REWARD_WIN and (t.num_players == 2 or (t.cfg.speed == 0 and t.cfg.vp_weight == 0))
                and abs(total - nd.visits) > 1e-6 * (1 + nd.visits)):
            problems.append(f"node {node}: win rewards sum to {total}, not its {nd.visits} visits")
        if nd.mover != ROOT_MOVER and (nd.mover >= t.num_players or nd.avail < 1 or nd.avail < nd.visits):
            problems.append(f"node {node}: mover {nd.mover}, available {nd.avail}, visits {nd.visits}")
        if nd.flags & F_WIN and nd.flags & F_LOSS:
            problems.append(f"node {node}: proven both won and lost")
        if nd.flags & (F_WIN | F_LOSS) and not nd.flags & F_CERTAIN:
            problems.append(f"node {node}: proven without being certain")
        if nd.flags & F_CERTAIN and node not in roots and not t.nodes[parent_of[node]].flags & F_CERTAIN:
            problems.append(f"node {node}: certain under an uncertain parent")
        child_visits = 0
        actions = set()
        child = nd.first_child
        while child >= 0:
            if not 0 <= child < t.count:
                problems.append(f"node {node}: child index {child} out of range")
                return problems
            ch = &t.nodes[child]
            if ch.action in actions:
                problems.append(f"node {node}: two children for action {ch.action}")
            actions.add(ch.action)
            parent_of[child] = node
            if ch.avail > nd.visits:
                problems.append(f"node {child}: available {ch.avail} times, its parent visited {nd.visits}")
            child_visits += ch.visits
            stack.append(child)
            child = ch.next_sibling
        if child_visits > nd.visits:
            problems.append(f"node {node}: children visited {child_visits} times, the node {nd.visits}")
    if reached != t.count:
        problems.append(f"{t.count - reached} of {t.count} nodes are not reached from a root")
    return problems


cdef int compact_subtree(Tree* t, int new_root) noexcept nogil:
    # Move the subtree under new_root to the front of the node array (breadth first),
    # renumbering its links; everything else is dropped. -1 (tree unchanged) without
    # the memory to do it.
    cdef int* order = <int*>malloc(t.count * sizeof(int))
    cdef int* new_index = <int*>malloc(t.count * sizeof(int))
    cdef Node* copy = <Node*>malloc(t.count * sizeof(Node))
    cdef int head = 0, tail = 0, node, child, i
    if order == NULL or new_index == NULL or copy == NULL:
        free(order)
        free(new_index)
        free(copy)
        return -1
    for i in range(t.count):
        new_index[i] = -1
    order[tail] = new_root
    new_index[new_root] = 0
    tail += 1
    while head < tail:
        node = order[head]
        head += 1
        child = t.nodes[node].first_child
        while child >= 0:
            new_index[child] = tail
            order[tail] = child
            tail += 1
            child = t.nodes[child].next_sibling
    for i in range(tail):
        copy[i] = t.nodes[order[i]]
        if copy[i].first_child >= 0:
            copy[i].first_child = new_index[copy[i].first_child]
        if copy[i].next_sibling >= 0:
            copy[i].next_sibling = new_index[copy[i].next_sibling]
    copy[0].next_sibling = -1
    copy[0].mover = ROOT_MOVER
    memcpy(t.nodes, copy, tail * sizeof(Node))
    t.count = tail
    free(order)
    free(new_index)
    free(copy)
    return 0


# ---- test hooks: one selection step, rewards, the evaluation -------------------------------

_FLAG_BITS = {"certain": F_CERTAIN, "win": F_WIN, "loss": F_LOSS, "decisive": F_DECISIVE}


def _select(children, legal, int mover, double c, algorithm="ismcts", flags=None, bint solver=False):
    """One selection step at a hand-built node, with the code the search runs:
    `children` is a list of (action, visits, availability, reward sums per player) in
    child-list order, `legal` this world's legal actions; `flags` (with `solver`) the
    solver's marks of each child (sets of "certain", "win", "loss", "decisive"). Returns
    (the index of the chosen child or None, the children's availability afterwards, the
    untried legal actions)."""
    cdef Tree* t
    cdef int i, p, child, untried, best
    cdef bint decisive
    cdef Node* nd
    if not 0 <= mover < 5 or len(legal) > MAX_LEGAL or any(
            not 0 <= a < NUM_DISTINCT_ACTIONS for a in list(legal) + [row[0] for row in children]):
        raise ValueError("a mover 0..4 and action ids within the action space")
    t = tree_new(len(children) + 1)
    if t == NULL:
        raise MemoryError()
    try:
        t.cfg.algorithm = _ALGORITHMS[algorithm]
        t.cfg.c = c
        t.cfg.solver = solver
        t.num_players = 5
        new_node(t, 0, ROOT_MOVER)
        for i in reversed(range(len(children))):          # add_child puts each first
            action, visits, available, reward = children[i]
            child = add_child(t, 0, action, mover)
            nd = &t.nodes[child]
            nd.visits = visits
            nd.avail = available
            for p in range(len(reward)):
                nd.reward[p] = reward[p]
            for name in (flags[i] if flags is not None else ()):
                nd.flags |= _FLAG_BITS[name]
        for i in range(len(legal)):
            t.legal[i] = legal[i]
        best = select_child(t, 0, len(legal), mover, &untried, &decisive)
        index_of = {}
        avail = []
        child = t.nodes[0].first_child
        while child >= 0:
            index_of[child] = len(avail)
            avail.append(t.nodes[child].avail)
            child = t.nodes[child].next_sibling
        return (index_of[best] if best >= 0 else None, avail, [t.legal[i] for i in range(untried)])
    finally:
        tree_free(t)


cdef CompiledModel _compiled(style, model):
    # the evaluation model of a test hook: `model` (an EvalModel), else the style (a name or
    # a style's weights), else the balanced style
    from .models import linear_model, style_model, style_weights

    if model is not None:
        return CompiledModel(model)
    if style is None or isinstance(style, str):
        return CompiledModel(style_model(style or "balanced"))
    return CompiledModel(linear_model(style_weights(style)))


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
        t.cfg.reward = {"win": REWARD_WIN, "rank": REWARD_RANK, "margin": REWARD_MARGIN}[reward]
        t.cfg.temperature = temperature if compiled.model.output == "value" else 1.0
        t.num_players = state.s.cfg.num_players
        t.cfg.model = compiled.m
        t.cfg.speed = speed
        t.cfg.vp_weight = vp
        if state.s.turn.phase == PH_OVER:
            terminal_rewards(t, state.s)
        else:
            cutoff_rewards(t, state.s)
        finish_rewards(t, state.s)
        return [t.rewards[p] for p in range(t.num_players)]
    finally:
        tree_free(t)


def _decisive(State state, bint every=False):
    """The decisive move the solver finds for the player to move in `state` as it is (true
    hidden cards included): the first legal action, in the engine's order, after which
    the game is over with that player its only winner, or None; looked for only where
    that player may end the game now. `every` tries every legal action (the reference);
    otherwise only those that can end the game at all, as the search does."""
    cdef GameState* scratch
    cdef uint16_t legal[MAX_LEGAL]
    cdef int n, found
    if state.s.turn.phase == PH_OVER:
        return None
    scratch = <GameState*>malloc(sizeof(GameState))
    if scratch == NULL:
        raise MemoryError()
    try:
        with nogil:
            n = legal_actions_into(state.s, legal)
            found = decisive_action(state.s, legal, n, state.s.turn.decider, scratch, every)
    finally:
        free(scratch)
    if found == -2:
        raise RuntimeError(_overflow_message("the search of a decisive move"))
    return None if found < 0 else found


def _may_end(State state):
    """The legal actions of `state` that the decisive-move scan tries (all of them when any
    action may end the game here), in the engine's order."""
    cdef uint16_t legal[MAX_LEGAL]
    cdef int n, i, m, sites = 0
    cdef bint every
    if state.s.turn.phase == PH_OVER:
        return []
    n = legal_actions_into(state.s, legal)
    every = every_action_may_end(state.s)
    for m in range(6):
        sites += state.s.in_town[m]
    return [legal[i] for i in range(n) if every or action_may_end(state.s, legal[i], sites)]


def _evaluate(State state, int player, style=None, model=None):
    """The evaluation of `state` for `player` (reads the state as given): in VP under
    `style` (default balanced), or what the search compares under `model`."""
    cdef CompiledModel compiled = _compiled(style, model)
    cdef int who = state._check_player(player)
    cdef EvalScratch* scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
    cdef double value
    if scratch == NULL:
        raise MemoryError()
    value = evaluate(state.s, who, &compiled.m, scratch)
    free(scratch)
    return value


def _features(list states, list players):
    """The feature vectors of states[i] for players[i], computed with the GIL released
    through the engine's C API (features_c): rows of a numpy array (a test hook)."""
    import numpy as np

    cdef Py_ssize_t i, count = len(states)
    cdef GameState** views = <GameState**>malloc(max(count, 1) * sizeof(GameState*))
    cdef int* who = <int*>malloc(max(count, 1) * sizeof(int))
    out = np.zeros((count, NUM_FEATURES))
    cdef double[:, ::1] rows = out
    if views == NULL or who == NULL:
        free(views)
        free(who)
        raise MemoryError()
    try:
        for i in range(count):
            views[i] = (<State?>states[i]).s
            who[i] = (<State>states[i])._check_player(players[i])
        with nogil:
            for i in range(count):
                features_c(views[i], who[i], NULL, &rows[i, 0])
    finally:
        free(views)
        free(who)
    return out


# ---- the heuristic policy for Python bots -----------------------------------------------

cdef class PolicyPlayer:
    """The one-ply heuristic policy for one player: heuristic and greedy bots."""

    cdef CompiledModel model
    cdef double epsilon
    cdef uint64_t seed
    cdef GameState* world
    cdef GameState* scratch
    cdef EvalScratch* eval_scratch

    def __cinit__(self):
        self.world = NULL
        self.scratch = NULL
        self.eval_scratch = NULL

    def __init__(self, model, double epsilon, uint64_t seed):
        self.model = CompiledModel(model)
        self.epsilon = epsilon
        self.seed = seed
        self.world = <GameState*>malloc(sizeof(GameState))
        self.scratch = <GameState*>malloc(sizeof(GameState))
        self.eval_scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
        if self.world == NULL or self.scratch == NULL or self.eval_scratch == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.world)
        free(self.scratch)
        free(self.eval_scratch)

    def choose(self, State state, int player, uint64_t key):
        """The policy's action for `player` (to move) in one world consistent with what it
        knows (the hidden cards are dealt at random from the bot's own seeded generator)."""
        cdef uint16_t legal[MAX_LEGAL]
        cdef uint64_t rng = gr_rng_seed(self.seed ^ gr_rng_seed(key))
        cdef int n, action
        with nogil:
            memcpy(self.world, state.s, used_size(state.s))
            canonicalize_hidden(self.world, player)
            determinize_c(self.world, player, &rng)
            n = legal_actions_into(self.world, legal)
            action = policy_choose(self.world, legal, n, &self.model.m, self.epsilon, &rng, self.scratch,
                                   self.eval_scratch)
        if action == POLICY_OVERFLOW:
            raise RuntimeError(_overflow_message("the heuristic policy"))
        return action


# ---- wins within the turn (the tactical suite, benchmarks/make_tactics.py) -----------------

cdef enum:
    TURN_WIN_DEPTH = 64      # decisions followed at most (a turn is rarely longer)

cdef int turn_win_search(GameState* s, int player, uint32_t turn, GameState* stack,
                         uint16_t* legal, int depth, long* budget) noexcept nogil:
    # Does `player` win alone, by force, before the turn `turn` is over? Its own decisions
    # are choices (one winning move suffices), everyone else's are replies (every one must
    # fail to stop it). 1 yes, 0 no, -1 the node budget ran out, -2 a move exceeded an
    # engine capacity.
    cdef int n, i, result
    cdef bint own
    cdef GameState* child
    cdef uint16_t* moves
    if s.turn.phase == PH_OVER:
        return 1 if winners_mask_of(s) == (1 << player) else 0
    if s.turn.turn_number != turn or depth >= TURN_WIN_DEPTH:
        return 0
    budget[0] -= 1
    if budget[0] < 0:
        return -1
    moves = &legal[depth * MAX_LEGAL]
    n = legal_actions_into(s, moves)
    if n <= 0:
        return 0
    own = s.turn.decider == player
    child = &stack[depth]
    for i in range(n):
        memcpy(child, s, used_size(s))
        if apply_action_c(child, moves[i]) == -2:
            return -2
        result = turn_win_search(child, player, turn, stack, legal, depth + 1, budget)
        if result < 0:
            return -1
        if own and result == 1:
            return 1
        if not own and result == 0:
            return 0
    return 0 if own else 1


def _turn_wins(State state, long max_nodes=1_000_000):
    """The actions of the player to move after which it wins alone by force before the
    current turn ends (its own later decisions are choices, everyone else's are replies),
    searched exhaustively in `state` as it is (true hidden cards included: call it on
    determinizations to ask about an information set), lines followed TURN_WIN_DEPTH (64)
    decisions deep. None when the search would take more than `max_nodes` positions or
    the game is over."""
    cdef GameState* stack
    cdef uint16_t* legal
    cdef GameState* child
    cdef uint16_t first[MAX_LEGAL]
    cdef long budget = max_nodes
    cdef int n, i, result, player
    cdef uint32_t turn
    if state.s.turn.phase == PH_OVER:
        return None
    player = state.s.turn.decider
    turn = state.s.turn.turn_number
    stack = <GameState*>malloc((TURN_WIN_DEPTH + 1) * sizeof(GameState))
    legal = <uint16_t*>malloc((TURN_WIN_DEPTH + 1) * MAX_LEGAL * sizeof(uint16_t))
    child = <GameState*>malloc(sizeof(GameState))
    try:
        if stack == NULL or legal == NULL or child == NULL:
            raise MemoryError()
        wins = []
        with nogil:
            n = legal_actions_into(state.s, first)
        for i in range(n):
            with nogil:
                memcpy(child, state.s, used_size(state.s))
                result = -2 if apply_action_c(child, first[i]) == -2 else turn_win_search(
                    child, player, turn, stack, legal, 1, &budget)
            if result == -2:
                raise RuntimeError(_overflow_message("the search of wins within the turn"))
            if result < 0:
                return None
            if result == 1:
                wins.append(first[i])
        return sorted(wins)
    finally:
        free(stack)
        free(legal)
        free(child)
