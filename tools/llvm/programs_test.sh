#!/usr/bin/env bash
# The project's own programs (testdata/llvm/programs: C by clang-19 -O2, LLVM IR
# by llc-19 -O2) compiled with each of our allocators through the plugin, with
# LLVM's machine verifier after every pass, then run (small inputs): each must
# print what the program compiled with greedy prints, and every function must be
# ours (no fallback to greedy). x86-64 natively; AArch64 too where qemu-aarch64
# and Debian's cross libc are installed. jump_table_swap.ll must make at least
# one allocator write back a block on an edge out of a jump table on x86-64.
# Skipped, with a message, without clang-19.
set -uo pipefail

plugin="$1"
shift
if ! command -v clang-19 > /dev/null; then
  echo "SKIP: clang-19 is not installed (./bazelw installs it); nothing compiled"
  exit 0
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}

# The small input each program runs with here.
input() {
  case "$1" in
    interp) echo 20000 ;;
    *) echo 1 ;;
  esac
}

targets=(x86_64)
if command -v qemu-aarch64 > /dev/null && [ -e /usr/aarch64-linux-gnu/lib/libc.so.6 ]; then
  targets+=(aarch64)
else
  echo "note: no qemu-aarch64 or AArch64 libc; AArch64 not run (apt-get install qemu-user libc6-dev-arm64-cross libgcc-12-dev-arm64-cross binutils-aarch64-linux-gnu)"
fi

checked=0
for target in "${targets[@]}"; do
  run=()
  if [ "$target" = aarch64 ]; then
    run=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
  fi
  # build SOURCE EXE LOG [plugin flags...]: C through clang-19, IR through llc-19.
  build() {
    local src="$1" exe="$2" log="$3"
    shift 3
    if [[ "$src" == *.ll ]]; then
      local llc_flags=()
      for f in "$@"; do
        [ "$f" = -mllvm ] || llc_flags+=("${f/#-fplugin=/-load=}")
      done
      llc-19 -O2 -relocation-model=pic -mtriple=$target-linux-gnu -filetype=obj "${llc_flags[@]}" "$src" -o "$exe.o" 2> "$log" &&
        clang-19 --target=$target-linux-gnu "$exe.o" -o "$exe" 2>> "$log"
    else
      clang-19 --target=$target-linux-gnu -O2 "$@" "$src" -o "$exe" 2> "$log"
    fi
  }
  for c in "$@"; do
    stem=$(basename "${c%.*}")
    arg=$(input "$stem")
    if ! build "$c" "$tmp/$stem.greedy" "$tmp/$stem.greedy.log"; then
      fail "$target $stem: greedy's build failed: $(tail -3 "$tmp/$stem.greedy.log")"
      continue
    fi
    want=$("${run[@]}" "$tmp/$stem.greedy" "$arg")
    jump_table_edges=0
    for a in ssa lsra chaitin packing; do
      exe="$tmp/$stem.$target.$a"
      log="$exe.log"
      if ! build "$c" "$exe" "$log" -fplugin="$plugin" -mllvm -regalloc=$a -mllvm -regalloc-stats -mllvm -regalloc-log \
          -mllvm -verify-machineinstrs; then
        fail "$target $stem $a: compile failed: $(grep -m3 -E 'Bad machine code|error|LLVM ERROR' "$log")"
        continue
      fi
      edges=$(sed -nE "s/^regalloc $a: written back: .*\(([0-9]+) out of jump tables\)/\1/p" "$log")
      jump_table_edges=$((jump_table_edges + ${edges:-0}))
      allocated=$(sed -nE "s/^regalloc $a: ([0-9]+) functions allocated, ([0-9]+) fell back.*/\1 \2/p" "$log")
      read -r ours greedy <<< "${allocated:-0 0}"
      if [ "$ours" -lt 1 ] || [ "$greedy" -ne 0 ]; then
        fail "$target $stem $a: $ours functions allocated, $greedy fell back: $(grep -m3 'greedy allocates' "$log")"
      fi
      got=$("${run[@]}" "$exe" "$arg")
      status=$?
      if [ $status -ne 0 ] || [ "$got" != "$want" ]; then
        fail "$target $stem $a: printed '$got' (exit $status), greedy's build printed '$want'"
      fi
      checked=$((checked + 1))
    done
    if [ "$stem" = jump_table_swap ] && [ "$target" = x86_64 ] && [ "$jump_table_edges" -eq 0 ]; then
      fail "$target $stem: no allocator put a block on an edge out of the jump table"
    fi
  done
done
echo "$checked programs compiled and run with our allocators, $fails failures"
[ "$fails" -eq 0 ]
