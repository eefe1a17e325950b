#!/usr/bin/env bash
# Issue 49's measurements again on an AMD EPYC Zen 5 (session 12), where bf16 runs on vdpbf16ps (the vendor rule):
# the GEMM table, bench compare (5 pairs) in the default precision, bench train with AVX-512 off / fp32 / bf16 (three
# runs each, alternated), and pretraining tokens/s against 5fe4145 (three alternated pairs). Alone on the machine.
# The outputs were copied to experiments/i49/zen5-*.out; zen5-avx2-ab.out is bench train on 5fe4145 (fp32, AVX2) and
# on this tree with RLHF_AVX512=0 --precision fp32, three alternated pairs (the loop is in EXPERIMENTS.md).
set -ux
cd "$(dirname "$0")/../.."
R=results/i49z
mkdir -p $R
{ lscpu | grep -E 'Model name|Model:|CPU family|MHz|^CPU\(s\)'; grep -m1 vendor_id /proc/cpuinfo; } > $R/cpu.txt
npx nx run bench:gemm > $R/gemm.out 2> $R/gemm.err
npx nx run bench:compare -- --runs 5 > $R/compare.out 2> $R/compare.err
for i in 1 2 3; do
  RLHF_AVX512=0 node --import tsx apps/bench/src/main.ts train --precision fp32 >> $R/train-avx2-fp32.out 2>> $R/train.err
  node --import tsx apps/bench/src/main.ts train --precision fp32 >> $R/train-avx512-fp32.out 2>> $R/train.err
  node --import tsx apps/bench/src/main.ts train --precision bf16 >> $R/train-avx512-bf16.out 2>> $R/train.err
done
A=/work/wt5fe B=. OUT=/tmp/pretrain-ab bash tools/pretrain-ab.sh > $R/pretrain-ab.out 2> $R/pretrain-ab.err
echo done
