"""The names of the files in a run folder (docs/arena.md), in one place: the modules that
write a folder (:mod:`~glory_ai.arena.storage`, :mod:`~glory_ai.arena.code`,
:mod:`~glory_ai.arena.lock`) and those that read one take them from here.

    RUN/config.json          the resolved config, and the checksum of the records
    RUN/games.jsonl          one game record per line, appended as games finish
    RUN/games.jsonl.gz       the records of a finished run kept compressed (instead)
    RUN/games.sums           the checksum of each game's record, by its place in the plan
    RUN/code.json            the code that played the games
    RUN/quarantine.jsonl     what a repair set aside (damaged records, copies), never deleted
    RUN/games.parquet        the per-game columns the analysis derives from the records
                             (glory_ai.analysis.columns): no game, a cache a repair removes
    RUN/.lock                the lock of the one process writing into the folder
"""
from __future__ import annotations

__all__ = ["CODE_FILE", "COLUMNS_FILE", "COMPRESSED_GAMES_FILE", "CONFIG_FILE", "GAMES_FILE", "GAMES_FILES",
           "LOCK_FILE", "QUARANTINE_FILE", "SUMS_FILE"]

CONFIG_FILE = "config.json"
GAMES_FILE = "games.jsonl"
#: a finished run's records compressed (how experiment results are kept)
COMPRESSED_GAMES_FILE = GAMES_FILE + ".gz"
#: the names a run's records file can have
GAMES_FILES = (GAMES_FILE, COMPRESSED_GAMES_FILE)
#: the identity of the code that played the run's games (glory_ai.arena.code)
CODE_FILE = "code.json"
#: the lock of the process writing into the folder (glory_ai.arena.lock)
LOCK_FILE = ".lock"
#: the checksum of each game's record line, at its place in the plan (glory_ai.arena.sums)
SUMS_FILE = "games.sums"
#: what a repair took out of the records, with the reason (glory_ai.arena.quarantine)
QUARANTINE_FILE = "quarantine.jsonl"
#: the per-game columns derived from the records (glory_ai.analysis.columns): a cache tied to
#: the records' size, time and checksum, never a source of games
COLUMNS_FILE = "games.parquet"
