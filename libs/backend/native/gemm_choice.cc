// The GEMM micro-kernel chosen at run time (kernels.h gemmKernel): gemm_avx2.cc's, or kernels_avx512.cc's where the
// CPU has AVX-512 (and BF16). Plain code, compiled without vector flags: it checks the CPU before calling either.
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"
#include "pool.h"

namespace rlhf {

namespace {

enum class GemmKernel { Avx2, Avx512, Avx512Bf16 };
constexpr GemmKernel kGemmKernels[] = {GemmKernel::Avx2, GemmKernel::Avx512, GemmKernel::Avx512Bf16};  // narrowest first

const char* gemmKernelName(GemmKernel k) {
  return k == GemmKernel::Avx512Bf16 ? "avx512bf16" : k == GemmKernel::Avx512 ? "avx512" : "avx2";
}

/** Whether this CPU (and OS: __builtin_cpu_supports checks the saved register state) runs kernel k, and it is allowed. */
bool cpuHas(GemmKernel k) {
  const bool avx512 = avx512Allowed() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  switch (k) {
    case GemmKernel::Avx512Bf16: return avx512 && __builtin_cpu_supports("avx512bf16");
    case GemmKernel::Avx512: return avx512;
    default: return true;  // the addon runs its kernels only on a CPU with AVX2 and FMA
  }
}

GemmKernel& currentGemmKernel() {
  static GemmKernel k = cpuHas(GemmKernel::Avx512Bf16) ? GemmKernel::Avx512Bf16 : cpuHas(GemmKernel::Avx512) ? GemmKernel::Avx512 : GemmKernel::Avx2;
  return k;
}

}  // namespace

const char* gemmKernel() { return gemmKernelName(currentGemmKernel()); }

bool setGemmKernel(const char* name) {
  for (auto k : kGemmKernels) {
    if (std::strcmp(name, gemmKernelName(k)) == 0 && cpuHas(k)) {
      currentGemmKernel() = k;
      return true;
    }
  }
  return false;
}

const char* gemmKernels() {
  static const std::string names = [] {
    std::string s;
    for (auto k : kGemmKernels) {
      if (cpuHas(k)) s += (s.empty() ? "" : ",") + std::string(gemmKernelName(k));
    }
    return s;
  }();
  return names.c_str();
}

void gemmActive(const Gemm& g, const float* a, const float* b, float* c, bool parallel, Precision precision) {
  const bool bf16 = precision == Precision::Bf16;
  switch (currentGemmKernel()) {
    case GemmKernel::Avx512Bf16:
      return avx512::gemm(g, a, b, c, parallel, bf16 ? avx512::Mode::Bf16 : avx512::Mode::Fp32);
    case GemmKernel::Avx512:
      return avx512::gemm(g, a, b, c, parallel, bf16 ? avx512::Mode::Fp32RoundedBf16 : avx512::Mode::Fp32);
    default:
      return avx2::gemm(g, a, b, c, parallel, bf16);
  }
}

double peakGflops(const char* kind, double seconds) {
  double (*loop)(double) = nullptr;
  if (std::strcmp(kind, "avx2") == 0) loop = avx2::fmaFlops;
  else if (std::strcmp(kind, "avx512") == 0 && cpuHas(GemmKernel::Avx512)) loop = avx512::fmaFlops;
  else if (std::strcmp(kind, "avx512bf16") == 0 && cpuHas(GemmKernel::Avx512Bf16)) loop = avx512::bf16Flops;
  if (loop == nullptr) return -1;
  // One task per thread, all FLOPs over the wall time from the first start to the last end: the throughput of the
  // threads running at once (a thread that only ran after another had finished would halve it, as it should).
  using Clock = std::chrono::steady_clock;
  const int n = threads();
  std::vector<double> flops(n, 0.0);
  std::vector<Clock::time_point> ends(n);
  const auto start = Clock::now();
  parallelFor(n, [&](int t) {
    flops[t] = loop(seconds);
    ends[t] = Clock::now();
  });
  double sum = 0;
  auto end = start;
  for (int t = 0; t < n; t++) sum += flops[t], end = std::max(end, ends[t]);
  return sum / std::chrono::duration<double>(end - start).count() / 1e9;
}

}  // namespace rlhf
