#!/usr/bin/env python3
"""The speed of code our allocators write back, and the time they take, against LLVM's own.

  ./bazelw build -c opt //tools/llvm:regalloc_llvm
  tools/llvm/speed.py --plugin=bazel-bin/tools/llvm/regalloc_llvm.so \\
      [--allocators=greedy,basic,fast,ssa,lsra,chaitin,packing] [--runs=5] [--seconds=1.0] \\
      [--torture=N] [--work=DIR]

Run time: every program of testdata/llvm/programs (C through clang-19 -O2, IR
through llc-19 -O2) is compiled with each allocator (ours through the plugin,
LLVM's with -regalloc=NAME), its output checked against greedy's, and run --runs
times at an input sized so that greedy's build takes about --seconds; the table
has the median wall time, and the static spills and reloads (the
"Spill"/"Reload" comments LLVM's assembly printer puts on every stack-slot store
and load, for LLVM's allocators and ours alike; folded ones included).

Compile time: -ftime-report (llc: -time-passes) on the same programs and on the --torture largest gcc
torture execute tests (unpacked by tools/llvm/torture.py into --work): the
register-allocation pass's own CPU time (greedy's "Greedy Register Allocator",
ours "ssa", ...), summed over the modules; our pass includes import,
legalization, allocation, the checker and the write-back.
"""

import argparse
import glob
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "..", "..", "testdata", "llvm", "programs")
OURS = ("ssa", "lsra", "chaitin", "packing")
sys.path.insert(0, HERE)
from torture import FLAGS as TORTURE_FLAGS  # noqa: E402  (the flags gcc's tests need with clang-19)


def regalloc_flags(args, allocator):
    if allocator in OURS:
        return ["-fplugin=" + args.plugin, "-mllvm", "-regalloc=" + allocator, "-mllvm", "-regalloc-stats"]
    if allocator == "greedy":
        return []
    return ["-mllvm", "-regalloc=" + allocator]


def compile_program(args, source, allocator, out, extra=(), emit_asm=False, must=True):
    """Builds `source` into `out` (or assembly into `out` with emit_asm); returns
    stderr, or None when it fails and `must` is false."""
    flags = regalloc_flags(args, allocator) + list(extra)
    if source.endswith(".ll"):
        llc = ["llc-19", "-O2", "-relocation-model=pic"]
        for f in flags:
            if f == "-mllvm":
                continue
            llc.append(f.replace("-fplugin=", "-load="))
        if emit_asm:
            c = subprocess.run(llc + [source, "-o", out], capture_output=True, text=True)
        else:
            c = subprocess.run(llc + ["-filetype=obj", source, "-o", out + ".o"], capture_output=True, text=True)
            if c.returncode == 0:
                c2 = subprocess.run(["clang-19", out + ".o", "-o", out], capture_output=True, text=True)
                c = subprocess.CompletedProcess(c.args, c2.returncode, "", c.stderr + c2.stderr)
    else:
        cmd = ["clang-19", "-O2"] + flags + [source, "-o", out]
        if emit_asm:
            cmd += ["-S"]
        c = subprocess.run(cmd, capture_output=True, text=True)
    if c.returncode != 0:
        if not must:
            return None
        sys.exit("speed: %s with %s failed:\n%s" % (os.path.basename(source), allocator, c.stderr[-3000:]))
    return c.stderr


def static_spills(args, source, allocator, work):
    asm = os.path.join(work, "%s.%s.s" % (os.path.basename(source), allocator))
    compile_program(args, source, allocator, asm, emit_asm=True)
    text = open(asm).read()
    return len(re.findall(r"Spill$", text, re.M)), len(re.findall(r"Reload$", text, re.M))


