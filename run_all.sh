#!/usr/bin/env bash
# The offline pipeline on the shipped base model: SFT -> reward model -> RL (PPO, GRPO, RLOO, RFT) -> evaluation, on the task suite
# (data/suite: small problems in MBPP's schema, at the shipped model's scale) and on MBPP's test split.
#
# The headline is pass@1 on the suite's test split (results/eval/suite/eval.md): every model at its own best
# temperature (greedy or sampled, chosen on the dev split), the trivial programs (stub:pass, constant returns, ...) as
# baseline rows, each RL model minus SFT paired per problem with a 95% interval, by group of operations (trained by
# SFT, seen only by RL, seen by nobody), and pass@k up to 8. MBPP's table is results/eval/mbpp/eval.md.
#
#   bash run_all.sh                 default preset (see guide.md for its time on 2 idle cores)
#   PRESET=full bash run_all.sh     the default, with MBPP at 200 problems x 4 samples and its own temperature choice
#   PRESET=smoke bash run_all.sh    a few steps per stage (CI uses it: checks the wiring, not the quality)
#   SEEDS=3 bash run_all.sh         the whole pipeline once per seed, averaged per problem (PRESET=full: 3 seeds)
#   RL_ALGOS=ppo,grpo,rloo,rft bash run_all.sh
#                                   the RL algorithms to run, commas or spaces (the preset's: rft by default, all four
#                                   in full; the known ones: `npx nx run rl:algos`), each from the preset's sections
#                                   (`rl` and its own; rft its own only)
#   LORA_RANK=8 RECOMPUTE_LAYERS=1 MODEL_PATH=/models/Qwen2.5-Coder-0.5B bash run_all.sh
#                                   another model (a checkpoint or a LoRA adapter folder), every training stage a LoRA
#                                   adapter of rank 8 (alpha LORA_ALPHA, default 2 x rank) with layer recomputation
#   BASE_DTYPE=int8 LORA_RANK=8 ...  the frozen base in int8 (or bf16) in every stage: training under LoRA, the
#                                   reference and reward model, sampling the RM data and the evaluation (faster decoding)
#   ENGINE=llamacpp bash run_all.sh  what decodes every stage's samples (--engine): local (default: the project's own
#                                   decoder), llamacpp (llama.cpp in process on a GGUF export of each checkpoint), or
#   ENGINE=openai:http://127.0.0.1:8000 ENGINE_SHARED_DIR=/shared/policy bash run_all.sh
#                                   a vLLM / SGLang server serving $RESULTS/sft with LoRA enabled: the RL stages sample on
#                                   it and publish each policy version through ENGINE_SHARED_DIR; the RM data and the
#                                   evaluation (several checkpoints, one server) decode locally with ENGINE=openai:URL
#
# Another model than the shipped models/base gets its reward-model data rebuilt after SFT, into $RESULTS/data (the
# suite's problems, plus RM_SFT_SAMPLES samples per problem of its SFT checkpoint; data/suite is left as it is), unless
# RM_DATA names a file of your own. A preset is a file, configs/run_all/$PRESET.yaml: a section per stage, passed to it
# as its --config file (kept as $RESULTS/logs/config/<stage>.json), and the script's own knobs (its `script:`
# section; the environment variable of the same name wins). SET overrides any setting of a stage's section, in the
# preset's keys (tools/stages.sh, guide.md "Settings"), e.g.
#   MODEL_PATH=/models/Qwen2.5-Coder-0.5B SET='sft.epochs=1 ppo.steps=10 rl.lr=1e-5' bash run_all.sh
# (the sections: sft, rm, rl (every policy-gradient algorithm), ppo, grpo, rloo, rft, sft-more, prep-rm, eval,
# eval-dev, eval-suite, eval-mbpp; the keys: `npx nx run <app>:<target> -- --print-config`). SET is checked against
# every stage's schema before the first stage runs. The script stops at the first failing stage, prints its error and
# the log file; results go to $RESULTS.
set -euo pipefail
cd "$(dirname "$0")"

