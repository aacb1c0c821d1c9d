"""Training evaluation models on self-play shards (``glory-ai train CONFIG.toml``).

What is learned: each player's chance to win a position, as the search reads a model whose
``output`` is ``win_logit`` (docs/evaluation.md, "Outputs"): the search takes the softmax
of the players' outputs as their win shares. So every model here is fitted, and judged, by
that softmax: the loss of a position is the cross-entropy between the players' actual win
shares and the softmax of their outputs (a *conditional logit* over the players).

* The **linear** model is fitted by scikit-learn's logistic regression on differences of
  feature vectors: under the softmax, the chance that the winner w rather than a loser q won
  is ``logistic(f(x_w) - f(x_q))``, a logistic regression on ``x_w - x_q`` without
  intercept (features the players share, such as the player count, cancel out).
* The **MLP** (scikit-learn's MLPClassifier) learns each player's own chance to win; its
  logits then go through the same softmax, with one temperature fitted on the training
  positions and folded into the output layer, so that the search's softmax is calibrated.
* The hand-set **balanced style** is scored the same way, its values divided by a
  temperature fitted on the training positions: its *calibrated* log loss, the figure to
  beat.

The split holds out whole deals (every game of a held-out deal, and so every rotation of
its cards). Training runs on one thread with fixed seeds: the same config and shards give
the same model files, byte for byte.
"""
from __future__ import annotations

import dataclasses
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .._jsonio import ConfigReadError, read_toml
from .._reading import open_regular
from ..bots.models import EvalModel, linear_model, mlp_model, style_weights
from ..bots.styles import STYLES
from ..core.engine import FEATURE_COUNT, FEATURE_SET_VERSION
from .npz import write_npz
from .shards import SHARD_FORMAT, LearnError, shard_paths

__all__ = ["Dataset", "TrainConfig", "TrainResult", "fit_linear", "fit_mlp", "fit_temperature",
           "load_dataset", "load_train_config", "position_log_loss", "softmax_shares", "train"]

Array = npt.NDArray[np.float64]

_TOP_KEYS = {"shards", "out", "seed", "holdout", "models", "choose", "per_count", "sharpen", "linear", "mlp"}
_LINEAR_KEYS = {"C", "prior"}
_MLP_KEYS = {"hidden", "epochs", "batch_size", "learning_rate", "alpha"}
MODELS = ("linear", "mlp")
#: the regularisation strengths of the linear model's curve in the report
C_PATH = (1e-5, 1e-4, 0.001, 0.01, 0.1, 1.0, 10.0)
#: folds (by deal) of the cross-validation that picks C when the config says "auto"
C_FOLDS = 4
#: the VP scale of the search's cutoff rewards under a style (its ``temperature`` option's
#: default): ``sharpen = "style"`` spreads a model's rewards as the style's are spread
SEARCH_TEMPERATURE_VP = 4.0


# ---- the config ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TrainConfig:
    """A training config (the keys of ``glory-ai train``'s TOML file, docs/learning.md)."""

    shards: tuple[Path, ...]
    out: Path | None = None
    seed: int = 0
    holdout: float = 0.2
    models: tuple[str, ...] = MODELS
    choose: str = "best"
    per_count: bool = True
    sharpen: float | str = 1.0
    C: float | str = "auto"
    prior: str | None = "balanced"
    hidden: tuple[int, ...] = (32,)
    epochs: int = 30
    batch_size: int = 200
    learning_rate: float = 0.001
    alpha: float = 0.0001
    source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"shards": [str(p) for p in self.shards], "seed": self.seed, "holdout": self.holdout,
                "models": list(self.models), "choose": self.choose, "per_count": self.per_count,
                **({} if self.sharpen == 1.0 else {"sharpen": self.sharpen}),
                "linear": {"C": self.C, "prior": self.prior or "none"},
                "mlp": {"hidden": list(self.hidden), "epochs": self.epochs, "batch_size": self.batch_size,
                        "learning_rate": self.learning_rate, "alpha": self.alpha}}


