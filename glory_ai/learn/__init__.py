"""Learning an evaluation from self-play (docs/learning.md).

* :func:`selfplay` plays games between chosen bots through the arena and writes training
  shards: the feature vectors of a few positions per game, from every player's view, with
  the game's outcome for that player (``glory-ai selfplay``).
* :func:`train` fits a linear model and a small MLP (scikit-learn) on shards, with a split by
  deal, and writes the ``.npz`` model files the search reads and a training report
  (``glory-ai train CONFIG.toml``).
* :func:`learn` runs expert iteration: generation k+1 learns from the games of ISMCTS
  searching with generation k's model, and every generation plays the hand-set style's search
  (``glory-ai learn CONFIG.toml``).

This layer sits above the arena and the analysis, below the experiments and the command line.
"""
from .fitting import Dataset, TrainConfig, TrainResult, load_dataset, load_train_config, train
from .iterate import LearnConfig, learn, load_learn_config
from .shards import LearnError, SelfPlayConfig, SelfPlayResult, selfplay, shard_paths

__all__ = ["Dataset", "LearnConfig", "LearnError", "SelfPlayConfig", "SelfPlayResult", "TrainConfig",
           "TrainResult", "learn", "load_dataset", "load_learn_config", "load_train_config", "selfplay",
           "shard_paths", "train"]
