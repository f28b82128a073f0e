#!/usr/bin/env python3
"""Our allocators against LLVM's on the same machine functions.

  tools/llvm/compare.py --src=DIR_OF_C_FILES --out=OUT [--targets=x86_64,aarch64]
  tools/llvm/compare.py --torture --out=OUT     # gcc's C torture execute tests

For each C file and target: clang-19 -O2 makes LLVM IR; llc-19 with our plugin
(-regalloc=export) writes each machine function as it stands in the register
allocation slot; llc-19 with -regalloc=greedy, basic and fast allocates the same
functions. LLVM's figures come from its own machine code after allocation
(-stop-after=virtregrewriter, or regallocfast): spills are stores into spill
slots, reloads loads from them (folded ones included), copies the COPYs that
remain. Ours come from //tools:pipeline on the exported functions: the checker's
spills, reloads, moves and weighted cost, and the allocating phases' time.
LLVM's time is -time-passes' wall time of the greedy allocator, live intervals
and the rewriter, per file.

Writes OUT/functions.csv (one row per function and target), OUT/failures.tsv
(functions the import left to greedy, with the reason) and prints totals and the
functions where each of ours is furthest behind greedy.

Needs clang-19, llc-19 (./bazelw installs them), the plugin and the pipeline:
  ./bazelw build -c opt //tools/llvm:regalloc_llvm //tools:pipeline
The torture tests come from Debian's gcc-12-source, unpacked at run time.
"""
import argparse
import collections
import csv
import glob
import multiprocessing
import os
import re
import subprocess
import sys
import tarfile

TRIPLES = {"x86_64": "x86_64-linux-gnu", "aarch64": "aarch64-linux-gnu"}
CFLAGS = ["-O2", "-w", "-std=gnu89", "-Wno-error=implicit-function-declaration", "-Wno-error=implicit-int",
          "-Wno-error=int-conversion", "-Wno-error=incompatible-pointer-types", "-Wno-error=return-mismatch",
          "-fno-builtin"]
LLVM_ALLOCATORS = ["greedy", "basic", "fast"]
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def unpack_torture(dest):
    tars = glob.glob("/usr/src/gcc-12/gcc-12*.tar.xz")
    if not tars:
        sys.exit("compare: /usr/src/gcc-12/gcc-12*.tar.xz not found: apt-get install gcc-12-source")
    out = os.path.join(dest, "torture")
    if not os.path.isdir(out):
        os.makedirs(out)
        with tarfile.open(tars[0]) as t:
            for m in t:
                # The execute tests themselves, not those in builtins/ and ieee/.
                rel = m.name.split("/gcc.c-torture/execute/")[-1]
                if "/gcc.c-torture/execute/" in m.name and m.name.endswith(".c") and m.isfile() and "/" not in rel:
                    with open(os.path.join(out, rel), "wb") as f:
                        f.write(t.extractfile(m).read())
    return out


def bank(reg):
    """'fp' for floating-point and vector registers, 'gpr' for the others."""
    return "fp" if re.match(r"^(xmm|ymm|[bhsdq]\d)", reg) else "gpr"


def parse_mir(text):
    """Per function: spills, reloads, copies after allocation."""
    out = {}
    for doc in text.split("\n---\n"):
        m = re.search(r"^name:\s*'?([^'\n]+)'?\s*$", doc, re.M)
        if not m:
            continue
        name = m.group(1)
        slots = set(re.findall(r"- \{ id: (\d+), name: '', type: spill-slot", doc))
        body = doc.split("\nbody:", 1)[1] if "\nbody:" in doc else ""
        spills = reloads = copies = 0
        for line in body.splitlines():
            s = line.strip()
            m = re.search(r"\$(\w+) = COPY (?:killed |renamable |undef )*\$(\w+)", s)
            # COPYs the import keeps as instructions are not moves of an allocator:
            # from a zero register, or between register banks (fmov, movq).
            if m and (m.group(2) in ("wzr", "xzr") or bank(m.group(1)) != bank(m.group(2))):
                continue
            if re.search(r" = COPY ", s):
                copies += 1
            for slot in re.findall(r"into %stack\.(\d+)", s):
                if slot in slots:
                    spills += 1
            for slot in re.findall(r"from %stack\.(\d+)", s):
                if slot in slots:
                    reloads += 1
        out[name] = (spills, reloads, copies)
    return out


def parse_time(stderr):
    """Seconds of wall time of LLVM's allocation passes in -time-passes output."""
    total = 0.0
    for line in stderr.splitlines():
        if re.search(r"(Greedy Register Allocator|Basic Register Allocator|Fast Register Allocator|"
                     r"Live Interval Analysis|Virtual Register Rewriter)\s*$", line):
            nums = re.findall(r"([0-9.]+) \(\s*[0-9.]+%\)", line)
            if nums:
                total += float(nums[-1])
    return total


