#!/usr/bin/env python3
"""Paired wall-time comparison of `wireplan compile` builds, for a machine too noisy for
absolute figures (docs/performance.md, "Whole compilation").

    python3 benches/paired.py CONFIG PAIRS BIN_A [BIN_B]

Runs `BIN compile CONFIG -o <temp file>` PAIRS times per binary, alternating the order in
every pair (A then B, then B then A, ...), each run timed as a subprocess. Prints each
binary's median, 25th and 75th percentile in milliseconds and, for two binaries, the same for
the ratio B / A of each pair: drifts of the machine's speed hit both runs of a pair alike,
so the ratio is steadier than either median. The same binary given twice is an A/A run: its
ratios show the noise floor.

Copy both binaries next to each other before comparing them (for example to /tmp/a and
/tmp/b): on the machine of docs/performance.md, a binary run from cargo's `target/release`
took 4-5 % longer at app-1000 than a byte-identical copy of it (docs/performance.md,
"Twenty-fourth round"). docs/performance.md ("Whole compilation") says how to build an
earlier commit for comparison.
"""

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def quartiles(values):
    v = sorted(values)
    return statistics.median(v), v[len(v) // 4], v[3 * len(v) // 4]


def fail(message):
    sys.exit("paired.py: " + message)


def main():
    if len(sys.argv) not in (4, 5):
        sys.exit(__doc__)
    config, pairs, binaries = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        pairs = int(pairs)
    except ValueError:
        fail("PAIRS must be a whole number of pairs, not '%s'" % pairs)
    if pairs < 1:
        fail("PAIRS must be at least 1, not %d" % pairs)
    if not Path(config).is_file():
        fail("no configuration file '%s'" % config)
    for b in binaries:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            fail("'%s' is not an executable file (give a path, e.g. target/release/wireplan)" % b)
    # Timings by position, not by path: the same binary twice is two series (an A/A run).
    times = [[] for _ in binaries]
    order = list(range(len(binaries)))
    with tempfile.TemporaryDirectory() as out:
        for i in range(pairs):
            for k in (order if i % 2 == 0 else order[::-1]):
                plan = str(Path(out) / f"plan-{k}.json")
                start = time.perf_counter()
                run = subprocess.run([binaries[k], "compile", config, "-o", plan],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                times[k].append((time.perf_counter() - start) * 1e3)
                if run.returncode != 0:
                    sys.stderr.write(run.stderr.decode(errors="replace"))
                    fail("'%s compile %s' failed (exit code %d); nothing to compare"
                         % (binaries[k], config, run.returncode))
    for b, t in zip(binaries, times):
        print("%s: median %.2f ms, p25 %.2f, p75 %.2f" % ((b,) + quartiles(t)))
    if len(binaries) == 2:
        ratio = [y / x for x, y in zip(times[0], times[1])]
        print("%s / %s, per pair: median %.3f, p25 %.3f, p75 %.3f"
              % ((binaries[1], binaries[0]) + quartiles(ratio)))


if __name__ == "__main__":
    main()
