#!/usr/bin/env bash
# Issue 52: the typing session on llamacpp (Q8_0) with completion.cacheReuseTokens (llama.cpp's --cache-reuse), N = 16
# and 64, beside the shared prefix alone (typing-llamacpp.jsonl of run.sh). Needs /tmp/q05 (run.sh makes it).
set -eux
cd "$(dirname "$0")/../.."
R=experiments/lat52
for n in 16 64; do
  echo "{\"engine\":\"llamacpp\",\"training\":{\"loraRank\":8,\"baseDtype\":\"int8\"},\"completion\":{\"maxPromptTokens\":2048,\"maxTokensCap\":8,\"cacheReuseTokens\":$n}}" > $R/svc-reuse$n.json
  node --import tsx apps/online/src/main.ts latency --model /tmp/q05 --engine llamacpp --engine-weights Q8_0 --typing --warmup 2 --requests 30 --service-config $R/svc-reuse$n.json --json $R/typing-llamacpp-reuse$n.jsonl | tail -3
done
