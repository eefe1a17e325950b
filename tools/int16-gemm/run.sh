#!/bin/sh
# Builds and runs the int16 x int8 GEMM microbenchmark: every micro-kernel of int16_gemm.h this CPU has
# (AVX2, AVX-VNNI, AVX-512 VNNI; chosen at run time). Arguments: [threads (2)] [outliers]. Heavy: run under the
# machine lock.
set -e
here=$(dirname "$0")
native="$here/../../libs/backend/native"
out=${TMPDIR:-/tmp}/int16-gemm-bench
mkdir -p "$out"
flags="-O3 -std=c++17 -I$native -I$here"
c++ $flags -mavx2 -mfma -c "$native/gemm_avx2.cc" -o "$out/gemm_avx2.o"
c++ $flags -c "$native/pool.cc" -o "$out/pool.o"
c++ $flags -mavx2 -mfma "$here/bench.cc" "$out/gemm_avx2.o" "$out/pool.o" -lpthread -o "$out/bench"
"$out/bench" "$@"
