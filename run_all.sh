#!/usr/bin/env bash
# The offline pipeline on the shipped base model: prep data (if missing) -> SFT -> reward model -> PPO -> eval.
#
#   bash run_all.sh                 default preset (about 10 minutes on 2 otherwise idle CPU cores)
#   PRESET=smoke bash run_all.sh    a few steps per stage (CI uses it: checks the wiring, not the quality)
#
# Every setting below can be overridden from the environment, e.g.
#   MODEL_PATH=/models/Qwen2.5-Coder-1.5B SFT_EPOCHS=1 PPO_STEPS=4 bash run_all.sh
# and free-form extra flags go to a stage through SFT_ARGS, RM_ARGS, PPO_ARGS, EVAL_ARGS
# (see `npx nx run <app>:<target> -- --help`, and guide.md).
# The script stops at the first failing stage, prints its error and the log file; results go to $RESULTS.
set -euo pipefail
cd "$(dirname "$0")"

PRESET="${PRESET:-default}"
case "$PRESET" in
  default)
    : "${SFT_EPOCHS:=2}" "${SFT_MAX_STEPS:=0}" "${SFT_BATCH:=8}" "${SFT_LR:=3e-4}" "${SFT_MAX_LEN:=256}"
    : "${RM_MAX_STEPS:=48}" "${RM_BATCH:=16}" "${RM_LR:=2e-4}" "${RM_MAX_LEN:=256}"
    : "${PPO_STEPS:=10}" "${PPO_BATCH:=8}" "${PPO_EPOCHS:=2}" "${PPO_MINI_BATCHES:=2}" "${PPO_MAX_NEW_TOKENS:=80}" "${PPO_LR:=2e-5}"
    : "${EVAL_LIMIT:=200}" "${EVAL_SAMPLES:=4}" "${EVAL_MAX_NEW_TOKENS:=80}" "${EVAL_BATCH:=20}"
    ;;
  smoke)
    : "${SFT_EPOCHS:=1}" "${SFT_MAX_STEPS:=2}" "${SFT_BATCH:=4}" "${SFT_LR:=3e-4}" "${SFT_MAX_LEN:=128}"
    : "${RM_MAX_STEPS:=2}" "${RM_BATCH:=4}" "${RM_LR:=1e-4}" "${RM_MAX_LEN:=128}"
    : "${PPO_STEPS:=1}" "${PPO_BATCH:=2}" "${PPO_EPOCHS:=1}" "${PPO_MINI_BATCHES:=1}" "${PPO_MAX_NEW_TOKENS:=16}" "${PPO_LR:=1e-5}"
    : "${EVAL_LIMIT:=4}" "${EVAL_SAMPLES:=2}" "${EVAL_MAX_NEW_TOKENS:=24}" "${EVAL_BATCH:=4}"
    ;;
  *)
    echo "run_all: unknown PRESET '$PRESET' (use default or smoke)" >&2
    exit 2
    ;;
esac
MODEL_PATH="${MODEL_PATH:-models/base}"
RESULTS="${RESULTS:-results}"
PPO_ALGO="${PPO_ALGO:-ppo}"
read -r -a SFT_EXTRA <<< "${SFT_ARGS:-}"
read -r -a RM_EXTRA <<< "${RM_ARGS:-}"
read -r -a PPO_EXTRA <<< "${PPO_ARGS:-}"
read -r -a EVAL_EXTRA <<< "${EVAL_ARGS:-}"

if [[ ! -f "$MODEL_PATH/config.json" ]]; then
  echo "run_all: MODEL_PATH=$MODEL_PATH has no config.json (expected a Hugging Face Qwen2 folder)" >&2
  exit 2
fi
mkdir -p "$RESULTS/logs"
export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
T0=$SECONDS

# stage NAME COMMAND...: runs one stage, its output shown and kept in $RESULTS/logs/NAME.log; stops the script if it fails.
stage() {
  local name="$1"
  shift
  local log="$RESULTS/logs/$name.log" t=$SECONDS
  echo
  echo "=== run_all [$PRESET]: $name ==="
  echo "+ $*"
  if "$@" 2>&1 | tee "$log"; then
    echo "=== $name done in $((SECONDS - t)) s ==="
  else
    local code=${PIPESTATUS[0]}
    echo
    echo "run_all: stage '$name' failed (exit $code) after $((SECONDS - t)) s. Its output is in $log; the error:" >&2
    grep -iE 'error|failed' "$log" | grep -v '^ *at ' | tail -5 >&2 || tail -5 "$log" >&2
    exit "$code"
  fi
}

nxrun() {
  local target="$1"
  shift
  npx nx run "$target" --skip-nx-cache --output-style=stream "$@"
}

# 1. Data: shipped in data/; rebuilt from data/mbpp/mbpp.jsonl only when missing.
if [[ ! -f data/sft_data.jsonl || ! -f data/ppo_prompts.jsonl || ! -f data/eval_mbpp_test.jsonl ]]; then
  stage prep-data nxrun prep:data
fi
if [[ ! -f data/rm_data.jsonl ]]; then
  stage prep-rm nxrun prep:rm
fi

# 2. SFT: loss on the response (and EOS) only, examples packed into windows.
stage sft nxrun sft:train -- --model "$MODEL_PATH" --out "$RESULTS/sft" --epochs "$SFT_EPOCHS" --max-steps "$SFT_MAX_STEPS" \
  --batch-size "$SFT_BATCH" --lr "$SFT_LR" --max-len "$SFT_MAX_LEN" --pack "${SFT_EXTRA[@]}"

# 3. Reward model from the SFT checkpoint: regression on execution-earned scores, held-out MSE and Pearson.
stage rm nxrun rm:train -- --model "$RESULTS/sft" --out "$RESULTS/rm" --max-steps "$RM_MAX_STEPS" --batch-size "$RM_BATCH" \
  --lr "$RM_LR" --max-len "$RM_MAX_LEN" "${RM_EXTRA[@]}"

# 4. PPO from the SFT checkpoint against the reward model plus the sandbox's execution score.
stage ppo nxrun ppo:train -- --model "$RESULTS/sft" --reward-model "$RESULTS/rm" --out "$RESULTS/ppo" --algo "$PPO_ALGO" \
  --steps "$PPO_STEPS" --batch-size "$PPO_BATCH" --ppo-epochs "$PPO_EPOCHS" --mini-batches "$PPO_MINI_BATCHES" \
  --max-new-tokens "$PPO_MAX_NEW_TOKENS" --lr "$PPO_LR" "${PPO_EXTRA[@]}"

# 5. Evaluation on MBPP test problems (task 11-510, never trained on).
stage eval nxrun eval:run -- --models "base=$MODEL_PATH,sft=$RESULTS/sft,ppo=$RESULTS/ppo" --reward-model "$RESULTS/rm" \
  --out "$RESULTS/eval" --limit "$EVAL_LIMIT" --samples "$EVAL_SAMPLES" --max-new-tokens "$EVAL_MAX_NEW_TOKENS" --batch-size "$EVAL_BATCH" \
  "${EVAL_EXTRA[@]}"

echo
echo "=== run_all [$PRESET] finished in $((SECONDS - T0)) s; results in $RESULTS/ ==="
cat "$RESULTS/eval/eval.md"
