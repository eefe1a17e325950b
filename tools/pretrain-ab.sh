#!/usr/bin/env bash
# Pretraining speed of two checkouts, in alternating runs on one machine: the same `sft pretrain` command (the shipped
# model's shape, windows of 512 tokens in batches of 4, on the standard-library corpus folder) run PAIRS times in each
# tree, A then B. Each run's rate is its training tokens per second between step SKIP and its last step, from the
# `time_s` of metrics.jsonl (start-up, tokenization and the first steps' warm-up left out). Prints one line per run and
# a JSON summary: each tree's median (min-max) and the per-pair ratio B / A.
#
#   A=/work/old B=. bash tools/pretrain-ab.sh                 (A, B: checkouts with node_modules and a built addon)
#   PAIRS=3 STEPS=60 SKIP=10 EXTRA='--precision bf16' A=... B=... bash tools/pretrain-ab.sh
# EXTRA_A / EXTRA_B add flags to one side only (a flag the other checkout does not have).
set -euo pipefail
: "${A:?A=checkout to compare (e.g. a git worktree of the older commit)}" "${B:=.}"
PAIRS="${PAIRS:-3}"
STEPS="${STEPS:-60}"
SKIP="${SKIP:-10}"
OUT="${OUT:-/tmp/pretrain-ab}"
(( STEPS > SKIP + 1 )) || { echo "pretrain-ab: STEPS=$STEPS must exceed SKIP=$SKIP + 1" >&2; exit 2; }
for tree in "$A" "$B"; do
  [[ -f "$tree/apps/sft/src/main.ts" ]] || { echo "pretrain-ab: $tree: not a checkout of this project (no apps/sft/src/main.ts)" >&2; exit 2; }
done
mkdir -p "$OUT"

# run TREE NAME EXTRA...: one pretraining run; prints its tokens/s.
run() {
  local tree="$1" name="$2" dir="$OUT/$2"
  shift 2
  rm -rf "$dir"
  (cd "$tree" && node --import tsx apps/sft/src/main.ts pretrain --corpus data/vendor/cpython/python-stdlib --seq-len 512 \
    --batch-size 4 --max-steps "$STEPS" --save-every 0 --seed 0 --out "$dir" ${EXTRA:-} "$@") > "$dir.log" 2>&1 ||
    { echo "pretrain-ab: $name failed; the end of $dir.log:" >&2; tail -5 "$dir.log" >&2; exit 1; }
  node -e '
    const rows = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse).filter((r) => r.loss !== undefined);
    const a = rows.find((r) => r.step === +process.argv[2]), b = rows[rows.length - 1];
    if (!a || b.step <= a.step) throw new Error(`${process.argv[1]}: no step ${process.argv[2]} before the last`);
    console.log(Math.round(((b.step - a.step) * 512 * 4) / (b.time_s - a.time_s)));
  ' "$dir/metrics.jsonl" "$SKIP"
}

ra=() rb=()
for i in $(seq 1 "$PAIRS"); do
  x=$(run "$A" "a$i" ${EXTRA_A:-}); ra+=("$x"); echo "pair $i: A $x tokens/s" >&2
  y=$(run "$B" "b$i" ${EXTRA_B:-}); rb+=("$y"); echo "pair $i: B $y tokens/s" >&2
done
node -e '
  const [a, b] = [process.argv[1], process.argv[2]].map((s) => s.split(",").map(Number));
  const med = (v) => { const s = [...v].sort((x, y) => x - y), n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
  const fig = (v) => ({ median: med(v), min: Math.min(...v), max: Math.max(...v), values: v });
  const ratio = a.map((x, i) => Math.round((b[i] / x) * 100) / 100);
  console.log(JSON.stringify({ a: process.argv[3], b: process.argv[4], steps: +process.argv[5], skip: +process.argv[6], a_tokens_per_s: fig(a), b_tokens_per_s: fig(b), ratio: fig(ratio) }));
' "$(IFS=,; echo "${ra[*]}")" "$(IFS=,; echo "${rb[*]}")" "$A" "$B" "$STEPS" "$SKIP"
