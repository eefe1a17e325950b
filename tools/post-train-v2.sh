#!/usr/bin/env bash
# models/base v2's post-training (issue 50, item 5): steps 3-6 of models/README.md (one compiler-verdict round on
# function bodies, fill-in-the-middle in SPM order, two compiler-verdict rounds on FIM middles and bodies), run on v2's
# pretrained weights instead of v1's. Start it once the pretraining's decay phase is done (models/pretrain then holds
# the last chunk's export). Each step finished is marked in OUT/done and skipped by a later call, so a session may
# stop between steps and the next one goes on from there: a sampling step stopped halfway runs again whole, a training
# step goes on from its last save (--resume). Heavy (about 2 hours on 2 cores, most of it sampling): run nothing else
# heavy beside it.
#
#   bash tools/post-train-v2.sh                               models/pretrain -> results/post-v2, exported to results/post-v2/base
#   SRC=models/pretrain OUT=results/post-v2 EXPORT=models/base bash tools/post-train-v2.sh
#   DRY_RUN=1 bash tools/post-train-v2.sh                     prints each step's command, runs nothing
#
# EXPORT defaults inside OUT: models/base is replaced only when asked, after `eval:base` has compared the two.
#
# Knobs for the recipe's variants on dev (EXPERIMENTS.md, "v1's post-training recipe on v2"; defaults = v1's recipe):
#   REFERENCES=1    the function-body steps also train on each sampled function's true body (prep syntax --references)
#   SKIP_SYNTAX=1   no step 3: the SPM step starts from SRC
#   LR_SCALE=0.5    every fine-tuning step's learning rate times this
#   MERGE_34=1      step 3's bodies are not trained on their own: they join the SPM step's data (one fine-tuning from SRC)
#   ROUND_SAMPLES=4 bodies sampled per function in the rounds (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
SRC="${SRC:-models/pretrain}"
OUT="${OUT:-results/post-v2}"
EXPORT="${EXPORT:-$OUT/base}"
DRY_RUN="${DRY_RUN:-0}"
REFERENCES="${REFERENCES:-0}"
SKIP_SYNTAX="${SKIP_SYNTAX:-0}"
LR_SCALE="${LR_SCALE:-1}"
MERGE_34="${MERGE_34:-0}"
ROUND_SAMPLES="${ROUND_SAMPLES:-2}"
(( SKIP_SYNTAX == 1 && MERGE_34 == 1 )) && { echo "post-train-v2: SKIP_SYNTAX=1 and MERGE_34=1 exclude each other" >&2; exit 2; }
refs=(); [[ "$REFERENCES" == 1 ]] && refs=(--references)
lr() { awk -v a="$1" -v s="$LR_SCALE" 'BEGIN { printf "%g", a * s }'; } # lr BASE: the step's rate times LR_SCALE
CORPUS=data/vendor/cpython/python-stdlib,data/vendor/cpython/python-stdlib-extra

[[ -f "$SRC/model.safetensors" && -f "$SRC/config.json" ]] ||
  { echo "post-train-v2: $SRC is not a checkpoint folder (no model.safetensors and config.json); set SRC" >&2; exit 2; }

STEP_LABEL=post-train-v2
# shellcheck source=tools/done-steps.sh
source tools/done-steps.sh # step NAME COMMAND...: resumable, marked in $OUT/done; nx TARGET -- ARGS...

mkdir -p "$OUT"

# 3. one compiler-verdict round on function bodies (plain order)
psm="$OUT/psm"
spm_data="$OUT/spm/fim_sft.jsonl"
if [[ "$SKIP_SYNTAX" == 1 ]]; then
  psm="$SRC"
else
  step syntax nx prep:syntax -- --model "$SRC" --corpus "$CORPUS" --out "$OUT/syntax/syntax_data.jsonl" "${refs[@]}"
  if [[ "$MERGE_34" == 1 ]]; then
    psm="$SRC"
    spm_data="$OUT/spm/mix.jsonl"
  else
    step syntax-sft nx sft:train -- --model "$SRC" --data "$OUT/syntax/syntax_data.jsonl" \
      --out "$OUT/syntax/sft" --epochs 2 --batch-size 4 --grad-accum 2 --lr "$(lr 1e-4)" --heldout-fraction 0.05 --export "$OUT/psm" --resume
  fi
fi

# 4. fill-in-the-middle in SPM order: true middles of the training files of both folders
step spm-data nx online:prep-fim -- --src "$CORPUS" --format sft --out "$OUT/spm/fim_sft.jsonl" \
  --per-file 24 --seed 7 --max-prefix-chars 1500 --max-suffix-chars 500
[[ "$MERGE_34" == 1 ]] && step spm-mix sh -c 'cat "$@" > "$0"' "$spm_data" "$OUT/syntax/syntax_data.jsonl" "$OUT/spm/fim_sft.jsonl"
step spm-sft nx sft:train -- --model "$psm" --data "$spm_data" \
  --out "$OUT/spm/sft" --fim-mode spm --max-len 320 --batch-size 8 --max-steps 260 --lr "$(lr 2e-4)" --heldout-fraction 0.02 \
  --save-every 130 --export "$OUT/spm/model" --resume

# 5. and 6. two compiler-verdict rounds: FIM middles and function bodies the model wrote, plus fresh true middles
# round N FROM FIM_SAMPLES SEED MIDDLES_PER_FILE MIDDLES_SEED EXPORT (the seeds and sizes of models/README.md)
round() {
  local n=$1 from=$2 fimSamples=$3 seedBase=$4 perFile=$5 fimSeed=$6 export=$7
  local dir="$OUT/round$n"
  step "round$n-fim" nx prep:syntax -- --model "$from" --source fim --out "$dir/fim.jsonl" \
    --samples "$fimSamples" --seed "$seedBase"
  step "round$n-functions" nx prep:syntax -- --model "$from" --corpus "$CORPUS" --source functions \
    --functions 500 --out "$dir/functions.jsonl" --samples "$ROUND_SAMPLES" --seed $((seedBase + 1)) "${refs[@]}"
  step "round$n-middles" nx online:prep-fim -- --src "$CORPUS" --format sft \
    --out "$dir/true_middles.jsonl" --per-file "$perFile" --seed "$fimSeed" --max-prefix-chars 1500 --max-suffix-chars 500
  step "round$n-mix" sh -c 'cat "$@" > "$0"' "$dir/mix.jsonl" "$dir/fim.jsonl" "$dir/functions.jsonl" "$dir/true_middles.jsonl"
  step "round$n-sft" nx sft:train -- --model "$from" --data "$dir/mix.jsonl" --out "$dir/sft" \
    --max-len 384 --batch-size 8 --epochs 1 --lr "$(lr 1e-4)" --heldout-fraction 0.03 --export "$export" --resume
}
round 1 "$OUT/spm/model" 2 11 2 8 "$OUT/round1/model"
round 2 "$OUT/round1/model" 3 21 3 9 "$EXPORT"

echo "post-train-v2: done; the post-trained model is $EXPORT (compare it with models/base: npx nx run eval:base -- --help)"
