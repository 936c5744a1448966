#!/usr/bin/env python3
"""Per-kernel task times of two Chrome trace JSON files (hetla's --trace format).

Usage: scripts/compare-traces.py MEASURED.json SIMULATED.json

For each kernel label (and device, label@device, when the rows name one): tasks, mean, median and 10th percentile of the task
durations (microseconds) in both traces, and simulated / measured of the
means. Made for `hetla simulate --validate R ... --measured-trace M.json
--trace S.json` (docs/simulation.md, "Validated so far"): the tiles must have
one shape (n a multiple of nb) for the per-kernel numbers to compare like
with like. On a machine other jobs load, the medians and 10th percentiles
show the kernels, the means the load.
"""
import collections
import json
import sys


def durations(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    # a row's device: "worker 1 [emu0]" -> emu0 (rows carry it when there are several devices)
    device = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            name = e["args"]["name"]
            device[e["tid"]] = name[name.find("[") + 1:name.find("]")] if "[" in name else ""
    by_label = collections.defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") == "task":
            dev = device.get(e["tid"], "")
            by_label[e["name"] + ("@" + dev if dev else "")].append(float(e["dur"]))
    return {k: sorted(v) for k, v in by_label.items()}


def stats(v):
    if not v:
        return 0, 0.0, 0.0, 0.0
    return len(v), sum(v) / len(v), v[len(v) // 2], v[len(v) // 10]


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    meas, sim = durations(argv[1]), durations(argv[2])
    print("%-16s %6s %10s %10s %10s %10s %10s %10s %8s" %
          ("kernel", "tasks", "meas mean", "meas med", "meas p10", "sim mean", "sim med", "sim p10", "sim/meas"))
    total_m = total_s = 0.0
    for k in sorted(set(meas) | set(sim)):
        n, mm, md, mp = stats(meas.get(k, []))
        _, sm, sd, sp = stats(sim.get(k, []))
        total_m += sum(meas.get(k, []))
        total_s += sum(sim.get(k, []))
        print("%-16s %6d %10.1f %10.1f %10.1f %10.1f %10.1f %10.1f %8.3f" %
              (k, n, mm, md, mp, sm, sd, sp, sm / mm if mm else float("nan")))
    print("task time in all: measured %.1f ms, simulated %.1f ms (%.3f)" %
          (total_m / 1e3, total_s / 1e3, total_s / total_m if total_m else float("nan")))


if __name__ == "__main__":
    main(sys.argv)
