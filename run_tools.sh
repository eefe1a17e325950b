#!/usr/bin/env bash
# Multi-turn RL with a Python interpreter tool (issues 18, 36), on the shipped base model:
#   prep tasks (if missing) -> SFT on the suite -> tool warm-start on tool-use traces -> GRPO with the interpreter -> eval
# Two families of tasks: programming tasks (the task suite, data/suite: write the function, run it in the
# interpreter, end with the final code, judged by the hidden tests) and, smaller, computed-value questions
# (data/tools). Held-out discipline: the warm-start trains on the suite's sft split, GRPO on its rl split, dev is for
# settings, test is reported. Ends with the table of results/tools/eval.json: pass@1 ± SE on the suite's test split
# (by group: the unseen operations apart) for the warm-started model with the tool, the GRPO model with a stateful and
# with a stateless interpreter, the GRPO model without the tool and the stubs; every row paired per task with the
# warm-started model (difference, SE, 95% interval); then the questions' table (eval_questions.md).
#
#   bash run_tools.sh                 default preset (11 minutes on 2 idle cores, guide.md "Tool use: current figures")
#   PRESET=full bash run_tools.sh     the default plus GRPO trained with the stateless interpreter (both interpreters
#                                     trained for, each evaluated with both) and every dev task for the temperatures
#   PRESET=smoke bash run_tools.sh    a few steps per stage (CI: checks the wiring, not the quality)
#   LORA_RANK=8 GRAD_CHECKPOINTING=1 MODEL_PATH=DIR bash run_tools.sh
#                                     another model (a checkpoint or a LoRA adapter folder); the warm-start trains a
#                                     LoRA adapter of rank 8 (alpha LORA_ALPHA, default 2 x rank), GRPO one of the same
#                                     rank (GRPO_LORA_RANK, default 16: GRPO trains an adapter even when LORA_RANK is 0)
#
# A preset is a file, configs/run_tools/$PRESET.yaml: a section per stage, passed to it as its --config file (kept as
# $RESULTS/tools/logs/config/<stage>.json). Settings can be overridden from the environment (the variables below, e.g.
# GRPO_STEPS=60 GRPO_INTERPRETER=stateless bash run_tools.sh), and win over the preset file; free-form flags go to a
# stage through WARMSTART_ARGS, GRPO_ARGS, EVAL_ARGS (`npx nx run tool-rl:<target> -- --help`).
# MODEL_PATH must be a Qwen2 checkpoint (or a LoRA adapter folder) whose tokenizer_config.json has a chat_template (the
# shipped one has a Qwen2.5-style template); nothing is rebuilt for another model (the tasks do not depend on it, the
# traces are rendered in its template at run time). Results go to $RESULTS/tools.
set -euo pipefail
cd "$(dirname "$0")"

PRESET="${PRESET:-default}"
SCRIPT_NAME=run_tools
# shellcheck source=tools/stages.sh
source tools/stages.sh
load_preset # the script's own knobs: QUESTIONS, CODE_SFT, EVAL_DEV_TASKS, EVAL_QUESTIONS, STATELESS_ARM
# Each stage's variables, and the flag each sets over its section of the preset file.
WARMSTART_VARS=(WARMSTART_STEPS=--max-steps WARMSTART_BATCH=--batch-size WARMSTART_LR=--lr WARMSTART_DIRECT=--direct-share)
GRPO_VARS=(GRPO_STEPS=--steps GRPO_BATCH=--batch-size GRPO_GROUP=--group-size GRPO_LR=--lr GRPO_INTERPRETER=--interpreter
  GRPO_ENTROPY=--entropy-coef GRPO_MALFORMED_PENALTY=--malformed-penalty GRPO_LORA_RANK=--lora-rank GRPO_LORA_ALPHA=--lora-alpha)
EVAL_VARS=(EVAL_LIMIT=--limit EVAL_SAMPLES=--samples-per-task)
# LORA_RANK > 0 also sets GRPO's adapter (its rank, and LORA_ALPHA) unless GRPO_LORA_RANK is given; a rank without an
# alpha gets alpha 2 x rank.
if [[ "${LORA_RANK:-0}" != 0 && -z "${GRPO_LORA_RANK:-}" ]]; then
  GRPO_LORA_RANK="$LORA_RANK"
  [[ -n "${LORA_ALPHA:-}" ]] && GRPO_LORA_ALPHA="${GRPO_LORA_ALPHA:-$LORA_ALPHA}"