PRESET="${PRESET:-default}"
SCRIPT_NAME=run_all
# shellcheck source=tools/stages.sh
source tools/stages.sh
load_preset # the script's own knobs: RL_ALGOS, SFT_MORE, SEEDS, EVAL_LIMIT, EVAL_DEV_LIMIT, MBPP_DEV, RM_PROBLEMS, RM_SFT_SAMPLES
RL_ALGOS="${RL_ALGOS//,/ }"
# The algorithms the code knows: the registry of libs/rl (algorithms.ts), listed by `rl algos`.
ALGO_LIST="$(node --import tsx apps/rl/src/main.ts algos)" || { echo "run_all: could not list the RL algorithms (node --import tsx apps/rl/src/main.ts algos)" >&2; exit 1; }
KNOWN_ALGOS="$(cut -f1 <<< "$ALGO_LIST")"
# algo_kind NAME: policy-gradient (RlTrainer's clipped updates) or rejection-sampling (expert iteration's rounds).
algo_kind() { awk -F'\t' -v a="$1" '$1 == a { print $2 }' <<< "$ALGO_LIST"; }
for algo in $RL_ALGOS; do
  grep -qxF -- "$algo" <<< "$KNOWN_ALGOS" || { echo "run_all: unknown algorithm '$algo' in RL_ALGOS (known: $(paste -sd, - <<< "$KNOWN_ALGOS" | sed 's/,/, /g'))" >&2; exit 2; }
done
# The variables that set a stage's setting before SET, each with the entry that replaces it (an error when given).
OLD=(SFT_EPOCHS=sft.epochs SFT_MAX_STEPS=sft.maxSteps SFT_BATCH=sft.batchSize SFT_LR=sft.lr SFT_MAX_LEN=sft.maxLen \
  RM_EPOCHS=rm.epochs RM_MAX_STEPS=rm.maxSteps RM_BATCH=rm.batchSize RM_LR=rm.lr RM_MAX_LEN=rm.maxLen \
  RL_MAX_NEW_TOKENS=rl.maxNewTokens RL_TEMPERATURE=rl.temperature RL_HELDOUT_EVERY=rl.heldoutEvery \
  RL_HELDOUT_SAMPLES=rl.heldoutSamples RL_HELDOUT_LIMIT=rl.heldoutLimit \
  EVAL_BATCH=eval.batchSize EVAL_TEMPERATURES=eval-dev.temperatures EVAL_DEV_SAMPLES=eval-dev.devSamples \
  EVAL_SAMPLES=eval-suite.samples EVAL_MAX_NEW_TOKENS=eval-suite.maxNewTokens \
  MBPP_LIMIT=eval-mbpp.limit MBPP_SAMPLES=eval-mbpp.samples MBPP_MAX_NEW_TOKENS=eval-mbpp.maxNewTokens \
  SFT_ARGS=sft RM_ARGS=rm EVAL_ARGS=eval PREP_RM_ARGS=prep-rm)
for algo in $KNOWN_ALGOS; do
  A="${algo^^}"
  if [[ "$(algo_kind "$algo")" == policy-gradient ]]; then
    OLD+=("${A}_STEPS=$algo.steps" "${A}_BATCH=$algo.batchSize" "${A}_GROUP_SIZE=$algo.groupSize" "${A}_EPOCHS=$algo.ppoEpochs" \
      "${A}_MINI_BATCHES=$algo.miniBatches" "${A}_LR=$algo.lr" "${A}_ARGS=$algo")
  else
    OLD+=("${A}_ROUNDS=$algo.rounds" "${A}_SAMPLES=$algo.samples" "${A}_TEMPERATURE=$algo.temperature" \
      "${A}_KEEP_PER_PROMPT=$algo.keepPerPrompt" "${A}_EPOCHS=$algo.epochs" "${A}_LR=$algo.lr" "${A}_ARGS=$algo")
  fi
done
retired "${OLD[@]}"
MODEL_PATH="${MODEL_PATH:-models/base}"
RESULTS="${RESULTS:-results}"
SUITE="${SUITE:-data/suite}"
# The settings the script gives its stages as flags (from MODEL_PATH, RESULTS, SUITE, SEED, RL_ALGOS and its other
# knobs), which SET may not: a key in any section, or SECTION.KEY.
SCRIPT_KEYS=(model data out seed algo rewardModel heldoutData replayData models devData problems sftModel prep-rm.limit
  prep-rm.samples prep-rm.maxNewTokens sft-more.maxSteps eval-suite.limit)

