# Evaluation models in C (docs/evaluation.md): a linear model or a small MLP over the
# engine's feature vector (features_c), evaluated without the GIL. The weights live in one
# block owned by a CompiledModel (Python) and are only read by the search threads; each
# thread evaluates into its own EvalScratch.
#
# Included by _search.pyx; the evaluation is noexcept nogil and allocation-free.

cdef enum:
    OUTPUT_VALUE = 0         # VP-like: compared between players through the reward mapping
    OUTPUT_WIN_LOGIT = 1     # a win logit per player
    OUTPUT_WIN_SHARE = 2     # a win share per player (the search uses its logarithm)
    MODEL_MAX_LAYERS = 5     # dense layers, the output layer included (models.MAX_HIDDEN_LAYERS + 1)
    MODEL_MAX_UNITS = 512    # units of a hidden layer (models.MAX_UNITS)

# the smallest win share the search takes the logarithm of (a share of 0 stays comparable)
cdef double SHARE_FLOOR = 1e-9

ctypedef struct Model:
    int output                            # OUTPUT_*
    int layers                            # dense layers (1: a linear model)
    int units[MODEL_MAX_LAYERS + 1]       # units[0] = NUM_FEATURES, units[layers] = 1
    const double* weight[MODEL_MAX_LAYERS]  # layer k: units[k] rows of units[k + 1] (input-major)
    const double* bias[MODEL_MAX_LAYERS]
    const double* gain                    # the gain weights of pending_gain_* (NULL: the reference)

ctypedef struct EvalScratch:
    # one thread's buffers: the feature vector and two hidden layers (a multiple of 64
    # bytes, so what follows it in a Tree stays on its cache lines)
    double hidden[2][MODEL_MAX_UNITS]
    double features[NUM_FEATURES]
    double pad[(8 - NUM_FEATURES % 8) % 8]


cdef double model_output(const Model* m, const double* x, EvalScratch* scratch) noexcept nogil:
    # The model's output for the input x. In a hidden layer a zero input (most features of
    # a position, and every unit ReLU cut) adds nothing, so it is skipped: the layer costs
    # one row of weights per non-zero input, contiguous in memory. The output layer is a
    # dot product.
    cdef int k, i, j, n_in, n_out, last = m.layers - 1
    cdef const double* inputs = x
    cdef const double* row
    cdef double* out
    cdef double a
    for k in range(last):
        n_in = m.units[k]
        n_out = m.units[k + 1]
        out = scratch.hidden[k & 1]
        memcpy(out, m.bias[k], n_out * sizeof(double))
        for i in range(n_in):
            a = inputs[i]
            if a != 0:
                row = m.weight[k] + <size_t>i * n_out
                for j in range(n_out):
                    out[j] += a * row[j]
        for j in range(n_out):
            if out[j] < 0:
                out[j] = 0
        inputs = out
    return m.bias[last][0] + dot(inputs, m.weight[last], m.units[last])


cdef inline double dot(const double* x, const double* w, int n) noexcept nogil:
    # four running sums in a fixed order (no branch, no chain of dependent additions):
    # the same bits on every call, whoever calls
    cdef double s0 = 0, s1 = 0, s2 = 0, s3 = 0
    cdef int i = 0
    while i + 4 <= n:
        s0 += x[i] * w[i]
        s1 += x[i + 1] * w[i + 1]
        s2 += x[i + 2] * w[i + 2]
        s3 += x[i + 3] * w[i + 3]
        i += 4
    while i < n:
        s0 += x[i] * w[i]
        i += 1
    return (s0 + s1) + (s2 + s3)


cdef inline double model_value(const Model* m, double output) noexcept nogil:
    # What the search compares between players: the output itself, or for a win share its
    # logarithm (so the cutoff's softmax gives back the normalised shares)
    if m.output == OUTPUT_WIN_SHARE:
        if output < SHARE_FLOOR:
            output = SHARE_FLOOR
        elif output > 1:
            output = 1
        return log(output)
    return output


