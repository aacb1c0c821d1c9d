"""The Dask cluster a report reads its runs on (``glory-ai report --dask``): the workers make
and read each run's columns file (:func:`glory_ai.analysis.load.load_runs` with ``client``),
this process computes the tables from what they send back."""
from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

from . import AnalysisError

__all__ = ["CONNECT_TIMEOUT", "LOCAL", "report_client"]

#: the scheduler name that starts a cluster on this machine for the report
LOCAL = "local"
#: seconds to reach a scheduler before giving up
CONNECT_TIMEOUT = 10.0


@contextlib.contextmanager
def report_client(scheduler: str) -> Iterator[Any]:
    """A ``distributed.Client`` for the length of the block: of the scheduler at an address
    (tcp://HOST:8786; its workers must see the run folders), or with :data:`LOCAL` of a
    cluster started here (two worker processes of one thread) and stopped after.
    AnalysisError, in one line, when dask is not installed or the scheduler cannot be
    reached."""
    try:
        import distributed
    except ImportError:
        raise AnalysisError("--dask needs dask.distributed, an optional extra: "
                            "pip install 'glory_ai[dask]'") from None
    from ..arena.runner import dask_quiet

    with dask_quiet():
        if scheduler == LOCAL:
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
            with cluster, distributed.Client(cluster, set_as_default=False) as client:
                yield client
            return
        _probe(scheduler)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                client = distributed.Client(scheduler, set_as_default=False, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError, TypeError) as error:
            detail = " ".join(str(error).split()) or type(error).__name__
            raise AnalysisError(f"cannot reach the dask scheduler at {scheduler} ({detail[:160]})") from None
        with client:
            yield client


def _probe(address: str) -> None:
    """The arena's check of a scheduler address (glory_ai.arena.runner.probe_scheduler), its
    refusal as the report's error."""
    from ..arena import ArenaError
    from ..arena.runner import probe_scheduler

    try:
        probe_scheduler(address)
    except ArenaError as error:
        raise AnalysisError(str(error)) from None
