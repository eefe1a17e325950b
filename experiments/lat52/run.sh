#!/usr/bin/env bash
# Issue 52: the 0.5B shape's typing time on the local engine with the LoRA terms in the fused layer (5493f7a), beside llamacpp.
set -eux
cd /work/main
R=experiments/lat52
[[ -f /tmp/q05/config.json ]] || npx nx run sft:init -- --model-config models/configs/qwen2.5-coder-0.5b.json --tokenizer qwen --out /tmp/q05
echo '{"training":{"loraRank":8,"baseDtype":"int8"},"completion":{"maxPromptTokens":2048,"maxTokensCap":8}}' > $R/svc.json
for r in 0 8; do
  node --import tsx apps/bench/src/main.ts generate --model /tmp/q05 --base-dtype int8 --lora-rank $r --seq 64 --new 32 --steps 5 | tee $R/gen-local-r$r.json
done
node --import tsx apps/online/src/main.ts latency --model /tmp/q05 --engine local --typing --warmup 2 --requests 30 --service-config $R/svc.json --json $R/typing-local.jsonl | tail -3
node --import tsx apps/online/src/main.ts latency --model /tmp/q05 --engine llamacpp --engine-weights Q8_0 --typing --warmup 2 --requests 30 --service-config $R/svc.json --json $R/typing-llamacpp.jsonl | tail -3
node --import tsx experiments/lat52/probe.ts | tee experiments/lat52/probe.jsonl
