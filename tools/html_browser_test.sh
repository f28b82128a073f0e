#!/usr/bin/env bash
# The pictures in a real browser: headless Chromium loads pages the pipeline
# wrote (--compare=ssa,lsra on the embedded corpus; one 100k-instruction
# function), runs their scripts, and the test reads the DOM afterwards: rows and
# segments drawn, the corpus table, and (the page's #selftest hook) that hovering
# a row highlights it and the code that reads its value, and that hovering a code
# line highlights rows and moves the cursor. Takes the README's screenshot
# (TEST_UNDECLARED_OUTPUTS_DIR/allocation.png, copied to docs/allocation.png). Skipped, with a message, where
# Chromium is not installed (apt-get install chromium; .ci/run installs it).
set -uo pipefail

pipeline="$1"
picture_input="$2"  # the function of the README's picture
browser=""
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" > /dev/null; then
    browser="$b"
    break
  fi
done
if [ -z "$browser" ]; then
  echo "SKIP: no Chromium (apt-get install chromium); the pages were not opened in a browser"
  exit 0
fi
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
out="${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}"
export HOME="$tmp"
fails=0
fail() {
  echo "FAIL: $*"
  fails=$((fails + 1))
}
chrome() {
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars \
    --user-data-dir="$tmp/profile" "$@" 2> "$tmp/browser.log"
}

"$pipeline" --compare=ssa,lsra --html="$tmp/corpus.html" > "$tmp/pipeline.log" 2>&1 || fail "the pipeline failed: $(tail -3 "$tmp/pipeline.log")"
chrome --dump-dom "file://$tmp/corpus.html#selftest" > "$tmp/corpus.dom"
body=$(grep -o '<body[^>]*>' "$tmp/corpus.dom")
echo "body after the scripts ran: $body"
grep -q 'data-ready="yes"' <<< "$body" || fail "the page's script did not finish: $(tail -5 "$tmp/browser.log")"
rows=$(grep -o '<g class="row[^"]*"' "$tmp/corpus.dom" | wc -l)
segments=$(grep -o '<rect class="seg' "$tmp/corpus.dom" | wc -l)
charts=$(grep -o 'data-chart="' "$tmp/corpus.dom" | wc -l)
echo "$charts charts, $rows rows, $segments segments"
[ "$charts" -eq 28 ] || fail "expected 28 charts (14 functions x ssa, lsra), found $charts"
[ "$rows" -gt 100 ] || fail "expected the rows of every value, found $rows"
[ "$segments" -ge "$rows" ] || fail "expected a segment per row at least, found $segments for $rows rows"
grep -q '<table class="corpus">' "$tmp/corpus.dom" || fail "no corpus table"
row_hl=$(sed -nE 's/.*data-row-highlights="([0-9]+)".*/\1/p' <<< "$body")
line_hl=$(sed -nE 's/.*data-line-highlights="([0-9]+)".*/\1/p' <<< "$body")
cursor=$(sed -nE 's/.*data-cursor-x="([0-9.]+)".*/\1/p' <<< "$body")
[ "${row_hl:-0}" -ge 2 ] || fail "hovering a row highlighted ${row_hl:-nothing} elements (the row and a code line expected)"
[ "${line_hl:-0}" -ge 1 ] || fail "hovering a code line highlighted ${line_hl:-no} rows"
[ -n "$cursor" ] && [ "${cursor%.*}" -ge 0 ] || fail "hovering a code line did not move the cursor"

# The README's picture (docs/allocation.png): every family on one function.
"$pipeline" --in="$picture_input" --compare=ssa,lsra,chaitin,packing --html="$tmp/picture.html" > /dev/null 2>&1 ||
  fail "the pipeline failed on $picture_input"
chrome --window-size=1400,900 --screenshot="$out/allocation.png" "file://$tmp/picture.html" > /dev/null
if [ ! -s "$out/allocation.png" ] || [ "$(head -c 4 "$out/allocation.png" | tail -c 3)" != "PNG" ]; then
  fail "no screenshot"
fi

# A large function: summarized per block; the page must still load and run.
"$pipeline" --pipeline=lsra --generate=1 --size=100000 --html="$tmp/large.html" > "$tmp/large.log" 2>&1 || fail "the pipeline failed on 100k instructions"
start=$(date +%s.%N)
chrome --dump-dom "file://$tmp/large.html" > "$tmp/large.dom"
end=$(date +%s.%N)
grep -q 'data-ready="yes"' "$tmp/large.dom" || fail "the 100k-instruction page did not finish loading"
grep -q 'summarized per block' "$tmp/large.dom" || fail "the 100k-instruction function was not summarized per block"
echo "100k instructions: $(stat -c %s "$tmp/large.html") bytes, loaded and scripted in $(awk "BEGIN { printf \"%.1f\", $end - $start }") s"

if [ "$fails" -ne 0 ]; then
  echo "$fails failure(s)"
  exit 1
fi
echo "PASS"
