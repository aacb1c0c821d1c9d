# The search tree: nodes in one preallocated array per tree, children as a linked list of
# node indices (new_node, add_child, find_child), the Tree (one search thread's whole
# working set), the availability stamps, and compact_subtree, which keeps the subtree of
# the moves played when a tree is reused. Test hooks: a tree as dicts, its invariants.
#
# Included by _search.pyx; the search-time functions are noexcept nogil.

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef enum:
    PRIOR_CACHE_START = 4096     # (prior=) entries of a tree's first cache of logits
    PRIOR_CACHE_MAX = 1 << 30    # and at most: past it the search stops with SEARCH_NO_MEMORY


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


ctypedef struct PriorEntry:
    # (prior=) one cached logit of a node: a list per node in Tree.prior_cache
    int32_t next             # the node's next entry (-1: none)
    uint16_t action
    float logit


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
    uint64_t pair_seed       # (paired=) the seed of this search's common random numbers
    int root_legal           # (paired=) the root's legal actions (the same in every world)
    double seconds
    int full                 # a child could not be added: the node cap was reached
    int error                # SEARCH_OK, or what went wrong (raised by the caller)
    int error_detail
    float* prior             # (prior=) per node: its action's prior at its parent (NULL: off)
    int32_t* prior_head      # (prior=) per node: its first entry in prior_cache (-1: none)
    PriorEntry* prior_cache  # (prior=) the logits computed, one per (node, action); grows by doubling
    int prior_count
    int prior_cap
    float* prior_value       # (prior=) per action id: its logit at the node being expanded


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
    free(t.prior)
    free(t.prior_head)
    free(t.prior_cache)
    free(t.prior_value)
    free(t)


cdef int tree_prior_on(Tree* t) noexcept nogil:
    # the prior's per-node arrays, its per-action table and a first cache (-1: no memory)
    t.prior = <float*>calloc(t.cfg.node_cap, sizeof(float))
    t.prior_head = <int32_t*>malloc(<size_t>t.cfg.node_cap * sizeof(int32_t))
    t.prior_value = <float*>calloc(NUM_DISTINCT_ACTIONS, sizeof(float))
    t.prior_cap = PRIOR_CACHE_START
    t.prior_cache = <PriorEntry*>malloc(<size_t>t.prior_cap * sizeof(PriorEntry))
    if t.prior == NULL or t.prior_head == NULL or t.prior_value == NULL or t.prior_cache == NULL:
        return -1
    return 0


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
    if t.prior_head != NULL:
        t.prior_head[t.count] = -1
        if t.count == 0:
            t.prior_count = 0            # a tree begun afresh: the cached logits were its old nodes'
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
        out["flags"] = {name for name, bit in _FLAG_BITS.items() if nd.flags & bit}
        out["length"] = nd.length
    if t.prior_head != NULL:
        out["prior"] = t.prior[index]
        out["logits"] = logits = {}
        p = t.prior_head[index]
        while p >= 0:
            logits[t.prior_cache[p].action] = t.prior_cache[p].logit
            p = t.prior_cache[p].next
    return out


cdef list _prior_cache_problems(Tree* t, int node):
    # (prior=) a node's cached logits: entries in range, an action at most once (so no cycle)
    cdef int32_t e = t.prior_head[node]
    cached = set()
    while e >= 0:
        if e >= t.prior_count:
            return [f"node {node}: cached logit {e} out of range (of {t.prior_count})"]
        if t.prior_cache[e].action in cached:
            return [f"node {node}: the logit of action {t.prior_cache[e].action} cached twice"]
        cached.add(t.prior_cache[e].action)
        e = t.prior_cache[e].next
    return []


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
        if t.prior_head != NULL:
            problems.extend(_prior_cache_problems(t, node))
    if reached != t.count:
        problems.append(f"{t.count - reached} of {t.count} nodes are not reached from a root")
    return problems


cdef int compact_prior_cache(Tree* t, int* order, int kept) noexcept nogil:
    # (prior=) the cached logits of the nodes order[0..kept), each node's list kept in its
    # order and made contiguous, the node's new index being its place in order; -1 (cache
    # unchanged) without the memory to do it
    cdef PriorEntry* fresh = <PriorEntry*>malloc(<size_t>t.prior_cap * sizeof(PriorEntry))
    cdef int32_t* heads = <int32_t*>malloc(<size_t>kept * sizeof(int32_t))
    cdef int i, k = 0
    cdef int32_t e
    if fresh == NULL or heads == NULL:
        free(fresh)
        free(heads)
        return -1
    for i in range(kept):
        e = t.prior_head[order[i]]
        heads[i] = k if e >= 0 else -1
        while e >= 0:
            fresh[k] = t.prior_cache[e]
            e = fresh[k].next
            fresh[k].next = k + 1 if e >= 0 else -1
            k += 1
    memcpy(t.prior_head, heads, kept * sizeof(int32_t))
    free(heads)
    free(t.prior_cache)
    t.prior_cache = fresh
    t.prior_count = k
    return 0


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
    if t.prior_head != NULL and compact_prior_cache(t, order, tail) < 0:
        free(order)
        free(new_index)
        free(copy)
        return -1
    for i in range(tail):
        copy[i] = t.nodes[order[i]]
        if copy[i].first_child >= 0:
            copy[i].first_child = new_index[copy[i].first_child]
        if copy[i].next_sibling >= 0:
            copy[i].next_sibling = new_index[copy[i].next_sibling]
    copy[0].next_sibling = -1
    copy[0].mover = ROOT_MOVER
    memcpy(t.nodes, copy, tail * sizeof(Node))
    if t.prior != NULL:
        # the priors follow their nodes, as their cached logits did (compact_prior_cache) (copy's first slots reused: the nodes are placed)
        for i in range(tail):
            (<float*>copy)[i] = t.prior[order[i]]
        memcpy(t.prior, copy, tail * sizeof(float))
    t.count = tail
    free(order)
    free(new_index)
    free(copy)
    return 0
