#!/usr/bin/env bash
# After the identity-transpose and RoPE-table changes (session 10, later): bench compare and the pretraining A/B against
# 5fe4145 again, alone on the machine.
set -ux
cd "$(dirname "$0")/../.."
R=results/i49
mkdir -p $R
npx nx run bench:compare -- --runs 5 > $R/compare5.out 2> $R/compare5.err
A=/work/wt5fe B=. OUT=/tmp/pretrain-ab bash tools/pretrain-ab.sh > $R/pretrain-ab3.out 2> $R/pretrain-ab3.err
echo done
