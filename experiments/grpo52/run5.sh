#!/usr/bin/env bash
# Issue 52: does GRPO with llama.cpp rollouts land where the local engine's does? Five RL seeds per engine on one SFT
# and RM (the default preset's, seed 0, rebuilt here: results/full48 did not survive a machine move), every arm then
# evaluated in one eval:run on the suite's test split, and the engines compared by their seeds' mean test pass@1
# (summary5.ts: Welch over seeds, and paired over problems on the seed-averaged outcomes). Resumable step by step
# (tools/done-steps.sh); heavy (87 min on 2 cores of an AMD EPYC, 2026-12-02: SFT + RM + GRPO 14 min, each llama.cpp
# run ~8 min, each local one ~3 min, the evaluation 17 min): run nothing else heavy beside it. Results: EXPERIMENTS.md
# (2026-12-02, session 20) and experiments/grpo52/eval5/, summary5.md, times5.txt. Its SFT takes the default preset
# of the day (SFT lr 5e-4 since 2026-12-02; the earlier runs of run.sh-run4.sh had 1e-3): both engines' arms start
# from the same SFT, which is what is compared.
#   bash experiments/grpo52/run5.sh            SEEDS="0 1 2 3 4" R=results/grpo52b
set -euo pipefail
cd "$(dirname "$0")/../.."
R="${R:-results/grpo52b}"
SEEDS="${SEEDS:-0 1 2 3 4}"
OUT="$R"
STEP_LABEL=grpo52
# shellcheck source=tools/done-steps.sh
source tools/done-steps.sh
B="$R/base" # the default preset's SFT, RM and GRPO (local engine, RL seed 0), with their stage configs
step base env PRESET=default SEED=0 RL_ALGOS=grpo SFT_MORE=0 RESULTS="$B" bash run_all.sh
grpo() { # grpo ENGINE SEED
  npx nx run rl:train --outputStyle=stream -- --config "$B/logs/config/grpo.json" --algo grpo --model "$B/sft" --reward-model "$B/rm" \
    --data data/suite/rl.jsonl --out "$R/grpo_$1_s$2" --heldout-data "$B/data/dev.jsonl" --seed "$2" --engine "$1"
}
models="sft=$B/sft"
for s in $SEEDS; do
  for engine in local llamacpp; do
    step "grpo_${engine}_s$s" grpo "$engine" "$s"
    models+=",grpo_${engine}_s$s=$R/grpo_${engine}_s$s"
  done
done
step eval npx nx run eval:run --outputStyle=stream -- --config "$B/logs/config/eval-suite.json" --models "$models" --reward-model "$B/rm" \
  --data data/suite/test.jsonl --dev-data "$B/data/dev.jsonl" --out "$R/eval" --seed 0 --engine local
node --import tsx experiments/grpo52/summary5.ts "$R/eval" | tee "$R/summary.md"
