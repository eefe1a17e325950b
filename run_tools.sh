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
#   LORA_RANK=8 RECOMPUTE_LAYERS=1 MODEL_PATH=DIR bash run_tools.sh
#                                     another model (a checkpoint or a LoRA adapter folder); the warm-start trains a
#                                     LoRA adapter of rank 8 (alpha LORA_ALPHA, default 2 x rank), GRPO one of the same
#                                     rank (unless SET gives grpo.loraRank; the preset's 16 otherwise: GRPO trains an
#                                     adapter even when LORA_RANK is 0; SET='grpo.loraRank=0' trains every weight)
#   ENGINE=llamacpp bash run_tools.sh what decodes GRPO's episodes (tool-rl train --engine): local (default), llamacpp,
#                                     or openai:URL with ENGINE_SHARED_DIR=DIR (a vLLM / SGLang server serving
#                                     $RESULTS/tools/sft with LoRA enabled; each policy version is published through DIR)
#
# A preset is a file, configs/run_tools/$PRESET.yaml: a section per stage, passed to it as its --config file (kept as
# $RESULTS/tools/logs/config/<stage>.json), and the script's own knobs (its `script:` section; the environment variable
# of the same name wins). SET overrides any setting of a stage's section, in the preset's keys (tools/stages.sh,
# guide.md "Settings"), e.g. SET='grpo.steps=60 grpo.interpreter=stateless' bash run_tools.sh (the sections: sft, the
# code SFT from run_all's preset; warmstart, grpo, eval; the keys: `npx nx run tool-rl:<target> -- --print-config`),
# checked against every stage's schema before the first stage runs.
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
# The variables that set a stage's setting before SET, each with the entry that replaces it (an error when given).
retired WARMSTART_STEPS=warmstart.maxSteps WARMSTART_BATCH=warmstart.batchSize WARMSTART_LR=warmstart.lr \
  WARMSTART_DIRECT=warmstart.directShare GRPO_STEPS=grpo.steps GRPO_BATCH=grpo.batchSize GRPO_GROUP=grpo.groupSize \
  GRPO_LR=grpo.lr GRPO_INTERPRETER=grpo.interpreter GRPO_ENTROPY=grpo.entropyCoef GRPO_MALFORMED_PENALTY=grpo.malformedPenalty \
  GRPO_LORA_RANK=grpo.loraRank GRPO_LORA_ALPHA=grpo.loraAlpha EVAL_LIMIT=eval.limit EVAL_SAMPLES=eval.samplesPerTask \
  WARMSTART_ARGS=warmstart GRPO_ARGS=grpo EVAL_ARGS=eval
DATA="${TOOLS_DATA:-data/tools}"
SUITE="${SUITE:-data/suite}"
MODEL_PATH="${MODEL_PATH:-models/base}"
RESULTS="${RESULTS:-results}"
# The settings the script gives its stages as flags (from MODEL_PATH, RESULTS, SUITE and the data knobs): SET may not.
SCRIPT_KEYS=(model data out runs devData)
TOOLS="$RESULTS/tools"
if [[ "$PRESET" == smoke ]]; then
  : "${WARMSTART_DATA:=$SUITE/sft.jsonl:100,$DATA/train.jsonl:50}" # the traces of every task take minutes to build
fi
WARMSTART_DATA="${WARMSTART_DATA:-$SUITE/sft.jsonl,$DATA/train.jsonl:$QUESTIONS}"
GRPO_DATA="${GRPO_DATA:-$SUITE/rl.jsonl,$DATA/train.jsonl:$QUESTIONS}"
EVAL_DATA="${EVAL_DATA:-$SUITE/test.jsonl}"
# EVAL_QUESTIONS (preset): held-out questions evaluated, a seeded sample (0 = all 320)
EVAL_QUESTIONS_DATA="${EVAL_QUESTIONS_DATA:-$DATA/heldout.jsonl$([[ "$EVAL_QUESTIONS" != 0 ]] && echo ":$EVAL_QUESTIONS")}"

LOG_DIR="$TOOLS/logs"
if [[ "${BASE_DTYPE:-fp32}" != fp32 ]]; then
  echo "run_tools: BASE_DTYPE=$BASE_DTYPE: the tool-rl stages load the model in fp32 only (run_all.sh takes BASE_DTYPE)" >&2
  exit 2
fi
start_run
if [[ "$CODE_SFT" == 1 && ! -f "configs/run_all/$PRESET.yaml" ]]; then
  echo "run_tools: CODE_SFT=1 takes its SFT settings from run_all's preset of the same name, configs/run_all/$PRESET.yaml, which does not exist (add it, or set CODE_SFT=0)" >&2
  exit 2
fi

