#!/usr/bin/env bash
# Issue 52: a second llamacpp GRPO run (RL seed 1), to tell the first run's shortfall from chance; evaluated beside
# every arm in one run (the same eval settings and seed as eval2, so the other rows repeat).
set -eux
cd /work/main
S=results/full48/seed-0; R=results/grpo52
T0=$SECONDS
npx nx run rl:train -- --config $S/logs/config/grpo.json --algo grpo --model $S/sft --reward-model $S/rm --data data/suite/rl.jsonl \
  --out $R/grpo_llamacpp_s1 --heldout-data $S/data/dev.jsonl --seed 1 --engine llamacpp > $R/grpo_llamacpp_s1.log 2>&1
echo "grpo llamacpp seed 1: $((SECONDS - T0)) s" | tee -a $R/times.txt
npx nx run eval:run -- --config $S/logs/config/eval-suite.json --models sft=$S/sft,grpo_local=$S/grpo,grpo_local_s1=$R/grpo_local_s1,grpo_local_s2=$R/grpo_local_s2,grpo_llamacpp=$R/grpo,grpo_llamacpp_s1=$R/grpo_llamacpp_s1 \
  --reward-model $S/rm --data data/suite/test.jsonl --dev-data $S/data/dev.jsonl --out $R/eval3 --seed 0 --engine local > $R/eval3.log 2>&1
sed -n '/^| model/,/^$/p' $R/eval3/eval.md | head -9
