#!/usr/bin/env bash
# After run.sh: bench compare again on the default kernel choice (bf16 emulated on a CPU where vdpbf16ps is slower),
# then the GEMM table with the emulated bf16 variant, and bench train bf16 with vdpbf16ps forced, alternated.
set -ux
cd /work/main
R=results/i49
npx nx run bench:compare -- --runs 5 > $R/compare2.out 2> $R/compare2.err
npx nx run bench:gemm > $R/gemm2.out 2> $R/gemm2.err
for i in 1 2 3; do
  RLHF_BF16_GEMM=vdpbf16ps node --import tsx apps/bench/src/main.ts train --precision bf16 --profile >> $R/train2-vdpbf16ps.out 2>> $R/train2-vdpbf16ps.err
  RLHF_BF16_GEMM=emulated node --import tsx apps/bench/src/main.ts train --precision bf16 --profile >> $R/train2-emulated.out 2>> $R/train2-emulated.err
  node --import tsx apps/bench/src/main.ts train --precision fp32 --profile >> $R/train2-fp32.out 2>> $R/train2-fp32.err
done
echo done
