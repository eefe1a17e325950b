#!/usr/bin/env bash
# tools/vllm-smoke.sh: the smoke preset with its RL rollouts on a vLLM server (issue 52, the `openai:URL` engine). It
# starts `vllm serve` on loopback with runtime LoRA loading, waits for /health, runs
#   ENGINE=openai:http://127.0.0.1:$PORT ENGINE_SHARED_DIR=$OUT/engine PRESET=smoke LORA_RANK=8 bash run_all.sh
# under a timeout, stops the server, and prints one summary: the run's status and time, and what vLLM saw (adapter
# loads and unloads, completion requests), with the tails of both logs on failure.
#
# NOT RUNNABLE on the development machine, and never run there: it needs an NVIDIA GPU and vLLM (`pip install vllm`).
# run_all.sh passes ENGINE / ENGINE_SHARED_DIR to the sampling stages as --engine and --engine-shared-dir. Exit status: run_all's (124: the timeout), 2 when the machine cannot run it, 1 when vLLM does not start.
#
#   bash tools/vllm-smoke.sh
#   MODEL=models/base PORT=8000 MAX_LORA_RANK=8 LORA_RANK=8 TIMEOUT_S=300 OUT=results/vllm-smoke bash tools/vllm-smoke.sh
#
# Rollouts from models/base: with LORA_RANK the RL stage trains its adapter on the SFT stage's model, so what vLLM must
# apply per version is the SFT adapter and the RL adapter together (one LoRA of rank LORA_RANK x 2 once concatenated:
# MAX_LORA_RANK=16), or vLLM must serve the merged SFT checkpoint; which one the run_all wiring does decides this
# script's MODEL and MAX_LORA_RANK.
set -euo pipefail
cd "$(dirname "$0")/.."

MODEL="${MODEL:-models/base}"
PORT="${PORT:-8000}"
MAX_LORA_RANK="${MAX_LORA_RANK:-8}"
LORA_RANK="${LORA_RANK:-8}"
TIMEOUT_S="${TIMEOUT_S:-300}"
STARTUP_TIMEOUT_S="${STARTUP_TIMEOUT_S:-300}"
OUT="${OUT:-results/vllm-smoke}"
URL="http://127.0.0.1:$PORT"

command -v vllm > /dev/null || { echo "vllm-smoke: vllm is not on PATH (pip install vllm, on a machine with an NVIDIA GPU)" >&2; exit 2; }
nvidia-smi -L > /dev/null 2>&1 || { echo "vllm-smoke: no NVIDIA GPU (nvidia-smi -L failed)" >&2; exit 2; }
curl -sf "$URL/health" > /dev/null 2>&1 && { echo "vllm-smoke: something already answers on $URL; stop it or set PORT" >&2; exit 2; }
mkdir -p "$OUT/engine"
SHARED="$(cd "$OUT/engine" && pwd)"

# Runtime LoRA loading (/v1/load_lora_adapter) is an admin route: loopback only. Every sampling field comes from the
# request (--generation-config vllm: no generation_config.json defaults), log-probs after temperature.
VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve "$MODEL" --host 127.0.0.1 --port "$PORT" \
  --enable-lora --max-lora-rank "$MAX_LORA_RANK" --max-loras 2 \
  --generation-config vllm --logprobs-mode processed_logprobs > "$OUT/vllm.log" 2>&1 &
VLLM_PID=$!
stop_vllm() {
  kill "$VLLM_PID" 2> /dev/null || true
  wait "$VLLM_PID" 2> /dev/null || true
}
trap stop_vllm EXIT

T0=$SECONDS
until curl -sf "$URL/health" > /dev/null 2>&1; do
  if ! kill -0 "$VLLM_PID" 2> /dev/null; then
    echo "vllm-smoke: vLLM exited while starting; the end of $OUT/vllm.log:" >&2
    tail -n 40 "$OUT/vllm.log" >&2
    exit 1
  fi
  if ((SECONDS - T0 > STARTUP_TIMEOUT_S)); then
    echo "vllm-smoke: vLLM not healthy within ${STARTUP_TIMEOUT_S} s; the end of $OUT/vllm.log:" >&2
    tail -n 40 "$OUT/vllm.log" >&2
    exit 1
  fi
  sleep 2
done
STARTUP=$((SECONDS - T0))

T1=$SECONDS
set +e
ENGINE="openai:$URL" ENGINE_SHARED_DIR="$SHARED" PRESET=smoke LORA_RANK="$LORA_RANK" RESULTS="$OUT/results" \
  timeout --kill-after=30 "$TIMEOUT_S" bash run_all.sh > "$OUT/run_all.log" 2>&1
RC=$?
set -e
RUN=$((SECONDS - T1))

count() { grep -c -- "$1" "$OUT/vllm.log" || true; }
LOADS=$(count "Loaded new LoRA adapter")
UNLOADS=$(count "Removed LoRA adapter")
COMPLETIONS=$(count "POST /v1/completions")
case $RC in
  0) STATUS=passed ;;
  124 | 137) STATUS="timed out after ${TIMEOUT_S} s" ;;
  *) STATUS="failed (exit $RC)" ;;
esac
echo "vllm-smoke: $STATUS; vLLM $MODEL started in ${STARTUP} s, run_all (PRESET=smoke LORA_RANK=$LORA_RANK) took ${RUN} s;" \
  "vLLM saw $COMPLETIONS completion requests, $LOADS adapter loads, $UNLOADS unloads; logs: $OUT/run_all.log, $OUT/vllm.log"
if [[ $RC -ne 0 ]]; then
  echo "--- the end of $OUT/run_all.log:" >&2
  tail -n 30 "$OUT/run_all.log" >&2
  echo "--- the end of $OUT/vllm.log:" >&2
  tail -n 15 "$OUT/vllm.log" >&2
elif [[ $COMPLETIONS -eq 0 || $LOADS -eq 0 ]]; then
  echo "vllm-smoke: run_all passed but vLLM sampled nothing or loaded no adapter: is ENGINE wired into the RL stage?" >&2
  exit 1
fi
exit "$RC"
