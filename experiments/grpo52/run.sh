#!/usr/bin/env bash
# Issue 52: the default preset's GRPO with rollouts on llama.cpp (--engine llamacpp) beside the same stage on the local
# engine (PRESET=full seed 0's, same SFT, RM, data, seed and settings), both evaluated by the local engine on test.
set -eux
cd /work/main
S=results/full48/seed-0; R=results/grpo52
T0=$SECONDS
npx nx run rl:train -- --config $S/logs/config/grpo.json --algo grpo --model $S/sft --reward-model $S/rm --data data/suite/rl.jsonl \
  --out $R/grpo --heldout-data $S/data/dev.jsonl --seed 0 --engine llamacpp > $R/grpo.log 2>&1
echo "grpo llamacpp: $((SECONDS - T0)) s" | tee $R/times.txt
npx nx run eval:run -- --config $S/logs/config/eval-suite.json --models sft=$S/sft,grpo_local=$S/grpo,grpo_llamacpp=$R/grpo \
  --reward-model $S/rm --data data/suite/test.jsonl --dev-data $S/data/dev.jsonl --out $R/eval --seed 0 --engine local > $R/eval.log 2>&1
sed -n '/^| model/,/^$/p' $R/eval/eval.md | head -8