def _number(value: Any, where: str, low: float, high: float, integer: bool = False) -> Any:
    kind = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kind) or not (low <= value <= high) \
            or (not integer and not math.isfinite(value)):
        what = "an integer" if integer else "a number"
        raise LearnError(f"{where} must be {what} from {low:g} to {high:g}, got {value!r}")
    return value


def _keys(table: Any, allowed: set[str], where: str) -> Mapping[str, Any]:
    if not isinstance(table, Mapping):
        raise LearnError(f"{where} must be a table, got {table!r}")
    unknown = sorted(set(table) - allowed)
    if unknown:
        raise LearnError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(allowed))})")
    return table


def _c_value(value: Any, where: str) -> float | str:
    if value == "auto":
        return "auto"
    if isinstance(value, str):
        raise LearnError(f"{where}: [linear] C must be a number or \"auto\", got {value!r}")
    return float(_number(value, f"{where}: [linear] C", 1e-8, 1e6))


def parse_train_config(data: Mapping[str, Any], base: Path, where: str) -> TrainConfig:
    """A TrainConfig from the TOML's tables; paths relative to ``base``."""
    _keys(data, _TOP_KEYS, where)
    if "shards" not in data:
        raise LearnError(f"{where}: missing key 'shards' (self-play folders or shard files)")
    shards = data["shards"]
    if isinstance(shards, str):
        shards = [shards]
    if not isinstance(shards, list) or not shards or not all(isinstance(s, str) for s in shards):
        raise LearnError(f"{where}: shards must be a list of paths, got {shards!r}")
    out = data.get("out")
    if out is not None and not isinstance(out, str):
        raise LearnError(f"{where}: out must be a path, got {out!r}")
    models = data.get("models", list(MODELS))
    if isinstance(models, str):
        models = [models]
    if not isinstance(models, list) or not models or any(m not in MODELS for m in models) \
            or len(set(models)) != len(models):
        raise LearnError(f"{where}: models must list some of {', '.join(MODELS)}, got {models!r}")
    choose = data.get("choose", "best")
    if choose not in (*MODELS, "best") or (choose != "best" and choose not in models):
        raise LearnError(f"{where}: choose must be best or one of the models trained "
                         f"({', '.join(models)}), got {choose!r}")
    per_count = data.get("per_count", True)
    if not isinstance(per_count, bool):
        raise LearnError(f"{where}: per_count must be true or false, got {per_count!r}")
    sharpen = data.get("sharpen", 1.0)
    if sharpen != "style":
        if isinstance(sharpen, str):
            raise LearnError(f"{where}: sharpen must be a number or \"style\", got {sharpen!r}")
        sharpen = float(_number(sharpen, f"{where}: sharpen", 0.01, 100.0))
    linear = _keys(data.get("linear", {}), _LINEAR_KEYS, f"{where}: [linear]")
    mlp = _keys(data.get("mlp", {}), _MLP_KEYS, f"{where}: [mlp]")
    prior = linear.get("prior", "balanced")
    if prior not in (*STYLES, "none"):
        raise LearnError(f"{where}: [linear] prior must be none or a style "
                         f"({', '.join(STYLES)}), got {prior!r}")
    hidden = mlp.get("hidden", [32])
    if isinstance(hidden, int) and not isinstance(hidden, bool):
        hidden = [hidden]
    if not isinstance(hidden, list) or not 1 <= len(hidden) <= 4:
        raise LearnError(f"{where}: [mlp] hidden must list 1 to 4 layer sizes, got {hidden!r}")
    for size in hidden:
        _number(size, f"{where}: [mlp] hidden sizes", 1, 512, integer=True)
    return TrainConfig(
        shards=tuple(base / s for s in shards),
        out=None if out is None else base / out,
        seed=_number(data.get("seed", 0), f"{where}: seed", 0, 2**32 - 1, integer=True),
        holdout=float(_number(data.get("holdout", 0.2), f"{where}: holdout", 0.01, 0.9)),
        models=tuple(models), choose=choose, per_count=per_count, sharpen=sharpen,
        C=_c_value(linear.get("C", "auto"), where),
        prior=None if prior == "none" else prior,
        hidden=tuple(hidden),
        epochs=_number(mlp.get("epochs", 30), f"{where}: [mlp] epochs", 1, 10_000, integer=True),
        batch_size=_number(mlp.get("batch_size", 200), f"{where}: [mlp] batch_size", 1, 10**6, integer=True),
        learning_rate=float(_number(mlp.get("learning_rate", 0.001), f"{where}: [mlp] learning_rate",
                                    1e-7, 1.0)),
        alpha=float(_number(mlp.get("alpha", 0.0001), f"{where}: [mlp] alpha", 0.0, 1e3)),
    )


