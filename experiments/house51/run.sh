#!/usr/bin/env bash
# Issue 51, "same seeds, same numbers": each house merge against its first parent, the smoke presets of run_all and
# run_tools, eval.json compared number for number (tools/compare-eval.cjs of HEAD; keys only one side has are listed).
# Usage: bash results/house51/run.sh MERGE...   (one heavy job: run alone)
set -u
R=/work/main/results/house51
for m in "$@"; do
  for c in $(git -C /work/main rev-parse --short "$m^1") $(git -C /work/main rev-parse --short "$m"); do
    w=/work/h51/$c
    [[ -f $R/$c/tools/eval.json ]] && continue
    if [[ ! -d $w ]]; then
      git -C /work/main worktree add -f --detach "$w" "$c" > /dev/null 2>&1 || { echo "worktree $c failed"; continue; }
      (cd "$w" && npm ci --no-audit --no-fund > "$R/$c.npm.log" 2>&1) || { echo "npm ci $c failed"; continue; }
    fi
    (cd "$w" && PRESET=smoke RESULTS="$R/$c/all" bash run_all.sh > "$R/$c.all.log" 2>&1); echo "$c run_all rc=$?"
    (cd "$w" && PRESET=smoke RESULTS="$R/$c" bash run_tools.sh > "$R/$c.tools.log" 2>&1); echo "$c run_tools rc=$?"
  done
  p=$(git -C /work/main rev-parse --short "$m^1"); c=$(git -C /work/main rev-parse --short "$m")
  echo "== $m: run_all"; node /work/main/tools/compare-eval.cjs "$R/$p/all/eval/suite/eval.json" "$R/$c/all/eval/suite/eval.json" | tail -15
  echo "== $m: run_tools"; node /work/main/tools/compare-eval.cjs "$R/$p/tools/eval.json" "$R/$c/tools/eval.json" | tail -15
done
