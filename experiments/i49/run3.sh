#!/usr/bin/env bash
# After the native Add / Sum and the blocked training attention (session 10): bench compare again (shipped preset,
# idle machine), then pretraining A/B against 5fe4145 (its own worktree and addon) in alternating runs.
set -ux
cd "$(dirname "$0")/../.."
R=results/i49
mkdir -p $R
npx nx run bench:compare -- --runs 5 > $R/compare4.out 2> $R/compare4.err
A=/work/wt5fe B=. OUT=/tmp/pretrain-ab bash tools/pretrain-ab.sh > $R/pretrain-ab2.out 2> $R/pretrain-ab2.err
echo done
