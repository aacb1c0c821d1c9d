"""The Dask cluster a report reads its runs on (``glory-ai report --dask``): the workers make
and read each run's columns file (:func:`glory_ai.analysis.load.load_runs` with ``client``),
this process computes the tables from what they send back."""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ..arena import ArenaError
from . import AnalysisError

__all__ = ["LOCAL", "report_client"]

#: the scheduler name that starts a cluster on this machine for the report
LOCAL = "local"


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
    from ..arena.runner import _dask_client, _dask_quiet

    with _dask_quiet():
        if scheduler == LOCAL:
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None)
            with cluster, distributed.Client(cluster, set_as_default=False) as client:
                yield client
            return
        try:
            client, _ = _dask_client(scheduler)
        except ArenaError as error:
            raise AnalysisError(str(error)) from None
        try:
            yield client
        finally:
            client.close()