fi
[[ "${GRPO_LORA_RANK:-0}" != 0 ]] && : "${GRPO_LORA_ALPHA:=$((2 * GRPO_LORA_RANK))}"
DATA="${TOOLS_DATA:-data/tools}"
SUITE="${SUITE:-data/suite}"
MODEL_PATH="${MODEL_PATH:-models/base}"
RESULTS="${RESULTS:-results}"
TOOLS="$RESULTS/tools"
if [[ "$PRESET" == smoke ]]; then
  : "${WARMSTART_DATA:=$SUITE/sft.jsonl:100,$DATA/train.jsonl:50}" # the traces of every task take minutes to build
fi
WARMSTART_DATA="${WARMSTART_DATA:-$SUITE/sft.jsonl,$DATA/train.jsonl:$QUESTIONS}"
GRPO_DATA="${GRPO_DATA:-$SUITE/rl.jsonl,$DATA/train.jsonl:$QUESTIONS}"
EVAL_DATA="${EVAL_DATA:-$SUITE/test.jsonl}"
# EVAL_QUESTIONS (preset): held-out questions evaluated, a seeded sample (0 = all 320)
EVAL_QUESTIONS_DATA="${EVAL_QUESTIONS_DATA:-$DATA/heldout.jsonl$([[ "$EVAL_QUESTIONS" != 0 ]] && echo ":$EVAL_QUESTIONS")}"
read -r -a WARMSTART_EXTRA <<< "${WARMSTART_ARGS:-}"
read -r -a GRPO_EXTRA <<< "${GRPO_ARGS:-}"
read -r -a EVAL_EXTRA <<< "${EVAL_ARGS:-}"

LOG_DIR="$TOOLS/logs"
if [[ "${BASE_DTYPE:-fp32}" != fp32 ]]; then
  echo "run_tools: BASE_DTYPE=$BASE_DTYPE: the tool-rl stages load the model in fp32 only (run_all.sh takes BASE_DTYPE)" >&2
  exit 2
fi
start_run

shipped_model || echo "run_tools: MODEL_PATH=$MODEL_PATH is not the shipped $SHIPPED_MODEL: nothing to rebuild (the tasks do not depend on the model; the traces are rendered in its chat template at run time)"

# 1. Tasks: the suite's problems (data/suite, read as they are) and the questions shipped in data/tools, each rebuilt
#    only when missing.
if [[ ! -f "$SUITE/sft.jsonl" || ! -f "$SUITE/rl.jsonl" || ! -f "$SUITE/test.jsonl" ]]; then
  stage prep-suite nxrun prep:suite -- --out-dir "$SUITE"
fi
if [[ ! -f "$DATA/train.jsonl" || ! -f "$DATA/heldout.jsonl" ]]; then
  stage prep-tools nxrun prep:tools -- --out-dir "$DATA"
fi

# 2. SFT on the suite's sft split (CODE_SFT=1, the preset's): run_all's SFT stage with run_all's preset of the same
#    name (configs/run_all/$PRESET.yaml, section sft), so the tool stages start from a model that writes the suite's
#    code, as the source system starts from an instruct coder (on dev the warm-started model solved 0.15 of the tasks
#    from models/base and 0.27 from this SFT, EXPERIMENTS.md 2026-11-28 (morning)). CODE_SFT=0: the warm-start starts
#    from MODEL_PATH itself (a checkpoint that already writes code).
WARMSTART_FROM="$MODEL_PATH"
if [[ "$CODE_SFT" == 1 ]]; then
  if [[ ! -f "configs/run_all/$PRESET.yaml" ]]; then
    echo "run_tools: CODE_SFT=1 takes its SFT settings from run_all's preset of the same name, configs/run_all/$PRESET.yaml, which does not exist (add it, or set CODE_SFT=0)" >&2
    exit 2
  fi
  PRESET_FILE="configs/run_all/$PRESET.yaml" preset_config code-sft sft
  stage code-sft nxrun sft:train -- --config "$CONFIG" --model "$MODEL_PATH" --data "$SUITE/sft.jsonl" --out "$TOOLS/code_sft" "${TRAIN_ARGS[@]}"
  WARMSTART_FROM="$TOOLS/code_sft"