# SEEDS=N (N > 1): the whole pipeline once per seed 0..N-1 (every stage's --seed), each into $RESULTS/seed-<k>, then
# eval:seeds averages their suite evaluations per problem into $RESULTS/eval/suite (pass_at_1_by_seed, the seed-to-seed
# SD, vs_sft on the seed-averaged outcomes). A run of one seed is seed SEED (default 0).
if [[ "$SEEDS" -gt 1 && -z "${SEED:-}" ]]; then
  T_ALL=$SECONDS
  runs=()
  for ((k = 0; k < SEEDS; k++)); do
    SEED=$k RESULTS="$RESULTS/seed-$k" bash "$0" || exit $?
    runs+=("$RESULTS/seed-$k/eval/suite")
  done
  LOG_DIR="$RESULTS/logs"
  mkdir -p "$LOG_DIR"
  export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
  stage eval-seeds nxrun eval:seeds -- --runs "$(IFS=,; echo "${runs[*]}")" --out "$RESULTS/eval/suite"
  echo
  echo "=== run_all [$PRESET] $SEEDS seeds finished in $((SECONDS - T_ALL)) s; results in $RESULTS/ ==="
  cat "$RESULTS/eval/suite/eval.md"
  exit 0
fi
SEED="${SEED:-0}"
SEED_ARGS=(--seed "$SEED")

LOG_DIR="$RESULTS/logs"
start_run

# Every stage's --config file (the preset's sections with SET's values), in $LOG_DIR/config, checked before any stage
# runs. An RL algorithm of the policy-gradient kind reads the `rl` section and its own; expert iteration its own only;
# the control sft_more the `sft` section and `sft-more`.
SCRIPT_KEYS+=("${TRAIN_KEYS[@]}") # LORA_RANK, LORA_ALPHA, BASE_DTYPE, RECOMPUTE_LAYERS reach every training stage as flags
SCRIPT_KEYS+=("${ENGINE_KEYS[@]}") # ENGINE (and ENGINE_SHARED_DIR) reach every sampling stage as flags
# A server serves one checkpoint: the stages that sample several (or one the server does not serve) decode locally.
if [[ "$ENGINE" == openai:* ]]; then LOCAL_ENGINE_ARGS=(--engine local); else LOCAL_ENGINE_ARGS=("${ENGINE_ARGS[@]}"); fi
stage_config prep-rm-data prep:rm prep-rm
stage_config sft sft:train sft
stage_config rm rm:train rm
for algo in $RL_ALGOS; do
  if [[ "$(algo_kind "$algo")" == policy-gradient ]]; then
    stage_config "$algo" rl:train rl "$algo" -- --algo "$algo"
  else
    stage_config "$algo" rl:train "$algo" -- --algo "$algo"
  fi
done
[[ "$SFT_MORE" != 0 && -n "$RL_ALGOS" ]] && stage_config sft_more sft:train sft sft-more
stage_config eval-suite eval:run eval eval-dev eval-suite
if [[ "$MBPP_DEV" != none ]]; then
  stage_config eval-mbpp eval:run eval eval-dev eval-mbpp
else
  stage_config eval-mbpp eval:run eval eval-mbpp
fi
check_set

# 1. Data: shipped in data/; rebuilt only when missing (the suite from its seed, MBPP's files from data/mbpp). The
#    reward model's data: the shipped data/suite/rm_data.jsonl for the shipped model; for another model it is rebuilt
#    after SFT (step 2b) with that model's own samples; RM_DATA=FILE trains the RM on a file of your own.
REBUILD_RM_DATA=0
if [[ -n "${RM_DATA:-}" ]]; then
  [[ -f "$RM_DATA" ]] || { echo "run_all: RM_DATA=$RM_DATA: file not found" >&2; exit 2; }
elif shipped_model; then
  RM_DATA="$SUITE/rm_data.jsonl"
else
  REBUILD_RM_DATA=1
  RM_DATA="$RESULTS/data/rm_data.jsonl"
  echo "run_all: MODEL_PATH=$MODEL_PATH is not the shipped $SHIPPED_MODEL: the reward model's data is rebuilt for it after SFT," \
    "into $RM_DATA: the references, mutants and stubs of $RM_PROBLEMS problems of $SUITE/sft.jsonl plus RM_SFT_SAMPLES=$RM_SFT_SAMPLES samples" \
    "per problem of its SFT checkpoint, each scored in the sandbox ($SUITE/rm_data.jsonl is left as it is; RM_DATA=FILE uses a file of your own)"
