"""``polydat.dask.from_program``: a Dask DataFrame over coordinate ranges,
computed on a two-process ``distributed.LocalCluster``, equals one serial
``generate``."""

from __future__ import annotations

import pytest
from conftest import ALL_TYPES, ALL_TYPES_INPUTS, EXAMPLE

import polydat

dd = pytest.importorskip("dask.dataframe", reason="dask[dataframe] is not installed (pip install 'polydat[dask]')")
distributed = pytest.importorskip("distributed", reason="distributed is not installed (pip install 'polydat[dask]')")
pd = pytest.importorskip("pandas", reason="pandas is not installed")

import pyarrow as pa  # noqa: E402

from polydat.dask import from_program, partition_ranges  # noqa: E402


def test_partition_ranges_split_contiguously():
    assert partition_ranges(range(10), 3) == [range(0, 3), range(3, 6), range(6, 10)]
    assert partition_ranges(range(2), 5) == [range(0, 1), range(1, 2)]
    assert partition_ranges(range(0), 4) == [range(0, 0)]
    assert partition_ranges(range(0, 20, 5), 2) == [range(0, 10, 5), range(10, 20, 5)]


def test_meta_comes_from_the_declared_types_and_nothing_runs_before_compute():
    prog = polydat.compile_file(EXAMPLE)
    frame = from_program(prog, range(10**15), npartitions=1000)  # 10**12 rows a partition: none is made
    assert frame.npartitions == 1000 and frame.divisions[0] == 0 and frame.divisions[-1] == 10**15 - 1
    assert list(frame.columns) == ["cycle", *prog.outputs]
    assert frame.dtypes["label"] == pd.ArrowDtype(pa.string())
    assert frame.dtypes["score"] == pd.ArrowDtype(pa.float64())
    small = from_program(prog, range(10**15 - 10_000, 10**15), npartitions=1000)
    assert small.partitions[999].compute(scheduler="sync")["cycle"].iloc[-1] == 10**15 - 1


def test_errors_show_when_the_frame_is_made():
    with pytest.raises(polydat.CompileError):
        from_program("input cycle: u64\nx := hsah(cycle)\n", range(10))
    with pytest.raises(polydat.errors.UnknownNameError):
        from_program(polydat.compile_file(EXAMPLE), range(10), outputs=["nope"])


def test_a_two_process_cluster_equals_a_serial_generate():
    prog = polydat.compile_file(ALL_TYPES)
    outputs = ["h", "x", "odd", "word", "label", "raw", "yes", "f"]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            frame = from_program(prog.source, (100, 5100), npartitions=7, outputs=outputs, inputs=ALL_TYPES_INPUTS)
            futures = client.compute(frame.to_delayed())
            # A cluster whose workers died would leave gather waiting for
            # ever: fail after a generous bound instead of hanging the suite.
            distributed.wait(futures, timeout=300)
            parts = client.gather(futures)
            workers = {who for part in client.who_has(futures).values() for who in part}
            computed = pd.concat(parts)
    assert len(workers) == 2, "both worker processes took partitions"
    serial = prog.generate(range(100, 5100), outputs=outputs, inputs=ALL_TYPES_INPUTS, format="arrow")
    serial = serial.add_column(0, "cycle", pa.array(range(100, 5100), pa.uint64()))
    expected = serial.to_pandas(types_mapper=pd.ArrowDtype)
    expected.index = pd.RangeIndex(100, 5100)
    assert list(computed.dtypes) == list(expected.dtypes)
    pd.testing.assert_frame_equal(computed, expected)
