#!/usr/bin/env python3
"""gcc's C torture execute tests compiled by clang-19 with each register allocator, run.

  ./bazelw build -c opt //tools/llvm:regalloc_llvm
  tools/llvm/torture.py --plugin=bazel-bin/tools/llvm/regalloc_llvm.so \
      [--targets=x86_64,aarch64] [--allocators=greedy,ssa,lsra,chaitin,packing] \
      [--limit=N] [--jobs=2] [--verify] [--work=DIR] [--only=REGEX]

Unpacks gcc.c-torture/execute/*.c from Debian's gcc-12-source (apt-get install
gcc-12-source) once into --work, then, per target and allocator, compiles each
test with `clang-19 -O2 -fplugin=... -mllvm -regalloc=A -mllvm -regalloc-log`,
links, and runs it (AArch64: clang-19 --target=aarch64-linux-gnu, Debian's cross
libc, qemu-aarch64). A test passes when it exits 0 within the time limit.

Prints one row per target and allocator: pass / fail / compile error /
functions allocated / fallbacks to greedy (and their share), then the fallbacks
counted by reason, then the tests an allocator fails that greedy passes. With
--verify, LLVM's machine verifier runs after every pass (-verify-machineinstrs):
a write-back that leaves bad machine code is a compile error.
"""

import argparse
import collections
import concurrent.futures
import glob
import os
import re
import subprocess
import sys
import tarfile

FLAGS = ["-std=gnu89", "-w", "-fno-builtin", "-Wno-error=implicit-function-declaration",
         "-Wno-error=implicit-int", "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types",
         "-Wno-error=return-mismatch", "-Wno-error"]
TARBALL_GLOB = "/usr/src/gcc-12/gcc-12*.tar.xz"


def unpack(work):
    out = os.path.join(work, "execute")
    if os.path.isdir(out) and glob.glob(os.path.join(out, "*.c")):
        return out
    tarballs = [t for t in glob.glob(TARBALL_GLOB) if os.path.basename(t).startswith("gcc-12")]
    if not tarballs:
        sys.exit("torture: no gcc-12 source tarball (apt-get install gcc-12-source)")
    os.makedirs(out, exist_ok=True)
    with tarfile.open(tarballs[0]) as tar:
        for m in tar:
            if "/gcc.c-torture/execute/" in m.name and m.isfile() and "/execute/" + os.path.basename(m.name) in m.name:
                name = os.path.basename(m.name)
                if name.endswith((".c", ".h", ".x")):
                    with open(os.path.join(out, name), "wb") as f:
                        f.write(tar.extractfile(m).read())
    return out


def run_one(args, target, allocator, source, work):
    stem = os.path.splitext(os.path.basename(source))[0]
    exe = os.path.join(work, "bin", target, allocator, stem)
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    cmd = ["clang-19", "-O2"] + FLAGS + [source, "-o", exe, "-lm"]
    if target == "aarch64":
        cmd[1:1] = ["--target=aarch64-linux-gnu"]
    if allocator != "greedy" or args.verify:
        cmd += ["-fplugin=" + args.plugin]
    if allocator != "greedy":
        cmd += ["-mllvm", "-regalloc=" + allocator, "-mllvm", "-regalloc-stats", "-mllvm", "-regalloc-log"]
    if args.verify:
        cmd += ["-mllvm", "-verify-machineinstrs"]
    try:
        c = subprocess.run(cmd, capture_output=True, text=True, timeout=args.compile_timeout)
    except subprocess.TimeoutExpired:
        return stem, "compile error", 0, [], "compile timeout"
    allocated = 0
    fallbacks = []
    for line in c.stderr.splitlines():
        m = re.match(r"regalloc \w+: (\d+) functions allocated, (\d+) fell back", line)
        if m:
            allocated += int(m.group(1))
        m = re.match(r"regalloc \w+: greedy allocates (\S+): ([\w-]+): (?:function \S+: )?(.*)", line)
        if m:
            fallbacks.append((m.group(1), m.group(2), m.group(3)))
    if c.returncode != 0:
        return stem, "compile error", allocated, fallbacks, c.stderr[-2000:]
    run = [exe] if target == "x86_64" else ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", exe]
    try:
        r = subprocess.run(run, capture_output=True, timeout=args.run_timeout, cwd=os.path.dirname(exe))
        result = "pass" if r.returncode == 0 else "fail"
        detail = "exit %d" % r.returncode
    except subprocess.TimeoutExpired:
        result, detail = "fail", "timeout"
    os.remove(exe)
    return stem, result, allocated, fallbacks, detail


