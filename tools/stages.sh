# Shared by run_all.sh and run_tools.sh (sourced): how a pipeline script runs its stages.
# The script sets SCRIPT_NAME (for messages), PRESET and LOG_DIR before calling these.

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
