#!/usr/bin/env bash
# tools/vllm-smoke.sh: the smoke preset's RL stage with its rollouts on a vLLM server (the `openai:URL`
# engine), ready for a machine with an NVIDIA GPU and `pip install vllm`.
#
#   1. PRESET=smoke RL_ALGOS=grpo bash run_all.sh, every stage local: $OUT/results/sft is the full SFT checkpoint
#      the server must serve (the RL stage starts from it and its adapters are trained on it).
#   2. `vllm serve $OUT/results/sft` on loopback with runtime LoRA loading; waits for /health.
#   3. The same run_all again with ENGINE=openai:URL and the RL stage training a LoRA adapter (SET rl.loraRank): the
#      smoke preset repeats its SFT to the same weights (it is reproducible to the last digit), and GRPO samples every
#      rollout on vLLM, publishing each iteration's adapter through $OUT/engine.
#   4. Stops the server and prints one summary: the status and times, and what the server saw (adapter loads and
#      unloads, completion requests), with the tails of both logs on failure.
#
# SERVER=serve-openai runs steps 2-4 against `generate serve-openai` instead (the project's own server of vLLM's
# subset, on the CPU): the same wiring without a GPU; that variant is what was run on the development machine.
#
#   bash tools/vllm-smoke.sh
#   SERVER=serve-openai bash tools/vllm-smoke.sh
#   PORT=8000 LORA_RANK=8 TIMEOUT_S=900 OUT=results/vllm-smoke bash tools/vllm-smoke.sh
#
# Exit status: run_all's (124: the timeout), 2 when the machine cannot run it, 1 when the server does not start or saw
# nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

SERVER="${SERVER:-vllm}"
PORT="${PORT:-8000}"
LORA_RANK="${LORA_RANK:-8}"
TIMEOUT_S="${TIMEOUT_S:-900}"
STARTUP_TIMEOUT_S="${STARTUP_TIMEOUT_S:-300}"
OUT="${OUT:-results/vllm-smoke}"
URL="http://127.0.0.1:$PORT"
RESULTS="$OUT/results"

case "$SERVER" in
  vllm)
    command -v vllm > /dev/null || { echo "vllm-smoke: vllm is not on PATH (pip install vllm, on a machine with an NVIDIA GPU)" >&2; exit 2; }
    nvidia-smi -L > /dev/null 2>&1 || { echo "vllm-smoke: no NVIDIA GPU (nvidia-smi -L failed)" >&2; exit 2; }
    HEALTH="$URL/health" ;;
  serve-openai) HEALTH="$URL/v1/models" ;;
  *) echo "vllm-smoke: SERVER must be vllm or serve-openai, got '$SERVER'" >&2; exit 2 ;;
esac
curl -sf "$HEALTH" > /dev/null 2>&1 && { echo "vllm-smoke: something already answers on $URL; stop it or set PORT" >&2; exit 2; }
mkdir -p "$OUT/engine"
SHARED="$(cd "$OUT/engine" && pwd)"

# 1. Everything local: the SFT checkpoint the server will serve.
T0=$SECONDS
PRESET=smoke RL_ALGOS=grpo RESULTS="$RESULTS" bash run_all.sh > "$OUT/run_all-local.log" 2>&1 ||
  { echo "vllm-smoke: the local run failed; the end of $OUT/run_all-local.log:" >&2; tail -n 30 "$OUT/run_all-local.log" >&2; exit 1; }
LOCAL=$((SECONDS - T0))

# 2. The server on that checkpoint. vLLM: runtime LoRA loading (/v1/load_lora_adapter) is an admin route, loopback only;
# every sampling field comes from the request (--generation-config vllm: no generation_config.json defaults), log-probs
# after temperature.
if [[ "$SERVER" == vllm ]]; then
  VLLM_ALLOW_RUNTIME_LORA_UPDATING=True vllm serve "$RESULTS/sft" --host 127.0.0.1 --port "$PORT" \
    --enable-lora --max-lora-rank "$LORA_RANK" --max-loras 2 \
    --generation-config vllm --logprobs-mode processed_logprobs > "$OUT/server.log" 2>&1 &
else
  node --import tsx apps/generate/src/main.ts serve-openai --model "$RESULTS/sft" --port "$PORT" > "$OUT/server.log" 2>&1 &
fi
SERVER_PID=$!
stop_server() {
  kill "$SERVER_PID" 2> /dev/null || true
  wait "$SERVER_PID" 2> /dev/null || true
}
trap stop_server EXIT
T0=$SECONDS
until curl -sf "$HEALTH" > /dev/null 2>&1; do
  if ! kill -0 "$SERVER_PID" 2> /dev/null; then
    echo "vllm-smoke: $SERVER exited while starting; the end of $OUT/server.log:" >&2
    tail -n 40 "$OUT/server.log" >&2
    exit 1
  fi
  if ((SECONDS - T0 > STARTUP_TIMEOUT_S)); then
    echo "vllm-smoke: $SERVER not answering within ${STARTUP_TIMEOUT_S} s; the end of $OUT/server.log:" >&2
    tail -n 40 "$OUT/server.log" >&2
    exit 1
  fi
  sleep 2
done
STARTUP=$((SECONDS - T0))

# 3. The RL stage's rollouts on the server (the other sampling stages decode locally with ENGINE=openai:URL).
T0=$SECONDS
set +e
ENGINE="openai:$URL" ENGINE_SHARED_DIR="$SHARED" PRESET=smoke RL_ALGOS=grpo SET="rl.loraRank=$LORA_RANK" RESULTS="$RESULTS" \
  timeout --kill-after=30 "$TIMEOUT_S" bash run_all.sh > "$OUT/run_all.log" 2>&1
RC=$?
set -e
RUN=$((SECONDS - T0))

# 4. What the server saw (serve-openai logs the same words as vLLM).
count() { grep -c -- "$1" "$OUT/server.log" || true; }
LOADS=$(count "Loaded new LoRA adapter")
UNLOADS=$(count "Removed LoRA adapter")
COMPLETIONS=$(count "POST /v1/completions")
case $RC in
  0) STATUS=passed ;;
  124 | 137) STATUS="timed out after ${TIMEOUT_S} s" ;;
  *) STATUS="failed (exit $RC)" ;;
esac
echo "vllm-smoke: $STATUS; the local run took ${LOCAL} s, $SERVER started on $RESULTS/sft in ${STARTUP} s, run_all with its RL stage on it (GRPO, LoRA rank $LORA_RANK) took ${RUN} s;" \
  "the server saw $COMPLETIONS completion requests, $LOADS adapter loads, $UNLOADS unloads; logs: $OUT/run_all.log, $OUT/server.log"
if [[ $RC -ne 0 ]]; then
  echo "--- the end of $OUT/run_all.log:" >&2
  tail -n 30 "$OUT/run_all.log" >&2
  echo "--- the end of $OUT/server.log:" >&2
  tail -n 15 "$OUT/server.log" >&2
elif [[ $COMPLETIONS -eq 0 || $LOADS -eq 0 ]]; then
  echo "vllm-smoke: run_all passed but $SERVER sampled nothing or loaded no adapter: is ENGINE wired into the RL stage?" >&2
  exit 1
fi
exit "$RC"
