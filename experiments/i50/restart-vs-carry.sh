#!/usr/bin/env bash
# Issue 50, item 2: AdamW across a chunk boundary, carried or restarted, measured paired. From one pretraining state
# (a copy of the run folder, exported with its moments in bf16), the same data stream and schedule, MINUTES each:
#   exact     --resume on a copy of the run folder (fp32 moments: what a chunk on the same machine does)
#   bf16      --init EXPORT --init-optimizer carry (the export's optimizer.bf16.safetensors: the compact form)
#   restart   --init EXPORT --init-optimizer restart (fresh moments, 200 warmup steps: what a fresh clone does today)
# The held-out loss of the cache's 64 windows every EVERY steps in each; compare at the steps all three reached.
# Run after a pretraining chunk has stopped (results/pretrain-v2 saved); alone on the machine.
set -eux
cd "$(dirname "$0")/../.."
MINUTES="${MINUTES:-5}"
EVERY="${EVERY:-200}"
R="${R:-results/i50}"
args=(--cache data/corpus/cache --seq-len 512 --batch-size 4 --precision bf16 --quiet
  --hidden-size 256 --layers 6 --heads 4 --kv-heads 2 --intermediate-size 704
  --fim-mode spm --package-weights cpython-stdlib=3 --seed 0
  --lr 1e-3 --schedule wsd --max-steps 80000 --decay-steps 8000 --warmup-steps 200)
pretrain() { node --import tsx apps/sft/src/main.ts pretrain "${args[@]}" "$@"; }
rm -rf "$R" && mkdir -p "$R"
# The shared start: a copy of the run folder, one short chunk on it that exports the weights with bf16 moments.
cp -r results/pretrain-v2 "$R/base"
pretrain --out "$R/base" --resume --save-every 0 --max-minutes 0.05 --export "$R/export" --export-moments --export-dtype BF16 > "$R/base.log" 2>&1
cp -r "$R/base" "$R/exact"
pretrain --out "$R/exact" --resume --save-every "$EVERY" --max-minutes "$MINUTES" > "$R/exact.log" 2>&1
pretrain --out "$R/bf16" --init "$R/export" --init-optimizer carry --save-every "$EVERY" --max-minutes "$MINUTES" > "$R/bf16.log" 2>&1
pretrain --out "$R/restart" --init "$R/export" --init-optimizer restart --save-every "$EVERY" --max-minutes "$MINUTES" > "$R/restart.log" 2>&1
for arm in exact bf16 restart; do echo "$arm"; grep eval/loss "$R/$arm/metrics.jsonl"; done
