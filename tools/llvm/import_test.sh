#!/usr/bin/env bash
# The LLVM import on the project's own C snippets (testdata/llvm/src), for x86-64
# and AArch64: clang-19 -O2 compiles each, llc-19 with the plugin exports every
# machine function, and the test asserts the shapes the import must produce
# (fixed registers, Reuse, block parameters, clobbers, folded sub-register views,
# types) and that `ssa` and `lsra` allocate every imported function and pass the
# checker. A function the import cannot express must be named in failures.tsv.
set -uo pipefail

plugin="$1"
pipeline="$2"
shift 2
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0

fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# expect FILE REGEX WHAT: the exported text matches.
expect() {
  grep -Eq -- "$2" "$1" || fail "$(basename "$1"): expected $3 (/$2/)"
}
reject() {
  if grep -Eq -- "$2" "$1"; then fail "$(basename "$1"): did not expect $3 (/$2/)"; fi
}
# func FILE NAME: the text of one exported function.
func() {
  awk -v n="function %$2(" 'index($0, n) == 1 {on = 1} on {print} on && /^}/ {exit}' "$1"
}

for target in x86_64 aarch64; do
  case "$target" in
    x86_64) triple=x86_64-linux-gnu ;;
    aarch64) triple=aarch64-linux-gnu ;;
  esac
  out="$tmp/$target"
  mkdir -p "$out"
  for c in "$@"; do
    stem=$(basename "$c" .c)
    dir="$out/$stem"
    mkdir -p "$dir"
    if ! clang-19 --target=$triple -O2 -S -emit-llvm -o "$dir/$stem.ll" "$c" 2> "$dir/clang.log"; then
      fail "$target $stem: clang-19 failed: $(cat "$dir/clang.log")"
      continue
    fi
    if ! llc-19 -O2 -mtriple=$triple -load="$plugin" -regalloc=export -regalloc-export-dir="$dir" \
        "$dir/$stem.ll" -o "$dir/$stem.s" 2> "$dir/llc.log"; then
      fail "$target $stem: llc-19 with the plugin failed: $(tail -5 "$dir/llc.log")"
      continue
    fi
    cat "$dir"/*.ra > "$out/$stem.all" 2> /dev/null
  done

  # Every imported function allocates and passes the checker with ssa and lsra.
  for ra in "$out"/*/*.ra; do
    fp=()
    case "$ra" in *.fp.ra) fp=(--frame_pointer) ;; esac
    for p in ssa lsra; do
      log=$("$pipeline" --target=$target "${fp[@]}" --in="$ra" --pipeline=$p 2>&1)
      rc=$?
      if [ $rc -ne 0 ] || ! echo "$log" | grep -Eq '^%[^ ]+ .* ok$'; then
        # The exit status says which: 1 a failed function, 2 an error, above
        # 128 a signal (the flake below printed an ok table and still failed).
        fail "$target $(basename "$ra") --pipeline=$p (exit status $rc): $(echo "$log" | tail -3)"
      fi
    done
  done

  # Shapes.
  d="$out"
  expect "$d/loops/sum_array.ra" '^block[0-9]+\(v[0-9]+: ' "block parameters where a loop's definitions meet"
  expect "$d/loops/sum_array.ra" ' -> i32 \{' "an i32 result"
  expect "$d/calls/across_calls.ra" 'clobbers ' "call clobbers from the register mask"
  expect "$d/calls/fib.ra" '^    ret v[0-9]+@%' "a return fixed to the result register"
  expect "$d/switch/small_switch.ra" 'branch %' "an opaque branch"
  reject "$d/subregs/zero_extend.ra" '%COPY\(' "a move for a sub-register view"
  reject "$d/subregs/widen_narrow.ra" '%COPY\(' "a move for a sub-register view"
  expect "$d/floats/horner.ra" ': f64|\.f64 ' "f64 values"
  expect "$d/vectors/vmix.ra" 'v128' "v128 values"
  shopt -s nullglob
  for f in "$d"/*/failures.tsv; do
    fail "$target: unexpected import failures in $f: $(cat "$f")"
  done
  case "$target" in
    x86_64)
      expect "$d/two_address/mix.ra" '@reuse[0-9]' "two-address defs as Reuse"
      expect "$d/division/divmod.ra" 'IDIV64r\(.*@%rax.*@%rdx' "idiv reading rdx:rax"
      expect "$d/division/divmod.ra" '@%rax, v[0-9]+@%rdx = inst|v[0-9]+@%rax = inst[^ ]* %IDIV64r' "idiv writing rax"
      expect "$d/calls/across_calls.ra" '@%rdi' "arguments fixed to %rdi"
      expect "$d/calls/across_calls.ra" 'clobbers %rax, %rcx, %rdx, %rsi, %rdi, %r8, %r9, %r10, %r11, %xmm0' "the System V caller-saved registers"
      expect "$d/floats/keep_across.ra" '@%xmm0' "doubles fixed to %xmm0"
      expect "$d/subregs/checksum8.ra" '%ADD8rr\(' "byte instructions on wider values"
      reject "$d/subregs/checksum8.ra" '%COPY\(' "a move for a sub-register view"
      # Classes narrower than ours pin their values: a tail call through a register
      # (GR64_TC) to %r11, bits 8-15 of a GR32_ABCD value read from an ABCD register.
      expect "$d/narrow_classes/tail_through.ra" 'branch %TCRETURN[a-z0-9]*\(v[0-9]+@%r11' "a tail-call target pinned to %r11"
      expect "$d/narrow_classes/second_bytes.ra" '%MOVZX32rr8_NOREX\(v[0-9]+@%e[abcd]x\)' "a high-byte read of a value pinned to an ABCD register"
      # A jump table: one opaque branch with a target per distinct destination.
      # long double: x87 values (f80), returned from a virtual register (LLVM's stackifier
      # takes it to st0; legalization fixes it to %fp0).
      expect "$d/long_double/horner_ld.ra" '\) -> f80 \{' "an f80 result"
      expect "$d/long_double/mix_ld.ra" 'v[0-9]+ = inst.f80 %' "x87 instructions on f80 values"
      expect "$d/long_double/horner_ld.ra" '^    ret v[0-9]+$' "the x87 result returned by register"
      expect "$d/switch/dense_switch.ra" 'branch %JMP64[mr]\(v[0-9]+\)(, block[0-9]+){8}' "a jump table's branch with all its targets"
      ;;
    aarch64)
      expect "$d/division/divmod.ra" '%SDIVXr\(' "sdiv"
      expect "$d/calls/across_calls.ra" '@%x0' "arguments fixed to %x0"
      expect "$d/floats/keep_across.ra" '@%d0' "doubles fixed to %d0"
      expect "$d/vectors/vmix.ra" '@%q0' "vectors fixed to %q0"
      expect "$d/narrow_classes/tail_through.ra" 'branch %TCRETURNri\(v[0-9]+@%x17' "a tail-call target (tcGPR64) pinned to %x17"
      # LLVM's early-clobber: written before any use is read, so the uses are Late.
      expect "$d/jump_table/shift_by.ra" 'v[0-9]+@early, v[0-9]+@early = inst[.a-z0-9]* %JumpTableDest[0-9]+\(v[0-9]+@late, v[0-9]+@late\)' \
        "the jump table's early-clobber defs with Late uses"
      ;;
  esac
done

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "PASS"
