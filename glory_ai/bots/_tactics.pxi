# Wins within the turn: an exhaustive search of whether the player to move wins alone,
# by force, before the turn is over. The tactical suite (benchmarks/make_tactics.py) is
# built with it and the tests prove the suite's winning moves with it; the search bots run
# it at the root on determinizations before their tree search (root_turn_win, turnwin=;
# docs/bots.md, "A win within the turn").
#
# Included by _search.pyx.

cdef enum:
    TURN_WIN_DEPTH = 64      # decisions followed at most (a turn is rarely longer)
    TURN_WIN_CLOCK_EVERY = 256   # nodes between clock reads under a deadline


ctypedef struct TurnWinBudget:
    long nodes               # positions left to search
    double deadline          # on the clock below, when to give up (0: no deadline)
    bint cpu_clock           # the deadline is the thread's CPU time, not wall time


cdef inline bint turn_win_spent(TurnWinBudget* budget) noexcept nogil:
    # count one position; out of nodes, or (every TURN_WIN_CLOCK_EVERY) past the deadline
    budget.nodes -= 1
    if budget.nodes < 0:
        return True
    if budget.deadline <= 0 or budget.nodes % TURN_WIN_CLOCK_EVERY:
        return False
    return (gr_thread_cpu_seconds() if budget.cpu_clock else gr_now_seconds()) > budget.deadline


cdef int turn_win_search(GameState* s, int player, uint32_t turn, GameState* stack,
                         uint16_t* legal, int depth, TurnWinBudget* budget) noexcept nogil:
    # Does `player` win alone, by force, before the turn `turn` is over? Its own decisions
    # are choices (one winning move suffices), everyone else's are replies (every one must
    # fail to stop it). 1 yes, 0 no, -1 the node budget ran out, -2 a move exceeded an
    # engine capacity.
    cdef int n, i, result
    cdef bint own
    cdef GameState* child
    cdef uint16_t* moves
    if is_terminal_c(s):
        return 1 if winners_mask_of(s) == (1 << player) else 0
    if turn_number_c(s) != turn or depth >= TURN_WIN_DEPTH:
        return 0
    if turn_win_spent(budget):
        return -1
    moves = &legal[depth * MAX_LEGAL]
    n = legal_actions_into(s, moves)
    if n <= 0:
        return 0
    own = current_player_c(s) == player
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
    cdef TurnWinBudget budget
    cdef int n, i, result, player
    cdef uint32_t turn
    if is_terminal_c(state.s):
        return None
    player = current_player_c(state.s)
    turn = turn_number_c(state.s)
    budget.nodes = max_nodes
    budget.deadline = 0
    budget.cpu_clock = False
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


# ---- the search bots' root win search (turnwin=) ---------------------------------------

ctypedef struct TurnWinScratch:
    GameState* stack         # TURN_WIN_DEPTH + 1 positions; stack[0]: after the first move
    uint16_t* legal          # (TURN_WIN_DEPTH + 1) * MAX_LEGAL actions; the first MAX_LEGAL: the root's
    GameState* worlds        # the worlds dealt (turnwin_worlds of them at most)


cdef bint turn_win_scratch_new(TurnWinScratch* sc, int worlds) noexcept nogil:
    sc.stack = <GameState*>malloc((TURN_WIN_DEPTH + 1) * sizeof(GameState))
    sc.legal = <uint16_t*>malloc((TURN_WIN_DEPTH + 1) * MAX_LEGAL * sizeof(uint16_t))
    sc.worlds = <GameState*>malloc(worlds * sizeof(GameState))
    return sc.stack != NULL and sc.legal != NULL and sc.worlds != NULL


cdef void turn_win_scratch_free(TurnWinScratch* sc) noexcept nogil:
    free(sc.stack)
    free(sc.legal)
    free(sc.worlds)
    sc.stack = NULL
    sc.legal = NULL
    sc.worlds = NULL


cdef int root_turn_win(Tree* t, int player, TurnWinScratch* sc, int nworlds, TurnWinBudget* budget,
                       int* dealt) noexcept nogil:
    # A first move of `player` (to move at t.root) after which it wins alone, by force,
    # before the turn is over, in each of `nworlds` worlds dealt as the tree deals them
    # (deal_world: determinizations of t.root, drawn from t.rng); -1 when no move does or
    # the budget runs out first. Moves are tried in the engine's order, each in world 0
    # first: a later world is dealt (dealt[0] counts them) only for a move that has won in
    # every world before it, so a position without a win costs one world's search.
    cdef uint32_t turn = turn_number_c(&t.root)
    cdef uint16_t* first = sc.legal
    cdef int n, i, k, result = 0
    deal_world(t, &sc.worlds[0])
    dealt[0] = 1
    n = legal_actions_into(&sc.worlds[0], first)     # the same in every world: the mover's own
    for i in range(n):
        for k in range(nworlds):
            if k >= dealt[0]:
                deal_world(t, &sc.worlds[k])
                dealt[0] += 1
            memcpy(&sc.stack[0], &sc.worlds[k], used_size(&sc.worlds[k]))
            if apply_action_c(&sc.stack[0], first[i]) == -2:
                return -1
            result = turn_win_search(&sc.stack[0], player, turn, sc.stack, sc.legal, 1, budget)
            if result != 1:
                break
        if result == 1:
            return first[i]
        if result < 0:
            return -1                 # undecided: the tree search decides
    return -1


def _turn_win_holds(State state, int player, long max_nodes=1_000_000):
    """Whether `player` (to move or not) wins alone by force before the current turn ends,
    searched exhaustively in `state` as it is (true hidden cards included), as _turn_wins
    searches; None when the search would take more than `max_nodes` positions. For the
    in-turn suite's opponents (benchmarks/inturn.py): a reply after which it is False
    refutes the player's line."""
    cdef GameState* stack
    cdef uint16_t* legal
    cdef TurnWinBudget budget
    cdef int result
    if not 0 <= player < num_players_c(state.s):
        raise ValueError(f"no player {player} in a {num_players_c(state.s)}-player game")
    if is_terminal_c(state.s):
        return winners_mask_of(state.s) == (1 << player)
    budget.nodes = max_nodes
    budget.deadline = 0
    budget.cpu_clock = False
    stack = <GameState*>malloc((TURN_WIN_DEPTH + 1) * sizeof(GameState))
    legal = <uint16_t*>malloc((TURN_WIN_DEPTH + 1) * MAX_LEGAL * sizeof(uint16_t))
    try:
        if stack == NULL or legal == NULL:
            raise MemoryError()
        with nogil:
            result = turn_win_search(state.s, player, turn_number_c(state.s), stack, legal, 0, &budget)
        if result == -2:
            raise RuntimeError(_overflow_message("the search of wins within the turn"))
        return None if result < 0 else result == 1
    finally:
        free(stack)
        free(legal)
