#!/usr/bin/env bash
# Issue 49's measurements, alone on the machine: the GEMM table, bench compare (5 pairs) in the default precision,
# bench train with AVX-512 off / fp32 / bf16, and pretraining tokens/s against 5fe4145 (alternating runs).
set -ux
cd /work/main
R=results/i49
lscpu | grep -E 'Model name|MHz|^CPU\(s\)' > $R/cpu.txt
npx nx run bench:gemm > $R/gemm.out 2> $R/gemm.err
npx nx run bench:compare -- --runs 5 > $R/compare.out 2> $R/compare.err
for i in 1 2 3; do
  RLHF_AVX512=0 node --import tsx apps/bench/src/main.ts train --precision fp32 >> $R/train-avx2-fp32.out 2>> $R/train.err
  node --import tsx apps/bench/src/main.ts train --precision fp32 >> $R/train-avx512-fp32.out 2>> $R/train.err
  node --import tsx apps/bench/src/main.ts train --precision bf16 >> $R/train-avx512-bf16.out 2>> $R/train.err
done
A=/work/wt5fe B=. PAIRS=3 STEPS=60 SKIP=10 OUT=/tmp/pretrain-ab bash tools/pretrain-ab.sh > $R/pretrain-ab.out 2> $R/pretrain-ab.err
echo done
