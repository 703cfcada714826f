"""tools/benchplot.py reads the ratio lines of saved benchmark output (the data of
the docs' plot); drawing needs matplotlib, which the docs build has."""
import importlib.util
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("benchplot", ROOT / "tools" / "benchplot.py")
benchplot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(benchplot)


def test_parses_both_line_shapes():
    rows = benchplot.parse(
        "### benchmarks/bench_ops.py\n"
        "operation                   memview ns   NumPy ns   ratio  target\n"
        "a[3]                                84        111    0.76  <= 2: met\n"
        "### benchmarks/bench_export.py\n"
        "memoryview(a) 1 KiB      116.6 ns  vs memoryview(bytearray) 1 KiB   112.2 ns  ratio      1.039  (target <= 1: MISSED)\n"
        "  (for reference: x)     253.0 ns  vs y                              211.4 ns  ratio      1.197\n"
        "  host pool, 64 B         73.8 ns  vs make([]byte) 64 B              115.2 ns  ratio  4.572e-07  (reference)\n")
    assert rows == [("bench_ops", "a[3]", 0.76, 2.0),
                    ("bench_export", "memoryview(a) 1 KiB", 1.039, 1.0),
                    ("bench_export", "(for reference: x)", 1.197, None),
                    ("bench_export", "host pool, 64 B", 4.572e-07, None)]


def test_the_docs_data_has_ratios_with_targets():
    rows = benchplot.parse((ROOT / "docs" / "benchmarks" / "bench-output.txt").read_text())
    assert sum(1 for r in rows if r[3] is not None) >= 20