fi

# 3. Tool warm-start: traces that run each sft problem's reference against its shown test and end with the code (some
#    after a wrong first attempt), and traces that call the interpreter with a question's reference code and state
#    its output (a share answers without the tool); the loss on the model's turns only.
preset_config warmstart warmstart
env_flags "${WARMSTART_VARS[@]}"
stage warmstart nxrun tool-rl:warmstart -- --config "$CONFIG" --model "$WARMSTART_FROM" --data "$WARMSTART_DATA" --out "$TOOLS/sft" \
  "${FLAGS[@]}" "${TRAIN_ARGS[@]}" "${WARMSTART_EXTRA[@]}"

# 4. GRPO with the interpreter from the warm-started model, KL 0.001 (the seed's); the preset's LoRA adapter, learning
#    rate, entropy bonus and malformed-call penalty are the setting that measurably beat the warm-start
#    (configs/run_tools/default.yaml says why). GRPO_LORA_RANK=0 trains every weight.
GRPO_TRAIN_ARGS=()
[[ "$GRAD_CHECKPOINTING" == 1 ]] && GRPO_TRAIN_ARGS+=(--grad-checkpointing)
preset_config grpo grpo
env_flags "${GRPO_VARS[@]}"
stage grpo nxrun tool-rl:train -- --config "$CONFIG" --model "$TOOLS/sft" --data "$GRPO_DATA" --out "$TOOLS/grpo" \
  "${FLAGS[@]}" "${GRPO_TRAIN_ARGS[@]}" "${GRPO_EXTRA[@]}"
#    STATELESS_ARM=1 (PRESET=full): the same GRPO with the stateless interpreter, so stateful and stateless are each
#    trained for and both evaluated with both.
if [[ "$STATELESS_ARM" == 1 ]]; then
  stage grpo-stateless nxrun tool-rl:train -- --config "$CONFIG" --model "$TOOLS/sft" --data "$GRPO_DATA" --out "$TOOLS/grpo_stateless_trained" \
    "${FLAGS[@]}" --interpreter stateless "${GRPO_TRAIN_ARGS[@]}" "${GRPO_EXTRA[@]}"
fi

# 5. Evaluation on held-out problems (the suite's test split: pass@1 of the final code, the stubs as rows; each row at
#    its best temperature on EVAL_DEV_TASKS tasks of the dev split, a seeded sample), then on the held-out questions
#    (templates never trained on): every row paired per task with the warm-started model; a row's own temperature as
#    name=checkpoint:tool@T in EVAL_RUNS. The rows: the warm-start, GRPO with either interpreter and without the tool
#    (the same checkpoint), and with STATELESS_ARM=1 the stateless-trained GRPO with either interpreter.
RUNS="warmstart=$TOOLS/sft:stateful,grpo_stateful=$TOOLS/grpo:stateful,grpo_stateless=$TOOLS/grpo:stateless,grpo_no_tool=$TOOLS/grpo:none"
[[ "$STATELESS_ARM" == 1 ]] && RUNS+=",grpo_sl_stateless=$TOOLS/grpo_stateless_trained:stateless,grpo_sl_stateful=$TOOLS/grpo_stateless_trained:stateful"
preset_config eval eval
env_flags "${EVAL_VARS[@]}"
stage eval nxrun tool-rl:eval -- --config "$CONFIG" --runs "${EVAL_RUNS:-$RUNS}" --data "$EVAL_DATA" --out "$TOOLS/eval.json" \
  --dev-data "$SUITE/dev.jsonl:$EVAL_DEV_TASKS" "${FLAGS[@]}" "${EVAL_EXTRA[@]}"
stage eval-questions nxrun tool-rl:eval -- --config "$CONFIG" --runs "${EVAL_RUNS:-$RUNS}" --data "$EVAL_QUESTIONS_DATA" --out "$TOOLS/eval_questions.json" \
  "${FLAGS[@]}" "${EVAL_EXTRA[@]}"

echo
echo "=== run_tools [$PRESET] finished in $((SECONDS - T0)) s; results in $TOOLS/ ==="
cat "$TOOLS/eval.md"
echo
cat "$TOOLS/eval_questions.md"
