#!/usr/bin/env bash
# models/base v2, everything re-measured against v1 (issue 50, item 6), each measure run on both models in this one
# script over the same items (paired where the tool pairs), one heavy step at a time:
#   eval-base-*       eval base on v1, v2's pretrained weights (PRE) and v2 (the 64 held-out windows of the stdlib test
#                     split, the 92 test FIM examples, 100 held-out functions), then on data/fim/fim_test.jsonl's FIM
#                     examples (code no model trained on); `eval base-compare` tables, v2 - v1 paired
#   runall-*          bash run_all.sh (PRESET, default `default`) with MODEL_PATH each model: SFT, RM and RL figures
#   online-*          online:experiment for the exact and graded users, 400 events, held out on fim_test
#   tools-*           bash run_tools.sh with MODEL_PATH each model
# Each step finished is marked in OUT/done and skipped by a later call (a step stopped halfway runs again whole), so a
# session may stop between steps. Heavy (about 3 hours on 2 cores): run nothing else heavy beside it.
#
#   bash tools/remeasure-v2.sh                         v1 from V1_REF's models/base, v2 = results/post-v2/base
#   STEPS="eval-base runall" bash tools/remeasure-v2.sh  only these groups (eval-base, runall, online, tools)
#   DRY_RUN=1 bash tools/remeasure-v2.sh               prints each step's command, runs nothing
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-results/remeasure-v2}"
# v1: the models/base that shipped before v2 (its last change; the folder at that commit is extracted into OUT).
V1_REF="${V1_REF:-587784382fd83516b4f1c18869efdc5201581734}"
V1="${V1:-$OUT/base-v1}"
V2="${V2:-results/post-v2/base}"
PRE="${PRE:-models/pretrain}"
PRESET="${PRESET:-default}"
STEPS="${STEPS:-eval-base runall online tools}"
DRY_RUN="${DRY_RUN:-0}"

STEP_LABEL=remeasure-v2
# shellcheck source=tools/done-steps.sh
source tools/done-steps.sh # step NAME COMMAND...: resumable, marked in $OUT/done; nx TARGET -- ARGS...
wants() { [[ " $STEPS " == *" $1 "* ]]; }

mkdir -p "$OUT"
if [[ ! -f "$V1/model.safetensors" && "$DRY_RUN" != 1 ]]; then
  mkdir -p "$V1"
  git archive "$V1_REF" models/base | tar -x -C "$V1" --strip-components=2 ||
    { echo "remeasure-v2: cannot extract models/base at $V1_REF into $V1 (set V1 to v1's folder)" >&2; exit 2; }
fi
for m in "$V2" "$PRE"; do
  [[ -f "$m/model.safetensors" || "$DRY_RUN" == 1 ]] || { echo "remeasure-v2: $m is not a checkpoint folder (no model.safetensors): finish tools/pretrain-v2.sh and tools/post-train-v2.sh first, or set V2 / PRE" >&2; exit 2; }
done

if wants eval-base; then
  for pair in "v1:$V1" "pre:$PRE" "v2:$V2"; do
    name=${pair%%:*} model=${pair#*:}
    step "eval-base-$name" nx eval:base -- --model "$model" --heldout-windows 64 --out "$OUT/eval-base/$name"
    step "eval-fimtest-$name" nx eval:base -- --model "$model" --fim data/fim/fim_test.jsonl --fim-split all --limit 1000 \
      --heldout-windows 1 --functions 0 --out "$OUT/eval-fimtest/$name"
  done
  for cand in pre v2; do
    step "compare-base-$cand" nx eval:base-compare -- --baseline "$OUT/eval-base/v1" --candidate "$OUT/eval-base/$cand" --out "$OUT/compare/base-$cand"
    step "compare-fimtest-$cand" nx eval:base-compare -- --baseline "$OUT/eval-fimtest/v1" --candidate "$OUT/eval-fimtest/$cand" --out "$OUT/compare/fimtest-$cand"
  done
fi
if wants runall; then
  for pair in "v1:$V1" "v2:$V2"; do
    name=${pair%%:*} model=${pair#*:}
    step "runall-$name" env PRESET="$PRESET" MODEL_PATH="$model" RESULTS="$OUT/runall-$name" bash run_all.sh
  done
fi
if wants online; then
  for user in exact graded; do
    for pair in "v1:$V1" "v2:$V2"; do
      name=${pair%%:*} model=${pair#*:}
      step "online-$user-$name" nx online:experiment -- --model "$model" --user "$user" --events 400 \
        --heldout data/fim/fim_test.jsonl --out "$OUT/online-$name"
    done
  done
fi
if wants tools; then
  for pair in "v1:$V1" "v2:$V2"; do
    name=${pair%%:*} model=${pair#*:}
    step "tools-$name" env MODEL_PATH="$model" RESULTS="$OUT/tools-$name" bash run_tools.sh
  done
fi
echo "remeasure-v2: done; tables in $OUT/compare, run_all's in $OUT/runall-*/eval, online results in $OUT/online-*/<user>/result.json, run_tools' in $OUT/tools-*"
