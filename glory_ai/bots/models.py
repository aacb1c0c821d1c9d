"""Evaluation models: what the search thinks a position is worth, as a function of the
feature vector ``State.features(player)`` (docs/evaluation.md).

A model is a linear function of the features or a small multilayer perceptron (dense
layers, ReLU between them, one output), with optional input normalisation. It is stored
as a plain ``.npz`` file (the layout below) and evaluated in C, without the GIL, inside
the search (``ismcts:eval=PATH``) and the one-ply policy (``heuristic:eval=PATH``). The
hand-set styles (``glory_ai.bots.styles``) are linear models too (:func:`style_model`).

The ``.npz`` layout (format version 1); F is ``FEATURE_COUNT``:

======================  =========  ===========  ==============================================
key                     dtype      shape        meaning
======================  =========  ===========  ==============================================
``format_version``      integer    ``()``       1
``feature_set``         integer    ``()``       the feature set the model reads (``FEATURE_SET_VERSION``)
``num_features``        integer    ``()``       F
``output``              string     ``()``       ``value``, ``win_logit`` or ``win_share``
``weights``, ``bias``   float      ``(F,)``,    a linear model: ``bias + weights . x``
                                   ``()``
``W1``, ``b1``, ...     float      ``(F, H1)``, an MLP: ``x -> relu(x W1 + b1) -> ... -> x Wk + bk``
                                   ``(H1,)``    (``Wk`` has one column, ``bk`` one value)
``mean``, ``scale``     float      ``(F,)``     optional: x is ``(features - mean) / scale``
``gain``                float      ``(F,)``     optional: the gain weights that price the
                                                ``pending_gain_*`` features (default
                                                ``REFERENCE_GAIN_WEIGHTS``)
``feature_names``       string     ``(F,)``     optional: must be ``FEATURE_NAMES``
``description``         string     ``()``       optional free text
======================  =========  ===========  ==============================================

Floats may be stored as float16, float32 or float64 (or integers); they are read as
float64 and must be finite; ``scale`` must be positive. A linear model has ``weights`` and
``bias``, an MLP ``W1, b1`` to ``Wk, bk`` (k from 1 to ``MAX_HIDDEN_LAYERS + 1``, hidden
layers of at most ``MAX_UNITS`` units); any other key is refused, so a misspelt key is an
error rather than a model that silently ignores it.
"""
from __future__ import annotations

import hashlib
import io
import os
import re
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from .._reading import MODEL_BYTES, ReadLimitError, read_bytes
from ..core.engine import FEATURE_COUNT, FEATURE_NAMES, FEATURE_SET_VERSION, REFERENCE_GAIN_WEIGHTS
from .styles import STYLES

if TYPE_CHECKING:
    from ..core.engine import State

__all__ = ["EvalModel", "ModelError", "load_model", "model_from_arrays", "style_model",
           "style_weights", "FEATURE_NAMES", "FEATURE_COUNT", "FEATURE_SET_VERSION",
           "FORMAT_VERSION", "OUTPUTS", "MAX_HIDDEN_LAYERS", "MAX_UNITS", "REFERENCE_GAIN_WEIGHTS"]

#: the version of the .npz layout this module reads and writes
FORMAT_VERSION = 1
#: what a model's output means (docs/evaluation.md, "Outputs"): VP-like values compared
#: through the search's reward mapping, per-player win logits, or per-player win shares
OUTPUTS = ("value", "win_logit", "win_share")
#: caps on the size of an MLP (the search keeps two hidden-layer buffers per thread)
MAX_HIDDEN_LAYERS = 4
MAX_UNITS = 512

_ROLES = ("laborer", "craftsman", "architect", "legionary", "merchant", "patron")
_LAYER_KEY = re.compile(r"[Wb]([1-9][0-9]*)")
_KNOWN_KEYS = {"format_version", "feature_set", "num_features", "output", "weights", "bias",
               "mean", "scale", "gain", "feature_names", "description"}


class ModelError(ValueError):
    """A model file or model arrays that cannot be used: the message names what is wrong."""


Array = npt.NDArray[np.float64]