def run(exe, arg):
    start = time.perf_counter()
    r = subprocess.run([exe, str(arg)], capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if r.returncode != 0:
        sys.exit("speed: %s %s exited with %d" % (exe, arg, r.returncode))
    return elapsed, r.stdout


def pass_times(stderr, allocator):
    """The register-allocation pass's time in seconds from a -time-passes report."""
    name = {"greedy": "Greedy Register Allocator", "basic": "Basic Register Allocator",
            "fast": "Fast Register Allocator"}.get(allocator, allocator)
    total = 0.0
    # Columns: user, system, user+system, wall (each "seconds (percent)"), then the
    # pass name (clang numbers a pass that runs twice: "... #2"). CPU time: the
    # wall clock includes waiting for the other job on this machine.
    for line in stderr.splitlines():
        m = re.match(r"\s*(?:[\d.]+ \(\s*[\d.]+%\)\s+){2}([\d.]+) \(\s*[\d.]+%\)\s+[\d.]+ \(\s*[\d.]+%\)\s+(.*)$", line)
        if m and re.sub(r" #\d+$", "", m.group(2).strip()) == name:
            total += float(m.group(1))
    return total


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--plugin", default="bazel-bin/tools/llvm/regalloc_llvm.so")
    p.add_argument("--allocators", default="greedy,basic,fast," + ",".join(OURS))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--torture", type=int, default=10, help="the N largest torture tests for compile time")
    p.add_argument("--work", default="/tmp/regalloc-torture")
    p.add_argument("--parts", default="run,compile", help="run (run-time table), compile (compile-time table)")
    args = p.parse_args()
    args.plugin = os.path.abspath(args.plugin)
    if not os.path.exists(args.plugin):
        sys.exit("speed: no plugin at %s (./bazelw build -c opt //tools/llvm:regalloc_llvm)" % args.plugin)
    allocators = args.allocators.split(",")
    programs = sorted(glob.glob(os.path.join(PROGRAMS, "*.c")) + glob.glob(os.path.join(PROGRAMS, "*.ll")))
    work = tempfile.mkdtemp(prefix="regalloc-speed-")

    parts = args.parts.split(",")
    # Run time.
    if "run" in parts:
        run_table(args, allocators, programs, work)
    if "compile" in parts:
        compile_table(args, allocators, programs, work)


def run_table(args, allocators, programs, work):
    print("run time, median of %d (s), and static spills / reloads; x86-64, -O2" % args.runs)
    print()
    print("| program | input | " + " | ".join(allocators) + " |")
    print("|---|---:|" + "---:|" * len(allocators))
    for src in programs:
        stem = os.path.splitext(os.path.basename(src))[0]
        exes = {}
        for a in allocators:
            exes[a] = os.path.join(work, "%s.%s" % (stem, a))
            compile_program(args, src, a, exes[a])
        arg = 1
        base = exes.get("greedy", exes[allocators[0]])
        t, _ = run(base, arg)
        while t < args.seconds * 0.7 and arg < 1 << 20:
            arg = max(arg + 1, int(arg * args.seconds / max(t, 1e-3)))
            t, _ = run(base, arg)
        _, want = run(base, arg)
        cells = []
        for a in allocators:
            times = []
            for _ in range(args.runs):
                t, out = run(exes[a], arg)
                if out != want:
                    sys.exit("speed: %s built with %s printed %r, greedy's build %r" % (stem, a, out, want))
                times.append(t)
            spills, reloads = static_spills(args, src, a, work)
            cells.append("%.3f (%d/%d)" % (statistics.median(times), spills, reloads))
        print("| %s | %d | %s |" % (stem, arg, " | ".join(cells)))
    print()


def compile_table(args, allocators, programs, work):
    # The largest torture tests clang-19 compiles.
    torture = []
    for src in sorted(glob.glob(os.path.join(args.work, "execute", "*.c")), key=os.path.getsize, reverse=True):
        if len(torture) >= args.torture:
            break
        if compile_program(args, src, "greedy", os.path.join(work, "probe.o"), ["-c"] + TORTURE_FLAGS, must=False) is not None:
            torture.append(src)
    if args.torture and not torture:
        print("(no torture tests in %s/execute: run tools/llvm/torture.py first)\n" % args.work)
    print("compile time: the register-allocation pass, CPU seconds summed over the modules "
          "(-ftime-report; llc: -time-passes)")
    print()
    print("| modules | " + " | ".join(allocators) + " |")
    print("|---|" + "---:|" * len(allocators))
    for label, sources, extra in (("programs (%d)" % len(programs), programs, []),
                                  ("largest torture tests (%d)" % len(torture), torture, TORTURE_FLAGS)):
        if not sources:
            continue
        cells = []
        for a in allocators:
            total = 0.0
            for src in sources:
                timing = ["-time-passes"] if src.endswith(".ll") else ["-ftime-report", "-c"] + extra
                stderr = compile_program(args, src, a, os.path.join(work, "timed.o"), timing)
                total += pass_times(stderr, a)
            cells.append("%.4f" % total)
        print("| %s | %s |" % (label, " | ".join(cells)))


if __name__ == "__main__":
    main()