def load_train_config(path: str | os.PathLike[str]) -> TrainConfig:
    """Read and check a training config (TOML); LearnError names the file and the key."""
    path = Path(path)
    try:
        text, data = read_toml(path, "a training config")
    except ConfigReadError as exc:
        raise LearnError(str(exc)) from None
    config = parse_train_config(data, path.parent, str(path))
    return TrainConfig(**{**config.__dict__, "source": text})


# ---- the data -----------------------------------------------------------------------------

@dataclass
class Dataset:
    """Rows of features with their outcomes; a position's players are consecutive rows.

    ``starts``: the first row of each position; ``deal``: per row, a key of its deal (unique
    across the sources), the unit of the train / held-out split."""

    features: Array
    win_share: Array
    num_players: npt.NDArray[np.int64]
    deal: npt.NDArray[np.int64]
    starts: npt.NDArray[np.int64]

    @property
    def positions(self) -> int:
        return len(self.starts)

    def sizes(self) -> npt.NDArray[np.int64]:
        return np.diff(np.append(self.starts, len(self.features)))

    def take_positions(self, mask: npt.NDArray[np.bool_]) -> Dataset:
        """The positions where ``mask`` (one value per position) is true."""
        sizes = self.sizes()
        rows = np.repeat(mask, sizes)
        kept = sizes[mask]
        starts = np.concatenate([[0], np.cumsum(kept)[:-1]]).astype(np.int64) if len(kept) else kept
        return Dataset(self.features[rows], self.win_share[rows], self.num_players[rows],
                       self.deal[rows], starts)

    def position_players(self) -> npt.NDArray[np.int64]:
        return self.num_players[self.starts]

    def position_deals(self) -> npt.NDArray[np.int64]:
        return self.deal[self.starts]


def load_dataset(sources: Sequence[str | os.PathLike[str]]) -> Dataset:
    """The rows of every shard of ``sources`` (self-play folders or shard files)."""
    feats, shares, counts, deals, starts = [], [], [], [], []
    offset = 0
    for s, source in enumerate(sources):
        source = Path(source)
        if not source.exists():
            raise LearnError(f"shards: {source}: no such file or folder")
        paths = shard_paths(source)
        if not paths:
            raise LearnError(f"shards: {source} holds no shards (shards/shard-*.npz): "
                             "run glory-ai selfplay into it first")
        for path in paths:
            try:
                with open_regular(path, "a shard") as fh, np.load(fh, allow_pickle=False) as shard:
                    if (str(shard["format"]) != SHARD_FORMAT
                            or int(shard["feature_set"]) != FEATURE_SET_VERSION):
                        raise LearnError(f"shards: {path} is not a self-play shard of feature set "
                                         f"{FEATURE_SET_VERSION}")
                    x = shard["features"].astype(np.float64)
                    player = shard["player"]
                    feats.append(x)
                    shares.append(shard["win_share"].astype(np.float64))
                    counts.append(shard["num_players"].astype(np.int64))
                    deals.append(shard["deal"].astype(np.int64) + s * 10**9)
                    starts.append(np.flatnonzero(player == 0) + offset)
                    offset += len(x)
            except (OSError, KeyError, ValueError) as exc:
                if isinstance(exc, LearnError):
                    raise
                raise LearnError(f"shards: {path} cannot be read as a shard ({exc})") from None
    data = Dataset(np.concatenate(feats).reshape(-1, FEATURE_COUNT), np.concatenate(shares),
                   np.concatenate(counts), np.concatenate(deals), np.concatenate(starts).astype(np.int64))
    if data.positions == 0:
        raise LearnError("shards: no positions in " + ", ".join(str(s) for s in sources))
    return data


