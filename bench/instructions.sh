#!/bin/bash
# Instructions per pass of one bench:check workload over one family's files (see bench/README.md,
# "Counting instructions"). Needs valgrind (apt-get install valgrind) and a built out/
# (node esbuild.config.mjs --tests), and the corpus bench:check caches (--mb 64 by default).
#
#   bench/instructions.sh FAMILY WORKLOAD [MB] [CORPUS]
#   bench/instructions.sh codex check 2        # FAMILY: claude | subagent | codex
#                                              # WORKLOAD: baseline | lines | engine | check
set -euo pipefail
family=${1:?family: claude, subagent or codex}
workload=${2:?workload: baseline, lines, engine or check}
mb=${3:-2}
corpus=${4:-${TMPDIR:-/tmp}/agent-guard-bench-corpus-64}
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$corpus/manifest.json" ]; then
  echo "no corpus at $corpus: run 'node out/bench/check.bench.js --mb 64 --rounds 1 --no-memory --no-stages' first" >&2
  exit 2
fi
# V8 made deterministic and single-threaded, so the collector's work is counted too and two
# runs of one build agree (within about 1 % on a quiet machine).
count() {
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    node --predictable --predictable-gc-schedule --single-threaded "$here/out/bench/passes.js" \
    --corpus "$corpus" --family "$family" --workload "$workload" --passes "$1" --mb "$mb" 2>&1 |
    sed -n 's/.*I *refs: *//p' | tr -d ,
}
one=$(count 1)
three=$(count 3)
echo "$family $workload: $(((three - one) / 2 / 1000000)) M instructions per pass ($mb MB)"