def per_file(job):
    """Compile one C file for one target; export; allocate with LLVM's allocators."""
    src, target, out, plugin = job
    stem = os.path.splitext(os.path.basename(src))[0]
    work = os.path.join(out, target, stem)
    os.makedirs(work, exist_ok=True)
    ll = os.path.join(work, stem + ".ll")
    r = run(["clang-19", "--target=" + TRIPLES[target], *CFLAGS, "-S", "-emit-llvm", "-o", ll, src])
    if r.returncode != 0:
        return {"file": stem, "target": target, "compiled": False}
    exp = os.path.join(work, "export")
    os.makedirs(exp, exist_ok=True)
    llc = ["llc-19", "-O2", "-mtriple=" + TRIPLES[target]]
    r = run(llc + ["-load=" + plugin, "-regalloc=export", "-regalloc-export-dir=" + exp, ll, "-o", os.devnull])
    result = {"file": stem, "target": target, "compiled": True, "export_rc": r.returncode, "llvm": {}, "time": {}}
    for alloc in LLVM_ALLOCATORS:
        stop = "regallocfast" if alloc == "fast" else "virtregrewriter"
        r = run(llc + ["-regalloc=" + alloc, "-stop-after=" + stop, "-time-passes", ll, "-o", "-"])
        result["llvm"][alloc] = parse_mir(r.stdout) if r.returncode == 0 else {}
        result["time"][alloc] = parse_time(r.stderr)
    return result