def split(data: Dataset, holdout: float, seed: int) -> tuple[Dataset, Dataset]:
    """(train, held out): a share ``holdout`` of the deals, drawn with ``seed``, held out."""
    deals = np.unique(data.deal)
    if len(deals) < 2:
        raise LearnError(f"the shards hold {len(deals)} deal; a held-out split needs at least 2")
    rng = np.random.default_rng(seed)
    held = rng.permutation(deals)[:max(1, min(len(deals) - 1, round(holdout * len(deals))))]
    mask = np.isin(data.position_deals(), held)
    return data.take_positions(~mask), data.take_positions(mask)


# ---- the loss -----------------------------------------------------------------------------

def softmax_shares(logits: Array, starts: npt.NDArray[np.int64]) -> Array:
    """Per row, the softmax of the logits over its position's players."""
    sizes = np.diff(np.append(starts, len(logits)))
    top = np.repeat(np.maximum.reduceat(logits, starts), sizes)
    e = np.exp(logits - top)
    return e / np.repeat(np.add.reduceat(e, starts), sizes)


def position_losses(logits: Array, share: Array, starts: npt.NDArray[np.int64]) -> Array:
    """Per position: the cross-entropy of the actual win shares and the softmax of the
    players' logits (natural log)."""
    sizes = np.diff(np.append(starts, len(logits)))
    top = np.repeat(np.maximum.reduceat(logits, starts), sizes)
    z = logits - top
    log_q = z - np.repeat(np.log(np.add.reduceat(np.exp(z), starts)), sizes)
    return -np.add.reduceat(share * log_q, starts)


def position_log_loss(logits: Array, data: Dataset) -> float:
    """The mean loss over the positions of ``data``."""
    return float(np.mean(position_losses(logits, data.win_share, data.starts)))


def fit_temperature(logits: Array, data: Dataset) -> float:
    """The factor t minimising the loss of ``t * logits`` (a calibration of the softmax)."""
    from scipy.optimize import minimize_scalar

    best = minimize_scalar(lambda u: position_log_loss(math.exp(u) * logits, data),
                           bounds=(-9.0, 6.0), method="bounded", options={"xatol": 1e-7})
    return float(math.exp(best.x))


# ---- the models ---------------------------------------------------------------------------

def _scale(data: Dataset) -> tuple[Array, Array]:
    mean = data.features.mean(axis=0)
    scale = data.features.std(axis=0)
    scale[scale < 1e-12] = 1.0
    return mean, scale


def _pairs(data: Dataset) -> tuple[Array, Array, Array]:
    """(x_w - x_q, label, weight) for every winner w and loser q of each position, with its
    mirror image (label 0), weighted by the winner's share."""
    share = data.win_share
    rows, weights = [], []
    ends = np.append(data.starts[1:], len(share))
    for start, end in zip(data.starts, ends, strict=True):
        block = share[start:end]
        for w in np.flatnonzero(block > 0):
            for q in np.flatnonzero(block == 0):
                rows.append(data.features[start + w] - data.features[start + q])
                weights.append(block[w])
    if not rows:
        raise LearnError("no position with a winner and a loser to learn from")
    diffs = np.asarray(rows)
    weight = np.asarray(weights)
    return (np.concatenate([diffs, -diffs]), np.concatenate([np.ones(len(diffs)), np.zeros(len(diffs))]),
            np.concatenate([weight, weight]))


