#!/usr/bin/env python3
"""What a test suite pays for portald through this package: starting it (spawn to the start-up line, the
emulator's API ready), and putting it back between tests (fresh: restore a snapshot, clear faults, journal
and clock, as the fresh_portal fixture does; reset: back to the seed). Targets: start < 200 ms, between
tests < 10 ms. Median and 90th percentile of bounded runs; prints the figures, decides nothing.

    PORTALD_BIN=/path/to/portald PYTHONPATH=packages/python python3 packages/python/bench.py
"""

import statistics
import sys
import time

import portald

STARTS = 15
BETWEEN = 200


def ms(samples):
    samples = sorted(samples)
    return f"median {statistics.median(samples) * 1000:7.2f} ms  p90 {samples[int(len(samples) * 0.9) - 1] * 1000:7.2f} ms  (n={len(samples)})"


def main() -> int:
    for tls in (False, True):
        starts, stops = [], []
        for _ in range(STARTS):
            t0 = time.perf_counter()
            p = portald.Portal(tls=tls).start()
            p.snapshot("bench")  # the first API call answered: ready for a test
            starts.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            p.stop()
            stops.append(time.perf_counter() - t0)
        scheme = "https" if tls else "http "
        print(f"start ({scheme}, to the first answered call)  {ms(starts)}   target < 200 ms")
        print(f"stop  ({scheme})                             {ms(stops)}")

    with portald.Portal(tls=True) as p:
        p.snapshot("bench")
        for name, step in (("fresh (restore + clear faults/journal/clock)", lambda: p.fresh("bench")),
                           ("restore alone                              ", lambda: p.restore("bench")),
                           ("reset (to the seed)                        ", p.reset)):
            samples = []
            for i in range(BETWEEN):
                # A test's worth of change first, so that putting it back has something to do.
                p.add_fault("moveItems", error={"code": 498})
                p.advance_clock("1h")
                t0 = time.perf_counter()
                step()
                samples.append(time.perf_counter() - t0)
            print(f"{name} {ms(samples)}   target < 10 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
