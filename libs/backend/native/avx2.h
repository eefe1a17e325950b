// Helpers shared by the AVX2 kernel files (each compiled with -mavx2 -mfma; include this only from those): a vector's
// horizontal sum, loads of float32 / int8 / bf16 values, software prefetch for streamed matrices, dot products of four
// rows, axpy, a range split over the pool's threads, and a vectorised exp.
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "pool.h"

namespace rlhf {
namespace avx2 {

inline float hsum(__m256 v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  s = _mm_add_ss(s, _mm_movehdup_ps(s));
  return _mm_cvtss_f32(s);
}

/**
 * 8 consecutive matrix values as floats: float32 as they are; int8 the integers (the row's scale applied by the
 * caller); bf16 (uint16_t bits) widened. toFloat is the same for one value.
 */
inline __m256 load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 load8(const int8_t* p) {
  return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p))));
}
inline __m256 load8(const uint16_t* p) {
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16));
}
inline float toFloat(float v) { return v; }
inline float toFloat(int8_t v) { return static_cast<float>(v); }
inline float toFloat(uint16_t v) {
  const uint32_t bits = static_cast<uint32_t>(v) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

/**
 * Software prefetch for the kernels that stream a row-major matrix a block of rows at a time (the products of a decode
 * step): rows of a few KB are too short for the hardware prefetcher to ramp up, and a thread then waits on DRAM between
 * blocks (the int8 products of a decode step ran at half the machine's read bandwidth). While one block is read, the
 * block [from, to) a few KB further on is fetched into L1, `perStep` cache lines per step() so the requests spread
 * over the block's loop. Prefetches never fault; [from, to) still stays inside the matrix.
 */
class Ahead {
 public:
  Ahead(const void* from, const void* to, int64_t steps)
      : next_(static_cast<const char*>(from)), end_(static_cast<const char*>(to)),
        perStep_(steps > 0 ? std::max<int64_t>(1, ((end_ - next_) / 64 + steps - 1) / steps) : 0) {}
  inline void step() {
    for (int64_t i = 0; i < perStep_ && next_ < end_; i++, next_ += 64) _mm_prefetch(next_, _MM_HINT_T0);
  }
  /** How many blocks of `blockBytes` ahead to fetch: the first one at least about 6 KB ahead. */
  static int64_t distance(int64_t blockBytes) { return std::max<int64_t>(1, (6144 + blockBytes - 1) / std::max<int64_t>(blockBytes, 1)); }

 private:
  const char* next_;
  const char* end_;
  int64_t perStep_;
};

/**
 * t[q] = dot(w_q[0, k), x[0, k)) for four matrix rows w0..w3 (float32, int8 or bf16 values, load8 / toFloat) and one
 * vector x: two accumulators per row (eight independent FMA chains keep both FMA units busy), `fetch` stepped once per
 * 8 values read, the last k % 8 values one at a time. The one-vector case of dots and lowDots.
 */
template <typename T>
inline void fourDots(const T* w0, const T* w1, const T* w2, const T* w3, const float* x, int64_t k, Ahead& fetch, float t[4]) {
  const int64_t k8 = k & ~int64_t(7);
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, c0 = a0, c1 = a0, c2 = a0, c3 = a0;
  int64_t p = 0;
  for (; p + 16 <= k8; p += 16) {
    fetch.step();
    fetch.step();
    const __m256 u = _mm256_loadu_ps(x + p), v = _mm256_loadu_ps(x + p + 8);
    a0 = _mm256_fmadd_ps(load8(w0 + p), u, a0);
    a1 = _mm256_fmadd_ps(load8(w1 + p), u, a1);
    a2 = _mm256_fmadd_ps(load8(w2 + p), u, a2);
    a3 = _mm256_fmadd_ps(load8(w3 + p), u, a3);
    c0 = _mm256_fmadd_ps(load8(w0 + p + 8), v, c0);
    c1 = _mm256_fmadd_ps(load8(w1 + p + 8), v, c1);
    c2 = _mm256_fmadd_ps(load8(w2 + p + 8), v, c2);
    c3 = _mm256_fmadd_ps(load8(w3 + p + 8), v, c3);
  }
  for (; p < k8; p += 8) {
    fetch.step();
    const __m256 u = _mm256_loadu_ps(x + p);
    a0 = _mm256_fmadd_ps(load8(w0 + p), u, a0);
    a1 = _mm256_fmadd_ps(load8(w1 + p), u, a1);
    a2 = _mm256_fmadd_ps(load8(w2 + p), u, a2);
    a3 = _mm256_fmadd_ps(load8(w3 + p), u, a3);
  }
  t[0] = hsum(_mm256_add_ps(a0, c0)), t[1] = hsum(_mm256_add_ps(a1, c1)), t[2] = hsum(_mm256_add_ps(a2, c2)), t[3] = hsum(_mm256_add_ps(a3, c3));
  for (p = k8; p < k; p++) {
    t[0] += toFloat(w0[p]) * x[p], t[1] += toFloat(w1[p]) * x[p], t[2] += toFloat(w2[p]) * x[p], t[3] += toFloat(w3[p]) * x[p];
  }
}

/** y[0:len] += alpha * x[0:len] */
inline void axpy(int64_t len, float alpha, const float* x, float* y) {
  const __m256 a = _mm256_set1_ps(alpha);
  int64_t j = 0;
  for (; j + 8 <= len; j += 8) _mm256_storeu_ps(y + j, _mm256_fmadd_ps(a, _mm256_loadu_ps(x + j), _mm256_loadu_ps(y + j)));
  for (; j < len; j++) y[j] += alpha * x[j];
}

/** Splits [0, total) into about `parts` chunks aligned to `align`, and runs fn(lo, hi) on each (in parallel if asked). */
template <typename F>
void splitRange(int64_t total, int64_t align, bool parallel, int64_t work, F fn) {
  int parts = parallel && work >= 200000 ? threads() * 2 : 1;
  int64_t chunk = (total + parts - 1) / parts;
  chunk = std::max<int64_t>(align, (chunk + align - 1) / align * align);
  const int tasks = (int)((total + chunk - 1) / chunk);
  parallelFor(tasks, [&](int t) { fn(t * chunk, std::min(total, (t + 1) * chunk)); });
}

// ---- exp for the cross-entropy kernels (Cephes' polynomial, relative error ~2e-7 on [-87, 88]) ----
inline __m256 exp256(__m256 x) {
  const __m256 hi = _mm256_set1_ps(88.3762626647949f), lo = _mm256_set1_ps(-88.3762626647949f);
  x = _mm256_max_ps(_mm256_min_ps(x, hi), lo);
  // exp(x) = 2^n * exp(r), n = round(x / ln2), r = x - n ln2 in two parts for accuracy.
  __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504088896341f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), x);
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f), r);
  __m256 y = _mm256_set1_ps(1.9875691500E-4f);
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.3981999507E-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(8.3334519073E-3f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(4.1665795894E-2f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(1.6666665459E-1f));
  y = _mm256_fmadd_ps(y, r, _mm256_set1_ps(5.0000001201E-1f));
  y = _mm256_fmadd_ps(y, _mm256_mul_ps(r, r), _mm256_add_ps(r, _mm256_set1_ps(1.f)));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(y, _mm256_castsi256_ps(e));
}

}  // namespace avx2
}  // namespace rlhf
