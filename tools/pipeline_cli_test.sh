#!/usr/bin/env bash
# The pipeline binary as a user runs it: --help under any name, and bad flags or
# inputs refused with a clear message and exit status 2.
set -u
bin="$(pwd)/tools/pipeline"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
source "$(pwd)/tools/expect.sh"

cp "$bin" "$tmp/renamed-tool"
expect "help under another name" 1 "--generate" -- "$tmp/renamed-tool" --help
expect "help names the default pipeline" 1 "default: ssa" -- "$tmp/renamed-tool" --help
expect "generate zero" 2 "--generate=0 is not a number of functions (1 to 1000000)" -- "$bin" --generate=0
expect "generate negative" 2 "--generate=-5 is not a number of functions" -- "$bin" --generate=-5
expect "generate absurd" 2 "--generate=2000000000 is not a number of functions" -- "$bin" --generate=2000000000
expect "size zero" 2 "--size=0 is not a function size" -- "$bin" --generate=1 --size=0
expect "size absurd" 2 "--size=2000000000 is not a function size" -- "$bin" --generate=1 --size=2000000000
mkdir -p "$tmp/dir"
expect "input is a directory" 2 "is a directory, not a .ra text file or a dump" -- "$bin" --in="$tmp/dir"
expect "input is /dev/null" 2 "/dev/null is empty: it holds no function" -- "$bin" --in=/dev/null
printf 'this is not a dump' > "$tmp/junk"
expect "input is not a dump" 2 "junk: not a regalloc dump" -- "$bin" --in="$tmp/junk"
printf '; only a comment\n' > "$tmp/none.ra"
expect "text with no function" 2 "none.ra holds no function" -- "$bin" --in="$tmp/none.ra"
printf '; a comment\rfunction %%f(i64) -> i64 {\rblock0(v0: i64):\r    ret v0\r}\r' > "$tmp/cr.ra"
expect "CR line endings" 0 "total (1)" -- "$bin" --in="$tmp/cr.ra"
printf 'function %%f(i32) -> i64 {\nblock0(v0: i32):\n    ret v0\n}\n' > "$tmp/bad.ra"
expect "invalid input" 1 "invalid input: function %f, block0, inst 0 \`ret v0\`: v0 has type i32, expected i64" -- "$bin" --in="$tmp/bad.ra"

expect_done
