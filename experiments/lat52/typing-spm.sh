#!/usr/bin/env bash
# Issue 52: the typing session when the checkpoint is trained suffix first (tokenizer_config "fim_mode": "spm", as
# models/base): the suffix leads the prompt and stays shared, so a keystroke prefills its new tokens only. A copy of
# /tmp/q05 (PSM, Qwen's order) with fim_mode spm; both engines.
set -eux
cd "$(dirname "$0")/../.."
R=experiments/lat52
rm -rf /tmp/q05spm && mkdir /tmp/q05spm && cp /tmp/q05/{config.json,model.safetensors,tokenizer.json} /tmp/q05spm/
node -e 'const f="/tmp/q05/tokenizer_config.json";const c=JSON.parse(require("fs").readFileSync(f));c.fim_mode="spm";require("fs").writeFileSync("/tmp/q05spm/tokenizer_config.json",JSON.stringify(c,null,2))'
node --import tsx apps/online/src/main.ts latency --model /tmp/q05spm --engine local --typing --warmup 2 --requests 30 --service-config $R/svc.json --json $R/typing-spm-local.jsonl | tail -3
node --import tsx apps/online/src/main.ts latency --model /tmp/q05spm --engine llamacpp --engine-weights Q8_0 --typing --warmup 2 --requests 30 --service-config $R/svc.json --json $R/typing-spm-llamacpp.jsonl | tail -3