cdef class CompiledModel:
    """An evaluation model (glory_ai.bots.models.EvalModel) copied into C memory for the
    search and the one-ply policy: the normalisation is folded into the first layer."""

    cdef Model m
    cdef double* memory
    cdef readonly object model

    def __cinit__(self):
        self.memory = NULL
        memset(&self.m, 0, sizeof(Model))

    def __init__(self, model):
        import numpy as np

        from .models import OUTPUTS

        cdef int k, total = 0
        cdef Py_ssize_t size
        cdef double* at
        cdef const double[::1] values
        layers = [(np.array(w, dtype=np.float64), np.array(b, dtype=np.float64)) for w, b in model.layers]
        if not 1 <= len(layers) <= MODEL_MAX_LAYERS:
            raise ValueError(f"a model has 1 to {MODEL_MAX_LAYERS} layers, not {len(layers)}")
        if model.mean is not None:
            # (x - mean) / scale . W + b = x . (W / scale) + (b - (mean / scale) . W)
            weight, bias = layers[0]
            shift = np.asarray(model.mean, dtype=np.float64) / np.asarray(model.scale, dtype=np.float64)
            layers[0] = (weight / np.asarray(model.scale, dtype=np.float64)[:, None], bias - shift @ weight)
        inputs = NUM_FEATURES
        for k, (weight, bias) in enumerate(layers):
            last = k == len(layers) - 1
            if (weight.shape[0] != inputs or bias.shape != (weight.shape[1],)
                    or (last and weight.shape[1] != 1) or not 1 <= weight.shape[1] <= MODEL_MAX_UNITS):
                raise ValueError(f"layer {k + 1} of the model has the wrong shape")
            inputs = weight.shape[1]
            total += weight.size + bias.size
        if model.gain is not None:
            total += NUM_FEATURES
        self.memory = <double*>malloc(total * sizeof(double))
        if self.memory == NULL:
            raise MemoryError()
        self.m.output = OUTPUTS.index(model.output)
        self.m.layers = len(layers)
        self.m.units[0] = NUM_FEATURES
        at = self.memory
        for k, (weight, bias) in enumerate(layers):
            self.m.units[k + 1] = weight.shape[1]
            flat = np.ascontiguousarray(weight).ravel()
            values = flat
            size = flat.size
            memcpy(at, &values[0], size * sizeof(double))
            self.m.weight[k] = at
            at += size
            values = np.ascontiguousarray(bias)
            size = bias.size
            memcpy(at, &values[0], size * sizeof(double))
            self.m.bias[k] = at
            at += size
        if model.gain is not None:
            values = np.ascontiguousarray(model.gain, dtype=np.float64)
            if values.shape[0] != NUM_FEATURES:
                raise ValueError(f"the model's gain weights are {values.shape[0]} numbers, not {NUM_FEATURES}")
            memcpy(at, &values[0], NUM_FEATURES * sizeof(double))
            self.m.gain = at
        self.model = model

    def __dealloc__(self):
        free(self.memory)

    def _outputs(self, features):
        """The C evaluation of each row of `features` (a test hook; any finite numbers)."""
        import numpy as np

        rows = np.ascontiguousarray(np.atleast_2d(np.asarray(features, dtype=np.float64)))
        if rows.shape[1] != NUM_FEATURES:
            raise ValueError(f"expected {NUM_FEATURES} features per row, got shape {rows.shape}")
        out = np.empty(rows.shape[0])
        cdef double[:, ::1] x = rows
        cdef double[::1] y = out
        cdef EvalScratch* scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
        cdef Py_ssize_t r
        if scratch == NULL:
            raise MemoryError()
        with nogil:
            for r in range(x.shape[0]):
                y[r] = model_output(&self.m, &x[r, 0], scratch)
        free(scratch)
        return out


def _evaluation_loop(list states, model, long repeats, bint features_only=False):
    """Evaluate every player of every state `repeats` times without the GIL (features_c
    alone with features_only) and return the number of evaluations: a benchmark hook (the
    caller times it)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef Py_ssize_t i, count = len(states)
    cdef long r, done = 0
    cdef int p
    cdef double sink = 0
    cdef GameState** views = <GameState**>malloc(max(count, 1) * sizeof(GameState*))
    cdef EvalScratch* scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
    if views == NULL or scratch == NULL:
        free(views)
        free(scratch)
        raise MemoryError()
    for i in range(count):
        views[i] = (<State?>states[i]).s
    with nogil:
        for r in range(repeats):
            for i in range(count):
                for p in range(num_players_c(views[i])):
                    if features_only:
                        features_c(views[i], p, NULL, scratch.features)
                        sink += scratch.features[0]
                    else:
                        sink += evaluate(views[i], p, &compiled.m, scratch)
                    done += 1
    free(views)
    free(scratch)
    return done if sink == sink else -1


def _action_values(State state, model):
    """The one-ply value of each legal action for the player to move, as the policies weigh
    it (eval_relative of the result, plus 1000 for a win or -1000 for a loss that ends the
    game), in legal_actions() order (a test hook)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef GameState* trial = <GameState*>malloc(sizeof(GameState))
    cdef EvalScratch* scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
    cdef int p = current_player_c(state.s)
    if trial == NULL or scratch == NULL:
        free(trial)
        free(scratch)
        raise MemoryError()
    try:
        return [action_value(state.s, action, p, &compiled.m, trial, scratch) for action in state.legal_actions()]
    finally:
        free(trial)
        free(scratch)


def _softmax_draws(State state, model, double temperature, int draws, uint64_t seed):
    """How often the model rollout policy (softmax_choose) picks each legal action in
    `draws` draws from the state as given: a list in legal_actions() order (a test hook)."""
    cdef CompiledModel compiled = model if isinstance(model, CompiledModel) else CompiledModel(model)
    cdef uint16_t legal[MAX_LEGAL]
    cdef GameState* trial = <GameState*>malloc(sizeof(GameState))
    cdef EvalScratch* scratch = <EvalScratch*>malloc(sizeof(EvalScratch))
    cdef uint64_t rng = gr_rng_seed(seed)
    cdef int i, n, action
    if trial == NULL or scratch == NULL:
        free(trial)
        free(scratch)
        raise MemoryError()
    n = legal_actions_into(state.s, legal)
    index = {legal[i]: i for i in range(n)}
    counts = [0] * n
    try:
        for i in range(draws):
            with nogil:
                action = softmax_choose(state.s, legal, n, &compiled.m, temperature, &rng, trial, scratch)
            counts[index[action]] += 1
    finally:
        free(trial)
        free(scratch)
    order = state.legal_actions()
    return [counts[index[a]] for a in order]


cdef CompiledModel _compiled(style, model):
    # the evaluation model of a test hook: `model` (an EvalModel), else the style (a name or
    # a style's weights), else the balanced style
    from .models import linear_model, style_model, style_weights

    if model is not None:
        return CompiledModel(model)
    if style is None or isinstance(style, str):
        return CompiledModel(style_model(style or "balanced"))
    return CompiledModel(linear_model(style_weights(style)))
