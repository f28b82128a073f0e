#!/usr/bin/env bash
# Writes a C++ source that embeds text files as raw string literals:
#   embed.sh OUT.cc HEADER FUNCTION STRUCT SUFFIX FILE...
# defines `const std::vector<STRUCT>& FUNCTION()` with one {basename without SUFFIX,
# text} per FILE, in the order given. Used by the corpus genrules.
set -euo pipefail
out="$1" header="$2" function="$3" struct="$4" suffix="$5"
shift 5
{
  echo "#include \"$header\""
  echo 'namespace regalloc {'
  echo "const std::vector<$struct>& $function() {"
  echo "  static const auto* files = new std::vector<$struct>{"
  for f in "$@"; do
    printf '    {"%s", R"RA_CORPUS(' "$(basename "$f" "$suffix")"
    cat "$f"
    printf ')RA_CORPUS"},\n'
  done
  echo '  };'
  echo '  return *files;'
  echo '}'
  echo '}  // namespace regalloc'
} > "$out"