#: how much less the style's value is penalised than a feature (the square of this): the
#: linear model learns the style's weight almost freely, and corrections to it under L2
PRIOR_BOOST = 100.0


def fit_linear(train: Dataset, C: float = 1.0, prior: Array | None = None) -> tuple[Array, float]:
    """The linear model's weights over the raw features (its logit is ``weights . x``), and
    the calibration factor already folded into them. With ``prior`` (a style's weights), the
    prior's value is one more input, nearly unpenalised: the fit is the style, scaled, plus
    corrections that L2 keeps small unless the data asks for them."""
    from sklearn.linear_model import LogisticRegression

    _, scale = _scale(train)
    x, y, w = _pairs(train)
    inputs = x / scale
    value_scale = 1.0
    if prior is not None:
        value = x @ prior
        value_scale = float(value.std()) or 1.0
        inputs = np.column_stack([inputs, value / value_scale * PRIOR_BOOST])
    fit = LogisticRegression(C=C, fit_intercept=False, max_iter=5000, tol=1e-8)
    fit.fit(inputs, y, sample_weight=w)
    weights = fit.coef_[0][:FEATURE_COUNT] / scale
    if prior is not None:
        weights = weights + fit.coef_[0][FEATURE_COUNT] * PRIOR_BOOST / value_scale * prior
    t = fit_temperature(train.features @ weights, train)
    return weights * t, t


def choose_c(train: Dataset, prior: Array | None, seed: int) -> float:
    """The C of C_PATH with the lowest position log loss in a cross-validation over folds
    of the training deals."""
    deals = np.unique(train.deal)
    folds = min(C_FOLDS, len(deals))
    if folds < 2:
        return 1.0
    order = np.random.default_rng(seed + 1).permutation(deals)
    fold_of = dict(zip(order.tolist(), (np.arange(len(order)) % folds).tolist(), strict=True))
    position_fold = np.array([fold_of[d] for d in train.position_deals().tolist()])
    losses = np.zeros(len(C_PATH))
    for k in range(folds):
        inner, outer = train.take_positions(position_fold != k), train.take_positions(position_fold == k)
        for i, c in enumerate(C_PATH):
            weights, _ = fit_linear(inner, c, prior)
            losses[i] += position_log_loss(outer.features @ weights, outer) * outer.positions
    return float(C_PATH[int(np.argmin(losses))])


def _forward(layers: Sequence[tuple[Array, Array]], x: Array) -> Array:
    for weight, bias in layers[:-1]:
        x = np.maximum(x @ weight + bias, 0.0)
    weight, bias = layers[-1]
    return (x @ weight + bias)[:, 0]


@dataclass
class MLPFit:
    layers: list[tuple[Array, Array]]
    mean: Array
    scale: Array
    temperature: float
    curve: list[dict[str, float]] = field(default_factory=list)


def fit_mlp(train: Dataset, config: TrainConfig, held: Dataset | None = None) -> MLPFit:
    """An MLP of each player's chance to win (scikit-learn's MLPClassifier, Adam, one epoch
    per ``partial_fit``), its softmax calibrated on the training positions. ``curve``: per
    epoch the training loss (binary cross-entropy, scikit-learn's) and, with ``held``, the
    held-out position log loss."""
    from sklearn.neural_network import MLPClassifier

    mean, scale = _scale(train)
    xs = (train.features - mean) / scale
    won = (train.win_share > 0).astype(np.int64)
    net = MLPClassifier(hidden_layer_sizes=config.hidden, activation="relu", solver="adam",
                        alpha=config.alpha, batch_size=min(config.batch_size, len(xs)),
                        learning_rate_init=config.learning_rate, random_state=config.seed,
                        shuffle=True)
    curve = []
    for epoch in range(config.epochs):
        net.partial_fit(xs, won, classes=np.array([0, 1]))
        point = {"epoch": epoch + 1, "train_loss": float(net.loss_)}
        if held is not None:
            layers = list(zip(net.coefs_, net.intercepts_, strict=True))
            point["held_out_log_loss"] = position_log_loss(
                _forward(layers, (held.features - mean) / scale), held)
        curve.append(point)
    layers = [(w.astype(np.float64), b.astype(np.float64))
              for w, b in zip(net.coefs_, net.intercepts_, strict=True)]
    t = fit_temperature(_forward(layers, xs), train)
    weight, bias = layers[-1]
    layers[-1] = (weight * t, bias * t)
    return MLPFit(layers, mean, scale, t, curve)


