"""MkDocs hooks (mkdocs.yml): draw the benchmark plot before the site is built.

The plot is generated, not committed: tools/benchplot.py reads the saved
benchmark output, docs/benchmarks/bench-output.txt, and writes
docs/benchmarks/ratios.svg (ignored by git)."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def on_pre_build(config, **kwargs):
    bench = ROOT / "docs" / "benchmarks"
    data, plot = bench / "bench-output.txt", bench / "ratios.svg"
    deps = [data, ROOT / "tools" / "benchplot.py"]
    if plot.exists() and plot.stat().st_mtime >= max(d.stat().st_mtime for d in deps):
        return  # up to date (and `mkdocs serve` does not rebuild in a loop)
    subprocess.run([sys.executable, ROOT / "tools" / "benchplot.py", bench / "bench-output.txt",
                    bench / "ratios.svg"], check=True)
