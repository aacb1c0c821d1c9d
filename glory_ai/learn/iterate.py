"""Expert iteration (``glory-ai learn CONFIG.toml``): generation k+1's evaluation is trained on
the self-play games of ISMCTS searching with generation k's evaluation, starting from a
hand-set style (generation 0), and every learned generation plays the same search with the
hand-set style (``style=`` spelled out: ISMCTS's default evaluation is the shipped model).

The folder it writes (docs/learning.md)::

    OUT/experiment.toml          the config as run
    OUT/gen-K/selfplay-Np/       self-play of generation K at N players (glory-ai selfplay)
    OUT/gen-K/model/             generation K's models and training report (K >= 1)
    OUT/gen-K/evaluate/          generation K against the hand-set style's search (an arena run)
    OUT/gen-K/gate/              generation K against the incumbent (an arena run; [guard] match_deals)
    OUT/summary.json, README.md, generations.png

A guard decides which model plays the next self-play: the new generation's model replaces the
incumbent (the last generation kept, or the hand-set style) only if it is at least as good,
by its held-out log loss on the newest self-play (positions the incumbent never trained on)
and, when configured, by a short match against the incumbent.

Every step is seeded and resumable: running the same config again skips what is finished.
"""
from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from .._jsonio import ConfigReadError, read_json, read_toml
from .._reading import CONFIG_BYTES, read_text
from ..arena import RunConfig, Session
from ..bots import BotSpec
from ..bots.builtin_params import SEARCH_BOTS
from ..bots.grammar import append_params
from ..bots.styles import STYLES
from ..bots.trust import code_named
from .fitting import (
    TrainConfig,
    _keys,
    fit_temperature,
    load_dataset,
    parse_train_config,
    position_log_loss,
    split,
    train,
)
from .shards import LearnError, SelfPlayConfig, finished_records, selfplay

__all__ = ["LearnConfig", "load_learn_config", "learn"]

_TOP = {"name", "description", "question", "seed", "generations", "style", "history",
        "selfplay", "train", "evaluate", "guard", "run"}
_SELFPLAY = {"search", "players", "deals", "positions", "shard_deals"}
_EVALUATE = {"search", "deals"}
_RUN = {"jobs", "batch_size"}
_GUARD = {"log_loss", "match_deals"}
_TRAIN = {"seed", "holdout", "models", "choose", "per_count", "sharpen", "linear", "mlp"}
#: what ``glory-ai learn`` writes into its folder, and ``--fresh`` removes (the rest is kept)
_WRITTEN = ("experiment.toml", "summary.json", "README.md", "generations.png")


@dataclass(frozen=True)
class LearnConfig:
    name: str
    description: str
    question: str
    seed: int
    generations: int
    style: str
    history: int
    selfplay_search: str
    players: tuple[int, ...]
    selfplay_deals: int
    positions: int
    shard_deals: int
    train: Mapping[str, Any]
    evaluate_search: str
    evaluate_deals: int
    guard_log_loss: bool = True
    guard_match_deals: int = 0
    jobs: int = 1
    batch_size: int | None = None
    source: str = ""


def _int(data: Mapping[str, Any], key: str, default: int | None, low: int, high: int, where: str) -> int:
    value = data.get(key, default)
    if value is None:
        raise LearnError(f"{where}: missing key {key!r}")
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise LearnError(f"{where}: {key} must be an integer from {low} to {high}, got {value!r}")
    return value


def _search(data: Mapping[str, Any], where: str) -> str:
    spec = data.get("search")
    if not isinstance(spec, str) or code_named([spec]):        # a user's bot: never run from here
        raise LearnError(f"{where}: search must be an ISMCTS spec such as 'ismcts:iters=200', got {spec!r}")
    try:
        parsed = BotSpec.parse(spec)
    except ValueError as exc:
        raise LearnError(f"{where}: search: {exc}") from None
    if parsed.name not in SEARCH_BOTS or parsed.gives("eval") or parsed.gives("style"):
        raise LearnError(f"{where}: search must be a search bot (ismcts, pimc, flatmc) without eval= or "
                         f"style= (the generation's evaluation is added), got {spec!r}")
    return spec.strip()


