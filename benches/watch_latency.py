#!/usr/bin/env python3
"""Save-to-plan latency of `wireplan compile --watch`.

Usage: python3 benches/watch_latency.py BINARY APP_DIR [EDITS]

Copies APP_DIR (a folder with config.neon, e.g. ../shared/bench/app-10000) to a temporary
folder, starts `BINARY compile config.neon -o plan.json --watch` there, then EDITS times
(default 10) rewrites config.neon with a different first comment line and measures the time
from the write to the new plan file appearing (the plan is renamed into place, so its inode
changes), polling every 0.5 ms. Prints the median, min and max in milliseconds and every
figure. What it measures is what a user waits for: the debounce, the settling reads, the
compilation and the write.
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    binary, app = sys.argv[1], sys.argv[2]
    edits = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    work = tempfile.mkdtemp(prefix="wireplan-latency-")
    try:
        for name in os.listdir(app):
            shutil.copyfile(os.path.join(app, name), os.path.join(work, name))
        cfg = os.path.join(work, "config.neon")
        out = os.path.join(work, "plan.json")
        with open(cfg) as f:
            text = f.read()
        watch = subprocess.Popen(
            [binary, "compile", cfg, "-o", out, "--watch"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

        def next_plan(old, limit=30.0):
            start = time.time()
            while time.time() - start < limit:
                try:
                    st = os.stat(out)
                    if (st.st_ino, st.st_mtime_ns) != old:
                        return (st.st_ino, st.st_mtime_ns)
                except FileNotFoundError:
                    pass
                time.sleep(0.0005)
            sys.exit("no new plan within %.0f s" % limit)

        current = next_plan(None)
        time.sleep(1.0)
        waits = []
        for i in range(edits):
            start = time.time()
            with open(cfg, "w") as f:
                f.write("# edit %d\n" % i + text)
            current = next_plan(current)
            waits.append((time.time() - start) * 1000)
            time.sleep(0.7)
        watch.terminate()
        watch.wait()
        print(
            "%s: save -> plan ms: median %.1f, min %.1f, max %.1f (%s)"
            % (
                os.path.basename(app.rstrip("/")),
                statistics.median(waits),
                min(waits),
                max(waits),
                " ".join("%.0f" % w for w in waits),
            )
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
