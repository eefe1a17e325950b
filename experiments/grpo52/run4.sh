#!/usr/bin/env bash
# Issue 52: a third llamacpp GRPO run (RL seed 2), beside the local engine's seed 2; every arm evaluated again in one
# run (the session's kernels: the earlier rows are re-measured, not copied).
set -eux
cd "$(dirname "$0")/../.."
S=results/full48/seed-0; R=results/grpo52
T0=$SECONDS
npx nx run rl:train -- --config $S/logs/config/grpo.json --algo grpo --model $S/sft --reward-model $S/rm --data data/suite/rl.jsonl \
  --out $R/grpo_llamacpp_s2 --heldout-data $S/data/dev.jsonl --seed 2 --engine llamacpp > $R/grpo_llamacpp_s2.log 2>&1
echo "grpo llamacpp seed 2: $((SECONDS - T0)) s" | tee -a $R/times.txt
npx nx run eval:run -- --config $S/logs/config/eval-suite.json --models sft=$S/sft,grpo_local=$S/grpo,grpo_local_s1=$R/grpo_local_s1,grpo_local_s2=$R/grpo_local_s2,grpo_llamacpp=$R/grpo,grpo_llamacpp_s1=$R/grpo_llamacpp_s1,grpo_llamacpp_s2=$R/grpo_llamacpp_s2 \
  --reward-model $S/rm --data data/suite/test.jsonl --dev-data $S/data/dev.jsonl --out $R/eval4 --seed 0 --engine local > $R/eval4.log 2>&1
sed -n '/^| model/,/^$/p' $R/eval4/eval.md | head -10
