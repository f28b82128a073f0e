#!/usr/bin/env bash
# The tools' scripts, run as the README shows. The two that compare builds
# (tools/same_allocation.py, tools/compare_benchmarks.py): one build against
# itself must give identical allocations (so every allocator is deterministic
# from run to run), a build whose dumps differ must be caught, and the
# benchmark table must come out with its rows. The hand-edit fuzzer
# (tools/mutation_fuzz.py): a short run finds every family agreeing, and a
# build whose lsra fails the checker is reported. Skips, saying so, without
# python3.
set -u
if ! command -v python3 >/dev/null; then
  echo "SKIPPED: no python3 on this machine"
  exit 0
fi
pipeline="$(pwd)/tools/pipeline"
bench="$(pwd)/targets/targets_benchmark"
same="$(pwd)/tools/same_allocation.py"
compare="$(pwd)/tools/compare_benchmarks.py"
fuzz="$(pwd)/tools/mutation_fuzz.py"
corpus="$(pwd)/testdata/llvm"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
source "$(pwd)/tools/expect.sh"

# Every family's main pipeline, two targets, the corpus: 4 x (2 x 3 + 1) runs.
expect_re "a build against itself" 0 "^28 of 28 runs identical \(4 pipelines: ssa, lsra, chaitin, packing\)" -- \
  python3 "$same" --old="$pipeline" --new="$pipeline" --pipelines=ssa,lsra,chaitin,packing \
  --targets=x86_64,armv7 --functions=5 --corpus="$corpus"

# A "build" whose lsra dumps carry one byte more, and one that fails where the other does not.
cat >"$tmp/longer" <<SCRIPT
#!/usr/bin/env bash
"$pipeline" "\$@"; rc=\$?
for a in "\$@"; do case "\$a" in --out=*) out="\${a#--out=}";; esac; done
case " \$* " in *" --pipeline=lsra "*) echo x >>"\$out";; esac
exit \$rc
SCRIPT
cat >"$tmp/failing" <<SCRIPT
#!/usr/bin/env bash
case " \$* " in *" --target=armv7 "*) exit 3;; esac
exec "$pipeline" "\$@"
SCRIPT
chmod +x "$tmp/longer" "$tmp/failing"
expect_re "a changed dump is caught" 1 "DIFFERS lsra x86_64 plain: the dumps differ" -- \
  python3 "$same" --old="$pipeline" --new="$tmp/longer" --pipelines='lsra*' --targets=x86_64 --functions=3 --corpus=
expect_re "only where it changed" 1 "^21 of 28 runs identical" -- \
  python3 "$same" --old="$pipeline" --new="$tmp/longer" --pipelines='lsra,lsra_no[ps]*' --targets=x86_64,armv7 \
  --functions=3 --corpus= --big=2000
expect_re "an exit status is compared" 1 "DIFFERS ssa armv7 i8: exit 0 -> 3" -- \
  python3 "$same" --old="$pipeline" --new="$tmp/failing" --pipelines=ssa --targets=x86_64,armv7 --functions=3 --corpus=
expect_re "a pattern naming no pipeline" 1 "'lsar\*' names no pipeline of chaitin" -- \
  python3 "$same" --old="$pipeline" --new="$pipeline" --pipelines='lsar*'

expect_re "the benchmark table" 0 "^\| BM_FirstFreeInClass \| [0-9.e+]+ [a-zA-Z/]+ \| [0-9.e+]+ [a-zA-Z/]+ \| [-+][0-9.]+% \|" -- \
  python3 "$compare" --old="$bench" --new="$bench" --filter='^BM_FirstFreeInClass$' --runs=2 --min_time=0.01
expect_re "a filter naming no benchmark" 1 "no benchmark of .* matches 'BM_Nothing'" -- \
  python3 "$compare" --old="$bench" --new="$bench" --filter='BM_Nothing'

# The fuzzer: the families agree on every edited function (each allocates
# it or each refuses it by name); a build whose lsra fails the checker on
# one function is caught there, with the function kept.
expect_re "families agree on edited functions" 0 \
  "^40 edited functions: [0-9]+ allocated by every family, [0-9]+ refused by every one \(or endless in each\), 0 failures$" -- \
  python3 "$fuzz" --pipeline_binary="$pipeline" --targets=x86_64,armv7 --rounds=20 --keep="$tmp/kept"
cat >"$tmp/bad_lsra" <<SCRIPT
#!/usr/bin/env bash
case " \$* " in
  *" --pipeline=lsra "*)
    echo "%f: phase check: function %f, block0, inst 0: use #0 expects v1 in %rax, which holds nothing" >&2; exit 1;;
esac
exec "$pipeline" "\$@"
SCRIPT
chmod +x "$tmp/bad_lsra"
expect_re "a family failing the checker is reported" 1 \
  "FAILS x86_64 round 3 lsra \(failed\): %f: phase check: .* \[$tmp/kept/x86_64_3.ra\]" -- \
  python3 "$fuzz" --pipeline_binary="$tmp/bad_lsra" --targets=x86_64 --seed=3 --rounds=1 --keep="$tmp/kept"

expect_done
