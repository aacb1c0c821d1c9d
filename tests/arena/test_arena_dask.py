"""The arena on joblib's Dask backend, on a local distributed cluster started by the test:
the records are those of a run in one process."""
import pytest

from glory_ai.arena import RunConfig, load_records, run, strip_timing

distributed = pytest.importorskip("distributed")
# a local cluster of two worker processes takes seconds to start
pytestmark = pytest.mark.slow

CONFIG = RunConfig(specs=("random", "greedy"), deals=4, seed=8)


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster


def _stripped(records):
    return [strip_timing(r) for r in records]


def test_dask_by_scheduler_address_and_by_client(cluster, tmp_path, shuffle_batches):
    expected = _stripped(run(CONFIG, n_jobs=1).records)
    by_address = run(CONFIG, tmp_path / "run", backend="dask", scheduler=cluster.scheduler_address,
                     batch_size=3)
    assert by_address.n_jobs == 2
    assert _stripped(by_address.records) == expected
    assert _stripped(load_records(tmp_path / "run")) == expected
    with distributed.Client(cluster) as client:
        assert _stripped(run(CONFIG, backend="dask", scheduler=client, batch_size=1).records) == expected
        # the default client, as joblib's own dask backend uses it; batches in another order
        shuffle_batches(3)
        assert _stripped(run(CONFIG, backend="dask", batch_size=2).records) == expected
