#!/usr/bin/env bash
# Issue 52: how far GRPO's test pass@1 moves with the RL seed alone (same SFT, RM, data, settings; local engine), to
# read the llamacpp run against: local GRPO with --seed 1 and 2, then every GRPO arm evaluated in one run.
set -eux
cd /work/main
S=results/full48/seed-0; R=results/grpo52
for s in 1 2; do
  T0=$SECONDS
  npx nx run rl:train -- --config $S/logs/config/grpo.json --algo grpo --model $S/sft --reward-model $S/rm --data data/suite/rl.jsonl \
    --out $R/grpo_local_s$s --heldout-data $S/data/dev.jsonl --seed $s --engine local > $R/grpo_local_s$s.log 2>&1
  echo "grpo local seed $s: $((SECONDS - T0)) s" | tee -a $R/times.txt
done
npx nx run eval:run -- --config $S/logs/config/eval-suite.json --models sft=$S/sft,grpo_local=$S/grpo,grpo_local_s1=$R/grpo_local_s1,grpo_local_s2=$R/grpo_local_s2,grpo_llamacpp=$R/grpo \
  --reward-model $S/rm --data data/suite/test.jsonl --dev-data $S/data/dev.jsonl --out $R/eval2 --seed 0 --engine local > $R/eval2.log 2>&1
sed -n '/^| model/,/^$/p' $R/eval2/eval.md | head -8
