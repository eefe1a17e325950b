# Shared by run_all.sh and run_tools.sh (sourced): how a pipeline script reads its preset and SET, and runs its stages.
# The script sets SCRIPT_NAME (for messages) and PRESET, calls load_preset, sets MODEL_PATH and LOG_DIR, calls
# start_run, writes every stage's --config file (stage_config) and checks SET against them (check_set), then runs the
# stages.
#
# SET='SECTION.KEY=VALUE ...' overrides settings of the preset's sections (tools/preset.cjs), in the keys the preset
# file and each stage's --print-config use: e.g. SET='rl.lr=1e-5 sft.epochs=3 eval-dev.temperatures=[0,1]'. Before
# any stage runs, an entry naming a section no stage of the run reads, a key a stage's schema does not have, or a bad
# value is an error naming the entry.

# stage NAME COMMAND...: runs one stage, its output shown and kept in $LOG_DIR/NAME.log; stops the script if it fails.
stage() {
  local name="$1"
  shift
  local log="$LOG_DIR/$name.log" t=$SECONDS
  echo
  echo "=== $SCRIPT_NAME [$PRESET]: $name ==="
  echo "+ $*"
  if "$@" 2>&1 | tee "$log"; then
    echo "=== $name done in $((SECONDS - t)) s ==="
    printf '%s\t%s\n' "$name" "$((SECONDS - t))" >> "$LOG_DIR/times.tsv"
  else
    local code=${PIPESTATUS[0]}
    echo
    echo "$SCRIPT_NAME: stage '$name' failed (exit $code) after $((SECONDS - t)) s. Its output is in $log; the error:" >&2
    grep -iE 'error|failed' "$log" | grep -v '^ *at ' | tail -5 >&2 || tail -5 "$log" >&2
    exit "$code"
  fi
}

# stage_times: the run's stages and their seconds (from $LOG_DIR/times.tsv), one line each.
stage_times() {
  echo "stage times (s):"
  awk -F'\t' '{ printf "  %-14s %6d\n", $1, $2; total += $2 } END { printf "  %-14s %6d\n", "total", total }' "$LOG_DIR/times.tsv"
}

# nxrun TARGET ARGS...: an nx target, never from nx's cache, its output streamed.
nxrun() {
  local target="$1"
  shift
  npx nx run "$target" --skip-nx-cache --output-style=stream "$@"
}

