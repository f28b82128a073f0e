#!/usr/bin/env python3
"""Hand-written-input fuzzing of every allocator family through the pipeline tool.

Takes legalized functions from the generator, edits their text the way a user
writing constraints by hand might (an operand or a block parameter fixed to a
register, read or written @stack, @any, @early or @late, clobbers added, uses
swapped, another value read, a line repeated), and runs each edited function
through the main pipeline of every family. The rule it checks is the one
//tools:robustness_test checks on its own hand-written functions: either every
family refuses the input by name (the parser's line and column, "invalid
input: ..." before any phase, or "phase legalize: ...") or every one allocates
it, checked and interpreted (a program an edit made endless runs past the
interpreter's step limit in each).
Anything else is reported with the function kept for replay: a family that
fails the checker or the interpreter, one that errs where another allocates,
an internal error, a crash or a hang.

  ./bazelw build -c opt //tools:pipeline
  python3 tools/mutation_fuzz.py --pipeline_binary=bazel-bin/tools/pipeline --rounds=300

Each round's edits come from its seed alone (--seed is the first), so a
reported round replays with --seed=N --rounds=1; the edited function is also
written to --keep. Prints a line per failure and a summary; exits 1 on any.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

FAMILIES = ["ssa", "lsra", "chaitin", "packing"]

# Registers of every bank and width (some not allocatable: the stack pointer).
REGISTERS = {
    "x86_64": ["rax", "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "r12", "eax", "ecx", "al",
               "ah", "bl", "xmm0", "xmm1", "xmm7", "rsp", "rbp"],
    "aarch64": ["x0", "x1", "x2", "x8", "x9", "x19", "x20", "w0", "w1", "w3", "d0", "d1", "s0", "q0", "v0", "sp",
                "x29", "x30"],
    "armv7": ["r0", "r1", "r2", "r3", "r4", "r11", "s0", "s1", "s2", "d0", "d1", "q0", "q1", "sp", "lr"],
}
REGISTERS["x86_64_win"] = REGISTERS["x86_64"]

OPERAND = re.compile(r"\bv\d+(@[%\w]+)*")
PARAMETER = re.compile(r"v\d+(@[%\w]+)*:")


def mutate(text, regs, rnd):
    """One to three hand edits of a function's text."""
    lines = text.split("\n")
    for _ in range(rnd.randint(1, 3)):
        body = [k for k, line in enumerate(lines) if line.startswith("    ")]
        k = rnd.choice(body)
        line = lines[k]
        ops = list(OPERAND.finditer(line))
        edit = rnd.randrange(10)
        if edit == 0 and ops:  # constrain an operand
            o = rnd.choice(ops)
            c = rnd.choice(["%" + r for r in regs] + ["any", "stack", "reg", "early", "late", "reuse0", "reuse1"])
            line = line[:o.start()] + re.match(r"v\d+", o.group(0)).group(0) + "@" + c + line[o.end():]
        elif edit == 1:  # drop the line's constraints
            line = re.sub(r"@[%\w]+", "", line)
        elif edit == 2 and ("=" in line or line.strip().startswith(("store", "call"))):  # clobbers
            added = ", ".join("%" + r for r in rnd.sample(regs, rnd.randint(1, 4)))
            line += (", " if " clobbers " in line else " clobbers ") + added
        elif edit == 3 and ops:  # read another value
            o = rnd.choice(ops)
            line = line[:o.start()] + "v%d" % rnd.randrange(60) + line[o.end():]
        elif edit == 4:  # repeat the line (a second definition)
            lines.insert(k, line)
            continue
        elif edit == 5 and ops and "call" in line and ")" in line:  # one more call argument
            line = line.replace(")", ", " + rnd.choice(ops).group(0) + ")", 1)
        elif edit == 6:  # constrain a block parameter
            heads = [h for h, x in enumerate(lines) if re.match(r"block\d+\(", x)]
            if heads:
                h = rnd.choice(heads)
                params = list(PARAMETER.finditer(lines[h]))
                if params:
                    p = rnd.choice(params)
                    c = rnd.choice(["%" + r for r in regs] + ["any", "stack", "reg"])
                    head = lines[h]
                    lines[h] = head[:p.start()] + re.match(r"v\d+", p.group(0)).group(0) + "@" + c + ":" + head[p.end():]
            continue
        elif edit == 7 and ops:  # read early or late
            o = rnd.choice(ops)
            line = line[:o.end()] + "@" + rnd.choice(["early", "late"]) + line[o.end():]
        elif edit == 8 and line.strip().startswith(("jump", "br", "ret")):  # clobbers on a terminator
            line += " clobbers " + ", ".join("%" + r for r in rnd.sample(regs, rnd.randint(1, 3)))
        elif edit == 9 and len(ops) >= 3:  # swap two uses
            a, b = sorted(rnd.sample(ops[1:], 2), key=lambda m: m.start())
            line = line[:a.start()] + b.group(0) + line[a.end():b.start()] + a.group(0) + line[b.end():]
        lines[k] = line
    return "\n".join(lines)