fi
if [[ ! -f "$SUITE/sft.jsonl" || ! -f "$SUITE/rl.jsonl" || ! -f "$SUITE/dev.jsonl" || ! -f "$SUITE/test.jsonl" ]]; then
  stage prep-suite nxrun prep:suite -- --out-dir "$SUITE"
fi
if [[ "$RM_DATA" == "$SUITE/rm_data.jsonl" && ! -f "$RM_DATA" ]]; then
  stage prep-rm nxrun prep:rm -- --problems "$SUITE/sft.jsonl" --limit 250 --out "$SUITE/rm_data.jsonl"
fi
if [[ ! -f data/eval_mbpp_test.jsonl || ! -f data/mbpp_validation.jsonl ]]; then
  stage prep-data nxrun prep:data
fi
# A smoke run takes the first few problems of each file (the suite files are ordered by operation).
take() { if [[ "$2" -gt 0 ]]; then head -n "$2" "$1" > "$3"; else cp "$1" "$3"; fi; }
mkdir -p "$RESULTS/data"
if [[ "$PRESET" == smoke ]]; then
  for f in sft rl; do take "$SUITE/$f.jsonl" 16 "$RESULTS/data/$f.jsonl"; done
  if [[ "$RM_DATA" == "$SUITE/rm_data.jsonl" ]]; then
    awk 'NR % 50 == 1' "$RM_DATA" > "$RESULTS/data/rm_data.jsonl" # rows of many prompts, so some are held out
    RM_DATA="$RESULTS/data/rm_data.jsonl"
  fi
  SUITE_TRAIN="$RESULTS/data"
else
  SUITE_TRAIN="$SUITE"
fi
take "$SUITE/dev.jsonl" "$EVAL_DEV_LIMIT" "$RESULTS/data/dev.jsonl"

# 2. SFT on the suite's sft split: loss on the response (and EOS) only, examples packed into windows. With LORA_RANK,
#    every training stage trains an adapter: results/sft is an adapter on MODEL_PATH, the RM and PPO's policy adapters
#    on results/sft (PPO's reference and reward model share its one copy of the weights).
stage sft nxrun sft:train -- --config "$(config_of sft)" --model "$MODEL_PATH" --data "$SUITE_TRAIN/sft.jsonl" --out "$RESULTS/sft" \
  "${SEED_ARGS[@]}" "${TRAIN_ARGS[@]}"

# 2b. Another model's reward-model data: the suite's references, mutants and stubs, and samples of its SFT checkpoint.
if [[ "$REBUILD_RM_DATA" == 1 ]]; then
  SAMPLE_ARGS=()
  [[ "$RM_SFT_SAMPLES" -gt 0 ]] && SAMPLE_ARGS=(--sft-model "$RESULTS/sft" --samples "$RM_SFT_SAMPLES" --max-new-tokens "$(preset_value rl.maxNewTokens)")
  stage prep-rm-data nxrun prep:rm -- --config "$(config_of prep-rm-data)" --problems "$SUITE/sft.jsonl" --limit "$RM_PROBLEMS" "${SAMPLE_ARGS[@]}" \
    --out "$RM_DATA" "${BASE_DTYPE_ARGS[@]}" "${LOCAL_ENGINE_ARGS[@]}"
fi

# 3. Reward model from the SFT checkpoint: regression on execution-earned scores (references, mutants and stubs of sft
#    problems); held-out MSE, Pearson and pairwise accuracy in $RESULTS/rm/heldout.json.
stage rm nxrun rm:train -- --config "$(config_of rm)" --model "$RESULTS/sft" --data "$RM_DATA" --out "$RESULTS/rm" \
  "${SEED_ARGS[@]}" "${TRAIN_ARGS[@]}"

