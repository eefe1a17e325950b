#!/usr/bin/env bash
# Issue 50: which data mix for v2's decay phase? From the committed chunk (models/pretrain), short decays of STEPS steps
# (AdamW restarted, 100 warm-up steps, the rate then falling to its minimum (1e-4) over the rest), one per arm, differing only in
# the standard library's weight in the mix (--package-weights cpython-stdlib=W; 3 is the run's own). Measured on the
# DEV split only: the held-out (path-hash test) files of data/vendor/cpython/python-stdlib-extra (27 files never in the
# cache's training split) by eval:base's held-out loss, and the cache's own 64 held-out windows (the run's last
# eval/loss). The stdlib test split (eval:base's default, the issue's target) is not looked at here.
#   STEPS=800 ARMS="3 15" bash experiments/anneal50/run.sh        (heavy: run nothing else beside it)
set -euo pipefail
cd "$(dirname "$0")/../.."
STEPS="${STEPS:-800}"
ARMS="${ARMS:-3 15}"
R="${R:-results/anneal50}"
START="${START:-models/pretrain}"
mkdir -p "$R"
S=$(node -e 'console.log(require(process.argv[1]).position.step)' "$(realpath "$START")/position.json")
dev() { # dev MODEL NAME: the stdlib-extra held-out loss (all windows) as one JSON line
  node --import tsx apps/eval/src/main.ts base --model "$1" --corpus data/vendor/cpython/python-stdlib-extra \
    --limit 1 --functions 0 --out "$R/$2-dev" > "$R/$2-dev.log" 2>&1
  node -e 'const h=require(process.argv[1]).heldout; console.log(JSON.stringify({arm: process.argv[2], dev_loss: h.loss, dev_loss_se: h.loss_se, dev_windows: h.n_windows, dev_loss_fim: h.loss_fim, dev_loss_fim_se: h.loss_fim_se}))' "$(realpath "$R/$2-dev/base_eval.json")" "$2"
}
dev "$START" start | tee "$R/summary.jsonl"
for w in $ARMS; do
  out="$R/stdlib$w"
  rm -rf "$out"
  T0=$SECONDS
  node --import tsx apps/sft/src/main.ts pretrain --cache data/corpus/cache --seq-len 512 --batch-size 4 --precision bf16 --quiet \
    --hidden-size 256 --layers 6 --heads 4 --kv-heads 2 --intermediate-size 704 --fim-mode spm --package-weights "cpython-stdlib=$w" \
    --seed 0 --lr 1e-3 --schedule wsd --max-steps $((S + STEPS)) --decay-steps $((STEPS - 100)) --warmup-steps 100 \
    --init "$START" --init-optimizer restart --save-every 0 --out "$out" --export "$out/model" > "$out.log" 2>&1
  cache=$(node -e 'const rows=require("fs").readFileSync(process.argv[1],"utf8").trim().split("\n").map(JSON.parse).filter(r=>r["eval/loss"]!==undefined); console.log(rows[rows.length-1]["eval/loss"])' "$out/metrics.jsonl")
  dev "$out/model" "stdlib$w" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.stringify({...JSON.parse(s), cache_heldout_loss: +process.argv[1], seconds: +process.argv[2]})))' "$cache" $((SECONDS - T0)) | tee -a "$R/summary.jsonl"
done
node --import tsx experiments/anneal50/summary.ts "$R" | tee "$R/summary.md"