def style_logits(data: Dataset, style: str = "balanced") -> Array:
    """A built-in style's values of the rows (VP; the features price pending actions with
    the reference gain weights, the balanced style's own)."""
    return data.features @ style_weights(style)


# ---- train --------------------------------------------------------------------------------

@dataclass
class TrainResult:
    out: Path
    models: dict[str, Path]
    chosen: str
    report: dict[str, Any]


def _per_count(logits: Array, data: Dataset) -> dict[str, float]:
    losses = position_losses(logits, data.win_share, data.starts)
    counts = data.position_players()
    return {str(k): float(losses[counts == k].mean()) for k in sorted(set(counts.tolist()))}


def _model_logits(kind: str, train: Dataset, held: Dataset, config: TrainConfig,
                  curve: bool = False) -> tuple[EvalModel, Array, dict[str, Any]]:
    """Fit one kind of model; (model, its held-out logits, what the report says of it)."""
    info: dict[str, Any] = {}
    if kind == "linear":
        prior = None if config.prior is None else style_weights(config.prior)
        c = choose_c(train, prior, config.seed) if config.C == "auto" else float(config.C)
        info["C"] = c
        weights, t = fit_linear(train, c, prior)
        model = linear_model(weights, 0.0, "win_logit",
                             description=f"linear win_logit model, trained on {train.positions} positions")
        info["temperature"] = t
        if curve:
            path = []
            for c in C_PATH:
                w, _ = fit_linear(train, c, prior)
                path.append({"C": c, "train_log_loss": position_log_loss(train.features @ w, train),
                             "held_out_log_loss": position_log_loss(held.features @ w, held)})
            info["curve"] = path
        return model, held.features @ weights, info
    fit = fit_mlp(train, config, held if curve else None)
    shape = "x".join(str(h) for h in config.hidden)
    model = mlp_model(fit.layers, "win_logit", mean=fit.mean, scale=fit.scale,
                      description=f"{shape} MLP win_logit model, trained on {train.positions} positions")
    info["temperature"] = fit.temperature
    if curve:
        info["curve"] = fit.curve
    return model, _forward(fit.layers, (held.features - fit.mean) / fit.scale), info