# 4. Each algorithm of RL_ALGOS (`npx nx run rl:algos`) from the SFT checkpoint on the suite's rl split. The reward is
#    the tests (1 when every test passes, 0 when one fails, -0.1 when the code does not compile); the reward model is
#    scored beside it (rm_score in metrics.jsonl; in the reward it lowered PPO's dev pass@1, EXPERIMENTS.md) and gives
#    PPO's value head its start. GRPO and RLOO sample 16 prompts x 4; GRPO updates on the groups whose rewards differ
#    (--drop-uniform-groups). Measured on the dev split before and after (heldout.jsonl).
EVAL_MODELS="sft=$RESULTS/sft"
RL_MODELS=""
for algo in $RL_ALGOS; do
  if [[ "$(algo_kind "$algo")" == policy-gradient ]]; then
    stage "$algo" nxrun rl:train -- --config "$(config_of "$algo")" --algo "$algo" --model "$RESULTS/sft" --reward-model "$RESULTS/rm" \
      --data "$SUITE_TRAIN/rl.jsonl" --out "$RESULTS/$algo" --heldout-data "$RESULTS/data/dev.jsonl" "${SEED_ARGS[@]}" "${TRAIN_ARGS[@]}" "${ENGINE_ARGS[@]}"
  else
    # Expert iteration: its own section (it shares no policy-gradient setting); its rounds replay the SFT data.
    stage "$algo" nxrun rl:train -- --config "$(config_of "$algo")" --algo "$algo" --model "$RESULTS/sft" --data "$SUITE_TRAIN/rl.jsonl" \
      --replay-data "$SUITE_TRAIN/sft.jsonl" --out "$RESULTS/$algo" "${SEED_ARGS[@]}" "${TRAIN_ARGS[@]}" "${ENGINE_ARGS[@]}"
  fi
  RL_MODELS="$RL_MODELS,$algo=$RESULTS/$algo"
done

# 4b. The control that RL is more than more SFT: the SFT checkpoint trained on its own data for as many more optimizer
#     steps as the RL row that took the most (tools/rl-steps.cjs reads them from the RL folders), with the fine-tuning
#     settings of expert iteration's rounds (the preset's sft-more section). SFT_MORE=0 leaves it out.
if [[ "$SFT_MORE" != 0 && -n "$RL_ALGOS" ]]; then
  MORE_STEPS="$(node tools/rl-steps.cjs "$RESULTS" $RL_ALGOS)"
  stage sft_more nxrun sft:train -- --config "$(config_of sft_more)" --model "$RESULTS/sft" --data "$SUITE_TRAIN/sft.jsonl" --out "$RESULTS/sft_more" \
    --max-steps "$MORE_STEPS" "${SEED_ARGS[@]}" "${TRAIN_ARGS[@]}"
  EVAL_MODELS="$EVAL_MODELS,sft_more=$RESULTS/sft_more"
fi
EVAL_MODELS="$EVAL_MODELS$RL_MODELS"

# 5. Evaluation. The suite's test split: each model's temperature chosen on the dev split (greedy or one of
#    EVAL_TEMPERATURES), pass@1 at it, pass@k from EVAL_SAMPLES samples at its best sampling temperature, stubs as rows.
LIMIT_ARGS=()
[[ "$EVAL_LIMIT" -gt 0 ]] && LIMIT_ARGS=(--limit "$EVAL_LIMIT")
stage eval-suite nxrun eval:run -- --config "$(config_of eval-suite)" --models "$EVAL_MODELS" --reward-model "$RESULTS/rm" --data "$SUITE/test.jsonl" \
  --dev-data "$RESULTS/data/dev.jsonl" --out "$RESULTS/eval/suite" "${LIMIT_ARGS[@]}" "${SEED_ARGS[@]}" "${BASE_DTYPE_ARGS[@]}" "${LOCAL_ENGINE_ARGS[@]}"

#    MBPP's test split (tasks 11-510, never trained on): what a real checkpoint is judged on. The shipped model solves
#    none of it; the default preset samples answers of a sample of its problems at temperature 0.7 beside greedy, the
#    full preset chooses each model's temperature on MBPP_DEV.
MBPP_DEV_ARGS=()
[[ "$MBPP_DEV" != none ]] && MBPP_DEV_ARGS=(--dev-data "$MBPP_DEV")
stage eval-mbpp nxrun eval:run -- --config "$(config_of eval-mbpp)" --models "$EVAL_MODELS" --reward-model "$RESULTS/rm" --data data/eval_mbpp_test.jsonl \
  --out "$RESULTS/eval/mbpp" "${MBPP_DEV_ARGS[@]}" "${SEED_ARGS[@]}" "${BASE_DTYPE_ARGS[@]}" "${LOCAL_ENGINE_ARGS[@]}"

echo
echo "=== run_all [$PRESET] seed $SEED finished in $((SECONDS - T0)) s; results in $RESULTS/ ==="
stage_times
cat "$RESULTS/eval/suite/eval.md"
