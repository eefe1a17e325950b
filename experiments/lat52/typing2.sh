#!/usr/bin/env bash
# Issue 52: is the local engine's larger prefill (p50 194 tokens against llama.cpp's 1) the prefix cache's budget?
# The same typing session on local with completion.prefixCacheMiB 1024 (default 64).
set -eux
cd /work/main
R=experiments/lat52
echo '{"training":{"loraRank":8,"baseDtype":"int8"},"completion":{"maxPromptTokens":2048,"maxTokensCap":8,"prefixCacheMiB":1024}}' > $R/svc-1g.json
node --import tsx apps/online/src/main.ts latency --model /tmp/q05 --engine local --typing --warmup 2 --requests 30 --service-config $R/svc-1g.json --json $R/typing-local-1g.jsonl | tail -3