def train(config: TrainConfig, out: str | os.PathLike[str] | None = None,
          log: Any = None) -> TrainResult:
    """Fit the models of ``config`` and write, into ``out`` (or the config's ``out``): one
    ``.npz`` per model (``linear.npz``, ``mlp.npz``), ``model.npz`` (the chosen one),
    ``report.json``, ``report.md``, ``loss.png`` and ``calibration.png``."""
    from threadpoolctl import threadpool_limits

    folder = Path(out) if out is not None else config.out
    if folder is None:
        raise LearnError("no output folder: give out in the config or --out")
    data = load_dataset(config.shards)
    train_set, held = split(data, config.holdout, config.seed)
    say = log or (lambda message: None)
    say(f"{data.positions} positions ({len(data.features)} rows) from {len(np.unique(data.deal))} deals: "
        f"{train_set.positions} to train on, {held.positions} held out")
    report: dict[str, Any] = {
        "config": config.to_dict(), "positions": data.positions, "rows": len(data.features),
        "train_positions": train_set.positions, "held_out_positions": held.positions,
        "player_counts": {str(k): int(v) for k, v in zip(*np.unique(data.position_players(),
                                                                 return_counts=True), strict=True)},
        "models": {}}
    # the baselines: the hand-set style, calibrated on the training positions, and a coin
    t_style = fit_temperature(style_logits(train_set), train_set)
    style_held = style_logits(held) * t_style
    report["balanced_style"] = {"temperature_vp": 1.0 / t_style,
                                "held_out_log_loss": position_log_loss(style_held, held),
                                "per_count": _per_count(style_held, held)}
    uniform = np.zeros(len(held.features))
    report["uniform"] = {"held_out_log_loss": position_log_loss(uniform, held),
                         "per_count": _per_count(uniform, held)}
    sharpen = 1.0 / t_style / SEARCH_TEMPERATURE_VP if config.sharpen == "style" else float(config.sharpen)
    report["sharpen"] = sharpen
    folder.mkdir(parents=True, exist_ok=True)
    paths: dict[str, Path] = {}
    held_logits: dict[str, Array] = {"balanced style": style_held}
    with threadpool_limits(limits=1):
        for kind in config.models:
            model, logits, info = _model_logits(kind, train_set, held, config, curve=True)
            info["held_out_log_loss"] = position_log_loss(logits, held)
            info["per_count"] = _per_count(logits, held)
            counts = sorted(set(data.position_players().tolist()))
            if config.per_count and len(counts) > 1:
                # the same kind of model fitted on each player count alone, for comparison
                separate = {}
                for k in counts:
                    part = train_set.take_positions(train_set.position_players() == k)
                    test = held.take_positions(held.position_players() == k)
                    if part.positions < 10 or test.positions < 1:
                        continue
                    _, own, _ = _model_logits(kind, part, test, config)
                    separate[str(k)] = position_log_loss(own, test)
                info["per_count_separate"] = separate
            report["models"][kind] = info
            held_logits[kind] = logits
            paths[kind] = folder / f"{kind}.npz"
            write_npz(paths[kind], _sharpened(model, sharpen).arrays())
            say(f"{kind}: held-out log loss {info['held_out_log_loss']:.4f} (balanced style "
                f"{report['balanced_style']['held_out_log_loss']:.4f}, uniform "
                f"{report['uniform']['held_out_log_loss']:.4f})")
    chosen = config.choose
    if chosen == "best":
        chosen = min(config.models, key=lambda k: report["models"][k]["held_out_log_loss"])
    report["chosen"] = chosen
    paths["model"] = folder / "model.npz"
    paths["model"].write_bytes(paths[chosen].read_bytes())
    report["calibration"] = {name: _calibration(softmax_shares(logits, held.starts), held.win_share)
                             for name, logits in held_logits.items()}
    (folder / "report.json").write_text(json.dumps(_rounded(report), indent=1, sort_keys=True) + "\n")
    (folder / "report.md").write_text(_markdown(report))
    _plots(report, folder)
    return TrainResult(folder, paths, chosen, report)


def _sharpened(model: EvalModel, factor: float) -> EvalModel:
    """``model`` with its outputs (win logits) multiplied by ``factor``."""
    if factor == 1.0:
        return model
    weight, bias = model.layers[-1]
    return dataclasses.replace(
        model, layers=(*model.layers[:-1], (weight * factor, bias * factor)),
        description=f"{model.description}, logits sharpened x{factor:.3g} for the search")


def _calibration(predicted: Array, actual: Array, bins: int = 10) -> list[dict[str, float]]:
    """Predicted against actual win share in equal-width bins of the prediction."""
    which = np.minimum((predicted * bins).astype(np.int64), bins - 1)
    out = []
    for b in range(bins):
        mask = which == b
        if mask.any():
            out.append({"predicted": float(predicted[mask].mean()), "actual": float(actual[mask].mean()),
                        "rows": int(mask.sum())})
    return out


