#!/usr/bin/env bash
# Issue 50, item 3: the model size by a measured sweep. Each shape is pretrained from scratch on the token cache for the
# same wall-clock budget (MINUTES, default 10; steps estimated from a 20-step timing run of the shape, so each run's
# warmup-stable-decay schedule ends with its decay inside the budget), bf16, held-out loss every 100 steps. Then
# tools/pretrain-sweep-fit.py fits L(N, D) = E + A / N^alpha + B / D^beta to every (shape, tokens, held-out loss) point
# of the stable phase and extrapolates to the hours available. One heavy job: run it alone (the timing run sets each
# shape's steps: anything beside it changes every shape's budget).
#   bash tools/pretrain-sweep.sh [CACHE] [OUT]      (CACHE default data/corpus/cache, OUT default results/sweep)
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE="${1:-data/corpus/cache}"
OUT="${2:-results/sweep}"
MINUTES="${MINUTES:-10}"
ONLY="${ONLY:-A B C}" # the shapes to (re)run; the fit reads every run in OUT
mkdir -p "$OUT"
# name  hidden layers heads kv ffn
SHAPES=(
  "A 256 6 4 2 704"
  "B 256 12 4 2 704"
  "C 384 8 6 2 1024"
)
pre() { node --import tsx apps/sft/src/main.ts pretrain --cache "$CACHE" --seq-len 512 --batch-size 4 --precision bf16 --quiet "$@"; }
for s in "${SHAPES[@]}"; do
  read -r name h l nh kv ffn <<< "$s"
  [[ " $ONLY " == *" $name "* ]] || continue
  shape=(--hidden-size "$h" --layers "$l" --heads "$nh" --kv-heads "$kv" --intermediate-size "$ffn")
  # the shape's seconds per step, from steps 11-20 of a 20-step run
  rm -rf "$OUT/time-$name"
  pre "${shape[@]}" --max-steps 20 --save-every 0 --out "$OUT/time-$name" > /dev/null
  sps=$(node -e "
    const m = require('fs').readFileSync('$OUT/time-$name/metrics.jsonl', 'utf8').trim().split('\n').map(JSON.parse).filter((r) => r.loss !== undefined);
    const a = m.find((r) => r.step === 10), b = m.find((r) => r.step === 20);
    console.log(((b.time_s - a.time_s) / 10).toFixed(4));")
  steps=$(node -e "console.log(Math.floor(($MINUTES * 60 - 30) / $sps))")
  echo "sweep: shape $name (${shape[*]}): $sps s/step, $steps steps in $MINUTES min" >&2
  rm -rf "$OUT/$name"
  pre "${shape[@]}" --max-steps "$steps" --schedule wsd --decay-steps $((steps / 5)) --warmup-steps 50 --save-every 100 \
    --max-minutes $((MINUTES + 2)) --out "$OUT/$name" > "$OUT/$name.json"
done
python3 tools/pretrain-sweep-fit.py "$OUT" | tee "$OUT/fit.md"
