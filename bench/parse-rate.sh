#!/usr/bin/env bash
# The parse rate of judge-ci's language front ends (Java, Kotlin) on a real project's
# sources: how many files parse without a syntax error, what the model holds, and the
# throughput (bench/parse_rate.rs). Give the folders holding the sources, e.g. a checkout of
# a Kotlin project made outside this repository (its code is never committed here):
#   bench/parse-rate.sh /path/to/okhttp
# The figure in docs/languages.md was measured on square/okhttp at 1682d9b (547 .kt files).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if (($# == 0)); then
  echo "usage: bench/parse-rate.sh DIR [DIR ...]" >&2
  exit 2
fi
cd "$root"
cargo run --release --quiet --example parse-rate -- "$@"
