#!/bin/sh
# Builds and runs the int16 x int8 GEMM microbenchmark (issue 39): AVX2 (vpmaddwd + vpaddd) and, when the compiler
# and CPU have AVX-VNNI, the vpdpwssd variant. Arguments: [threads (2)] [outliers]. Heavy: run under the machine lock.
set -e
here=$(dirname "$0")
native="$here/../../libs/backend/native"
out=${TMPDIR:-/tmp}/int16-gemm-bench
mkdir -p "$out"
flags="-O3 -std=c++17 -I$native -I$here"
c++ $flags -mavx2 -mfma -c "$native/kernels_avx2.cc" -o "$out/kernels_avx2.o"
c++ $flags -c "$native/pool.cc" -o "$out/pool.o"
c++ $flags -mavx2 -mfma "$here/bench.cc" "$out/kernels_avx2.o" "$out/pool.o" -lpthread -o "$out/bench-avx2"
echo "## AVX2 (vpmaddwd + vpaddd)"
"$out/bench-avx2" "$@"
if grep -q avx_vnni /proc/cpuinfo && c++ $flags -mavx2 -mfma -mavxvnni -DINT16_GEMM_VNNI "$here/bench.cc" "$out/kernels_avx2.o" "$out/pool.o" -lpthread -o "$out/bench-vnni" 2>/dev/null; then
  echo "## AVX-VNNI (vpdpwssd)"
  "$out/bench-vnni" "$@"
fi
