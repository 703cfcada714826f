#!/usr/bin/env python3
"""Draw the ratios that `python3 build.py bench` prints as one bar chart.

    python3 tools/benchplot.py BENCH_OUTPUT.txt PLOT.svg

BENCH_OUTPUT.txt is saved output of the benchmark scripts (benchmarks/bench_*.py,
each section headed by a line `### benchmarks/NAME.py`). Every line that reports a
ratio against an anchor measured in the same run becomes one bar: memview's time
over the anchor's, so left of 1 is faster than the anchor. A target printed on the
line (`<= 1.5`) is drawn as a tick. The docs build (mkdocs.yml's hook) runs this on
docs/benchmarks/bench-output.txt.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

# bench_ops.py prints a table: name, memview ns, NumPy ns, ratio, target
TABLE = re.compile(r"^(?P<name>\S.*?)\s+\d+\s+\d+\s+(?P<ratio>\d+\.\d+)\s+<=\s*(?P<target>[\d.]+)")
# the other scripts print "<measure> ... ratio <r> (target <= <t>: met)"
RATIO = re.compile(r"^(?P<name>\S.*?)\s{2,}.*?\bratio\s+(?P<ratio>[\d.]+(?:e[-+]?\d+)?)"
                   r"(?:.*?target\s*<=\s*(?P<target>[\d.]+(?:e[-+]?\d+)?))?")


def parse(text: str) -> list[tuple[str, str, float, float | None]]:
    """(script, measure, ratio, target or None) for every ratio line of text."""
    rows, script = [], ""
    for line in text.splitlines():
        if line.startswith("### "):
            script = Path(line[4:].strip()).stem
            continue
        line = line.strip()
        m = TABLE.match(line) or RATIO.match(line)
        if not m:
            continue
        target = m.group("target")
        rows.append((script, m.group("name").strip(), float(m.group("ratio")),
                     float(target) if target else None))
    return rows


def plot(rows, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # the measures with a target; reference ratios, and ratios far below 1 (a 1 GiB
    # export against a 1 GiB copy) that would squash the chart, are in the tables
    rows = [r for r in rows if r[3] is not None and r[2] >= 0.01]
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(rows) + 1.2))
    y = range(len(rows))
    colors = ["tab:blue" if t is None or r <= t else "tab:red" for _, _, r, t in rows]
    ax.barh(list(y), [r for _, _, r, _ in rows], color=colors)
    for i, (_, _, _r, t) in enumerate(rows):
        if t is not None:
            ax.plot([t, t], [i - 0.4, i + 0.4], color="black", linewidth=1.5)
    ax.axvline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.set_yticks(list(y), [f"{s.removeprefix('bench_')}: {n}" for s, n, _, _ in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel("memview time / anchor time (log scale; black ticks: targets; red: missed)")
    fig.tight_layout()
    fig.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None)
    plt.close(fig)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    rows = parse(Path(argv[0]).read_text())
    if not rows:
        print(f"benchplot: no ratio lines in {argv[0]}", file=sys.stderr)
        return 1
    plot(rows, Path(argv[1]))
    print(f"benchplot: {len(rows)} ratios -> {argv[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
