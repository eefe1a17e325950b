#!/usr/bin/env bash
# Issue 51, "same seeds, same numbers", for a span of commits rather than a merge: the smoke presets of run_all and
# run_tools at commit A and at commit B, eval.json compared number for number (tools/compare-eval.cjs of B).
# Usage: bash experiments/house51/run2.sh A B   (one heavy job: run alone)
set -u
R=/work/main/results/house51
for c in $(git -C /work/main rev-parse --short "$1") $(git -C /work/main rev-parse --short "$2"); do
  w=/work/h51/$c
  [[ -f $R/$c/tools/eval.json ]] && continue
  if [[ ! -d $w ]]; then
    git -C /work/main worktree add -f --detach "$w" "$c" > /dev/null 2>&1 || { echo "worktree $c failed"; continue; }
    (cd "$w" && npm ci --no-audit --no-fund > "$R/$c.npm.log" 2>&1 && npm run --silent build:native >> "$R/$c.npm.log" 2>&1) || { echo "npm ci $c failed"; continue; }
  fi
  (cd "$w" && PRESET=smoke RESULTS="$R/$c/all" bash run_all.sh > "$R/$c.all.log" 2>&1); echo "$c run_all rc=$?"
  (cd "$w" && PRESET=smoke RESULTS="$R/$c" bash run_tools.sh > "$R/$c.tools.log" 2>&1); echo "$c run_tools rc=$?"
done
a=$(git -C /work/main rev-parse --short "$1"); b=$(git -C /work/main rev-parse --short "$2")
echo "== $a -> $b: run_all"; node "/work/h51/$b/tools/compare-eval.cjs" "$R/$a/all/eval/suite/eval.json" "$R/$b/all/eval/suite/eval.json" | tail -15
echo "== $a -> $b: run_tools"; node "/work/h51/$b/tools/compare-eval.cjs" "$R/$a/tools/eval.json" "$R/$b/tools/eval.json" | tail -15
