# The shell tests' one check, sourced by them (tools/pipeline_cli_test.sh,
# tools/scripts_test.sh):
#   expect NAME STATUS TEXT -- COMMAND...      exit STATUS and output holding TEXT
#   expect_re NAME STATUS REGEX -- COMMAND...  the same with an extended regex
# Each prints "ok: NAME" or "FAIL: ..." with the output's head, and counts
# failures in $failures; `expect_done` exits 1 if any failed.
failures=0

_expect() {  # _expect GREP_MODE NAME STATUS PATTERN -- COMMAND...
  local mode="$1" name="$2" want_status="$3" pattern="$4"
  shift 5
  local out status
  out="$("$@" 2>&1)"
  status=$?
  if [ "$status" -ne "$want_status" ] || ! grep -q"$mode" -- "$pattern" <<<"$out"; then
    echo "FAIL: $name: exit $status (want $want_status), output lacks: $pattern"
    echo "$out" | head -20
    failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}
expect() { _expect F "$@"; }
expect_re() { _expect E "$@"; }

expect_done() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failed"
    exit 1
  fi
  echo "all passed"
}