# load_preset: checks $PRESET (a file configs/$SCRIPT_NAME/$PRESET.yaml, read by tools/preset.cjs) and sets
# PRESET_FILE, and the preset's script knobs (its `script:` section) as shell variables, each unless the environment
# gives it (an empty variable counts as not given).
load_preset() {
  PRESET_FILE="configs/$SCRIPT_NAME/$PRESET.yaml"
  if [[ ! -f "$PRESET_FILE" ]]; then
    local names=(configs/"$SCRIPT_NAME"/*.yaml) list
    names=("${names[@]##*/}")
    names=("${names[@]%.yaml}")
    list="$(printf '%s, ' "${names[@]:0:${#names[@]}-1}")"
    echo "$SCRIPT_NAME: unknown PRESET '$PRESET' (use ${list%, } or ${names[-1]})" >&2
    exit 2
  fi
  local knobs name value
  knobs="$(node tools/preset.cjs "$PRESET_FILE" script)"
  while IFS='=' read -r name value; do
    [[ -z "$name" || -n "${!name:-}" ]] || printf -v "$name" '%s' "$value"
  done <<< "$knobs"
}

# preset FILE ARG...: tools/preset.cjs (with SET), its errors named after the script; stops the script if it fails.
preset() {
  local err code=0
  { err="$(node tools/preset.cjs "$@" 2>&1 >&3 3>&-)"; } 3>&1 || code=$?
  [[ -z "$err" ]] || sed "s/^preset: /$SCRIPT_NAME: /" <<< "$err" >&2
  [[ "$code" == 0 ]] || exit 2
}

STAGE_CONFIGS=() # the stages whose --config file stage_config wrote: "NAME|TARGET ARG...|PRESET_FILE|SECTION..."
SCRIPT_KEYS=()   # the settings the script gives its stages as flags (KEY, or SECTION.KEY), which SET may not

# stage_config NAME TARGET SECTION... [-- ARG...]: writes the preset's SECTIONs (merged; a later one's keys win; each
# with SET's values over its own) to $LOG_DIR/config/NAME.json, the --config file of stage NAME, which runs nx target
# TARGET (app:command) with ARGs (e.g. --algo ppo); check_set checks the file against that command's schema.
stage_config() {
  local name="$1" target="$2" sections=() extra=()
  shift 2
  while [[ $# -gt 0 && "$1" != -- ]]; do sections+=("$1"); shift; done
  [[ $# -gt 0 ]] && shift && extra=("$@")
  mkdir -p "$LOG_DIR/config"
  preset "$PRESET_FILE" config "${sections[@]}" > "$(config_of "$name")"
  STAGE_CONFIGS+=("$name|$target${extra[*]:+ ${extra[*]}}|$PRESET_FILE|${sections[*]}")
}

# config_of NAME: the --config file stage_config wrote for stage NAME.
config_of() {
  echo "$LOG_DIR/config/$1.json"
}

# check_set: with SET, before any stage runs: every entry names a section some stage of this run reads (and none of
# SCRIPT_KEYS, the keys the script gives its stages itself as flags: paths, seeds), and each stage whose sections SET changes accepts its --config file (the
# stage's own --print-config: an unknown key or a bad value is an error naming the entry).
check_set() {
  [[ -n "${SET:-}" ]] || return 0
  local entry name command file sections all=()
  for entry in "${STAGE_CONFIGS[@]}"; do
    IFS="|" read -r name command file sections <<< "$entry"
    all+=($sections)
  done
  preset - set-check "${SCRIPT_KEYS[*]}" $(printf '%s\n' "${all[@]}" | sort -u)
  local bad=0
  for entry in "${STAGE_CONFIGS[@]}"; do
    IFS="|" read -r name command file sections <<< "$entry"
    local target="${command%% *}" args=()
    [[ "$command" == *" "* ]] && read -r -a args <<< "${command#* }"
    (preset "$file" check "$name (${command/ / -- })" "$(config_of "$name")" $sections -- \
      node --import tsx "apps/${target%%:*}/src/main.ts" "${target#*:}" "${args[@]}") || bad=1
  done
  [[ "$bad" == 0 ]] || exit 2
  echo "=== $SCRIPT_NAME [$PRESET]: SET='$SET' checked against the stages' settings ==="
}

# preset_value SECTION.KEY: prints one setting of the preset, with SET's (a list joined by commas).
preset_value() {
  preset "$PRESET_FILE" value "$1"
}

# retired VAR=SECTION.KEY ...: stops the script when the environment gives one of these variables (not empty): the
# settings they set are SET's entries now. VAR=SECTION (no key): a pass-through of flags to a stage (SFT_ARGS, ...).
# VAR=\$NEW: a script variable renamed (NEW the name it has now).
retired() {
  local pair var to bad=0
  for pair in "$@"; do
    var="${pair%%=*}" to="${pair#*=}"
    [[ -n "${!var:-}" ]] || continue
    if [[ "$to" == \$* ]]; then
      echo "$SCRIPT_NAME: $var is now ${to#\$} (${to#\$}=${!var})" >&2
    elif [[ "$to" == *.* ]]; then
      echo "$SCRIPT_NAME: $var is gone: use SET='$to=${!var}' (the preset's key; SET='a.b=1 c.d=2' for several)" >&2
    else
      echo "$SCRIPT_NAME: $var is gone: give its settings as SET='$to.KEY=VALUE ...' (the keys as \`--print-config\` of that stage prints them, e.g. maxLen for --max-len)" >&2
    fi
    bad=1
  done
  [[ "$bad" == 0 ]] || exit 2
}

# The shipped base model: the data in data/ that depends on a model was made with it.
SHIPPED_MODEL=models/base

# shipped_model: true when $MODEL_PATH is the shipped base model's folder (by its real path).
shipped_model() {
  [[ -d "$MODEL_PATH" && "$(cd "$MODEL_PATH" && pwd -P)" == "$(cd "$SHIPPED_MODEL" && pwd -P)" ]]
}

# start_run: checks $MODEL_PATH (a checkpoint or LoRA adapter folder) and the training settings every training stage
# shares, sets TRAIN_ARGS from them (and TRAIN_KEYS, the settings those flags set), makes $LOG_DIR, keeps nx quiet,
# says what trains, and starts the clock (T0).
#   LORA_RANK=R           0 (default): every weight trains; R > 0: a LoRA adapter of rank R on the frozen model
#   LORA_ALPHA=A          the adapters' alpha (default 2R: a scale of 2)
#   RECOMPUTE_LAYERS=1  rerun each layer in the backward pass instead of keeping its activations (less memory)
#   BASE_DTYPE=D          fp32 (default), bf16 or int8: the frozen base's matrices under LoRA (needs LORA_RANK > 0);
#                         BASE_DTYPE_ARGS carries it to the stages that only run a model (sampling, evaluation)
#   ENGINE=E              what decodes the samples of every sampling stage: local (default), llamacpp, or openai:URL (a
#                         vLLM / SGLang server serving the stage's starting checkpoint); ENGINE_ARGS carries it (and
#                         ENGINE_SHARED_DIR=DIR, the folder the trainer publishes policy versions to the server through),
#                         ENGINE_KEYS names the settings those flags set
start_run() {
  if [[ ! -f "$MODEL_PATH/config.json" && ! -f "$MODEL_PATH/adapter_config.json" ]]; then
    echo "$SCRIPT_NAME: MODEL_PATH=$MODEL_PATH is neither a checkpoint folder (config.json, a Hugging Face Qwen2 folder) nor a LoRA adapter folder (adapter_config.json)" >&2
    exit 2
  fi
  retired 'GRAD_CHECKPOINTING=$RECOMPUTE_LAYERS' # renamed: "checkpoint" names only a model folder now
  : "${LORA_RANK:=0}" "${RECOMPUTE_LAYERS:=0}"
  if [[ ! "$LORA_RANK" =~ ^[0-9]+$ ]]; then
    echo "$SCRIPT_NAME: LORA_RANK=$LORA_RANK: expected 0 (every weight trains) or a positive rank" >&2
    exit 2
  fi
  if [[ "$RECOMPUTE_LAYERS" != 0 && "$RECOMPUTE_LAYERS" != 1 ]]; then
    echo "$SCRIPT_NAME: RECOMPUTE_LAYERS=$RECOMPUTE_LAYERS: expected 0 or 1" >&2
    exit 2
  fi
  : "${BASE_DTYPE:=fp32}"
  if [[ "$BASE_DTYPE" != fp32 && "$BASE_DTYPE" != bf16 && "$BASE_DTYPE" != int8 ]]; then
    echo "$SCRIPT_NAME: BASE_DTYPE=$BASE_DTYPE: expected fp32, bf16 or int8" >&2
    exit 2
  fi
  if [[ "$BASE_DTYPE" != fp32 && "$LORA_RANK" == 0 ]]; then
    echo "$SCRIPT_NAME: BASE_DTYPE=$BASE_DTYPE: a base in $BASE_DTYPE trains only through LoRA: set LORA_RANK" >&2
    exit 2
  fi
  : "${ENGINE:=local}"
  if [[ "$ENGINE" != local && "$ENGINE" != llamacpp && "$ENGINE" != openai:http://* && "$ENGINE" != openai:https://* ]]; then
    echo "$SCRIPT_NAME: ENGINE=$ENGINE: expected local, llamacpp or openai:http://host:port" >&2
    exit 2
  fi
  if [[ -n "${ENGINE_SHARED_DIR:-}" && "$ENGINE" != openai:* ]]; then
    echo "$SCRIPT_NAME: ENGINE_SHARED_DIR=$ENGINE_SHARED_DIR: only ENGINE=openai:URL publishes through a shared folder" >&2
    exit 2
  fi
  ENGINE_ARGS=(--engine "$ENGINE")
  ENGINE_KEYS=(engine)
  if [[ -n "${ENGINE_SHARED_DIR:-}" ]]; then
    ENGINE_ARGS+=(--engine-shared-dir "$ENGINE_SHARED_DIR")
    ENGINE_KEYS+=(engineSharedDir)
  fi
  TRAIN_ARGS=()
  TRAIN_KEYS=()
  BASE_DTYPE_ARGS=()
  local training="every weight trains"
  if [[ "$LORA_RANK" != 0 ]]; then
    : "${LORA_ALPHA:=$((2 * LORA_RANK))}"
    TRAIN_ARGS+=(--lora-rank "$LORA_RANK" --lora-alpha "$LORA_ALPHA")
    TRAIN_KEYS+=(loraRank loraAlpha)
    training="LoRA r=$LORA_RANK alpha=$LORA_ALPHA (the model frozen)"
  fi
  if [[ "$BASE_DTYPE" != fp32 ]]; then
    BASE_DTYPE_ARGS=(--base-dtype "$BASE_DTYPE")
    TRAIN_ARGS+=("${BASE_DTYPE_ARGS[@]}")
    TRAIN_KEYS+=(baseDtype)
    training="$training, the base in $BASE_DTYPE"
  fi
  if [[ "$RECOMPUTE_LAYERS" == 1 ]]; then
    TRAIN_ARGS+=(--recompute-layers)
    TRAIN_KEYS+=(recomputeLayers)
    training="$training, layer recomputation"
  fi
  mkdir -p "$LOG_DIR"
  : > "$LOG_DIR/times.tsv"
  export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
  echo "=== $SCRIPT_NAME [$PRESET]: MODEL_PATH=$MODEL_PATH; $training; samples decoded by the $ENGINE engine ==="
  T0=$SECONDS
}