@dataclass(frozen=True, eq=False)
class EvalModel:
    """An evaluation model: dense layers over the feature vector, the last with one output.

    ``layers`` holds (W, b) per layer, W of shape (inputs, outputs); one layer is a linear
    model. ``mean``/``scale`` (or None) normalise the input. ``gain`` (or None: the
    reference) prices the ``pending_gain_*`` features. ``output`` says what the
    number means (:data:`OUTPUTS`). ``source`` says where the model came from (a path, or
    ``style:NAME``) and ``sha256`` is the hash of its file's bytes (None when it was not
    read from a file)."""

    layers: tuple[tuple[Array, Array], ...]
    output: str = "value"
    mean: Array | None = None
    scale: Array | None = None
    gain: Array | None = None
    description: str = ""
    source: str = ""
    sha256: str | None = None

    @property
    def kind(self) -> str:
        """``linear`` (one layer) or ``mlp``."""
        return "linear" if len(self.layers) == 1 else "mlp"

    def features(self, state: State, player: int) -> Array:
        """The feature vector this model reads for `player` in `state` (its gain weights
        price the pending_gain_* features)."""
        return state.features(player, gain=self.gain)

    def evaluate(self, features: npt.ArrayLike) -> Any:
        """The model's output for a feature vector (a float) or a batch of them (rows; an
        array), computed with numpy: the reference for the search's C evaluation, which
        agrees with it to rounding (it folds the normalisation into the first layer)."""
        x = np.asarray(features, dtype=np.float64)
        if x.shape[-1:] != (FEATURE_COUNT,):
            raise ValueError(f"expected {FEATURE_COUNT} features per row, got shape {x.shape}")
        if self.mean is not None and self.scale is not None:
            x = (x - self.mean) / self.scale
        for weight, bias in self.layers[:-1]:
            x = np.maximum(x @ weight + bias, 0.0)
        weight, bias = self.layers[-1]
        out = x @ weight + bias
        return float(out[0]) if out.ndim == 1 else out[..., 0]

    def arrays(self) -> dict[str, npt.NDArray[Any]]:
        """The model as the arrays of its .npz file (the documented layout)."""
        out: dict[str, npt.NDArray[Any]] = {
            "format_version": np.array(FORMAT_VERSION), "feature_set": np.array(FEATURE_SET_VERSION),
            "num_features": np.array(FEATURE_COUNT), "output": np.array(self.output),
            "feature_names": np.array(FEATURE_NAMES)}
        if self.kind == "linear":
            out["weights"] = self.layers[0][0][:, 0].copy()
            out["bias"] = np.array(self.layers[0][1][0])
        else:
            for k, (weight, bias) in enumerate(self.layers, start=1):
                out[f"W{k}"], out[f"b{k}"] = weight, bias
        if self.mean is not None and self.scale is not None:
            out["mean"], out["scale"] = self.mean, self.scale
        if self.gain is not None:
            out["gain"] = self.gain
        if self.description:
            out["description"] = np.array(self.description)
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the model as an .npz file (numpy.savez, uncompressed)."""
        arrays: dict[str, Any] = self.arrays()
        with open(path, "wb") as handle:
            np.savez(handle, **arrays)

    def __repr__(self) -> str:
        shape = " x ".join(str(w.shape[1]) for w, _ in self.layers[:-1])
        kind = "linear" if self.kind == "linear" else f"MLP {shape}"
        return f"<EvalModel {kind}, output={self.output}, from {self.source or 'arrays'}>"


def linear_model(weights: npt.ArrayLike, bias: float = 0.0, output: str = "value", *,
                 mean: npt.ArrayLike | None = None, scale: npt.ArrayLike | None = None,
                 gain: npt.ArrayLike | None = None, description: str = "") -> EvalModel:
    """A linear model ``bias + weights . x`` (validated like a model file)."""
    arrays: dict[str, Any] = {"weights": weights, "bias": bias, "output": output}
    if mean is not None or scale is not None:
        arrays.update(mean=mean, scale=scale)
    if gain is not None:
        arrays["gain"] = gain
    if description:
        arrays["description"] = description
    return model_from_arrays(_with_header(arrays), "linear model")


def mlp_model(layers: Sequence[tuple[npt.ArrayLike, npt.ArrayLike]], output: str = "value", *,
              mean: npt.ArrayLike | None = None, scale: npt.ArrayLike | None = None,
              gain: npt.ArrayLike | None = None, description: str = "") -> EvalModel:
    """An MLP from its (W, b) layers, W of shape (inputs, outputs); ReLU between layers."""
    arrays: dict[str, Any] = {"output": output}
    for k, (weight, bias) in enumerate(layers, start=1):
        arrays[f"W{k}"], arrays[f"b{k}"] = weight, bias
    if mean is not None or scale is not None:
        arrays.update(mean=mean, scale=scale)
    if gain is not None:
        arrays["gain"] = gain
    if description:
        arrays["description"] = description
    return model_from_arrays(_with_header(arrays), "MLP model")


def _with_header(arrays: dict[str, Any]) -> dict[str, Any]:
    return {"format_version": FORMAT_VERSION, "feature_set": FEATURE_SET_VERSION,
            "num_features": FEATURE_COUNT, **arrays}


# ---- the styles as linear models ------------------------------------------------------

def style_weights(style: str | Mapping[str, Any]) -> Array:
    """The weights over the features that make a style's evaluation (a style name or a
    style's weights, as in glory_ai.bots.styles.STYLES): the score counts 1 VP, and each
    weight of the style multiplies the features it values (docs/evaluation.md)."""
    if isinstance(style, str):
        if style not in STYLES:
            raise ValueError(f"unknown style {style!r}; known: {', '.join(STYLES)}")
        style = STYLES[style]
    at = {name: i for i, name in enumerate(FEATURE_NAMES)}
    w = np.zeros(FEATURE_COUNT)
    w[at["score"]] = 1.0
    w[at["foundation_value"]] = style["foundation"]
    w[at["progress_materials"]] = style["progress"]
    w[at["materials_at_hand"]] = 0.4 * style["progress"]
    for r, role in enumerate(_ROLES):
        w[at[f"clients_{role}"]] = style["client"] * style["role"][r]
        w[at[f"pending_gain_{role}"]] = style["pending"] * style["role"][r]
    w[at["vault_cards"]] = style["vault"]
    w[at["vault_room"]] = 0.3 * style["vault"]
    w[at["stockpile_useful"]] = style["stockpile"]
    w[at["stockpile_excess"]] = 0.25 * style["stockpile"]
    w[at["hand_cards"]] = style["card"]
    w[at["hand_cards_beyond"]] = 0.4 * style["card"]
    w[at["jacks"]] = style["jack"]          # the jacks feature counts those beyond two 0.15 each
    first = at["completed_academy"]
    w[first:first + 44] = style["building"][1:45]
    return w


_STYLE_MODELS: dict[str, EvalModel] = {}


def style_model(style: str) -> EvalModel:
    """A built-in style (``balanced``, ``builder``, ...) as a linear model, whose gain
    weights are its own weights (its role-gain estimate prices as the style does)."""
    if style not in _STYLE_MODELS:
        weights = style_weights(style)
        model = linear_model(weights, 0.0, "value", gain=weights, description=f"the {style} style")
        _STYLE_MODELS[style] = replace(model, source=f"style:{style}")
    return _STYLE_MODELS[style]


# ---- reading and checking models ------------------------------------------------------

_LOADED: dict[str, EvalModel] = {}     # by the sha256 of the file's bytes


def load_model(path: str | os.PathLike[str]) -> EvalModel:
    """Read and check a model file (.npz, the layout in this module's docstring).
    ModelError names the file and what is wrong with it."""
    where = f"model {os.fspath(path)!r}"
    try:
        data = read_bytes(path, "an evaluation model", MODEL_BYTES)
    except ReadLimitError as error:
        raise ModelError(f"{where}: {error.reason}") from None
    except FileNotFoundError:
        raise ModelError(f"{where}: no such file") from None
    except OSError as error:
        raise ModelError(f"{where}: cannot be read ({error.strerror or error})") from None
    digest = hashlib.sha256(data).hexdigest()
    if digest not in _LOADED:
        if not zipfile.is_zipfile(io.BytesIO(data)):
            raise ModelError(f"{where}: not an .npz archive (write one with numpy.savez)")
        arrays: dict[str, Any] = {}
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as archive:
                for key in archive.files:
                    try:
                        arrays[key] = archive[key]
                    except ValueError:
                        raise ModelError(f"{where}: key {key!r} holds Python objects "
                                         "(pickled arrays are not read); store numbers or strings") from None
        except ModelError:
            raise
        except Exception as error:      # a damaged archive: zipfile, numpy's format checks
            raise ModelError(f"{where}: not a readable .npz archive ({error})") from None
        if len(_LOADED) >= 64:
            _LOADED.clear()
        _LOADED[digest] = model_from_arrays(arrays, where)
    return replace(_LOADED[digest], source=os.fspath(path), sha256=digest)


def _scalar(arrays: Mapping[str, Any], key: str, where: str, kind: str) -> Any:
    if key not in arrays:
        raise ModelError(f"{where}: missing key {key!r}")
    value = np.asarray(arrays[key])
    if value.shape not in ((), (1,)):
        raise ModelError(f"{where}: key {key!r} must be a single value, got shape {value.shape}")
    value = value.reshape(())
    if kind == "int":
        if value.dtype.kind not in "iu" and not (value.dtype.kind == "f" and float(value) == int(value)):
            raise ModelError(f"{where}: key {key!r} must be an integer, got {value.dtype} {value}")
        return int(value)
    if value.dtype.kind == "S":
        return value.item().decode("utf-8", "replace")
    if value.dtype.kind != "U":
        raise ModelError(f"{where}: key {key!r} must be a string, got {value.dtype}")
    return str(value)


def _numbers(arrays: Mapping[str, Any], key: str, where: str, shape: tuple[int | None, ...]) -> Array:
    # an array of finite numbers of `shape` (None: any size), as float64
    value = np.asarray(arrays[key])
    if value.dtype.kind not in "fiu":
        raise ModelError(f"{where}: key {key!r} must hold numbers, got dtype {value.dtype}")
    if shape == () and value.shape == (1,):
        value = value.reshape(())
    sizes = ["H" if n is None else str(n) for n in shape]
    expected = f"({sizes[0]},)" if len(sizes) == 1 else "(" + ", ".join(sizes) + ")"
    if value.ndim != len(shape) or any(n is not None and n != got
                                       for n, got in zip(shape, value.shape, strict=True)):
        raise ModelError(f"{where}: key {key!r} must have shape {expected}, got {value.shape}")
    value = value.astype(np.float64)
    if not np.all(np.isfinite(value)):
        bad = int(np.count_nonzero(~np.isfinite(value)))
        plural = "s" if bad > 1 else ""
        raise ModelError(f"{where}: key {key!r} holds {bad} non-finite value{plural} (NaN or infinity)")
    return value


def model_from_arrays(arrays: Mapping[str, Any], where: str = "model") -> EvalModel:
    """Check the arrays of a model (the .npz layout) and build it; ModelError names the
    key and the problem (`where` starts the message)."""
    unknown = sorted(key for key in arrays if key not in _KNOWN_KEYS and not _LAYER_KEY.fullmatch(key))
    if unknown:
        raise ModelError(f"{where}: unknown key {unknown[0]!r} (a model has format_version, feature_set, "
                         "num_features, output, weights and bias or W1, b1, ..., and optionally mean, "
                         "scale, gain, feature_names, description)")
    version = _scalar(arrays, "format_version", where, "int")
    if version != FORMAT_VERSION:
        raise ModelError(f"{where}: format_version {version} is not supported "
                         f"(this glory_ai reads {FORMAT_VERSION})")
    feature_set = _scalar(arrays, "feature_set", where, "int")
    if feature_set != FEATURE_SET_VERSION:
        raise ModelError(f"{where}: made for feature set {feature_set}, but this glory_ai computes "
                         f"feature set {FEATURE_SET_VERSION}")
    count = _scalar(arrays, "num_features", where, "int")
    if count != FEATURE_COUNT:
        raise ModelError(f"{where}: num_features is {count}, but feature set {FEATURE_SET_VERSION} "
                         f"has {FEATURE_COUNT} features")
    output = _scalar(arrays, "output", where, "str")
    if output not in OUTPUTS:
        raise ModelError(f"{where}: unknown output {output!r}; expected one of {', '.join(OUTPUTS)}")
    if "feature_names" in arrays:
        names = np.asarray(arrays["feature_names"])
        if names.dtype.kind not in "US" or names.shape != (FEATURE_COUNT,):
            raise ModelError(f"{where}: key 'feature_names' must be {FEATURE_COUNT} strings, "
                             f"got {names.dtype} of shape {names.shape}")
        listed = [n.decode() if isinstance(n, bytes) else str(n) for n in names.tolist()]
        for i, (got, name) in enumerate(zip(listed, FEATURE_NAMES, strict=True)):
            if got != name:
                raise ModelError(f"{where}: feature_names[{i}] is {got!r}, but feature {i} is {name!r}")
    description = _scalar(arrays, "description", where, "str") if "description" in arrays else ""
    layers = _layers(arrays, where)
    mean = scale = None
    if ("mean" in arrays) != ("scale" in arrays):
        raise ModelError(f"{where}: missing key {'scale' if 'mean' in arrays else 'mean'!r} "
                         "(input normalisation takes both mean and scale)")
    if "mean" in arrays:
        mean = _numbers(arrays, "mean", where, (FEATURE_COUNT,))
        scale = _numbers(arrays, "scale", where, (FEATURE_COUNT,))
        if np.any(scale <= 0):
            i = int(np.argmax(scale <= 0))
            raise ModelError(f"{where}: key 'scale' must be positive, got {scale[i]} "
                             f"at {i} ({FEATURE_NAMES[i]})")
    gain = _numbers(arrays, "gain", where, (FEATURE_COUNT,)) if "gain" in arrays else None
    return EvalModel(layers=layers, output=output, mean=mean, scale=scale, gain=gain,
                     description=description)


def _layers(arrays: Mapping[str, Any], where: str) -> tuple[tuple[Array, Array], ...]:
    layered = sorted({int(m.group(1)) for key in arrays if (m := _LAYER_KEY.fullmatch(key))})
    if "weights" in arrays or "bias" in arrays:
        if layered:
            raise ModelError(f"{where}: both a linear model (weights, bias) and layers (W1, b1, ...); "
                             "keep one")
        for key in ("weights", "bias"):
            if key not in arrays:
                raise ModelError(f"{where}: missing key {key!r} (a linear model has weights and bias)")
        weights = _numbers(arrays, "weights", where, (FEATURE_COUNT,))
        bias = _numbers(arrays, "bias", where, ())
        return ((weights.reshape(FEATURE_COUNT, 1), bias.reshape(1)),)
    if not layered:
        raise ModelError(f"{where}: missing key 'weights' (a linear model) or 'W1' (an MLP)")
    if layered != list(range(1, len(layered) + 1)):
        missing = min(set(range(1, max(layered) + 1)) - set(layered))
        raise ModelError(f"{where}: missing key 'W{missing}' (layers are numbered 1, 2, ... without gaps)")
    if len(layered) > MAX_HIDDEN_LAYERS + 1:
        raise ModelError(f"{where}: {len(layered)} layers; at most {MAX_HIDDEN_LAYERS + 1} "
                         f"({MAX_HIDDEN_LAYERS} hidden and the output)")
    layers = []
    inputs = FEATURE_COUNT
    for k in layered:
        for key in (f"W{k}", f"b{k}"):
            if key not in arrays:
                raise ModelError(f"{where}: missing key {key!r}")
        last = k == len(layered)
        weight = _numbers(arrays, f"W{k}", where, (inputs, 1 if last else None))
        units = weight.shape[1]
        if not last and not 1 <= units <= MAX_UNITS:
            raise ModelError(f"{where}: key 'W{k}' has {units} units; a hidden layer has 1 to {MAX_UNITS}")
        bias = _numbers(arrays, f"b{k}", where, (units,))
        layers.append((weight, bias))
        inputs = units
    return tuple(layers)

