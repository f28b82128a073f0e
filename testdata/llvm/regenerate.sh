#!/usr/bin/env bash
# Regenerates x86_64.ra and aarch64.ra from src/*.c: clang-19 -O2, then llc-19 with
# the plugin's export (tools/llvm). Functions the import leaves to greedy (a
# high-byte read, setjmp) are listed on stderr and not in the corpus. Run from anywhere:
#   testdata/llvm/regenerate.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
cd "$repo"
./bazelw build //tools/llvm:regalloc_llvm >&2
plugin="$repo/bazel-bin/tools/llvm/regalloc_llvm.so"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for target in x86_64 aarch64; do
  case "$target" in
    x86_64) triple=x86_64-linux-gnu ;;
    aarch64) triple=aarch64-linux-gnu ;;
  esac
  out="$here/$target.ra"
  : > "$out"
  for c in "$here"/src/*.c; do
    stem=$(basename "$c" .c)
    mkdir -p "$tmp/$target/$stem"
    clang-19 --target=$triple -O2 -S -emit-llvm -o "$tmp/$target/$stem.ll" "$c"
    llc-19 -O2 -mtriple=$triple -load="$plugin" -regalloc=export -regalloc-export-dir="$tmp/$target/$stem" \
      "$tmp/$target/$stem.ll" -o /dev/null
    for ra in "$tmp/$target/$stem"/*.ra; do
      [ -e "$ra" ] || continue
      case "$ra" in *.fp.ra) echo "regenerate: $ra needs the frame pointer; left out" >&2; continue ;; esac
      { echo "; testdata/llvm/src/$stem.c"; cat "$ra"; echo; } >> "$out"
    done
    if [ -e "$tmp/$target/$stem/failures.tsv" ]; then
      sed "s/^/regenerate: $target $stem: left to greedy: /" "$tmp/$target/$stem/failures.tsv" >&2
    fi
  done
  echo "regenerate: $out: $(grep -c '^function' "$out") functions" >&2
done