def reason_key(stage, message):
    if message.startswith(stage + ": "):
        message = message[len(stage) + 2:]
    message = re.sub(r"^bb\.\d+[:,]? ?", "", message)
    message = re.sub(r"\d+", "#", message)
    message = re.sub(r"%[\w.]+", "%v", message)
    return "%s: %s" % (stage, message[:100])


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--plugin", default="bazel-bin/tools/llvm/regalloc_llvm.so")
    p.add_argument("--targets", default="x86_64")
    p.add_argument("--allocators", default="greedy,ssa,lsra,chaitin,packing")
    p.add_argument("--limit", type=int, default=0, help="every Nth test only... the first N (0: all)")
    p.add_argument("--only", default="", help="tests whose name matches this regex")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--verify", action="store_true")
    p.add_argument("--work", default="/tmp/regalloc-torture")
    p.add_argument("--compile_timeout", type=int, default=120)
    p.add_argument("--run_timeout", type=int, default=20)
    args = p.parse_args()
    args.plugin = os.path.abspath(args.plugin)
    if not os.path.exists(args.plugin):
        sys.exit("torture: no plugin at %s (./bazelw build -c opt //tools/llvm:regalloc_llvm)" % args.plugin)
    tests = sorted(glob.glob(os.path.join(unpack(args.work), "*.c")))
    if args.only:
        tests = [t for t in tests if re.search(args.only, os.path.basename(t))]
    if args.limit:
        tests = tests[:args.limit]
    targets = args.targets.split(",")
    allocators = args.allocators.split(",")
    results = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {}
        for target in targets:
            for allocator in allocators:
                for t in tests:
                    futures[pool.submit(run_one, args, target, allocator, t, args.work)] = (target, allocator)
        for fut in concurrent.futures.as_completed(futures):
            target, allocator = futures[fut]
            stem, result, allocated, fallbacks, detail = fut.result()
            results[(target, allocator, stem)] = (result, allocated, fallbacks, detail)
    print("%d tests, clang-19 -O2%s" % (len(tests), " -verify-machineinstrs" if args.verify else ""))
    print()
    print("| target | allocator | pass | fail | compile error | functions allocated | fallbacks | fallback share |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    reasons = collections.defaultdict(collections.Counter)
    for target in targets:
        for allocator in allocators:
            rows = [results[(target, allocator, os.path.splitext(os.path.basename(t))[0])] for t in tests]
            count = collections.Counter(r[0] for r in rows)
            allocated = sum(r[1] for r in rows)
            fb = sum(len(r[2]) for r in rows)
            for r in rows:
                for _, stage, message in r[2]:
                    reasons[(target, allocator)][reason_key(stage, message)] += 1
            share = "%.1f%%" % (100.0 * fb / (allocated + fb)) if allocated + fb else "-"
            print("| %s | %s | %d | %d | %d | %s | %s | %s |" % (
                target, allocator, count["pass"], count["fail"], count["compile error"],
                allocated if allocator != "greedy" else "-", fb if allocator != "greedy" else "-",
                share if allocator != "greedy" else "-"))
    for key, counter in sorted(reasons.items()):
        print("\nfallbacks, %s %s:" % key)
        for reason, n in counter.most_common(15):
            print("  %5d  %s" % (n, reason))
    for target in targets:
        for allocator in allocators:
            if allocator == "greedy":
                continue
            worse = []
            for t in tests:
                stem = os.path.splitext(os.path.basename(t))[0]
                g = results.get((target, "greedy", stem))
                r = results[(target, allocator, stem)]
                if (g is None or g[0] == "pass") and r[0] != "pass":
                    worse.append((stem, r[0], r[3].strip().splitlines()[-1][:160] if r[3].strip() else ""))
            if worse:
                print("\n%s %s: %d tests greedy passes and this does not:" % (target, allocator, len(worse)))
                for stem, result, detail in worse:
                    print("  %s: %s (%s)" % (stem, result, detail))


if __name__ == "__main__":
    main()
