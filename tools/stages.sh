# Shared by run_all.sh and run_tools.sh (sourced): how a pipeline script runs its stages.
# The script sets SCRIPT_NAME (for messages), PRESET, MODEL_PATH and LOG_DIR, then calls start_run.

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
  else
    local code=${PIPESTATUS[0]}
    echo
    echo "$SCRIPT_NAME: stage '$name' failed (exit $code) after $((SECONDS - t)) s. Its output is in $log; the error:" >&2
    grep -iE 'error|failed' "$log" | grep -v '^ *at ' | tail -5 >&2 || tail -5 "$log" >&2
    exit "$code"
  fi
}

# nxrun TARGET ARGS...: an nx target, never from nx's cache, its output streamed.
nxrun() {
  local target="$1"
  shift
  npx nx run "$target" --skip-nx-cache --output-style=stream "$@"
}

# start_run: checks that $MODEL_PATH is a checkpoint folder, makes $LOG_DIR, keeps nx quiet, and starts the clock (T0).
start_run() {
  if [[ ! -f "$MODEL_PATH/config.json" ]]; then
    echo "$SCRIPT_NAME: MODEL_PATH=$MODEL_PATH has no config.json (expected a Hugging Face Qwen2 folder)" >&2
    exit 2
  fi
  mkdir -p "$LOG_DIR"
  export NX_DAEMON=false NX_NO_CLOUD=true NX_TUI=false
  T0=$SECONDS
}
