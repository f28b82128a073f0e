#!/usr/bin/env python3
"""Compares two builds of a Google Benchmark binary the way the README's
tables are measured: each benchmark runs --runs times per binary, the two
binaries alternating (this machine's speed drifts by 10-30% between runs and
hours, so runs far apart compare badly), and the fastest run of each counts.

  cp bazel-bin/tools/allocators_benchmark /tmp/old_bench      # before the change
  ... change, ./bazelw build -c opt //tools:allocators_benchmark ...
  python3 tools/compare_benchmarks.py --old=/tmp/old_bench \
      --new=bazel-bin/tools/allocators_benchmark --filter='BM_(Ssa|Lsra)/' --runs=3

Prints a Markdown table: per benchmark the new and old figures (M items/s
where the benchmark counts items, else its time), the change, every run's
figure, and the new binary's counters (bytes_per_inst, weighted_cost, ...).
--filter is a regular expression over the new binary's benchmark names.
"""

import argparse
import json
import re
import subprocess
import sys


def names(binary, pattern):
    out = subprocess.run([binary, "--benchmark_list_tests"], capture_output=True, text=True, check=True).stdout
    rx = re.compile(pattern)
    return [n for n in out.split() if rx.search(n)]


def run_once(binary, name, min_time):
    cmd = [binary, f"--benchmark_filter=^{re.escape(name)}$", "--benchmark_format=json"]
    if min_time:
        cmd.append(f"--benchmark_min_time={min_time}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"compare_benchmarks: {binary} {name} failed: {proc.stderr.strip()[-500:]}")
    runs = [b for b in json.loads(proc.stdout)["benchmarks"] if b.get("run_type", "iteration") == "iteration"]
    if not runs:
        sys.exit(f"compare_benchmarks: {binary} has no benchmark {name}")
    return runs[0]


def figure(run):
    """(value, higher is better, unit) of one run."""
    if "items_per_second" in run:
        return run["items_per_second"] / 1e6, True, "M/s"
    return run["real_time"], False, run.get("time_unit", "ns")


STANDARD = {"name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
            "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
            "items_per_second", "bytes_per_second", "label", "aggregate_name", "aggregate_unit", "error_occurred",
            "error_message"}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--filter", default=".", help="regular expression over benchmark names")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--min_time", default="", help="passed as --benchmark_min_time")
    args = parser.parse_args()

    selected = names(args.new, args.filter)
    if not selected:
        sys.exit(f"compare_benchmarks: no benchmark of {args.new} matches '{args.filter}'")
    print("| benchmark | new | old | speed change | runs (new; old) | counters (new) |")
    print("|---|---|---|---|---|---|")
    for name in selected:
        new_runs, old_runs = [], []
        for _ in range(args.runs):
            old_runs.append(run_once(args.old, name, args.min_time))
            new_runs.append(run_once(args.new, name, args.min_time))
        new_vals = [figure(r) for r in new_runs]
        old_vals = [figure(r)[0] for r in old_runs]
        higher, unit = new_vals[0][1], new_vals[0][2]
        pick = max if higher else min
        new_best, old_best = pick(v for v, _, _ in new_vals), pick(old_vals)
        change = (new_best / old_best - 1) * 100 if higher else (old_best / new_best - 1) * 100
        counters = ", ".join(f"{k}={v:.6g}" for k, v in new_runs[0].items()
                             if k not in STANDARD and isinstance(v, (int, float)))
        runs = "; ".join([" ".join(f"{v:.3g}" for v, _, _ in new_vals), " ".join(f"{v:.3g}" for v in old_vals)])
        print(f"| {name} | {new_best:.3g} {unit} | {old_best:.3g} {unit} | {change:+.1f}% | {runs} | {counters} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
