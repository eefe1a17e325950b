// Microbenchmark of the int16-activation x int8-weight GEMM (int16_gemm.h) with each micro-kernel this CPU
// has (AVX2, AVX-VNNI, AVX-512 VNNI) against the engine's int8 path with fp32 activations (avx2::lowPrecisionMatMul:
// dequantise into the fp32 GEMM's packing) and the fp32 GEMM, on the layer shapes of Qwen2.5-Coder-0.5B, both
// orientations, 2 threads. Also the error of each against a double-precision reference over the same int8 weights.
// Build and run: tools/int16-gemm/run.sh (prints a table; no assertions).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "int16_gemm.h"
#include "kernels.h"
#include "pool.h"

using Clock = std::chrono::steady_clock;

template <typename F>
double medianMs(F f, int reps) {
  std::vector<double> t;
  f();  // warm-up
  for (int i = 0; i < reps; i++) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

struct Err {
  double maxAbs = 0, refMax = 0, sq = 0, refSq = 0;
  double rel() const { return std::sqrt(sq / std::max(refSq, 1e-300)); }
};

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const bool outliers = argc > 2 && std::string(argv[2]) == "outliers";
  rlhf::setThreads(threads);
  struct Shape {
    const char* name;
    int64_t out, in;
  };
  const Shape shapes[] = {{"q/o [896->896]", 896, 896}, {"k/v [896->128]", 128, 896}, {"gate/up [896->4864]", 4864, 896},
                          {"down [4864->896]", 896, 4864}, {"LM head [896->151936]", 151936, 896}};
  std::mt19937 rng(1);
  std::normal_distribution<float> normal(0.f, 1.f);
  i16gemm::QuantA qa;
  std::vector<i16gemm::Kernel> kernels;
  for (auto k : i16gemm::kKernels) {
    if (i16gemm::cpuHas(k)) kernels.push_back(k);
  }
  std::printf("| shape | orientation | M | fp32 GEMM ms | int8 fp32-act ms |");
  for (auto k : kernels) std::printf(" int16 %s ms | GFLOP/s | rel. err |", i16gemm::kernelName(k));
  std::printf("\n| --- | --- | ---: | ---: | ---: |");
  for (size_t i = 0; i < kernels.size(); i++) std::printf(" ---: | ---: | ---: |");
  std::printf("\n");
  for (const Shape& s : shapes) {
    // W [out, in] int8 with per-row scales, from normal values; its fp32 dequantisation for the fp32 GEMM.
    std::vector<int8_t> w(s.out * s.in);
    std::vector<float> scales(s.out), wf(s.out * s.in);
    for (int64_t r = 0; r < s.out; r++) {
      scales[r] = 0.02f / 127 * (0.5f + (r % 7) / 7.f);
      for (int64_t c = 0; c < s.in; c++) {
        const int v = std::max(-127, std::min(127, (int)std::lround(normal(rng) * 40)));
        w[r * s.in + c] = (int8_t)v;
        wf[r * s.in + c] = v * scales[r];
      }
    }
    const rlhf::avx2::LowPrecision lp{rlhf::avx2::LowPrecision::Int8, w.data(), scales.data(), s.out, s.in};
    for (bool transW : {true, false}) {
      const int64_t n = transW ? s.out : s.in, k = transW ? s.in : s.out;
      for (int64_t m : {128, 256}) {
        std::vector<float> a(m * k), c0(m * n), c1(m * n), c2(m * n);
        for (int64_t i = 0; i < m; i++) {
          for (int64_t p = 0; p < k; p++) a[i * k + p] = normal(rng);
          if (outliers) for (int64_t p = 0; p < k; p += 97) a[i * k + p] *= 100.f;  // a few channels 100x the rest
        }
        const int reps = s.out > 100000 ? 3 : 7;
        const rlhf::Gemm g{false, transW, m, n, k};
        // Relative Frobenius error against a double reference on 8 rows and up to 512 columns.
        auto error = [&](const std::vector<float>& c) {
          Err e;
          for (int64_t i = 0; i < m; i += m / 8) {
            for (int64_t j = 0; j < n; j += std::max<int64_t>(1, n / 512)) {
              double ref = 0;
              for (int64_t p = 0; p < k; p++) ref += (double)a[i * k + p] * (transW ? (double)wf[j * s.in + p] : (double)wf[p * s.in + j]);
              const double v = c[i * n + j];
              e.sq += (v - ref) * (v - ref);
              e.refSq += ref * ref;
            }
          }
          return e.rel();
        };
        const double tFp32 = medianMs([&] { rlhf::avx2::gemm(g, a.data(), wf.data(), c0.data(), true); }, reps);
        const double tNow = medianMs([&] { rlhf::avx2::lowPrecisionMatMul(lp, transW, m, a.data(), c1.data(), true); }, reps);
        std::printf("| %s | %s | %lld | %.2f | %.2f |", s.name, transW ? "x W^T (fwd)" : "dy W (dgrad)", (long long)m, tFp32, tNow);
        const double flop = 2.0 * m * n * k;
        for (auto kern : kernels) {
          i16gemm::setKernel(kern);
          const double t = medianMs([&] { i16gemm::matMul(w.data(), scales.data(), s.out, s.in, transW, m, a.data(), c2.data(), true, qa); }, reps);
          std::printf(" %.2f | %.0f | %.1e |", t, flop / (t * 1e6), error(c2));
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  }
  return 0;
}
