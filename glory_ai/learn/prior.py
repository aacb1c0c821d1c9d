"""Expert iteration of the search's prior over actions (``glory-ai learn-prior CONFIG.toml``;
docs/bots.md, "A learned prior").

Generation 0 is the search without a prior (``prior=off``). Generation k's self-play is the
search with generation k's prior (k >= 1); at a share of its decisions (``rate``) it records
the root's visit counts and, per legal action, the features of the afterstate seen from the
player who moves. Generation k+1's prior is fitted on the self-play of every generation so
far: per player count, a linear model whose output on an afterstate's features is the
action's logit, minimising the cross-entropy of the softmax over the legal actions against
the root's visit distribution (L2-regularised, L-BFGS), with the last ``holdout`` share of
each generation's deals held out.

The folder it writes::

    OUT/experiment.toml               the config as run
    OUT/gen-K/selfplay-Np.npz         the recorded decisions of generation K at N players
    OUT/gen-K/prior-N.npz             generation K's prior (K >= 1): prior=OUT/gen-K
    OUT/summary.json, README.md

Every step is seeded and skipped when its file exists: running the same config again resumes.
"""
from __future__ import annotations

import json
import random
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .._jsonio import ConfigReadError, read_toml
from .._reading import CONFIG_BYTES, read_text
from ..core.engine import FEATURE_COUNT
from .npz import write_npz
from .shards import LearnError

__all__ = ["PriorConfig", "fit_prior", "learn_prior", "load_prior_config", "record_game"]

_KEYS = {"name", "description", "seed", "generations", "search", "players", "deals", "rate", "holdout",
         "l2", "measure"}


@dataclass(frozen=True)
class PriorConfig:
    name: str
    description: str
    seed: int
    generations: int
    search: str                     # the self-play search, without prior=
    deals: dict[int, int]           # self-play games per generation, by player count
    rate: float                     # the share of decisions recorded
    holdout: float
    l2: float
    measure: str = ""               # the measurement command (shown in the README)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "seed": self.seed,
                "generations": self.generations, "search": self.search,
                "players": sorted(self.deals), "deals": [self.deals[n] for n in sorted(self.deals)],
                "rate": self.rate, "holdout": self.holdout, "l2": self.l2, "measure": self.measure}


def load_prior_config(path: str | Path) -> PriorConfig:
    """Read and check a learn-prior config (TOML); LearnError names what is wrong."""
    where = str(path)
    try:
        _, data = read_toml(path, "a learn-prior config")
    except ConfigReadError as exc:
        raise LearnError(str(exc)) from None
    return prior_config_from(data, where)


def prior_config_from(data: Mapping[str, Any], where: str = "config") -> PriorConfig:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise LearnError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    for key in ("name", "search", "players", "deals"):
        if key not in data:
            raise LearnError(f"{where}: missing key {key!r}")
    players, deals = data["players"], data["deals"]
    if not isinstance(players, list) or not isinstance(deals, list) or len(players) != len(deals) \
            or any(type(n) is not int or n not in (2, 3, 4, 5) for n in players) \
            or any(type(d) is not int or d < 2 for d in deals):
        raise LearnError(f"{where}: players (2..5) and deals (>= 2 each) must be lists of the same length")
    config = PriorConfig(
        name=str(data["name"]), description=str(data.get("description", "")).strip(),
        seed=_number(data, "seed", 0, int, where), generations=_number(data, "generations", 2, int, where),
        search=_search(data["search"], where), deals=dict(zip(players, deals, strict=True)),
        rate=_number(data, "rate", 0.1, float, where), holdout=_number(data, "holdout", 0.2, float, where),
        l2=_number(data, "l2", 1e-3, float, where), measure=str(data.get("measure", "")))
    if not 1 <= config.generations <= 20 or not 0 < config.rate <= 1 or not 0 < config.holdout < 1 \
            or config.l2 < 0:
        raise LearnError(f"{where}: generations 1..20, rate in (0, 1], holdout in (0, 1), l2 >= 0")
    return config