def _rounded(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 6)
    if isinstance(value, Mapping):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _markdown(report: Mapping[str, Any]) -> str:
    style, uniform = report["balanced_style"], report["uniform"]
    counts = sorted(report["player_counts"])
    lines = [
        "# Training report", "",
        f"{report['positions']} positions ({report['rows']} rows, one per player), "
        f"{report['train_positions']} to train on and {report['held_out_positions']} held out "
        "(whole deals held out). Positions by player count: "
        + ", ".join(f"{k} players {report['player_counts'][k]}" for k in counts) + ".", "",
        "Held-out log loss per position (cross-entropy of the players' win shares and the "
        "softmax of the model's outputs, natural log; lower is better):", "",
        "| model | held-out log loss | " + " | ".join(f"{k} players" for k in counts) + " |",
        "|---|---|" + "---|" * len(counts),
        f"| uniform (1/players) | {uniform['held_out_log_loss']:.4f} | "
        + " | ".join(f"{uniform['per_count'].get(k, float('nan')):.4f}" for k in counts) + " |",
        f"| balanced style, calibrated (temperature {style['temperature_vp']:.2f} VP) | "
        f"{style['held_out_log_loss']:.4f} | "
        + " | ".join(f"{style['per_count'].get(k, float('nan')):.4f}" for k in counts) + " |",
    ]
    for kind, info in report["models"].items():
        lines.append(f"| {kind} | {info['held_out_log_loss']:.4f} | "
                     + " | ".join(f"{info['per_count'].get(k, float('nan')):.4f}" for k in counts) + " |")
        if info.get("per_count_separate"):
            lines.append(f"| {kind}, one model per player count | | "
                         + " | ".join(f"{info['per_count_separate'].get(k, float('nan')):.4f}"
                                      for k in counts) + " |")
    if report.get("sharpen", 1.0) != 1.0:
        lines += ["", f"The model files' logits are multiplied by **{report['sharpen']:.3f}** (`sharpen`): "
                  "the log losses above are those of the calibrated models, before that factor."]
    lines += ["", f"Chosen (`model.npz`): **{report['chosen']}**.", "",
              "![loss curves](loss.png)", "", "![calibration](calibration.png)", ""]
    return "\n".join(lines)


def _plots(report: Mapping[str, Any], folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    kinds = [k for k in report["models"] if report["models"][k].get("curve")]
    fig, axes = plt.subplots(1, max(1, len(kinds)), figsize=(5 * max(1, len(kinds)), 3.6), squeeze=False)
    for ax, kind in zip(axes[0], kinds, strict=False):
        curve = report["models"][kind]["curve"]
        if kind == "linear":
            xs = [p["C"] for p in curve]
            ax.plot(xs, [p["train_log_loss"] for p in curve], "o-", label="train")
            ax.plot(xs, [p["held_out_log_loss"] for p in curve], "o-", label="held out")
            ax.set_xscale("log")
            ax.set_xlabel("C (inverse L2 strength)")
            ax.axvline(report["models"]["linear"]["C"], color="grey", ls=":", label="C used")
            ax.set_ylabel("position log loss")
        else:
            xs = [p["epoch"] for p in curve]
            ax.plot(xs, [p["train_loss"] for p in curve], label="train (per-player cross-entropy)")
            if "held_out_log_loss" in curve[0]:
                ax.plot(xs, [p["held_out_log_loss"] for p in curve], label="held out (position log loss)")
            ax.set_xlabel("epoch")
        ax.axhline(report["balanced_style"]["held_out_log_loss"], color="black", ls="--",
                   label="balanced style, held out")
        ax.set_title(kind)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(folder / "loss.png", dpi=90, metadata={"Software": None})
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.plot([0, 1], [0, 1], color="grey", ls=":")
    for name, points in report["calibration"].items():
        ax.plot([p["predicted"] for p in points], [p["actual"] for p in points], "o-", label=name, ms=3)
    ax.set_xlabel("predicted win share (held out)")
    ax.set_ylabel("actual win share")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(folder / "calibration.png", dpi=90, metadata={"Software": None})
    plt.close(fig)

