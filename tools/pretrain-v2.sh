#!/usr/bin/env bash
# Issue 50, item 4: models/base v2's pretraining, one chunk per call, resumable across sessions. Every chunk runs the
# same command: the first starts from scratch; later ones go on from the run folder (--resume: weights, AdamW moments,
# data position, schedule) when it is still on this machine, else from the weights committed in models/pretrain (--init
# with its recorded position, AdamW restarted with a short warmup). Each chunk stops cleanly after MINUTES of training
# (saving the run folder and exporting bf16 weights + position to models/pretrain, which is then committed: 17 MB a
# chunk in git's history, where fp32 took 34.5 MB; the run folder keeps fp32 weights and moments for an exact --resume).
#
# The settings (EXPERIMENTS.md, issue 50): the shipped shape (the sweep's best at every budget measured), bf16, windows
# of 512 tokens in batches of 4, warmup-stable-decay at lr 1e-3 over MAX_STEPS steps with the decay in the last
# DECAY_STEPS (extend MAX_STEPS between chunks to train longer: the rate holds until the decay starts), FIM in SPM order
# (the order models/base serves), the standard library's files weighted 3.
#   MINUTES=110 nice -n 10 bash tools/pretrain-v2.sh        (one heavy job: run nothing else heavy beside it)
set -euo pipefail
cd "$(dirname "$0")/.."
MINUTES="${MINUTES:-110}"
MAX_STEPS="${MAX_STEPS:-80000}"
DECAY_STEPS="${DECAY_STEPS:-8000}"
OUT="${OUT:-results/pretrain-v2}"
EXPORT="${EXPORT:-models/pretrain}"
args=(--cache data/corpus/cache --seq-len 512 --batch-size 4 --precision bf16 --quiet
  --hidden-size 256 --layers 6 --heads 4 --kv-heads 2 --intermediate-size 704
  --fim-mode spm --package-weights cpython-stdlib=3 --seed 0
  --lr 1e-3 --schedule wsd --max-steps "$MAX_STEPS" --decay-steps "$DECAY_STEPS" --warmup-steps 200
  --save-every 1000 --max-minutes "$MINUTES" --out "$OUT" --export "$EXPORT" --export-dtype BF16)
if [[ -f "$OUT/trainer_state.json" ]]; then
  args+=(--resume)
elif [[ -f "$EXPORT/position.json" ]]; then
  args+=(--init "$EXPORT" --init-optimizer restart)
fi
exec node --import tsx apps/sft/src/main.ts pretrain "${args[@]}"