def _search(spec: object, where: str) -> str:
    """The self-play search: a built-in ISMCTS or PIMC spec (never a user's code, which a
    config must not run) that leaves prior= to each generation."""
    from ..bots.spec import BotSpec
    from ..bots.trust import code_named

    if not isinstance(spec, str) or code_named([spec]):
        raise LearnError(f"{where}: search must be an ISMCTS or PIMC spec such as 'ismcts:iters=200', "
                         f"got {spec!r}")
    try:
        parsed = BotSpec.parse(spec)
    except ValueError as exc:
        raise LearnError(f"{where}: search: {exc}") from None
    if parsed.name not in ("ismcts", "pimc"):
        raise LearnError(f"{where}: search must be an ismcts or pimc spec (the bots with prior=), "
                         f"got {spec!r}")
    if parsed.gives("prior"):
        raise LearnError(f"{where}: search must not set prior= (each generation sets its own)")
    return spec.strip()


def _number(data: Mapping[str, Any], key: str, default: float, kind: type, where: str) -> Any:
    value = data.get(key, default)
    if type(value) is bool or not isinstance(value, (int, float)) or (kind is int and type(value) is not int):
        raise LearnError(f"{where}: {key} must be {'an integer' if kind is int else 'a number'}, "
                         f"got {value!r}")
    return kind(value)


def _seed(*parts: object) -> int:
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF


def record_game(spec: str, players: int, seed: int,
                rate: float) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Play one self-play game of `spec` at every seat and record, at a share `rate` of the
    decisions of more than one legal action that the tree searched, the afterstate features
    of every legal action (rows, seen from the mover) and the root's visits of each.
    Returns (features per decision, visits per decision, decisions played)."""
    from ..bots import make_bot
    from ..game import Game

    state = Game(players).new_initial_state(seed=seed)
    bots = [make_bot(spec, seed=_seed(seed, seat)) for seat in range(players)]
    draw = random.Random(seed)
    features: list[np.ndarray] = []
    visits: list[np.ndarray] = []
    played = 0
    while not state.is_terminal():
        mover = state.current_player()
        action = bots[mover].step(state)
        info = bots[mover].last_search()
        legal = state.legal_actions()
        if len(legal) > 1 and info and info["iterations"] and draw.random() < rate:
            by_action = {row["action"]: row["visits"] for row in info["actions"]}
            rows = []
            for a in legal:
                after = state.clone()
                after.apply_action(a)
                rows.append(after.features(mover))
            features.append(np.asarray(rows, dtype=np.float32))
            visits.append(np.array([by_action.get(a, 0) for a in legal], dtype=np.int32))
        state.apply_action(action)
        played += 1
    return features, visits, played


def _selfplay(config: PriorConfig, spec: str, gen: int, players: int, path: Path,
              log: Callable[[str], None]) -> None:
    features: list[np.ndarray] = []
    visits: list[np.ndarray] = []
    deal_of: list[int] = []
    played = 0
    for deal in range(config.deals[players]):
        f, v, n = record_game(spec, players, _seed(config.seed, gen, players, deal), config.rate)
        features += f
        visits += v
        deal_of += [deal] * len(f)
        played += n
    sizes = np.array([len(v) for v in visits], dtype=np.int64)
    write_npz(path, {"features": np.concatenate(features).astype(np.float16),
                     "visits": np.concatenate(visits), "offsets": np.concatenate([[0], np.cumsum(sizes)]),
                     "deal": np.array(deal_of, dtype=np.int32), "decisions_played": np.array(played),
                     "spec": np.array(spec)}, compress=True)
    log(f"gen-{gen} {players}p: {config.deals[players]} games, {len(visits)} decisions recorded of {played}")


def _load(paths: list[Path], holdout: float) -> tuple[dict[str, Any], dict[str, Any]]:
    # the decisions of the files, split into (train, held out) by deal within each file
    parts: dict[bool, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {False: [], True: []}
    for path in paths:
        with np.load(path) as data:
            x, v, off, deal = (data["features"].astype(np.float64), data["visits"], data["offsets"],
                               data["deal"])
        # at least one deal held out, at least one trained on (deals >= 2)
        cut = min(int(np.ceil((1 - holdout) * (deal.max() + 1))), int(deal.max())) if len(deal) else 0
        for held in (False, True):
            keep = np.flatnonzero((deal >= cut) == held)
            rows = (np.concatenate([np.arange(off[d], off[d + 1]) for d in keep]) if len(keep)
                    else np.zeros(0, int))
            parts[held].append((x[rows], v[rows], np.diff(off)[keep]))
    out = []
    for held in (False, True):
        xs, vs, ss = zip(*parts[held], strict=True)
        sizes = np.concatenate(ss)
        out.append({"x": np.concatenate(xs), "visits": np.concatenate(vs).astype(np.float64),
                    "sizes": sizes, "starts": np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)})
    return out[0], out[1]


def _cross_entropy(logits: np.ndarray, data: Mapping[str, Any]) -> tuple[float, np.ndarray]:
    # mean over decisions of the cross-entropy of the visit distribution and the softmax of
    # the logits within each decision; and softmax - target per row (the gradient's factor)
    starts, sizes = data["starts"], data["sizes"]
    top = np.maximum.reduceat(logits, starts)
    shifted = logits - np.repeat(top, sizes)
    norm = np.log(np.add.reduceat(np.exp(shifted), starts))
    log_p = shifted - np.repeat(norm, sizes)
    target = data["visits"] / np.repeat(np.add.reduceat(data["visits"], starts), sizes)
    loss = -np.add.reduceat(target * log_p, starts).mean()
    return float(loss), (np.exp(log_p) - target) / len(sizes)


def fit_prior(train: Mapping[str, Any], l2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The prior's weights, mean and scale fitted on `train` (the features standardised)."""
    from scipy.optimize import minimize

    mean = train["x"].mean(axis=0)
    scale = train["x"].std(axis=0)
    scale[scale < 1e-6] = 1.0
    z = (train["x"] - mean) / scale

    def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
        loss, factor = _cross_entropy(z @ w, train)
        return loss + 0.5 * l2 * float(w @ w), z.T @ factor + l2 * w

    result = minimize(objective, np.zeros(FEATURE_COUNT), jac=True, method="L-BFGS-B",
                      options={"maxiter": 500})
    return result.x, mean, scale