def load_learn_config(path: str | os.PathLike[str]) -> LearnConfig:
    """Read and check an expert-iteration config; LearnError names the file and the key."""
    path = Path(path)
    try:
        text, data = read_toml(path, "an expert-iteration config")
    except ConfigReadError as exc:
        raise LearnError(str(exc)) from None
    where = str(path)
    _keys(data, _TOP, where)
    sp = _keys(data.get("selfplay", {}), _SELFPLAY, f"{where}: [selfplay]")
    ev = _keys(data.get("evaluate", {}), _EVALUATE, f"{where}: [evaluate]")
    rn = _keys(data.get("run", {}), _RUN, f"{where}: [run]")
    gd = _keys(data.get("guard", {}), _GUARD, f"{where}: [guard]")
    guard_log_loss = gd.get("log_loss", True)
    if not isinstance(guard_log_loss, bool):
        raise LearnError(f"{where}: [guard] log_loss must be true or false, got {guard_log_loss!r}")
    tr = _keys(data.get("train", {}), _TRAIN, f"{where}: [train]")
    # checked now, with placeholder shards, so that a bad key fails before any game is played
    parse_train_config({**tr, "shards": ["."]}, path.parent, f"{where}: [train]")
    style = data.get("style", "balanced")
    if style not in STYLES:
        raise LearnError(f"{where}: style must be one of {', '.join(STYLES)}, got {style!r}")
    players = sp.get("players", [2])
    if isinstance(players, int) and not isinstance(players, bool):
        players = [players]
    if not isinstance(players, list) or not players or any(
            isinstance(p, bool) or not isinstance(p, int) or not 2 <= p <= 5 for p in players):
        raise LearnError(f"{where}: [selfplay] players must be a list of counts from 2 to 5, got {players!r}")
    name = data.get("name", path.stem)
    batch = rn.get("batch_size")
    return LearnConfig(
        name=str(name), description=str(data.get("description", "")), question=str(data.get("question", "")),
        seed=_int(data, "seed", 0, 0, 2**63, where),
        generations=_int(data, "generations", 3, 1, 100, where), style=style,
        history=_int(data, "history", 1, 1, 100, where),
        selfplay_search=_search(sp, f"{where}: [selfplay]"), players=tuple(players),
        selfplay_deals=_int(sp, "deals", None, 1, 10**6, f"{where}: [selfplay]"),
        positions=_int(sp, "positions", 4, 1, 64, f"{where}: [selfplay]"),
        shard_deals=_int(sp, "shard_deals", 25, 1, 10**6, f"{where}: [selfplay]"),
        train=dict(tr), evaluate_search=_search(ev, f"{where}: [evaluate]"),
        evaluate_deals=_int(ev, "deals", None, 1, 10**6, f"{where}: [evaluate]"),
        guard_log_loss=guard_log_loss,
        guard_match_deals=_int(gd, "match_deals", 0, 0, 10**6, f"{where}: [guard]"),
        jobs=_int(rn, "jobs", 1, -1, 1024, f"{where}: [run]"),
        batch_size=None if batch is None else _int(rn, "batch_size", None, 1, 10**6, f"{where}: [run]"),
        source=text)


def _with_eval(spec: str, model: Path | None, style: str) -> str:
    # the style is always named: left out, ISMCTS would evaluate with the shipped model
    if model is None:
        return append_params(spec, [("style", style)])
    if "," in str(model):
        raise LearnError(f"the model path {model} holds a comma, which a spec cannot carry")
    return append_params(spec, [("eval", str(model))])


def _evaluation(records: list[dict[str, Any]], candidate: str) -> dict[str, Any]:
    """The candidate's score against the hand-set style's search, by the pentanomial model."""
    from ..analysis.stats import summarize

    table = summarize(records)
    row = table.loc[candidate]
    h2h = table.attrs.get("head_to_head") or {}
    return {"games": int(row["games"]), "win_rate": float(row["win_rate"]),
            "low": float(row["win_low"]), "high": float(row["win_high"]),
            "elo": None if row["rating"] != row["rating"] else float(row["rating"]),
            "p_value": h2h.get("p_value"), "mean_vp": float(row["mean_vp"])}


