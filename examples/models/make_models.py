"""Write the example evaluation models beside this script (docs/evaluation.md):

    python3 examples/models/make_models.py

* hand_linear.npz: a linear model written by hand, feature by feature, in VP;
* tiny_mlp.npz: a tiny multilayer perceptron (four hidden units, set by hand) whose ReLUs
  give a hand of resources diminishing returns.

Each file is a plain numpy.savez archive with the documented keys; the script then reads
it back with glory_ai's loader, which checks it. Use them as
``ismcts:eval=examples/models/hand_linear.npz`` or ``heuristic:eval=examples/models/tiny_mlp.npz``.
"""
from pathlib import Path

import numpy as np

from glory_ai.bots.models import load_model
from glory_ai.core.engine import FEATURE_COUNT, FEATURE_NAMES, FEATURE_SET_VERSION

HERE = Path(__file__).resolve().parent
ROLES = ("laborer", "craftsman", "architect", "legionary", "merchant", "patron")


def vector(weights: dict[str, float]) -> np.ndarray:
    """A weight per feature from {feature name: weight} (the others 0)."""
    out = np.zeros(FEATURE_COUNT)
    for name, weight in weights.items():
        out[FEATURE_NAMES.index(name)] = weight
    return out


def header(output: str, description: str) -> dict:
    # what every model file declares: the layout, the features it reads, its output
    return {"format_version": np.array(1), "feature_set": np.array(FEATURE_SET_VERSION),
            "num_features": np.array(FEATURE_COUNT), "output": np.array(output),
            "feature_names": np.array(FEATURE_NAMES), "description": np.array(description)}


# What a position is worth beyond its score, in VP: structures under way count for most
# of their value, clients for half a VP (Patrons a little more), cards in hand and Jacks
# for a quarter and a half, and a few buildings whose functions pay off for more.
HAND_LINEAR = {
    "score": 1.0,
    "foundation_value": 0.2, "progress_materials": 0.6, "materials_at_hand": 0.25,
    **{f"clients_{role}": 0.5 for role in ROLES}, "clients_patron": 0.6,
    "vault_cards": 0.1, "vault_room": 0.05,
    "stockpile_useful": 0.25, "stockpile_excess": 0.05,
    "hand_cards": 0.3, "hand_cards_beyond": 0.1, "jacks": 0.5, "jacks_beyond": 0.1,
    **{f"pending_gain_{role}": 0.8 for role in ROLES},
    "completed_temple": 1.0, "completed_road": 0.5, "completed_tower": 0.5,
    "completed_scriptorium": 0.5, "completed_market": 0.5, "completed_insula": 0.5,
    "completed_aqueduct": 0.5, "completed_wall": 0.5, "completed_villa": 0.3,
}


def write_hand_linear() -> Path:
    path = HERE / "hand_linear.npz"
    np.savez(path, **header("value", "a linear model written by hand (examples/models/make_models.py)"),
             weights=vector(HAND_LINEAR), bias=np.array(0.0))
    return path


def write_tiny_mlp() -> Path:
    # Hidden units (ReLU): 0 the score; 1 the structures under way; 2 the resources at
    # hand; 3 the resources beyond 3 VP' worth. The output adds the first three and takes
    # back a third of the last: resources past a point are worth less.
    structures = {"foundation_value": 0.15, "progress_materials": 0.7, "materials_at_hand": 0.28,
                  **{f"pending_gain_{role}": 0.8 for role in ROLES},
                  "completed_temple": 1.0, "completed_road": 0.5, "completed_tower": 0.5}
    resources = {"hand_cards": 0.25, "hand_cards_beyond": 0.1, "jacks": 0.6, "jacks_beyond": 0.1,
                 "stockpile_useful": 0.2, "stockpile_excess": 0.05, "vault_room": 0.05,
                 **{f"clients_{role}": 0.5 for role in ROLES}}
    w1 = np.stack([vector({"score": 1.0}), vector(structures), vector(resources), vector(resources)], axis=1)
    b1 = np.array([0.0, 0.0, 0.0, -3.0])
    w2 = np.array([[1.0], [1.0], [1.0], [-1 / 3]])
    b2 = np.array([0.0])
    path = HERE / "tiny_mlp.npz"
    np.savez(path, **header("value", "a tiny MLP set by hand (examples/models/make_models.py)"),
             W1=w1, b1=b1, W2=w2, b2=b2)
    return path


if __name__ == "__main__":
    for path in (write_hand_linear(), write_tiny_mlp()):
        model = load_model(path)          # checks the file as the search will
        print(f"{path.name}: {model!r}, sha256 {model.sha256[:16]}...")
