#!/usr/bin/env python3
"""Shows that a change leaves allocations as they were (issue 19's rule for
changes made for speed): runs two builds of //tools:pipeline on the same
inputs and compares their `--out` dumps byte for byte, and their exit codes.

  cp bazel-bin/tools/pipeline /tmp/old_pipeline          # before the change
  ... change, ./bazelw build -c opt //tools:pipeline ...
  python3 tools/same_allocation.py --old=/tmp/old_pipeline --new=bazel-bin/tools/pipeline \
      --pipelines='lsra*' --big=100000

Inputs, for each pipeline and target: the generator's functions
(`--generate=N`) plain, with `--unusual_percent=25 --seed=7` and with
`--byte_percent=30 --seed=3`; the LLVM corpus (testdata/llvm/<target>.ra,
x86-64 and AArch64); with --big, one generated function of that many
instructions (x86-64, `--seed=3`). --pipelines takes names or shell patterns
over the pipelines `--list` names ('lsra*', 'ssa,ssa_belady', 'all').

Prints a line per difference and a summary; exits 1 when anything differs
(or a pattern names no pipeline), else 0.

With --costs, for a change made for quality, which differs on purpose: each
run's weighted cost (the checker's `check.weighted_cost` total of `--stats`)
before and after, per run that differs, and the totals per pipeline and target;
exits 1 only when an exit code changes.
"""

import argparse
import fnmatch
import os
import subprocess
import sys
import tempfile

VARIANTS = [
    ("plain", []),
    ("unusual", ["--unusual_percent=25", "--seed=7"]),
    ("i8", ["--byte_percent=30", "--seed=3"]),
]
CORPUS_TARGETS = ["x86_64", "aarch64"]


def pipeline_names(binary):
    """The named pipelines of `binary --list` (the lines after `pipelines:`)."""
    out = subprocess.run([binary, "--list"], capture_output=True, text=True, check=True).stdout
    names, inside = [], False
    for line in out.splitlines():
        if line.startswith("pipelines:"):
            inside = True
        elif inside and line.startswith("  ") and ":" in line:
            names.append(line.split(":", 1)[0].strip())
        elif inside and line and not line.startswith(" "):
            inside = False
    return names


def select(patterns, names):
    chosen = []
    for pattern in patterns.split(","):
        pattern = pattern.strip()
        hits = names if pattern == "all" else [n for n in names if fnmatch.fnmatchcase(n, pattern)]
        if not hits:
            sys.exit(f"same_allocation: '{pattern}' names no pipeline of {', '.join(names)}")
        chosen += [h for h in hits if h not in chosen]
    return chosen


def weighted_cost(stats):
    """The `check.weighted_cost` column of the `total` line of a --stats table."""
    columns = None
    for line in stats.splitlines():
        if "check.weighted_cost" in line.split():
            columns = line.split()
        elif columns and line.startswith("total"):
            fields = line.split()
            fields[0:2] = ["total"]  # "total (N)" is one column
            return float(fields[columns.index("check.weighted_cost")])
    return None


def run(binary, args, out_path, costs=False):
    if os.path.exists(out_path):
        os.remove(out_path)
    proc = subprocess.run([binary] + args + [f"--out={out_path}"] + (["--stats"] if costs else []),
                          stdout=subprocess.PIPE if costs else subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    data = open(out_path, "rb").read() if os.path.exists(out_path) else None
    last_error = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""
    cost = weighted_cost(proc.stdout) if costs else None
    return proc.returncode, data, last_error, cost


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True, help="the pipeline binary from before the change")
    parser.add_argument("--new", required=True, help="the pipeline binary with the change")
    parser.add_argument("--pipelines", required=True, help="names or patterns, comma-separated; 'all'")
    parser.add_argument("--targets", default="x86_64,aarch64,armv7")
    parser.add_argument("--functions", type=int, default=100, help="generated functions per run")
    parser.add_argument("--big", type=int, default=0, help="also one function of this many instructions")
    parser.add_argument("--corpus", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                         "testdata", "llvm"),
                        help="directory of <target>.ra files ('' for none)")
    parser.add_argument("--costs", action="store_true",
                        help="for a change made for quality: weighted costs before and after, not identity")
    args = parser.parse_args()

    pipelines = select(args.pipelines, pipeline_names(args.new))
    targets = [t for t in args.targets.split(",") if t]
    cases = []
    for p in pipelines:
        for t in targets:
            for name, extra in VARIANTS:
                cases.append((f"{p} {t} {name}", [f"--pipeline={p}", f"--target={t}",
                                                  f"--generate={args.functions}"] + extra))
        for t in CORPUS_TARGETS:
            path = os.path.join(args.corpus, f"{t}.ra") if args.corpus else ""
            if t in targets and path and os.path.exists(path):
                cases.append((f"{p} {t} corpus", [f"--pipeline={p}", f"--target={t}", f"--in={path}"]))
        if args.big > 0:
            cases.append((f"{p} x86_64 {args.big}", [f"--pipeline={p}", "--target=x86_64", "--generate=1",
                                                      f"--size={args.big}", "--seed=3"]))

    differ = exits = 0
    totals = {}  # (pipeline, target) -> [old, new]
    with tempfile.TemporaryDirectory() as tmp:
        old_out, new_out = os.path.join(tmp, "old.ra"), os.path.join(tmp, "new.ra")
        for label, case in cases:
            rc_old, data_old, _, cost_old = run(args.old, case, old_out, args.costs)
            rc_new, data_new, err_new, cost_new = run(args.new, case, new_out, args.costs)
            if args.costs and cost_old is not None and cost_new is not None:
                pipeline, target = label.split()[:2]
                pair = totals.setdefault((pipeline, target), [0.0, 0.0])
                pair[0] += cost_old
                pair[1] += cost_new
            if rc_old == rc_new and data_old == data_new:
                continue
            differ += 1
            exits += rc_old != rc_new
            why = f"exit {rc_old} -> {rc_new}" if rc_old != rc_new else "the dumps differ"
            if args.costs and rc_old == rc_new and cost_old is not None and cost_new is not None:
                why += f": weighted cost {cost_old:,.0f} -> {cost_new:,.0f} ({percent(cost_old, cost_new)})"
            print(f"DIFFERS {label}: {why} {err_new if rc_new else ''}".rstrip(), flush=True)
    print(f"{len(cases) - differ} of {len(cases)} runs identical ({len(pipelines)} pipelines: "
          f"{', '.join(pipelines)})")
    if args.costs:
        for (pipeline, target), (old, new) in totals.items():
            print(f"{pipeline} {target}: weighted cost {old:,.0f} -> {new:,.0f} ({percent(old, new)})")
        return 1 if exits else 0
    return 1 if differ else 0


def percent(old, new):
    return f"{100.0 * (new - old) / old:+.1f}%" if old else "n/a"


if __name__ == "__main__":
    sys.exit(main())