# Every stage's --config file (the preset's sections with SET's values), in $LOG_DIR/config, checked before any stage
# runs. The code SFT reads the sft section of run_all's preset of the same name. LORA_RANK, LORA_ALPHA and
# RECOMPUTE_LAYERS reach the code SFT and the warm-start as flags, and GRPO (step 4) too unless SET gives its rank.
SCRIPT_KEYS+=("${TRAIN_KEYS[@]/#/sft.}" "${TRAIN_KEYS[@]/#/warmstart.}" "${ENGINE_KEYS[@]/#/grpo.}")
[[ "$RECOMPUTE_LAYERS" == 1 ]] && SCRIPT_KEYS+=(grpo.recomputeLayers)
if [[ "$LORA_RANK" != 0 ]] && ! grep -qx loraRank <<< "$(preset - set-keys grpo)"; then
  GRPO_LORA_ARGS=(--lora-rank "$LORA_RANK" --lora-alpha "$LORA_ALPHA")
  SCRIPT_KEYS+=(grpo.loraAlpha)
else
  GRPO_LORA_ARGS=()
fi
[[ "$CODE_SFT" == 1 ]] && PRESET_FILE="configs/run_all/$PRESET.yaml" stage_config code-sft sft:train sft
stage_config warmstart tool-rl:warmstart warmstart
stage_config grpo tool-rl:train grpo
stage_config eval tool-rl:eval eval
check_set

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
  stage code-sft nxrun sft:train -- --config "$(config_of code-sft)" --model "$MODEL_PATH" --data "$SUITE/sft.jsonl" --out "$TOOLS/code_sft" "${TRAIN_ARGS[@]}"
  WARMSTART_FROM="$TOOLS/code_sft"
fi

# 3. Tool warm-start: traces that run each sft problem's reference against its shown test and end with the code (some
#    after a wrong first attempt), and traces that call the interpreter with a question's reference code and state
#    its output (a share answers without the tool); the loss on the model's turns only.
stage warmstart nxrun tool-rl:warmstart -- --config "$(config_of warmstart)" --model "$WARMSTART_FROM" --data "$WARMSTART_DATA" --out "$TOOLS/sft" \
  "${TRAIN_ARGS[@]}"

# 4. GRPO with the interpreter from the warm-started model, KL 0.001 (the seed's); the preset's LoRA adapter, learning
#    rate, entropy bonus and malformed-call penalty are the setting that measurably beat the warm-start
#    (configs/run_tools/default.yaml says why). SET='grpo.loraRank=0' trains every weight. LORA_RANK > 0 gives GRPO's
#    adapter its rank and alpha (LORA_ALPHA, default 2 x rank) unless SET gives grpo.loraRank (GRPO_LORA_ARGS, above).
GRPO_TRAIN_ARGS=("${GRPO_LORA_ARGS[@]}" "${ENGINE_ARGS[@]}")
[[ "$RECOMPUTE_LAYERS" == 1 ]] && GRPO_TRAIN_ARGS+=(--recompute-layers)
stage grpo nxrun tool-rl:train -- --config "$(config_of grpo)" --model "$TOOLS/sft" --data "$GRPO_DATA" --out "$TOOLS/grpo" \
  "${GRPO_TRAIN_ARGS[@]}"
#    STATELESS_ARM=1 (PRESET=full): the same GRPO with the stateless interpreter, so stateful and stateless are each
#    trained for and both evaluated with both.
if [[ "$STATELESS_ARM" == 1 ]]; then
  stage grpo-stateless nxrun tool-rl:train -- --config "$(config_of grpo)" --model "$TOOLS/sft" --data "$GRPO_DATA" --out "$TOOLS/grpo_stateless_trained" \
    --interpreter stateless "${GRPO_TRAIN_ARGS[@]}"
fi

# 5. Evaluation on held-out problems (the suite's test split: pass@1 of the final code, the stubs as rows; each row at
#    its best temperature on EVAL_DEV_TASKS tasks of the dev split, a seeded sample), then on the held-out questions
#    (templates never trained on): every row paired per task with the warm-started model; a row's own temperature as
#    name=checkpoint:tool@T in EVAL_RUNS. The rows: the warm-start, GRPO with either interpreter and without the tool
#    (the same checkpoint), and with STATELESS_ARM=1 the stateless-trained GRPO with either interpreter.
RUNS="warmstart=$TOOLS/sft:stateful,grpo_stateful=$TOOLS/grpo:stateful,grpo_stateless=$TOOLS/grpo:stateless,grpo_no_tool=$TOOLS/grpo:none"
[[ "$STATELESS_ARM" == 1 ]] && RUNS+=",grpo_sl_stateless=$TOOLS/grpo_stateless_trained:stateless,grpo_sl_stateful=$TOOLS/grpo_stateless_trained:stateful"
stage eval nxrun tool-rl:eval -- --config "$(config_of eval)" --runs "${EVAL_RUNS:-$RUNS}" --data "$EVAL_DATA" --out "$TOOLS/eval.json" \
  --dev-data "$SUITE/dev.jsonl:$EVAL_DEV_TASKS"
stage eval-questions nxrun tool-rl:eval -- --config "$(config_of eval)" --runs "${EVAL_RUNS:-$RUNS}" --data "$EVAL_QUESTIONS_DATA" --out "$TOOLS/eval_questions.json"

echo
echo "=== run_tools [$PRESET] finished in $((SECONDS - T0)) s; results in $TOOLS/ ==="
cat "$TOOLS/eval.md"
echo
cat "$TOOLS/eval_questions.md"
