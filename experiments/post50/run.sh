#!/usr/bin/env bash
# Issue 50, item 5: variants of the post-training recipe (tools/post-train-v2.sh's knobs) on v2's pretrained weights,
# each checkpoint along the way measured on the dev split: `eval base` on python-stdlib-extra's held-out files (82
# windows, 67 documented functions) and data/fim/fim_dev.jsonl (364 FIM examples). Resumable: a finished arm or
# evaluation is skipped. Heavy (about 25 minutes an arm): run nothing else heavy beside it.
#   ARMS="B C" bash experiments/post50/run.sh        arm names below; results in results/post50/<arm>, summary.md
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC="${SRC:-models/pretrain}"
ROOT="${ROOT:-results/post50}"
ARMS="${ARMS:-B C}"
mkdir -p "$ROOT"

settings() { # settings ARM: the post-train-v2.sh environment of an arm
  case "$1" in
    A) echo "" ;;                                               # v1's recipe as it is
    B) echo "REFERENCES=1" ;;                                   # + each function's true body beside its kept sample
    C) echo "REFERENCES=1 SKIP_SYNTAX=1 LR_SCALE=0.5" ;;        # + no step 3, half the learning rates
    D) echo "SKIP_SYNTAX=1 LR_SCALE=0.5" ;;                     # no step 3, half the rates, no true bodies
    E) echo "REFERENCES=1 MERGE_34=1 LR_SCALE=0.5" ;;           # step 3's data (samples + true bodies) inside the SPM step, half rates
    F) echo "REFERENCES=1 MERGE_34=1 LR_SCALE=0.5 ROUND_SAMPLES=4" ;; # E + 4 bodies per function in the rounds
    *) echo "run.sh: unknown arm $1" >&2; exit 2 ;;
  esac
}

dev_eval() { # dev_eval MODEL OUT
  [[ -f "$2/base_eval.json" ]] && return 0
  node --import tsx apps/eval/src/main.ts base --model "$1" --corpus data/vendor/cpython/python-stdlib-extra \
    --fim data/fim/fim_dev.jsonl --fim-split all --limit 400 --functions 100 --out "$2" > "$2.log" 2>&1
}

for arm in $ARMS; do
  env_of=$(settings "$arm")
  out="$ROOT/$arm"
  echo "post50: arm $arm ($env_of) -> $out"
  env $env_of SRC="$SRC" OUT="$out" bash tools/post-train-v2.sh
  for ckpt in psm spm/model round1/model base; do
    [[ -f "$out/$ckpt/model.safetensors" ]] || continue
    dev_eval "$out/$ckpt" "$out/dev-${ckpt%%/*}"
  done
done

node --import tsx experiments/post50/summary.ts "$ROOT" > "$ROOT/summary.md"
cat "$ROOT/summary.md"