def run(binary, target, path, pipeline, timeout):
    """(status, message): ok, refused, or failed with the first error line."""
    try:
        r = subprocess.run([binary, "--target=" + target, "--in=" + path, "--pipeline=" + pipeline],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "failed", "no answer in %d s" % timeout
    out = r.stdout + r.stderr
    errors = [x for x in out.split("\n") if "phase " in x or "invalid input" in x or "rror" in x]
    if r.returncode < 0 or r.returncode >= 128:
        return "failed", "exit %d (a signal) %s" % (r.returncode, errors[:1])
    if r.returncode == 0:
        return "ok", ""
    first = errors[0] if errors else out.strip().split("\n")[-1]
    if re.search(r"internal|Internal|INTERNAL", out):
        return "failed", first
    # A program that runs past the interpreter's step limit (an edit made a
    # loop endless) is the input's fault when every family says so.
    if "step limit of" in out:
        return "endless", first
    # Refused: by the parser (the file's line and column), the verifier, or legalize.
    if re.search(re.escape(path) + r":\d+:\d+: ", out) or "invalid input: " in out or "phase legalize: " in out:
        return "refused", first
    return "failed", first


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pipeline_binary", required=True, help="a build of //tools:pipeline")
    parser.add_argument("--targets", default="x86_64,x86_64_win,aarch64,armv7")
    parser.add_argument("--rounds", type=int, default=300, help="edited functions per target")
    parser.add_argument("--seed", type=int, default=1, help="the first round's seed")
    parser.add_argument("--timeout", type=int, default=60, help="seconds per pipeline run")
    parser.add_argument("--keep", default="", help="directory for the failing functions (default: a new temporary one)")
    args = parser.parse_args()
    keep = args.keep or tempfile.mkdtemp(prefix="mutation_fuzz_")
    os.makedirs(keep, exist_ok=True)
    work = tempfile.mkdtemp(prefix="mutation_fuzz_work_")
    failures = refused = allocated = 0
    for target in args.targets.split(","):
        if target not in REGISTERS:
            sys.exit("unknown target '%s' (x86_64, x86_64_win, aarch64, armv7)" % target)
        bases = {}
        for seed in range(args.seed, args.seed + args.rounds):
            rnd = random.Random(seed)
            shape = (rnd.choice([30, 80, 200]), rnd.choice([0, 30, 80]), rnd.choice([0, 30]))
            key = (seed % 50, shape)
            if key not in bases:
                base = os.path.join(work, "base_%s_%d.ra" % (target, len(bases)))
                gen = subprocess.run([args.pipeline_binary, "--target=" + target, "--generate=1",
                                      "--seed=%d" % (seed % 50 + 1), "--size=%d" % shape[0],
                                      "--unusual_percent=%d" % shape[1], "--byte_percent=%d" % shape[2],
                                      "--phases=legalize", "--nocheck", "--out=" + base], capture_output=True, text=True)
                if gen.returncode != 0:
                    sys.exit("the generator failed on %s: %s" % (target, gen.stderr.strip()))
                bases[key] = open(base).read()
            text = mutate(bases[key], REGISTERS[target], rnd)
            path = os.path.join(work, "edited_%s.ra" % target)
            with open(path, "w") as f:
                f.write(text)
            results = {p: run(args.pipeline_binary, target, path, p, args.timeout) for p in FAMILIES}
            kinds = set(status for status, _ in results.values())
            if kinds == {"ok"}:
                allocated += 1
                continue
            if kinds == {"refused"} or kinds == {"endless"}:
                refused += 1
                continue
            failures += 1
            kept = os.path.join(keep, "%s_%d.ra" % (target, seed))
            with open(kept, "w") as f:
                f.write(text)
            for p, (status, message) in results.items():
                if status != "ok" and not (status in ("refused", "endless") and "failed" not in kinds and "ok" not in kinds):
                    print("FAILS %s round %d %s (%s): %s [%s]" % (target, seed, p, status, message[:300], kept))
            sys.stdout.flush()
    print("%d edited functions: %d allocated by every family, %d refused by every one (or endless in each), "
          "%d failures%s" %
          (allocated + refused + failures, allocated, refused, failures, " (kept in %s)" % keep if failures else ""))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
