#!/usr/bin/env python3
"""Plot of setops timings against size, from the committed benchmark logs.

Reads test/bench/results/<machine>/sql_bench.log (SQL end to end: cpu, gpu,
auto, intarray) and kernel_bench.log (kernels against Thrust) and writes
test/bench/results/<machine>/timings.png.  Needs matplotlib (Debian:
python3-matplotlib).  Usage: plot.py [results_dir]
"""
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path, ncols):
    """Table rows of psql output: cells split on '|', numbers where possible."""
    out = []
    for line in open(path):
        cells = [c.strip() for c in line.split("|")]
        if len(cells) != ncols:
            continue
        try:
            row = [float(c) if re.fullmatch(r"-?[0-9.]+", c) else c for c in cells]
        except ValueError:
            continue
        if any(isinstance(c, float) for c in row):		# not a header
            out.append(row)
    return out


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results", "h200")
    sql = os.path.join(d, "sql_bench.log")
    kern = os.path.join(d, "kernel_bench.log")
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 5))

    # SQL end to end, PL/pgSQL variables: the crossover sweep (cpu, gpu,
    # auto on the same arrays) and intarray from the equal-size cases
    cross = rows(sql, 5)
    for col, name, style in ((1, "cpu", "o-"), (2, "gpu", "s-"), (3, "auto", "x--")):
        left.plot([2 * r[0] for r in cross], [r[col] for r in cross], style, label=f"setops {name}")
    cases = [r for r in rows(sql, 13) if r[0] == "equal sizes"]
    ia = sorted({(2 * r[1], r[5]) for r in cases})
    left.plot([p[0] for p in ia], [p[1] for p in ia], "^-", label="intarray &")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("input elements (both arrays)")
    left.set_ylabel("ms (median)")
    left.set_title("array_intersect_gpu in PostgreSQL, int4, PL/pgSQL variables")
    left.grid(True, which="both", alpha=0.3)
    left.legend()

    # kernels, device buffers in and out
    k = []
    for line in open(kern):
        m = re.match(r"(int4|int8)\s+(\w+)\s+(\d+)\+(\d+)\s+([0-9.]+)\s+([0-9.]+)", line)
        if m:
            k.append((m.group(1), m.group(2), 2 * int(m.group(3)), float(m.group(5)), float(m.group(6))))
    for op, style in (("intersect", "o"), ("union", "s")):
        pts = sorted((n, ours, thr) for t, o, n, ours, thr in k if t == "int4" and o == op)
        right.plot([p[0] for p in pts], [p[1] for p in pts], style + "-", label=f"setops kernel {op}")
        right.plot([p[0] for p in pts], [p[2] for p in pts], style + "--", label=f"thrust::set_{op}")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("input elements (both arrays)")
    right.set_ylabel("ms (median, device in / device out)")
    right.set_title("kernels against Thrust, int4")
    right.grid(True, which="both", alpha=0.3)
    right.legend()

    gpu = open(os.path.join(d, "gpu.txt")).read().split(",")[0]
    fig.suptitle(f"setops timings on {gpu}")
    fig.tight_layout()
    out = os.path.join(d, "timings.png")
    fig.savefig(out, dpi=110)
    print("wrote", out)


if __name__ == "__main__":
    main()
