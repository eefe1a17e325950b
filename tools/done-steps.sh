# Resumable steps for the long scripts (tools/post-train-v2.sh, tools/remeasure-v2.sh), sourced by them:
#   step NAME COMMAND...   runs COMMAND unless step NAME finished before (its mark in $OUT/done); the log goes to
#                          $OUT/logs/NAME.log and, on failure, its end to stderr with the script's exit status 1.
#                          A step stopped halfway has no mark and runs again whole. With DRY_RUN=1 it prints the
#                          command instead. Messages start with $STEP_LABEL (the script's name).
#   nx TARGET [-- ARGS...] npx nx run TARGET with its output streamed (nx's own flags go before the "--": after it
#                          they reach the app)
step() {
  local name=$1
  shift
  if [[ -e "$OUT/done/$name" ]]; then
    echo "$STEP_LABEL: $name: done before, skipped"
    return 0
  fi
  if [[ "${DRY_RUN:-0}" == 1 ]]; then
    echo "$STEP_LABEL: $name: $*"
    return 0
  fi
  mkdir -p "$OUT/logs" "$OUT/done"
  local t=$SECONDS
  echo "$STEP_LABEL: $name ..."
  "$@" > "$OUT/logs/$name.log" 2>&1 || { echo "$STEP_LABEL: $name failed; the end of $OUT/logs/$name.log:" >&2; tail -n 20 "$OUT/logs/$name.log" >&2; exit 1; }
  touch "$OUT/done/$name"
  echo "$STEP_LABEL: $name done in $((SECONDS - t)) s"
}

nx() { local target=$1; shift; npx nx run "$target" --outputStyle=stream "$@"; }
