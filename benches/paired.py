#!/usr/bin/env python3
"""Paired wall-time comparison of `wireplan compile` builds, for a machine too noisy for
absolute figures (docs/performance.md, "Whole compilation").

    python3 benches/paired.py CONFIG PAIRS BIN_A [BIN_B]

Runs `BIN compile CONFIG -o <temp file>` PAIRS times per binary, alternating the order in
every pair (A then B, then B then A, ...), each run timed as a subprocess. Prints each
binary's median, 25th and 75th percentile in milliseconds and, for two binaries, the same for
the ratio B / A of each pair: drifts of the machine's speed hit both runs of a pair alike,
so the ratio is steadier than either median.
"""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def quartiles(values):
    v = sorted(values)
    return statistics.median(v), v[len(v) // 4], v[3 * len(v) // 4]


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    config, pairs, binaries = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    times = {b: [] for b in binaries}
    with tempfile.TemporaryDirectory() as out:
        for i in range(pairs):
            for k, b in enumerate(binaries if i % 2 == 0 else binaries[::-1]):
                plan = str(Path(out) / f"plan-{binaries.index(b)}.json")
                start = time.perf_counter()
                subprocess.run([b, "compile", config, "-o", plan], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                times[b].append((time.perf_counter() - start) * 1e3)
    for b in binaries:
        print("%s: median %.2f ms, p25 %.2f, p75 %.2f" % ((b,) + quartiles(times[b])))
    if len(binaries) == 2:
        a, b = binaries
        ratio = [y / x for x, y in zip(times[a], times[b])]
        print("%s / %s, per pair: median %.3f, p25 %.3f, p75 %.3f"
              % ((b, a) + quartiles(ratio)))


if __name__ == "__main__":
    main()