def run_pipeline(pipeline_bin, target, module, pipeline, frame_pointer):
    """Per function of `module`: (status, spills, reloads, moves, weighted_cost, microseconds)."""
    cmd = [pipeline_bin, "--target=" + target, "--in=" + module, "--pipeline=" + pipeline, "--stats"]
    if frame_pointer:
        cmd.append("--frame_pointer")
    r = run(cmd)
    rows = {}
    lines = r.stdout.splitlines()
    header = None
    in_stats = False
    times = {}
    for line in lines:
        cols = line.split()
        if not cols:
            continue
        if cols[0] == "function" and not in_stats and header is None:
            header = line
            continue
        if line.startswith("statistics"):
            in_stats = True
            header = None
            continue
        if in_stats and cols[0] == "function":
            header = cols
            continue
        if not cols[0].startswith("%"):
            continue
        name = cols[0][1:]
        if not in_stats:
            # function insts blocks values <phase us>... status
            phase_us = [float(c) for c in cols[4:-1] if re.match(r"^[0-9.]+$", c)]
            # the check and interpret phases are the proof, not the allocation
            times[name] = (sum(phase_us[:-2]) if len(phase_us) > 2 else sum(phase_us), cols[-1])
        else:
            st = dict(zip(header[1:], cols[1:]))
            rows[name] = (times.get(name, (0, "?"))[1], int(st.get("check.spills", 0)), int(st.get("check.reloads", 0)),
                          int(st.get("check.moves", 0)), int(st.get("check.weighted_cost", 0)),
                          times.get(name, (0, "?"))[0])
    for name, (us, status) in times.items():
        if name not in rows:
            rows[name] = (status, 0, 0, 0, 0, us)
    if r.returncode != 0 and not rows:
        print("compare: pipeline failed on", module, r.stderr[-2000:], file=sys.stderr)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", help="a directory of C files")
    ap.add_argument("--torture", action="store_true", help="gcc's C torture execute tests (gcc-12-source)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--targets", default="x86_64,aarch64")
    ap.add_argument("--pipelines", default="ssa,lsra")
    ap.add_argument("--limit", type=int, default=0, help="only the first N C files")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    src_dir = unpack_torture(out) if args.torture else args.src
    if not src_dir:
        sys.exit("compare: give --src=DIR or --torture")
    sources = sorted(glob.glob(os.path.join(src_dir, "*.c")))
    if args.limit:
        sources = sources[:args.limit]
    plugin = os.path.join(REPO, "bazel-bin/tools/llvm/regalloc_llvm.so")
    pipeline_bin = os.path.join(REPO, "bazel-bin/tools/pipeline")
    for f in (plugin, pipeline_bin):
        if not os.path.exists(f):
            sys.exit("compare: %s missing: ./bazelw build -c opt //tools/llvm:regalloc_llvm //tools:pipeline" % f)
    targets = args.targets.split(",")
    pipelines = args.pipelines.split(",")
    jobs = [(s, t, out, plugin) for t in targets for s in sources]
    with multiprocessing.Pool(args.jobs) as pool:
        results = pool.map(per_file, jobs, chunksize=4)

    rows = []
    failures = []
    summary = collections.OrderedDict()
    for target in targets:
        res = [r for r in results if r["target"] == target]
        compiled = [r for r in res if r["compiled"]]
        # Our side: every exported function, one module per target (names made unique by file).
        modules = {False: os.path.join(out, target + ".ra"), True: os.path.join(out, target + ".fp.ra")}
        files = {False: open(modules[False], "w"), True: open(modules[True], "w")}
        exported = {}
        for r in compiled:
            exp = os.path.join(out, target, r["file"], "export")
            for ra in sorted(glob.glob(os.path.join(exp, "*.ra"))):
                fp = ra.endswith(".fp.ra")
                fname = os.path.basename(ra)[:-len(".fp.ra" if fp else ".ra")]
                text = open(ra).read()
                key = re.sub(r"[^A-Za-z0-9_.]", "_", r["file"]) + "__" + fname
                text = re.sub(r"^function %\S+?\(", "function %" + key + "(", text, count=1, flags=re.M)
                files[fp].write(text + "\n")
                m = re.search(r"(\d+) machine instructions", text)
                exported[key] = (r["file"], fname, int(m.group(1)) if m else 0)
            fails = os.path.join(exp, "failures.tsv")
            if os.path.exists(fails):
                for line in open(fails):
                    fn, _, why = line.rstrip("\n").partition("\t")
                    failures.append((target, r["file"], fn, why))
        for f in files.values():
            f.close()
        ours = {p: {} for p in pipelines}
        for p in pipelines:
            for fp, module in modules.items():
                if os.path.getsize(module) > 0:
                    ours[p].update(run_pipeline(pipeline_bin, target, module, p, fp))
        all_functions = set()
        for r in compiled:
            for name in r["llvm"].get("greedy", {}):
                all_functions.add((r["file"], name))
        for key, (file, fname, minsts) in sorted(exported.items()):
            r = next(x for x in compiled if x["file"] == file)
            row = {"target": target, "file": file, "function": fname, "machine_insts": minsts}
            for a in LLVM_ALLOCATORS:
                s, l, c = r["llvm"][a].get(fname, (0, 0, 0))
                row.update({a + "_spills": s, a + "_reloads": l, a + "_copies": c})
            for p in pipelines:
                st, s, l, m, w, us = ours[p].get(key, ("missing", 0, 0, 0, 0, 0))
                row.update({p + "_status": st, p + "_spills": s, p + "_reloads": l, p + "_moves": m, p + "_cost": w,
                            p + "_us": round(us, 1)})
            rows.append(row)
        n_funcs = len(all_functions)
        n_fail = len([f for f in failures if f[0] == target])
        summary[target] = {
            "c_files": len(res), "compiled": len(compiled), "functions": n_funcs, "imported": len(exported),
            "failed_import": n_fail,
            "llvm_time_s": {a: round(sum(r["time"][a] for r in compiled), 3) for a in LLVM_ALLOCATORS},
        }

    fields = list(rows[0].keys()) if rows else ["target"]
    with open(os.path.join(out, "functions.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "failures.tsv"), "w") as f:
        for t in failures:
            f.write("\t".join(t) + "\n")

    for target, s in summary.items():
        trs = [r for r in rows if r["target"] == target]
        print("== %s: %d C files, %d compiled, %d functions, %d imported (%.1f%%), %d left to greedy" % (
            target, s["c_files"], s["compiled"], s["functions"], s["imported"],
            100.0 * s["imported"] / max(1, s["imported"] + s["failed_import"]), s["failed_import"]))
        print("   %-8s %8s %8s %8s %10s %10s" % ("", "spills", "reloads", "moves", "ok", "time ms"))
        for a in LLVM_ALLOCATORS:
            print("   %-8s %8d %8d %8d %10s %10.1f" % (
                a, sum(r[a + "_spills"] for r in trs), sum(r[a + "_reloads"] for r in trs),
                sum(r[a + "_copies"] for r in trs), "-", 1000 * s["llvm_time_s"][a]))
        for p in pipelines:
            ok = sum(1 for r in trs if r[p + "_status"] == "ok")
            print("   %-8s %8d %8d %8d %10s %10.1f   (weighted cost %d)" % (
                p, sum(r[p + "_spills"] for r in trs), sum(r[p + "_reloads"] for r in trs),
                sum(r[p + "_moves"] for r in trs), "%d/%d" % (ok, len(trs)),
                sum(r[p + "_us"] for r in trs) / 1000, sum(r[p + "_cost"] for r in trs)))
        reasons = collections.Counter(re.sub(r"%\d+|\bbb\.\d+|[0-9]+", "N", f[3].split(": ", 1)[-1])
                                      for f in failures if f[0] == target)
        for why, n in reasons.most_common(12):
            print("   left to greedy: %4d  %s" % (n, why))
        for p in pipelines:
            def behind(r):
                return (r[p + "_spills"] + r[p + "_reloads"] + r[p + "_moves"]) - (
                    r["greedy_spills"] + r["greedy_reloads"] + r["greedy_copies"])
            worst = sorted(trs, key=behind, reverse=True)[:10]
            print("   %s furthest behind greedy (spills+reloads+moves, ours vs greedy):" % p)
            for r in worst:
                print("     %-40s %4d vs %4d   (%d machine insts)" % (
                    r["file"] + ":" + r["function"], r[p + "_spills"] + r[p + "_reloads"] + r[p + "_moves"],
                    r["greedy_spills"] + r["greedy_reloads"] + r["greedy_copies"], r["machine_insts"]))
        bad = [r for r in trs for p in pipelines if r[p + "_status"] != "ok"]
        for r in bad[:20]:
            print("   NOT OK:", r["file"], r["function"], {p: r[p + "_status"] for p in pipelines})


if __name__ == "__main__":
    main()
