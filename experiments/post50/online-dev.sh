#!/usr/bin/env bash
# Issue 50: v1 and v2 in online:experiment on the DEV split (data/fim/fim_dev.jsonl), after the served prompt's
# line-start rule (EXPERIMENTS.md 2026-12-01, session 16), before the test steps of tools/remeasure-v2.sh are re-run.
# Resumable per run (a finished one is skipped). Heavy (about 8 minutes a run, 4 runs): run nothing else heavy beside it.
#   bash experiments/post50/online-dev.sh     then: node --import tsx experiments/post50/online-pair.ts results/online-dev50 exact start
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT="${OUT:-results/online-dev50}"
V1="${V1:-results/remeasure-v2/base-v1}"
V2="${V2:-models/base}"
for user in exact graded; do
  for pair in "v1:$V1" "v2:$V2"; do
    name=${pair%%:*} model=${pair#*:}
    [[ -f "$OUT/online-$name/$user/result.json" ]] && continue
    echo "online-dev: $user on $name ($model)"
    node --import tsx apps/online/src/main.ts experiment --model "$model" --user "$user" --events 400 \
      --heldout data/fim/fim_dev.jsonl --out "$OUT/online-$name" > "$OUT-$user-$name.log" 2>&1
  done
done
for user in exact graded; do for arm in start all; do node --import tsx experiments/post50/online-pair.ts "$OUT" "$user" "$arm"; done; done