def _newest_held_out_log_losses(sources: list[Path], newest: int, tc: TrainConfig, model: Path,
                                incumbent: Path | None, style: str) -> dict[str, Any]:
    """The held-out log loss of ``model`` and of the incumbent on the held-out positions of the
    newest ``newest`` sources (the training's own split, so the new model never saw them; the
    incumbent was trained on older self-play), both as calibrated (before ``sharpen``). The
    hand-set style as incumbent is calibrated on the training positions, as in the training
    report: the stricter baseline."""
    from ..bots.models import load_model, style_weights

    data = load_dataset(sources)
    train_set, held = split(data, tc.holdout, tc.seed)
    first_new = (len(sources) - newest) * 10**9     # load_dataset keys source s's deals from s * 10**9
    held = held.take_positions(held.position_deals() >= first_new)
    if held.positions == 0:
        raise LearnError(f"no held-out positions from the newest self-play ({sources[-1]}): "
                         "raise [train] holdout or [selfplay] deals")
    def calibrated(path: Path) -> Any:
        # a file's logits are sharpened for the search (its training report says by how much)
        report = path.parent / "report.json"
        sharpen = read_json(report).get("sharpen", 1.0) if report.exists() else 1.0
        return np.asarray(load_model(path).evaluate(held.features)) / sharpen

    new_loss = position_log_loss(calibrated(model), held)
    if incumbent is None:
        values = style_weights(style)
        t = fit_temperature(train_set.features @ values, train_set)
        old_loss = position_log_loss(held.features @ values * t, held)
    else:
        old_loss = position_log_loss(calibrated(incumbent), held)
    return {"positions": held.positions, "new": new_loss, "incumbent": old_loss}


def _fresh(out: Path) -> None:
    """Remove what ``learn`` wrote into ``out`` (hand-written files such as NOTES.md stay)."""
    for name in _WRITTEN:
        (out / name).unlink(missing_ok=True)
    for folder in sorted(out.glob("gen-*")):
        if folder.is_dir() and folder.name[4:].isdigit():
            shutil.rmtree(folder)


