#!/usr/bin/env bash
# judge-ci's Java model against javac's parser on the whole JDK 17 source (Debian's
# openjdk-17-source, ~15,000 files): prints the corpus size, the agreement rate and every
# disagreement (tests/javac/disagreements.txt lists the known ones with their reason).
# The CI test (tests/it/javac_differential.rs) runs the java.base/java/util subset only.
# Usage: bench/javac-differential.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo test --release --quiet --test it \
  javac_differential::the_whole_jdk_reads_as_javac_reads_it -- --ignored --nocapture