def _model_loss(model: Any, data: Mapping[str, Any]) -> float:
    return _cross_entropy(np.asarray(model.evaluate(data["x"]), dtype=np.float64), data)[0]


def _uniform_loss(data: Mapping[str, Any]) -> float:
    return _cross_entropy(np.zeros(len(data["x"])), data)[0]


def _diagnostics(model: Any, data: Mapping[str, Any]) -> dict[str, float]:
    # the targets' own entropy (the floor of the cross-entropy), how often the prior's first
    # action is the most visited, and that share for a uniform draw
    starts, sizes, visits = data["starts"], data["sizes"], data["visits"]
    share = visits / np.repeat(np.add.reduceat(visits, starts), sizes)
    entropy = -np.add.reduceat(share * np.log(np.where(share > 0, share, 1.0)), starts).mean()
    logits = np.asarray(model.evaluate(data["x"]), dtype=np.float64)
    hits = [np.argmax(logits[s:s + k]) == np.argmax(visits[s:s + k])
            for s, k in zip(starts, sizes, strict=True)]
    return {"target_entropy": float(entropy), "top1": float(np.mean(hits)),
            "top1_uniform": float(np.mean(1 / sizes))}


def learn_prior(config: PriorConfig, out: str | Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run the generations into `out` (resuming what is there, with the folder's lock, as
    `learn` does) and write the summary. A folder that holds another config's generations
    is refused, never mixed in."""
    from ..arena.lock import FolderLock

    out = Path(out)
    with FolderLock(out, create=True):
        saved, source = out / "experiment.toml", _toml(config)
        if saved.exists() and read_text(saved, "a stored config", CONFIG_BYTES) != source:
            raise LearnError(f"{out} holds the generations of another version of the config; use "
                             "another folder or remove it")
        saved.write_text(source)
        return _generations(config, out, log)


def _generations(config: PriorConfig, out: Path, log: Callable[[str], None]) -> dict[str, Any]:
    from ..bots.models import linear_model, load_model

    summary: dict[str, Any] = {"config": config.to_dict(), "generations": []}
    for gen in range(config.generations + 1):
        folder = out / f"gen-{gen}"
        folder.mkdir(exist_ok=True)
        row: dict[str, Any] = {"generation": gen, "fit": {}, "selfplay": {}}
        if gen > 0:
            for n in sorted(config.deals):
                path = folder / f"prior-{n}.npz"
                data = sorted((out / f"gen-{k}" / f"selfplay-{n}p.npz") for k in range(gen))
                train, held = _load(data, config.holdout)
                if not path.exists():
                    w, mean, scale = fit_prior(train, config.l2)
                    text = f"{config.name}: the prior of generation {gen}, {n} players"
                    model = linear_model(w, 0.0, "value", mean=mean, scale=scale, description=text)
                    write_npz(path, model.arrays())
                model = load_model(path)
                fit = {"train_decisions": len(train["sizes"]), "heldout_decisions": len(held["sizes"]),
                       "heldout_loss": _model_loss(model, held), "uniform_loss": _uniform_loss(held),
                       "train_loss": _model_loss(model, train), **_diagnostics(model, held)}
                if gen > 1:
                    previous = load_model(out / f"gen-{gen - 1}" / f"prior-{n}.npz")
                    fit["previous_loss"] = _model_loss(previous, held)
                row["fit"][n] = fit
                log(f"gen-{gen} prior {n}p: held-out cross-entropy {fit['heldout_loss']:.4f} "
                    f"(uniform {fit['uniform_loss']:.4f})")
        if gen < config.generations:
            spec = config.search if gen == 0 else f"{config.search},prior={folder}"
            for n in sorted(config.deals):
                path = folder / f"selfplay-{n}p.npz"
                if not path.exists():
                    _selfplay(config, spec, gen, n, path, log)
                with np.load(path) as data:
                    row["selfplay"][n] = {"spec": str(data["spec"]), "games": config.deals[n],
                                          "decisions": int(data["decisions_played"]),
                                          "recorded": len(data["deal"]), "bytes": path.stat().st_size}
        summary["generations"].append(row)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
    (out / "README.md").write_text(_readme(config, summary, out))
    return summary


def _toml(config: PriorConfig) -> str:
    d = config.to_dict()
    lines = [f"{key} = {json.dumps(value)}" for key, value in d.items() if key != "description"]
    return "\n".join(lines + [f'description = """\n{config.description}\n"""']) + "\n"


def _readme(config: PriorConfig, summary: Mapping[str, Any], out: Path) -> str:
    lines = [f"# {config.name}", "", config.description, "",
             "| generation | players | self-play games (decisions recorded / played) "
             "| trained on (decisions) | held-out cross-entropy: prior / previous generation / uniform "
             "(the targets' entropy) | held-out: the prior's first is the most visited (uniform draw) |",
             "|---|---|---|---|---|---|"]
    for row in summary["generations"]:
        for n in sorted(config.deals):
            sp = row["selfplay"].get(n)
            fit = row["fit"].get(n)
            played = f"{sp['games']} ({sp['recorded']} / {sp['decisions']})" if sp else "—"
            trained = str(fit["train_decisions"]) if fit else "—"
            previous = f"{fit['previous_loss']:.4f}" if fit and "previous_loss" in fit else "—"
            losses = (f"{fit['heldout_loss']:.4f} / {previous} / "
                      f"{fit['uniform_loss']:.4f} ({fit['target_entropy']:.4f})" if fit else "—")
            top = f"{fit['top1']:.1%} ({fit['top1_uniform']:.1%})" if fit else "—"
            lines.append(f"| {row['generation']} | {n} | {played} | {trained} | {losses} | {top} |")
    lines += ["", "Cross-entropy: per recorded decision, of the root's visit distribution and the prior's "
              "softmax over the legal actions, on the held-out deals of every generation so far.", "",
              f"Reproduce: `glory-ai learn-prior experiments/learning/{config.name}.toml "
              f"--out /tmp/{config.name}` (iteration budgets: the same games and files)."]
    if config.measure:
        lines += ["", f"Measured: `{config.measure}`; what the numbers say: [NOTES.md](NOTES.md)."]
    return "\n".join(lines) + "\n"