def learn(config: LearnConfig, out: str | os.PathLike[str], *, fresh: bool = False,
          log: Callable[[str], object] = print, progress: bool | None = None) -> dict[str, Any]:
    """Run (or resume) the expert iteration of ``config`` into ``out``; returns the summary.
    ``fresh``: first remove every generation and file an earlier run wrote there (files
    written by hand stay: the folder is not moved aside)."""
    out = Path(out)
    with Session(out, n_jobs=config.jobs, batch_size=config.batch_size, progress=progress) as session:
        if fresh:
            _fresh(out)
        saved = out / "experiment.toml"
        if saved.exists() and read_text(saved, "a stored config", CONFIG_BYTES) != config.source:
            raise LearnError(f"{out} holds the results of another version of the config; "
                             "use another folder, remove it, or run with --fresh")
        saved.write_text(config.source)
        summary: dict[str, Any] = {"name": config.name, "version": __version__, "seed": config.seed,
                                   "generations": []}
        # the model of the self-play: the incumbent, replaced only by a generation at least as good
        incumbent: Path | None = None
        incumbent_gen = 0
        for gen in range(config.generations + 1):
            folder = out / f"gen-{gen}"
            entry: dict[str, Any] = {"generation": gen}
            if gen > 0:
                sources = [out / f"gen-{g}" / f"selfplay-{p}p"
                           for g in range(max(0, gen - config.history), gen) for p in config.players]
                tc: TrainConfig = parse_train_config({**config.train, "shards": [str(s) for s in sources]},
                                                     Path("."), f"{config.name}: [train]")
                tc = TrainConfig(**{**tc.__dict__, "seed": (config.seed + gen) % 2**32
                                    if "seed" not in config.train else tc.seed})
                if not (folder / "model" / "report.json").exists():
                    log(f"generation {gen}: training on {', '.join(str(s) for s in sources)}")
                    train(tc, folder / "model", log=lambda m: log(f"  {m}"))
                report = read_json(folder / "model" / "report.json")
                model = folder / "model" / "model.npz"
                entry["training"] = {
                    "positions": report["positions"], "chosen": report["chosen"],
                    "held_out_log_loss": {k: v["held_out_log_loss"] for k, v in report["models"].items()},
                    "balanced_style_log_loss": report["balanced_style"]["held_out_log_loss"],
                    "uniform_log_loss": report["uniform"]["held_out_log_loss"]}
                candidate = _with_eval(config.evaluate_search, model, config.style)
                opponent = _with_eval(config.evaluate_search, None, config.style)
                rc = RunConfig(specs=(candidate, opponent), players=2, deals=config.evaluate_deals,
                               seed=config.seed + 1000 + gen)
                log(f"generation {gen}: {candidate} against {opponent}, {rc.total_games} games")
                records = finished_records(folder / "evaluate", rc)
                if records is None:
                    records = session.play(rc, folder / "evaluate").records
                entry["evaluation"] = {"candidate": candidate, "opponent": opponent,
                                       **_evaluation(records, candidate)}
                ev = entry["evaluation"]
                log(f"  win rate {ev['win_rate']:.1%} [{ev['low']:.1%}, {ev['high']:.1%}]")
                guard = _guard(config, gen, folder, sources, tc, model, incumbent, incumbent_gen, session)
                entry["guard"] = guard
                log(f"  {guard['why']}")
                if guard["kept"]:
                    incumbent, incumbent_gen = model, gen
            if gen < config.generations:
                spec = _with_eval(config.selfplay_search, incumbent, config.style)
                entry["selfplay"] = {"spec": spec, "model_of": incumbent_gen}
                for players in config.players:
                    rc = RunConfig(specs=(spec,), players=players, deals=config.selfplay_deals,
                                   seed=config.seed + 100 * gen + players)
                    spc = SelfPlayConfig(rc, config.positions, config.shard_deals)
                    log(f"generation {gen}: self-play of {spec}, {players} players, {rc.total_games} games")
                    res = selfplay(spc, folder / f"selfplay-{players}p", n_jobs=config.jobs,
                                   batch_size=config.batch_size, progress=progress)
                    entry["selfplay"][f"{players}p"] = {"games": res.games, "positions": res.positions,
                                                        "rows": res.rows}
            summary["generations"].append(entry)
        summary["kept"] = incumbent_gen
        (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n")
        (out / "README.md").write_text(_readme(config, summary, out))
        _plot(summary, out / "generations.png")
    return summary


def _guard(config: LearnConfig, gen: int, folder: Path, sources: list[Path], tc: TrainConfig, model: Path,
           incumbent: Path | None, incumbent_gen: int, session: Session) -> dict[str, Any]:
    """Whether generation ``gen``'s model replaces the incumbent for the next self-play, and why."""
    name = (f"generation {incumbent_gen}" if incumbent is not None
            else f"the {config.style} style (generation 0)")
    guard: dict[str, Any] = {"incumbent": incumbent_gen, "kept": True}
    reasons = []
    if config.guard_log_loss:
        losses = _newest_held_out_log_losses(sources, len(config.players), tc, model, incumbent, config.style)
        guard["log_loss"] = losses
        better = losses["new"] <= losses["incumbent"]
        guard["kept"] = guard["kept"] and better
        reasons.append(f"held-out log loss on the newest self-play ({losses['positions']} positions) "
                       f"{losses['new']:.4f} {'<=' if better else '>'} {losses['incumbent']:.4f} of {name}")
    if config.guard_match_deals and guard["kept"]:
        candidate = _with_eval(config.evaluate_search, model, config.style)
        holder = _with_eval(config.evaluate_search, incumbent, config.style)
        rc = RunConfig(specs=(candidate, holder), players=2, deals=config.guard_match_deals,
                       seed=config.seed + 2000 + gen)
        records = finished_records(folder / "gate", rc)
        if records is None:
            records = session.play(rc, folder / "gate").records
        match = {"opponent": holder, **_evaluation(records, candidate)}
        guard["match"] = match
        won = match["win_rate"] >= 0.5
        guard["kept"] = won
        reasons.append(f"against {name} {match['win_rate']:.1%} [{match['low']:.1%}, {match['high']:.1%}] "
                       f"over {match['games']} games ({'at least' if won else 'below'} 50%)")
    if not reasons:
        reasons.append("no guard configured")
    verdict = (f"generation {gen} kept: it plays the next self-play" if guard["kept"]
               else f"generation {gen} not kept: {name} plays on")
    guard["why"] = f"{verdict} ({'; '.join(reasons)})"
    return guard


def _readme(config: LearnConfig, summary: Mapping[str, Any], out: Path) -> str:
    lines = [f"# {config.name}", "", config.description.strip(), "",
             f"**Question.** {config.question.strip()}", "",
             "| generation | self-play bot | trained on (positions) | held-out log loss: linear / MLP / "
             "balanced style / uniform | model used | against the style's search: win rate [95%] "
             "| plays the next self-play |",
             "|---|---|---|---|---|---|---|"]
    for entry in summary["generations"]:
        sp = entry.get("selfplay", {}).get("spec", "—")
        tr = entry.get("training")
        if tr:
            losses = tr["held_out_log_loss"]
            loss = " / ".join(f"{losses[k]:.4f}" if k in losses else "—" for k in ("linear", "mlp")) + \
                f" / {tr['balanced_style_log_loss']:.4f} / {tr['uniform_log_loss']:.4f}"
            ev = entry["evaluation"]
            result = f"{ev['win_rate']:.1%} [{ev['low']:.1%}, {ev['high']:.1%}] over {ev['games']} games"
            guard = entry.get("guard", {})
            kept = "yes" if guard.get("kept", True) else f"no: generation {guard['incumbent']} plays on"
            lines.append(f"| {entry['generation']} | `{sp}` | {tr['positions']} | {loss} | {tr['chosen']} "
                         f"| {result} | {kept} |")
        else:
            lines.append(f"| {entry['generation']} (the {config.style} style) | `{sp}` | — | — | — | — "
                         "| yes |")
    guards = [(e["generation"], e["guard"]["why"]) for e in summary["generations"] if "guard" in e]
    if guards:
        lines += ["", "**The guard.** " + _guard_rule(config) + " "
                  f"The incumbent at the end, the generation kept: **{summary['kept']}**.", ""]
        lines += [f"* {why}" for _, why in guards]
    if (out / "NOTES.md").exists():
        lines += ["", "What the numbers say, and further measurements (written by hand, not by "
                  "`glory-ai learn`): [NOTES.md](NOTES.md)."]
    lines += ["", "The win rate is the pentanomial estimate (the two seatings of a deal as one pair, "
              "docs/statistics.md). Held-out log loss: per position, the cross-entropy of the "
              "players' win shares and the softmax of the model's outputs (docs/learning.md).", "",
              "![generations](generations.png)", "",
              f"Reproduce: `glory-ai learn experiments/learning/{config.name}.toml "
              f"--out /tmp/{config.name}` "
              "(with iteration budgets: the same games, shards and model files; "
              "tests/learn/test_shipped_learning.py replays a game of every run and retrains the "
              "first model). Running it into this folder again plays and trains nothing: every step "
              "is finished.", ""]
    return "\n".join(lines)


def _guard_rule(config: LearnConfig) -> str:
    rules = []
    if config.guard_log_loss:
        rules.append("its held-out log loss on the newest self-play's held-out deals (which the "
                     "incumbent never trained on) is at most the incumbent's")
    if config.guard_match_deals:
        rules.append(f"it scores at least 50% against the incumbent over {2 * config.guard_match_deals} "
                     f"games of `{config.evaluate_search}`")
    if not rules:
        return "None configured: every generation plays the next self-play."
    return ("A new generation replaces the incumbent (the last generation kept; at first the hand-set "
            "style, calibrated) as the model of the next self-play only if " + " and ".join(rules) + ".")


def _plot(summary: Mapping[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [e for e in summary["generations"] if "evaluation" in e]
    if not gens:
        return
    fig, ax = plt.subplots(figsize=(5, 3.4))
    xs = [e["generation"] for e in gens]
    rates = [e["evaluation"]["win_rate"] for e in gens]
    lows = [e["evaluation"]["win_rate"] - e["evaluation"]["low"] for e in gens]
    highs = [e["evaluation"]["high"] - e["evaluation"]["win_rate"] for e in gens]
    ax.errorbar(xs, rates, yerr=[lows, highs], fmt="o-", capsize=4)
    ax.axhline(0.5, color="grey", ls="--")
    ax.set_xticks(xs)
    ax.set_xlabel("generation")
    ax.set_ylabel("win rate against the hand-set style")
    fig.tight_layout()
    fig.savefig(path, dpi=90, metadata={"Software": None})
    plt.close(fig)

