// The addon's compute kernels, compiled with -mavx2 -mfma (the N-API glue is not, and calls in here only
// after checking the CPU at run time).
//
// GEMM follows the BLIS design (Van Zee & van de Geijn 2015): B is packed into [KC x NR] column panels and A
// into [MR x KC] row panels, so a 6x16 micro-kernel keeps its 12 accumulators in registers and reads both
// panels sequentially; the KC x NC block of B stays in L2/L3, the MC x KC block of A in L2. Transposes are
// absorbed by the packing, so every layout runs the same micro-kernel.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "int16_gemm.h"
#include "kernels.h"
#include "pool.h"

namespace rlhf {
namespace avx2 {
namespace {

constexpr int MR = 6;
constexpr int NR = 16;
constexpr int64_t KC = 256;
constexpr int64_t MC = 96;    // 96 x 256 floats of A: 96 KB, in L2
constexpr int64_t NC = 4096;  // 256 x 4096 floats of B: 4 MB, in L3

/** Element (i, p) of op(A) and (p, j) of op(B), given how they are stored. */
struct View {
  const float* data;
  int64_t rowStride, colStride;
  float at(int64_t r, int64_t c) const { return data[r * rowStride + c * colStride]; }
};

View viewA(const Gemm& g, const float* a) { return g.transA ? View{a, 1, g.m} : View{a, g.k, 1}; }
View viewB(const Gemm& g, const float* b) { return g.transB ? View{b, 1, g.k} : View{b, g.n, 1}; }

/** Packs rows [i0, i0+mc) x cols [p0, p0+kc) of A into MR-row panels, zero-padded: panel[p * MR + i]. */
void packA(const View& A, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min<int64_t>(MR, mc - ir);
    float* panel = out + ir * kc;
    if (A.colStride == 1) {  // rows contiguous along p
      for (int i = 0; i < MR; i++) {
        if (i < rows) {
          const float* src = A.data + (i0 + ir + i) * A.rowStride + p0;
          for (int64_t p = 0; p < kc; p++) panel[p * MR + i] = src[p];
        } else {
          for (int64_t p = 0; p < kc; p++) panel[p * MR + i] = 0.f;
        }
      }
    } else {  // stored transposed: contiguous along i
      for (int64_t p = 0; p < kc; p++) {
        const float* src = A.data + (p0 + p) * A.colStride + (i0 + ir);
        for (int i = 0; i < MR; i++) panel[p * MR + i] = i < rows ? src[i] : 0.f;
      }
    }
  }
}

/** Packs rows [p0, p0+kc) x cols [j0, j0+nc) of B into NR-column panels, zero-padded: panel[p * NR + j]. */
void packB(const View& B, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t cols = std::min<int64_t>(NR, nc - jr);
    float* panel = out + jr * kc;
    if (B.colStride == 1) {  // contiguous along j
      for (int64_t p = 0; p < kc; p++) {
        const float* src = B.data + (p0 + p) * B.rowStride + (j0 + jr);
        if (cols == NR) {
          _mm256_storeu_ps(panel + p * NR, _mm256_loadu_ps(src));
          _mm256_storeu_ps(panel + p * NR + 8, _mm256_loadu_ps(src + 8));
        } else {
          for (int j = 0; j < NR; j++) panel[p * NR + j] = j < cols ? src[j] : 0.f;
        }
      }
    } else {  // stored transposed: contiguous along p
      for (int j = 0; j < NR; j++) {
        if (j < cols) {
          const float* src = B.data + (j0 + jr + j) * B.colStride + p0;
          for (int64_t p = 0; p < kc; p++) panel[p * NR + j] = src[p];
        } else {
          for (int64_t p = 0; p < kc; p++) panel[p * NR + j] = 0.f;
        }
      }
    }
  }
}

/** C[0:mr, 0:nr] (+)= Apanel[MR x kc] * Bpanel[kc x NR]. */
void microKernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int mr, int nr, bool accumulate) {
  __m256 c00 = _mm256_setzero_ps(), c01 = _mm256_setzero_ps();
  __m256 c10 = _mm256_setzero_ps(), c11 = _mm256_setzero_ps();
  __m256 c20 = _mm256_setzero_ps(), c21 = _mm256_setzero_ps();
  __m256 c30 = _mm256_setzero_ps(), c31 = _mm256_setzero_ps();
  __m256 c40 = _mm256_setzero_ps(), c41 = _mm256_setzero_ps();
  __m256 c50 = _mm256_setzero_ps(), c51 = _mm256_setzero_ps();
  for (int64_t p = 0; p < kc; p++) {
    const __m256 b0 = _mm256_loadu_ps(b + p * NR);
    const __m256 b1 = _mm256_loadu_ps(b + p * NR + 8);
    const float* ap = a + p * MR;
    __m256 x = _mm256_broadcast_ss(ap + 0);
    c00 = _mm256_fmadd_ps(x, b0, c00), c01 = _mm256_fmadd_ps(x, b1, c01);
    x = _mm256_broadcast_ss(ap + 1);
    c10 = _mm256_fmadd_ps(x, b0, c10), c11 = _mm256_fmadd_ps(x, b1, c11);
    x = _mm256_broadcast_ss(ap + 2);
    c20 = _mm256_fmadd_ps(x, b0, c20), c21 = _mm256_fmadd_ps(x, b1, c21);
    x = _mm256_broadcast_ss(ap + 3);
    c30 = _mm256_fmadd_ps(x, b0, c30), c31 = _mm256_fmadd_ps(x, b1, c31);
    x = _mm256_broadcast_ss(ap + 4);
    c40 = _mm256_fmadd_ps(x, b0, c40), c41 = _mm256_fmadd_ps(x, b1, c41);
    x = _mm256_broadcast_ss(ap + 5);
    c50 = _mm256_fmadd_ps(x, b0, c50), c51 = _mm256_fmadd_ps(x, b1, c51);
  }
  alignas(32) float tile[MR * NR];
  const __m256 acc[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}};
  if (mr == MR && nr == NR) {
    for (int i = 0; i < MR; i++) {
      float* row = c + i * ldc;
      __m256 lo = acc[i][0], hi = acc[i][1];
      if (accumulate) lo = _mm256_add_ps(lo, _mm256_loadu_ps(row)), hi = _mm256_add_ps(hi, _mm256_loadu_ps(row + 8));
      _mm256_storeu_ps(row, lo);
      _mm256_storeu_ps(row + 8, hi);
    }
    return;
  }
  for (int i = 0; i < MR; i++) {
    _mm256_store_ps(tile + i * NR, acc[i][0]);
    _mm256_store_ps(tile + i * NR + 8, acc[i][1]);
  }
  for (int i = 0; i < mr; i++) {
    for (int j = 0; j < nr; j++) c[i * ldc + j] = accumulate ? c[i * ldc + j] + tile[i * NR + j] : tile[i * NR + j];
  }
}

/**
 * Rounds count floats to bf16 values in place (round to nearest even, a NaN kept a quiet NaN; they stay float32 with
 * the low 16 bits zero): the packed operands of the emulated bf16 GEMM (kernels.h Precision).
 */
void roundToBf16(float* x, int64_t count) {
  const __m256i absMask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
  const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1), high = _mm256_set1_epi32(int(0xffff0000u));
  const __m256i quiet = _mm256_set1_epi32(0x00400000);
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    const __m256i u = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, absMask), inf);
    const __m256i rounded = _mm256_add_epi32(u, _mm256_add_epi32(bias, _mm256_and_si256(_mm256_srli_epi32(u, 16), one)));
    const __m256i r = _mm256_blendv_epi8(rounded, _mm256_or_si256(u, quiet), nan);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + i), _mm256_and_si256(r, high));
  }
  for (; i < count; i++) {
    uint32_t u;
    std::memcpy(&u, x + i, sizeof u);
    u = (u & 0x7fffffffu) > 0x7f800000u ? (u | 0x00400000u) & 0xffff0000u : (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
    std::memcpy(x + i, &u, sizeof u);
  }
}

/**
 * C[i0:i1, j0:j1] of op(A) op(B), single-threaded, with its own packing buffers; `packPanelsB(p0, kc, j0, nc, out)`
 * packs a block of op(B) as packB does (a low-precision B dequantises there, so the micro-kernel stays fp32).
 * bf16Operands: both packed blocks are rounded to bf16 values (the emulated bf16 GEMM).
 */
template <typename PackB>
void gemmBlockWith(const Gemm& g, const View& A, PackB packPanelsB, float* c, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
                   bool bf16Operands = false) {
  thread_local std::vector<float> bufA, bufB;
  bufA.resize(MC * KC);
  bufB.resize(NC * KC);
  for (int64_t jc = j0; jc < j1; jc += NC) {
    const int64_t nc = std::min(NC, j1 - jc);
    for (int64_t pc = 0; pc < g.k; pc += KC) {
      const int64_t kc = std::min(KC, g.k - pc);
      packPanelsB(pc, kc, jc, nc, bufB.data());
      if (bf16Operands) roundToBf16(bufB.data(), ((nc + NR - 1) / NR) * NR * kc);
      for (int64_t ic = i0; ic < i1; ic += MC) {
        const int64_t mc = std::min(MC, i1 - ic);
        packA(A, ic, mc, pc, kc, bufA.data());
        if (bf16Operands) roundToBf16(bufA.data(), ((mc + MR - 1) / MR) * MR * kc);
        for (int64_t jr = 0; jr < nc; jr += NR) {
          for (int64_t ir = 0; ir < mc; ir += MR) {
            microKernel(kc, bufA.data() + ir * kc, bufB.data() + jr * kc, c + (ic + ir) * g.n + jc + jr, g.n,
                        (int)std::min<int64_t>(MR, mc - ir), (int)std::min<int64_t>(NR, nc - jr), pc > 0);
          }
        }
      }
    }
  }
}

void gemmBlock(const Gemm& g, const View& A, const View& B, float* c, int64_t i0, int64_t i1, int64_t j0, int64_t j1,
               bool bf16Operands) {
  gemmBlockWith(g, A, [&](int64_t p0, int64_t kc, int64_t jb, int64_t nc, float* out) { packB(B, p0, kc, jb, nc, out); }, c, i0, i1, j0, j1,
                bf16Operands);
}

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

/**
 * out[r * outBig + s * outSmall] = dot(big[r], small[s]) for big rows [r0, r1) and all nSmall small rows, each
 * of length k (rows contiguous, strides ldBig / ldSmall). Big rows are streamed once; small ones stay in L1.
 */
void dots(const float* big, int64_t ldBig, int64_t r0, int64_t r1, const float* small, int64_t ldSmall, int nSmall,
          int64_t k, float* out, int64_t outBig, int64_t outSmall) {
  const int64_t k8 = k & ~int64_t(7);
  const int64_t ahead = 4 * Ahead::distance(4 * ldBig * int64_t(sizeof(float)));  // rows
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    const float* b0 = big + r * ldBig;
    const float* b1 = b0 + ldBig;
    const float* b2 = b1 + ldBig;
    const float* b3 = b2 + ldBig;
    Ahead fetch(big + std::min(r + ahead, r1) * ldBig, big + std::min(r + ahead + 4, r1) * ldBig, k8 / 8);
    int s = 0;
    for (; s + 2 <= nSmall; s += 2) {
      const float* s0 = small + s * ldSmall;
      const float* s1 = s0 + ldSmall;
      __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
      for (int64_t p = 0; p < k8; p += 8) {
        fetch.step();
        const __m256 x0 = _mm256_loadu_ps(s0 + p), x1 = _mm256_loadu_ps(s1 + p);
        __m256 y = _mm256_loadu_ps(b0 + p);
        a00 = _mm256_fmadd_ps(y, x0, a00), a01 = _mm256_fmadd_ps(y, x1, a01);
        y = _mm256_loadu_ps(b1 + p);
        a10 = _mm256_fmadd_ps(y, x0, a10), a11 = _mm256_fmadd_ps(y, x1, a11);
        y = _mm256_loadu_ps(b2 + p);
        a20 = _mm256_fmadd_ps(y, x0, a20), a21 = _mm256_fmadd_ps(y, x1, a21);
        y = _mm256_loadu_ps(b3 + p);
        a30 = _mm256_fmadd_ps(y, x0, a30), a31 = _mm256_fmadd_ps(y, x1, a31);
      }
      float t[8] = {hsum(a00), hsum(a01), hsum(a10), hsum(a11), hsum(a20), hsum(a21), hsum(a30), hsum(a31)};
      for (int64_t p = k8; p < k; p++) {
        t[0] += b0[p] * s0[p], t[1] += b0[p] * s1[p], t[2] += b1[p] * s0[p], t[3] += b1[p] * s1[p];
        t[4] += b2[p] * s0[p], t[5] += b2[p] * s1[p], t[6] += b3[p] * s0[p], t[7] += b3[p] * s1[p];
      }
      for (int q = 0; q < 4; q++) {
        out[(r + q) * outBig + s * outSmall] = t[2 * q];
        out[(r + q) * outBig + (s + 1) * outSmall] = t[2 * q + 1];
      }
    }
    for (; s < nSmall; s++) {
      float t[4];
      fourDots(b0, b1, b2, b3, small + s * ldSmall, k, fetch, t);
      for (int q = 0; q < 4; q++) out[(r + q) * outBig + s * outSmall] = t[q];
    }
  }
  for (; r < r1; r++) {
    const float* b0 = big + r * ldBig;
    for (int s = 0; s < nSmall; s++) {
      const float* s0 = small + s * ldSmall;
      __m256 acc = _mm256_setzero_ps();
      for (int64_t p = 0; p < k8; p += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(b0 + p), _mm256_loadu_ps(s0 + p), acc);
      float t = hsum(acc);
      for (int64_t p = k8; p < k; p++) t += b0[p] * s0[p];
      out[r * outBig + s * outSmall] = t;
    }
  }
}

/** y[0:len] += alpha * x[0:len] */
inline void axpy(int64_t len, float alpha, const float* x, float* y) {
  const __m256 a = _mm256_set1_ps(alpha);
  int64_t j = 0;
  for (; j + 8 <= len; j += 8) _mm256_storeu_ps(y + j, _mm256_fmadd_ps(a, _mm256_loadu_ps(x + j), _mm256_loadu_ps(y + j)));
  for (; j < len; j++) y[j] += alpha * x[j];
}

/**
 * t[s][col] = sum_p small[p * ldSmall + s] * big[p * ldBig + col] for s < NS and col in [c0, c1), stored at
 * out[s * outS + col * outC]: a few rows (NS <= 8, packed along p) times rows of a big operand streamed along p.
 * Each block of 8 columns keeps its NS accumulators in registers over the whole of k: a row update per (p, s) (the
 * axpy this replaces) loads and stores the output at every multiply-add and ran 3-5x slower on LoRA's shapes. The
 * sums run over p in order with one FMA each, as the row updates did (the same rounding).
 */
template <int NS>
void fewTimesRowsN(const float* small, int64_t ldSmall, const float* big, int64_t ldBig, int64_t k, int64_t c0, int64_t c1,
                   float* out, int64_t outS, int64_t outC) {
  int64_t c = c0;
  for (; c + 8 <= c1; c += 8) {
    __m256 acc[NS];
    for (int s = 0; s < NS; s++) acc[s] = _mm256_setzero_ps();
    for (int64_t p = 0; p < k; p++) {
      const __m256 y = _mm256_loadu_ps(big + p * ldBig + c);
      const float* sp = small + p * ldSmall;
      for (int s = 0; s < NS; s++) acc[s] = _mm256_fmadd_ps(_mm256_broadcast_ss(sp + s), y, acc[s]);
    }
    if (outC == 1) {
      for (int s = 0; s < NS; s++) _mm256_storeu_ps(out + s * outS + c, acc[s]);
    } else {
      alignas(32) float t[NS][8];
      for (int s = 0; s < NS; s++) _mm256_store_ps(t[s], acc[s]);
      for (int q = 0; q < 8; q++)
        for (int s = 0; s < NS; s++) out[s * outS + (c + q) * outC] = t[s][q];
    }
  }
  for (; c < c1; c++) {
    for (int s = 0; s < NS; s++) {
      float v = 0.f;
      for (int64_t p = 0; p < k; p++) v = std::fma(small[p * ldSmall + s], big[p * ldBig + c], v);
      out[s * outS + c * outC] = v;
    }
  }
}

/** fewTimesRowsN for any number of small rows ns, 8 at a time. */
void fewTimesRows(const float* small, int64_t ldSmall, int64_t ns, const float* big, int64_t ldBig, int64_t k, int64_t c0, int64_t c1,
                  float* out, int64_t outS, int64_t outC) {
  using Fn = void (*)(const float*, int64_t, const float*, int64_t, int64_t, int64_t, int64_t, float*, int64_t, int64_t);
  static constexpr Fn byCount[] = {nullptr, fewTimesRowsN<1>, fewTimesRowsN<2>, fewTimesRowsN<3>, fewTimesRowsN<4>,
                                   fewTimesRowsN<5>, fewTimesRowsN<6>, fewTimesRowsN<7>, fewTimesRowsN<8>};
  for (int64_t s0 = 0; s0 < ns; s0 += 8) {
    byCount[std::min<int64_t>(8, ns - s0)](small + s0, ldSmall, big, ldBig, k, c0, c1, out + s0 * outS, outS, outC);
  }
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

}  // namespace

void gemm(const Gemm& g, const float* a, const float* b, float* c, bool parallel, bool bf16Operands) {
  const View A = viewA(g, a), B = viewB(g, b);
  const int64_t work = g.m * g.n * g.k;
  // Split the larger of M and N; each part packs its own copy of the other operand's block.
  if (g.m >= g.n) {
    splitRange(g.m, MR * 8, parallel, work, [&](int64_t lo, int64_t hi) { gemmBlock(g, A, B, c, lo, hi, 0, g.n, bf16Operands); });
  } else {
    splitRange(g.n, NR * 8, parallel, work, [&](int64_t lo, int64_t hi) { gemmBlock(g, A, B, c, 0, g.m, lo, hi, bf16Operands); });
  }
}

/**
 * `iters` rounds of 12 independent ymm FMAs (2 pipes x 4 cycles of latency need 8 chains); the empty asm keeps every
 * accumulator in its register (a compiler would otherwise keep some on the stack) and the loop alive.
 */
static __attribute__((noinline)) float fmaRounds(int64_t iters) {
  const __m256 x = _mm256_set1_ps(0.999f), y = _mm256_set1_ps(0.001f);
  __m256 a0 = _mm256_set1_ps(0.01f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0, a10 = a0, a11 = a0;
  for (int64_t it = 0; it < iters; it++) {
    a0 = _mm256_fmadd_ps(a0, x, y), a1 = _mm256_fmadd_ps(a1, x, y), a2 = _mm256_fmadd_ps(a2, x, y), a3 = _mm256_fmadd_ps(a3, x, y);
    a4 = _mm256_fmadd_ps(a4, x, y), a5 = _mm256_fmadd_ps(a5, x, y), a6 = _mm256_fmadd_ps(a6, x, y), a7 = _mm256_fmadd_ps(a7, x, y);
    a8 = _mm256_fmadd_ps(a8, x, y), a9 = _mm256_fmadd_ps(a9, x, y), a10 = _mm256_fmadd_ps(a10, x, y), a11 = _mm256_fmadd_ps(a11, x, y);
    __asm__ volatile("" : "+x"(a0), "+x"(a1), "+x"(a2), "+x"(a3), "+x"(a4), "+x"(a5), "+x"(a6), "+x"(a7), "+x"(a8), "+x"(a9), "+x"(a10), "+x"(a11));
  }
  return hsum(_mm256_add_ps(_mm256_add_ps(a0, a5), a11));
}

double fmaFlops(double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  constexpr int64_t kRounds = int64_t(1) << 16;
  double flops = 0;
  volatile float sink = 0;
  do {
    sink = sink + fmaRounds(kRounds);
    flops += 12.0 * 16.0 * double(kRounds);
  } while (std::chrono::duration<double>(Clock::now() - start).count() < seconds);
  return flops;
}

void skinny(const Gemm& g, const float* a, const float* b, float* c, bool parallel) {
  const int64_t m = g.m, n = g.n, k = g.k;
  const int64_t work = m * n * k;
  if (m <= n) {
    // Few rows: op(A) copied (Ap[m][k], or Ap[k][m] when B is not transposed); B streamed once.
    thread_local std::vector<float> ap;
    ap.resize(m * k);
    const View A = viewA(g, a);
    const float* small = ap.data();  // a thread_local named inside the lambdas would be each worker's own
    if (g.transB) {  // B stored [n][k]: C[i][j] = dot(Ap[i], B[j])
      for (int64_t i = 0; i < m; i++)
        for (int64_t p = 0; p < k; p++) ap[i * k + p] = A.at(i, p);
      splitRange(n, 16, parallel, work, [&](int64_t lo, int64_t hi) {
        dots(b, k, lo, hi, small, k, (int)m, k, c, 1, n);
      });
    } else {  // B stored [k][n]: C[i][:] = sum_p Ap[p][i] B[p][:]
      for (int64_t p = 0; p < k; p++)
        for (int64_t i = 0; i < m; i++) ap[p * m + i] = A.at(i, p);
      splitRange(n, 64, parallel, work, [&](int64_t lo, int64_t hi) { fewTimesRows(small, m, m, b, n, k, lo, hi, c, n, 1); });
    }
  } else {
    // Few columns: op(B) copied (Bt[n][k], or B[k][n] when A is transposed); A streamed once.
    thread_local std::vector<float> bt;
    bt.resize(n * k);
    const View B = viewB(g, b);
    const float* small = bt.data();
    if (!g.transA) {  // A stored [m][k]: C[i][j] = dot(A[i], Bt[j])
      for (int64_t j = 0; j < n; j++)
        for (int64_t p = 0; p < k; p++) bt[j * k + p] = B.at(p, j);
      splitRange(m, 16, parallel, work, [&](int64_t lo, int64_t hi) {
        dots(a, k, lo, hi, small, k, (int)n, k, c, n, 1);
      });
    } else {  // A stored [k][m]: C[i][j] = sum_p B[p][j] A[p][i], written transposed
      for (int64_t p = 0; p < k; p++)
        for (int64_t j = 0; j < n; j++) bt[p * n + j] = B.at(p, j);
      splitRange(m, 64, parallel, work, [&](int64_t lo, int64_t hi) { fewTimesRows(small, n, n, a, m, k, lo, hi, c, 1, n); });
    }
  }
}

double sumSquares(int64_t count, const float* const* xs, const int64_t* sizes) {
  // Chunks of at most kChunk values, each summed by one task in double; the partial sums added in chunk order.
  constexpr int64_t kChunk = 1 << 16;
  std::vector<std::pair<const float*, int64_t>> chunks;
  for (int64_t t = 0; t < count; t++) {
    for (int64_t lo = 0; lo < sizes[t]; lo += kChunk) chunks.emplace_back(xs[t] + lo, std::min(kChunk, sizes[t] - lo));
  }
  std::vector<double> partial(chunks.size(), 0.0);
  const int64_t total = std::accumulate(sizes, sizes + count, int64_t(0));
  const int tasks = total < (1 << 18) ? 1 : threads();
  parallelFor(tasks, [&](int task) {
    for (size_t c = task; c < chunks.size(); c += tasks) {
      const float* x = chunks[c].first;
      const int64_t n = chunks[c].second;
      __m256d acc[4] = {_mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd(), _mm256_setzero_pd()};
      int64_t i = 0;
      for (; i + 16 <= n; i += 16) {
        for (int j = 0; j < 4; j++) {
          const __m256d v = _mm256_cvtps_pd(_mm_loadu_ps(x + i + 4 * j));
          acc[j] = _mm256_fmadd_pd(v, v, acc[j]);
        }
      }
      alignas(32) double lanes[4];
      _mm256_store_pd(lanes, _mm256_add_pd(_mm256_add_pd(acc[0], acc[1]), _mm256_add_pd(acc[2], acc[3])));
      double sum = (lanes[0] + lanes[1]) + (lanes[2] + lanes[3]);
      for (; i < n; i++) sum += double(x[i]) * double(x[i]);
      partial[c] = sum;
    }
  });
  double sum = 0;
  for (const double v : partial) sum += v;
  return sum;
}

void adamw(int64_t n, const float* p, const float* g, const float* m, const float* v, float* pOut, float* mOut,
           float* vOut, float lr, float beta1, float beta2, float eps, float decay, float bc1, float bc2) {
  // Same operations, in the same order, as AdamW.step's tfjs ops, so results agree to float rounding.
  const float step = lr / bc1;
  splitRange(n, 1024, true, n * 64, [&](int64_t lo, int64_t hi) {
    const __m256 vb1 = _mm256_set1_ps(beta1), vb1c = _mm256_set1_ps(1 - beta1);
    const __m256 vb2 = _mm256_set1_ps(beta2), vb2c = _mm256_set1_ps(1 - beta2);
    const __m256 vbc2 = _mm256_set1_ps(bc2), veps = _mm256_set1_ps(eps), vdecay = _mm256_set1_ps(decay);
    const __m256 vstep = _mm256_set1_ps(step);
    int64_t i = lo;
    for (; i + 8 <= hi; i += 8) {
      const __m256 gi = _mm256_loadu_ps(g + i);
      const __m256 mi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(m + i), vb1), _mm256_mul_ps(gi, vb1c));
      const __m256 vi = _mm256_add_ps(_mm256_mul_ps(_mm256_loadu_ps(v + i), vb2), _mm256_mul_ps(_mm256_mul_ps(gi, gi), vb2c));
      const __m256 update = _mm256_div_ps(mi, _mm256_add_ps(_mm256_sqrt_ps(_mm256_div_ps(vi, vbc2)), veps));
      const __m256 pi = _mm256_sub_ps(_mm256_mul_ps(_mm256_loadu_ps(p + i), vdecay), _mm256_mul_ps(update, vstep));
      _mm256_storeu_ps(mOut + i, mi);
      _mm256_storeu_ps(vOut + i, vi);
      _mm256_storeu_ps(pOut + i, pi);
    }
    for (; i < hi; i++) {
      const float mi = m[i] * beta1 + g[i] * (1 - beta1);
      const float vi = v[i] * beta2 + (g[i] * g[i]) * (1 - beta2);
      const float update = mi / (std::sqrt(vi / bc2) + eps);
      pOut[i] = p[i] * decay - update * step;
      mOut[i] = mi;
      vOut[i] = vi;
    }
  });
}

void targetLogProbs(int64_t rows, int64_t vocab, const float* x, const int32_t* targets, float* value, float* lse) {
  splitRange(rows, 1, true, rows * vocab * 8, [&](int64_t lo, int64_t hi) {
    const int64_t v8 = vocab & ~int64_t(7);
    for (int64_t r = lo; r < hi; r++) {
      const float* row = x + r * vocab;
      __m256 vmax = _mm256_set1_ps(-INFINITY);
      for (int64_t j = 0; j < v8; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(row + j));
      alignas(32) float t[8];
      _mm256_store_ps(t, vmax);
      float mx = -INFINITY;
      for (float f : t) mx = std::max(mx, f);
      for (int64_t j = v8; j < vocab; j++) mx = std::max(mx, row[j]);
      const __m256 vm = _mm256_set1_ps(mx);
      __m256 vsum = _mm256_setzero_ps();
      for (int64_t j = 0; j < v8; j += 8) vsum = _mm256_add_ps(vsum, exp256(_mm256_sub_ps(_mm256_loadu_ps(row + j), vm)));
      float sum = hsum(vsum);
      for (int64_t j = v8; j < vocab; j++) sum += std::exp(row[j] - mx);
      const float l = mx + std::log(sum);
      lse[r] = l;
      value[r] = row[targets[r]] - l;
    }
  });
}

void targetLogProbsGrad(int64_t rows, int64_t vocab, const float* x, const int32_t* targets, const float* lse,
                        const float* dy, float* dx) {
  splitRange(rows, 1, true, rows * vocab * 8, [&](int64_t lo, int64_t hi) {
    const int64_t v8 = vocab & ~int64_t(7);
    for (int64_t r = lo; r < hi; r++) {
      const float* row = x + r * vocab;
      float* out = dx + r * vocab;
      const __m256 vl = _mm256_set1_ps(lse[r]), vneg = _mm256_set1_ps(-dy[r]);
      for (int64_t j = 0; j < v8; j += 8)
        _mm256_storeu_ps(out + j, _mm256_mul_ps(vneg, exp256(_mm256_sub_ps(_mm256_loadu_ps(row + j), vl))));
      for (int64_t j = v8; j < vocab; j++) out[j] = -dy[r] * std::exp(row[j] - lse[r]);
      out[targets[r]] += dy[r];
    }
  });
}

void cachedAttention(const AttentionDims& d, const float* qkv, const int32_t* positions, const float* keyMask,
                     float* kCache, float* vCache, float* out) {
  const int64_t B = d.batch, T = d.seq, H = d.heads, KV = d.kvHeads, hd = d.headDim, half = hd / 2;
  const int64_t width = (H + 2 * KV) * hd, S = d.past + T, rep = H / KV;
  // Rotary tables per (b, t), as Hugging Face computes them in float32: inv_freq = theta^(-2i/hd),
  // angle = position * inv_freq, then cos and sin of the angle.
  std::vector<float> invFreq(half);
  for (int64_t i = 0; i < half; i++) invFreq[i] = static_cast<float>(1.0 / std::pow(static_cast<double>(d.theta), (2.0 * i) / hd));
  std::vector<float> cosT(B * T * half), sinT(B * T * half);
  for (int64_t bt = 0; bt < B * T; bt++) {
    const float pos = static_cast<float>(positions[bt]);
    for (int64_t i = 0; i < half; i++) {
      const float angle = pos * invFreq[i];
      cosT[bt * half + i] = std::cos(angle);
      sinT[bt * half + i] = std::sin(angle);
    }
  }
  auto rotate = [&](const float* x, int64_t bt, float* y) {  // y = x * cos + rotate_half(x) * sin
    const float* c = cosT.data() + bt * half;
    const float* s = sinT.data() + bt * half;
    for (int64_t i = 0; i < half; i++) {
      const float x1 = x[i], x2 = x[i + half];
      y[i] = x1 * c[i] - x2 * s[i];
      y[i + half] = x2 * c[i] + x1 * s[i];
    }
  };
  // This call's keys (rotated) and values into the caches.
  for (int64_t b = 0; b < B; b++) {
    for (int64_t t = 0; t < T; t++) {
      const float* row = qkv + (b * T + t) * width;
      for (int64_t g = 0; g < KV; g++) {
        const int64_t slot = ((b * KV + g) * d.capacity + d.past + t) * hd;
        rotate(row + (H + g) * hd, b * T + t, kCache + slot);
        std::memcpy(vCache + slot, row + (H + KV + g) * hd, sizeof(float) * hd);
      }
    }
  }
  // One task per (batch row, query head); each keeps its scores in a scratch row.
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  parallelFor(static_cast<int>(B * H), [&](int task) {
    const int64_t b = task / H, h = task % H, g = h / rep;
    const float* keys = kCache + (b * KV + g) * d.capacity * hd;
    const float* values = vCache + (b * KV + g) * d.capacity * hd;
    const float* mask = keyMask + b * d.capacity;
    std::vector<float> q(hd), scores(S), acc(hd);
    for (int64_t t = 0; t < T; t++) {
      rotate(qkv + (b * T + t) * width + h * hd, b * T + t, q.data());
      const int64_t last = d.past + t;  // causal: keys 0..last
      float max = -INFINITY;
      for (int64_t j = 0; j <= last; j++) {
        if (mask[j] == 0.f) continue;
        const float* k = keys + j * hd;
        __m256 s8 = _mm256_setzero_ps();
        int64_t i = 0;
        for (; i + 8 <= hd; i += 8) s8 = _mm256_fmadd_ps(_mm256_loadu_ps(q.data() + i), _mm256_loadu_ps(k + i), s8);
        float s = hsum(s8);
        for (; i < hd; i++) s += q[i] * k[i];
        scores[j] = s * scale;
        max = std::max(max, scores[j]);
      }
      float* o = out + (b * T + t) * H * hd + h * hd;
      if (max == -INFINITY) {  // no key allowed (a padding query at the start of a row)
        std::memset(o, 0, sizeof(float) * hd);
        continue;
      }
      float sum = 0.f;
      std::fill(acc.begin(), acc.end(), 0.f);
      for (int64_t j = 0; j <= last; j++) {
        if (mask[j] == 0.f) continue;
        const float p = std::exp(scores[j] - max);
        sum += p;
        axpy(hd, p, values + j * hd, acc.data());
      }
      const float inv = 1.f / sum;
      for (int64_t i = 0; i < hd; i++) o[i] = acc[i] * inv;
    }
  });
}

void rmsNorm(int64_t rows, int64_t dim, const float* x, const float* w, float eps, float* y) {
  for (int64_t r = 0; r < rows; r++) {
    const float* xr = x + r * dim;
    float* yr = y + r * dim;
    __m256 s8 = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= dim; i += 8) {
      const __m256 v = _mm256_loadu_ps(xr + i);
      s8 = _mm256_fmadd_ps(v, v, s8);
    }
    float ss = hsum(s8);
    for (; i < dim; i++) ss += xr[i] * xr[i];
    const float inv = 1.f / std::sqrt(ss / dim + eps);
    for (i = 0; i < dim; i++) yr[i] = xr[i] * inv * w[i];
  }
}

void rmsNormGrad(int64_t rows, int64_t dim, const float* x, const float* w, float eps, const float* dy, float* dx, float* dw) {
  // y = x r w with r = (mean(x^2) + eps)^-1/2: dx = r (dy w) - x r^3 mean(dy w x), dw = sum over rows of dy x r.
  const int parts = std::max(1, std::min<int>(threads(), static_cast<int>(rows / 64)));
  std::vector<float> partial(static_cast<size_t>(parts) * dim, 0.f);
  parallelFor(parts, [&](int part) {
    float* acc = partial.data() + static_cast<int64_t>(part) * dim;
    for (int64_t r = rows * part / parts; r < rows * (part + 1) / parts; r++) {
      const float* xr = x + r * dim;
      const float* dyr = dy + r * dim;
      float ss = 0.f, dot = 0.f;
      for (int64_t i = 0; i < dim; i++) ss += xr[i] * xr[i], dot += dyr[i] * w[i] * xr[i];
      const float inv = 1.f / std::sqrt(ss / dim + eps);
      const float c = inv * inv * inv * dot / dim;
      float* dxr = dx + r * dim;
      for (int64_t i = 0; i < dim; i++) {
        dxr[i] = inv * dyr[i] * w[i] - xr[i] * c;
        acc[i] += dyr[i] * xr[i] * inv;
      }
    }
  });
  for (int64_t i = 0; i < dim; i++) {
    float sum = 0.f;
    for (int p = 0; p < parts; p++) sum += partial[static_cast<int64_t>(p) * dim + i];
    dw[i] = sum;
  }
}

void swiglu(int64_t rows, int64_t inner, const float* g, const float* u, int64_t stride, float* y) {
  splitRange(rows, 1, true, rows * inner * 20, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) {
      const float* gr = g + r * stride;
      const float* ur = u + r * stride;
      float* yr = y + r * inner;
      // Eight at a time with the vectorised exp (a decode step's 4864-wide row took 16 us with std::exp).
      const __m256 one = _mm256_set1_ps(1.f);
      int64_t i = 0;
      for (; i + 8 <= inner; i += 8) {
        const __m256 gv = _mm256_loadu_ps(gr + i);
        const __m256 e = exp256(_mm256_sub_ps(_mm256_setzero_ps(), gv));
        _mm256_storeu_ps(yr + i, _mm256_mul_ps(_mm256_div_ps(gv, _mm256_add_ps(one, e)), _mm256_loadu_ps(ur + i)));
      }
      for (; i < inner; i++) yr[i] = gr[i] / (1.f + std::exp(-gr[i])) * ur[i];
    }
  });
}

void swigluGrad(int64_t rows, int64_t inner, const float* g, const float* u, const float* dy, float* dg, float* du) {
  // silu(g) = g s with s = sigmoid(g); d silu / dg = s (1 + g (1 - s)). Eight at a time with the forward's vectorised
  // exp (std::exp made this 7x the forward's time on LoRA SFT's [256, 4864] rows).
  splitRange(rows * inner, 1024, true, rows * inner * 20, [&](int64_t lo, int64_t hi) {
    const __m256 one = _mm256_set1_ps(1.f);
    int64_t i = lo;
    for (; i + 8 <= hi; i += 8) {
      const __m256 gv = _mm256_loadu_ps(g + i), dyv = _mm256_loadu_ps(dy + i);
      const __m256 sv = _mm256_div_ps(one, _mm256_add_ps(one, exp256(_mm256_sub_ps(_mm256_setzero_ps(), gv))));
      _mm256_storeu_ps(du + i, _mm256_mul_ps(_mm256_mul_ps(dyv, gv), sv));
      const __m256 slope = _mm256_mul_ps(sv, _mm256_add_ps(one, _mm256_mul_ps(gv, _mm256_sub_ps(one, sv))));
      _mm256_storeu_ps(dg + i, _mm256_mul_ps(_mm256_mul_ps(dyv, _mm256_loadu_ps(u + i)), slope));
    }
    for (; i < hi; i++) {
      const float s = 1.f / (1.f + std::exp(-g[i]));
      du[i] = dy[i] * g[i] * s;
      dg[i] = dy[i] * u[i] * s * (1.f + g[i] * (1.f - s));
    }
  });
}

namespace {
/**
 * exp(x) for 4 doubles: x = n ln2 + r, |r| <= ln2 / 2 (ln2 in two parts), exp(r) by its Taylor series to r^13 / 13!
 * (truncation below 2e-16 relative), times 2^n built in the exponent bits. Below -708 (where 2^n leaves the normal
 * range) the result is 0; NaN stays NaN.
 */
inline __m256d exp4(__m256d x) {
  const __m256d low = _mm256_set1_pd(-708.0);
  const __m256d tiny = _mm256_cmp_pd(x, low, _CMP_LT_OQ);
  const __m256d xc = _mm256_min_pd(_mm256_max_pd(x, low), _mm256_set1_pd(709.0));  // a NaN becomes -708 here, NaN again below
  const __m256d n = _mm256_round_pd(_mm256_mul_pd(xc, _mm256_set1_pd(1.4426950408889634)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256d r = _mm256_fnmadd_pd(n, _mm256_set1_pd(0.6931471803691238), xc);
  r = _mm256_fnmadd_pd(n, _mm256_set1_pd(1.9082149292705877e-10), r);
  static const double inverseFactorials[] = {1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
                                             1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0, 1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0};
  __m256d p = _mm256_set1_pd(inverseFactorials[0]);
  for (int i = 1; i < 14; i++) p = _mm256_fmadd_pd(p, r, _mm256_set1_pd(inverseFactorials[i]));
  const __m128i ni = _mm256_cvtpd_epi32(n);
  const __m256i bits = _mm256_slli_epi64(_mm256_add_epi64(_mm256_cvtepi32_epi64(ni), _mm256_set1_epi64x(1023)), 52);
  __m256d y = _mm256_mul_pd(p, _mm256_castsi256_pd(bits));
  y = _mm256_blendv_pd(y, _mm256_setzero_pd(), tiny);
  const __m256d nan = _mm256_cmp_pd(x, x, _CMP_UNORD_Q);
  return _mm256_blendv_pd(y, x, nan);
}
}  // namespace

double expTerms(int64_t n, const float* x, double scale, double* out, float* maxOut) {
  __m256 vmax = _mm256_set1_ps(-INFINITY);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) vmax = _mm256_max_ps(_mm256_loadu_ps(x + i), vmax);  // a NaN in x yields vmax's lane
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, vmax);
  float max = -INFINITY;
  for (float f : lanes) max = f > max ? f : max;
  for (; i < n; i++) max = x[i] > max ? x[i] : max;
  *maxOut = max;
  const __m256d vm = _mm256_set1_pd(max), vs = _mm256_set1_pd(scale);
  __m256d sum4 = _mm256_setzero_pd();
  for (i = 0; i + 4 <= n; i += 4) {
    const __m256d e = exp4(_mm256_mul_pd(_mm256_sub_pd(_mm256_cvtps_pd(_mm_loadu_ps(x + i)), vm), vs));
    _mm256_storeu_pd(out + i, e);
    sum4 = _mm256_add_pd(sum4, e);
  }
  alignas(32) double parts[4];
  _mm256_store_pd(parts, sum4);
  double sum = (parts[0] + parts[1]) + (parts[2] + parts[3]);
  for (; i < n; i++) {
    const double e = std::exp((static_cast<double>(x[i]) - max) * scale);
    out[i] = e;
    sum += e;
  }
  return sum;
}

namespace {
constexpr int64_t kSumRowsBlock = 64;  // sumRows: rows summed in float per partial sum
}  // namespace

void addRows(int64_t rows, int64_t cols, const float* a, const float* b, int64_t bRows, float* out) {
  auto add = [](int64_t n, const float* x, const float* y, float* o) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, _mm256_add_ps(_mm256_loadu_ps(x + i), _mm256_loadu_ps(y + i)));
    for (; i < n; i++) o[i] = x[i] + y[i];
  };
  constexpr int64_t kChunk = int64_t(1) << 14;  // elements per task: small tensors stay on one thread
  if (bRows == rows) {  // equal shapes: one flat array, in chunks
    const int64_t n = rows * cols, tasks = (n + kChunk - 1) / kChunk;
    if (tasks <= 1) return add(n, a, b, out);
    parallelFor(static_cast<int>(tasks), [&](int t) {
      const int64_t lo = t * kChunk;
      add(std::min(kChunk, n - lo), a + lo, b + lo, out + lo);
    });
    return;
  }
  const int64_t block = std::max<int64_t>(1, kChunk / std::max<int64_t>(cols, 1));  // rows per task
  const int64_t tasks = (rows + block - 1) / block;
  auto run = [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; r++) add(cols, a + r * cols, b, out + r * cols);
  };
  if (tasks <= 1) return run(0, rows);
  parallelFor(static_cast<int>(tasks), [&](int t) { run(t * block, std::min(rows, (t + 1) * block)); });
}

void sumRows(int64_t rows, int64_t cols, const float* x, float* out) {
  const int64_t blocks = (rows + kSumRowsBlock - 1) / kSumRowsBlock;
  std::vector<float> parts(static_cast<size_t>(blocks * cols), 0.f);
  auto sumBlock = [&](int64_t blk) {
    float* p = parts.data() + blk * cols;
    for (int64_t r = blk * kSumRowsBlock; r < std::min(rows, (blk + 1) * kSumRowsBlock); r++) {
      const float* xr = x + r * cols;
      int64_t c = 0;
      for (; c + 8 <= cols; c += 8) _mm256_storeu_ps(p + c, _mm256_add_ps(_mm256_loadu_ps(p + c), _mm256_loadu_ps(xr + c)));
      for (; c < cols; c++) p[c] += xr[c];
    }
  };
  if (rows * cols < (int64_t(1) << 15)) {  // small: one thread
    for (int64_t blk = 0; blk < blocks; blk++) sumBlock(blk);
  } else {
    parallelFor(static_cast<int>(blocks), [&](int blk) { sumBlock(blk); });
  }
  std::memset(out, 0, sizeof(float) * cols);
  for (int64_t blk = 0; blk < blocks; blk++) axpy(cols, 1.f, parts.data() + blk * cols, out);
}

void segmentSum(int64_t rows, int64_t cols, const float* x, const int32_t* ids, int64_t segments, float* out) {
  std::memset(out, 0, sizeof(float) * segments * cols);
  for (int64_t r = 0; r < rows; r++) axpy(cols, 1.f, x + r * cols, out + ids[r] * cols);
}

namespace {

/** Rotary tables for each (b, t) of `positions` [B*T]: cos and sin [B*T, hd/2], as Hugging Face computes them. */
struct Rope {
  int64_t half;
  std::vector<float> cos, sin;
  Rope(const int32_t* positions, int64_t count, int64_t hd, float theta) : half(hd / 2), cos(count * half), sin(count * half) {
    std::vector<float> invFreq(half);
    for (int64_t i = 0; i < half; i++) invFreq[i] = static_cast<float>(1.0 / std::pow(static_cast<double>(theta), (2.0 * i) / hd));
    for (int64_t r = 0; r < count; r++) {
      const float pos = static_cast<float>(positions[r]);
      for (int64_t i = 0; i < half; i++) {
        const float angle = pos * invFreq[i];
        cos[r * half + i] = std::cos(angle);
        sin[r * half + i] = std::sin(angle);
      }
    }
  }
  /** y = x cos + rotate_half(x) sin (inverse = true: the transposed rotation, for gradients). */
  void apply(const float* x, int64_t r, float* y, bool inverse = false) const {
    const float* c = cos.data() + r * half;
    const float* s = sin.data() + r * half;
    for (int64_t i = 0; i < half; i++) {
      const float x1 = x[i], x2 = x[i + half], si = inverse ? -s[i] : s[i];
      y[i] = x1 * c[i] - x2 * si;
      y[i + half] = x2 * c[i] + x1 * si;
    }
  }
};

/** Rows [b*T, b*T + T) of one head (column block `col` of width hd) of a [B*T, width] matrix, into [T, hd]. */
void gatherHead(const float* x, int64_t width, int64_t b, int64_t T, int64_t col, int64_t hd, float* out,
                const Rope* rope = nullptr) {
  for (int64_t t = 0; t < T; t++) {
    const float* src = x + (b * T + t) * width + col * hd;
    if (rope) rope->apply(src, b * T + t, out + t * hd);
    else std::memcpy(out + t * hd, src, sizeof(float) * hd);
  }
}

void scatterHead(const float* head, int64_t width, int64_t b, int64_t T, int64_t col, int64_t hd, float* x,
                 const Rope* rope = nullptr) {
  for (int64_t t = 0; t < T; t++) {
    float* dst = x + (b * T + t) * width + col * hd;
    if (rope) rope->apply(head + t * hd, b * T + t, dst, true);
    else std::memcpy(dst, head + t * hd, sizeof(float) * hd);
  }
}

/** Query rows per block of the training attention: block i's queries see keys [0, n + end of block i) only, so the
    products skip most of the masked upper triangle (56% of the full products' FLOPs at 512 positions). */
constexpr int64_t kQueryBlock = 64;

/** keyOk[j] = 1 where key j (n prefix keys, then the row's own T) may be attended at all (its mask), else 0. */
std::vector<float> keysAllowed(int64_t n, int64_t T, const float* mask) {
  std::vector<float> ok(n + T + 8, 0.f);  // padded: vector loads of the last keys stay inside
  for (int64_t j = 0; j < n + T; j++) ok[j] = (j < n || mask[j - n] != 0.f) ? 1.f : 0.f;
  return ok;
}

/**
 * P = softmax rows of S * scale over allowed keys, in place, for the queries t0 .. t0 + rows - 1: S [rows, stride]
 * (keys: n prefix keys, then the row's own; query t sees keys j <= n + t that keyOk allows); lse per row (+inf if
 * none allowed). Entries past a row's last key are zeroed.
 */
void causalSoftmax(float* s, int64_t rows, int64_t t0, int64_t stride, int64_t n, float scale, const float* keyOk, float* lse) {
  const __m256 vscale = _mm256_set1_ps(scale), neg = _mm256_set1_ps(-INFINITY), zero = _mm256_setzero_ps();
  for (int64_t r = 0; r < rows; r++) {
    float* row = s + r * stride;
    const int64_t len = n + t0 + r + 1;  // keys j < len are causally visible
    const int64_t len8 = len & ~int64_t(7);
    __m256 vmax = neg;
    for (int64_t j = 0; j < len8; j += 8) {
      const __m256 x = _mm256_mul_ps(_mm256_loadu_ps(row + j), vscale);
      vmax = _mm256_max_ps(vmax, _mm256_blendv_ps(neg, x, _mm256_cmp_ps(_mm256_loadu_ps(keyOk + j), zero, _CMP_GT_OQ)));
    }
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, vmax);
    float max = -INFINITY;
    for (float f : lanes) max = std::max(max, f);
    for (int64_t j = len8; j < len; j++) {
      if (keyOk[j] != 0.f) max = std::max(max, row[j] * scale);
    }
    if (max == -INFINITY) {
      std::fill(row, row + stride, 0.f);
      lse[r] = INFINITY;
      continue;
    }
    const __m256 vm = _mm256_set1_ps(max);
    __m256 vsum = _mm256_setzero_ps();
    for (int64_t j = 0; j < len8; j += 8) {
      const __m256 e = _mm256_mul_ps(exp256(_mm256_fmsub_ps(_mm256_loadu_ps(row + j), vscale, vm)), _mm256_loadu_ps(keyOk + j));
      _mm256_storeu_ps(row + j, e);
      vsum = _mm256_add_ps(vsum, e);
    }
    float sum = hsum(vsum);
    for (int64_t j = len8; j < len; j++) {
      const float e = keyOk[j] != 0.f ? std::exp(row[j] * scale - max) : 0.f;
      row[j] = e;
      sum += e;
    }
    std::fill(row + len, row + stride, 0.f);
    const float inv = 1.f / sum;
    for (int64_t j = 0; j < len; j++) row[j] *= inv;
    lse[r] = max + std::log(sum);
  }
}

/**
 * P recomputed from the saved normalisers lse, in place of S [rows, stride] (queries t0 ..): exp(S * scale - lse) on
 * allowed keys, 0 elsewhere (and on rows with no allowed key).
 */
void recomputeSoftmax(float* s, int64_t rows, int64_t t0, int64_t stride, int64_t n, float scale, const float* keyOk, const float* lse) {
  const __m256 vscale = _mm256_set1_ps(scale);
  for (int64_t r = 0; r < rows; r++) {
    float* row = s + r * stride;
    const float l = lse[r];
    const int64_t len = l == INFINITY ? 0 : n + t0 + r + 1;
    const int64_t len8 = len & ~int64_t(7);
    const __m256 vl = _mm256_set1_ps(l);
    for (int64_t j = 0; j < len8; j += 8) {
      _mm256_storeu_ps(row + j, _mm256_mul_ps(exp256(_mm256_fmsub_ps(_mm256_loadu_ps(row + j), vscale, vl)), _mm256_loadu_ps(keyOk + j)));
    }
    for (int64_t j = len8; j < len; j++) row[j] = keyOk[j] != 0.f ? std::exp(row[j] * scale - l) : 0.f;
    std::fill(row + len, row + stride, 0.f);
  }
}

/** RoPE tables of the prefix positions 0 .. n-1. */
Rope prefixRope(int64_t n, int64_t hd, float theta) {
  std::vector<int32_t> pos(std::max<int64_t>(n, 1));
  for (int64_t i = 0; i < n; i++) pos[i] = static_cast<int32_t>(i);
  return Rope(pos.data(), n, hd, theta);
}

/** Keys or values of one (row, kv head): the n prefix rows of `prefix` [n, width], then the row's own T of x [B*T, width]. */
void gatherKeys(const float* prefix, const float* x, int64_t width, int64_t b, int64_t n, int64_t T, int64_t col, int64_t hd,
                float* out, const Rope* prefixRope, const Rope* rope) {
  if (n > 0) gatherHead(prefix, width, 0, n, col, hd, out, prefixRope);
  gatherHead(x, width, b, T, col, hd, out + n * hd, rope);
}

}  // namespace

void attentionForward(const AttentionDims& d, const float* q, const float* k, const float* v, const int32_t* positions,
                      const float* keyMask, const float* kPrefix, const float* vPrefix, float* out, float* lse) {
  const int64_t B = d.batch, T = d.seq, H = d.heads, KV = d.kvHeads, hd = d.headDim, rep = H / KV, n = d.past, S = n + T;
  const Rope rope(positions, B * T, hd, d.theta);
  const Rope pre = prefixRope(n, hd, d.theta);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  parallelFor(static_cast<int>(B * KV), [&](int task) {
    const int64_t b = task / KV, g = task % KV;
    const std::vector<float> keyOk = keysAllowed(n, T, keyMask + b * T);
    std::vector<float> kh(S * hd), vh(S * hd), qh(T * hd), s(std::min(T, kQueryBlock) * S), oh(T * hd);
    gatherKeys(kPrefix, k, KV * hd, b, n, T, g, hd, kh.data(), &pre, &rope);
    gatherKeys(vPrefix, v, KV * hd, b, n, T, g, hd, vh.data(), nullptr, nullptr);
    for (int64_t h = g * rep; h < (g + 1) * rep; h++) {
      gatherHead(q, H * hd, b, T, h, hd, qh.data(), &rope);
      for (int64_t t0 = 0; t0 < T; t0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, T - t0), keys = n + t0 + rows;  // the block's queries, the keys they see
        gemmActive(Gemm{false, true, rows, keys, hd}, qh.data() + t0 * hd, kh.data(), s.data(), false);  // S = Q K^T
        causalSoftmax(s.data(), rows, t0, keys, n, scale, keyOk.data(), lse + (b * H + h) * T + t0);
        gemmActive(Gemm{false, false, rows, hd, keys}, s.data(), vh.data(), oh.data() + t0 * hd, false);  // O = P V
      }
      scatterHead(oh.data(), H * hd, b, T, h, hd, out);
    }
  });
}

void attentionBackward(const AttentionDims& d, const float* q, const float* k, const float* v, const int32_t* positions,
                       const float* keyMask, const float* kPrefix, const float* vPrefix, const float* out, const float* lse,
                       const float* dout, float* dq, float* dk, float* dv, float* dkPrefix, float* dvPrefix) {
  const int64_t B = d.batch, T = d.seq, H = d.heads, KV = d.kvHeads, hd = d.headDim, rep = H / KV, n = d.past, S = n + T;
  const Rope rope(positions, B * T, hd, d.theta);
  const Rope pre = prefixRope(n, hd, d.theta);
  const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
  // Each task's gradient of the prefix keys / values (rotated space), summed over the rows afterwards: tasks of one kv
  // head run in parallel, so they cannot add into one buffer.
  std::vector<float> dkPre(B * KV * n * hd), dvPre(B * KV * n * hd);
  parallelFor(static_cast<int>(B * KV), [&](int task) {
    const int64_t b = task / KV, g = task % KV;
    const std::vector<float> keyOk = keysAllowed(n, T, keyMask + b * T);
    const int64_t QB = std::min(T, kQueryBlock);
    std::vector<float> kh(S * hd), vh(S * hd), qh(T * hd), oh(T * hd), doh(T * hd), dqh(T * hd), p(QB * S), dp(QB * S),
        tmp(S * hd), dkh(S * hd, 0.f), dvh(S * hd, 0.f), rowDot(T);
    gatherKeys(kPrefix, k, KV * hd, b, n, T, g, hd, kh.data(), &pre, &rope);
    gatherKeys(vPrefix, v, KV * hd, b, n, T, g, hd, vh.data(), nullptr, nullptr);
    for (int64_t h = g * rep; h < (g + 1) * rep; h++) {
      gatherHead(q, H * hd, b, T, h, hd, qh.data(), &rope);
      gatherHead(out, H * hd, b, T, h, hd, oh.data());
      gatherHead(dout, H * hd, b, T, h, hd, doh.data());
      for (int64_t t = 0; t < T; t++) {
        float dot = 0.f;
        for (int64_t i = 0; i < hd; i++) dot += doh[t * hd + i] * oh[t * hd + i];
        rowDot[t] = dot;  // sum_j P dP = dO . O
      }
      for (int64_t t0 = 0; t0 < T; t0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, T - t0), keys = n + t0 + rows;  // as in the forward pass
        const float* qb = qh.data() + t0 * hd;
        const float* dob = doh.data() + t0 * hd;
        // P recomputed from the saved normalisers.
        gemmActive(Gemm{false, true, rows, keys, hd}, qb, kh.data(), p.data(), false);
        recomputeSoftmax(p.data(), rows, t0, keys, n, scale, keyOk.data(), lse + (b * H + h) * T + t0);
        gemmActive(Gemm{true, false, keys, hd, rows}, p.data(), dob, tmp.data(), false);  // dV += P^T dO
        for (int64_t i = 0; i < keys * hd; i++) dvh[i] += tmp[i];
        gemmActive(Gemm{false, true, rows, keys, hd}, dob, vh.data(), dp.data(), false);  // dP = dO V^T
        for (int64_t r = 0; r < rows; r++) {  // dS = P (dP - rowDot) * scale, in place of P
          float* pr = p.data() + r * keys;
          const float* dpr = dp.data() + r * keys;
          const float rd = rowDot[t0 + r];
          for (int64_t j = 0; j < keys; j++) pr[j] = pr[j] * (dpr[j] - rd) * scale;
        }
        gemmActive(Gemm{false, false, rows, hd, keys}, p.data(), kh.data(), dqh.data() + t0 * hd, false);  // dQ = dS K
        gemmActive(Gemm{true, false, keys, hd, rows}, p.data(), qb, tmp.data(), false);  // dK += dS^T Q
        for (int64_t i = 0; i < keys * hd; i++) dkh[i] += tmp[i];
      }
      scatterHead(dqh.data(), H * hd, b, T, h, hd, dq, &rope);
    }
    scatterHead(dkh.data() + n * hd, KV * hd, b, T, g, hd, dk, &rope);
    scatterHead(dvh.data() + n * hd, KV * hd, b, T, g, hd, dv);
    if (n > 0) {
      std::memcpy(dkPre.data() + task * n * hd, dkh.data(), sizeof(float) * n * hd);
      std::memcpy(dvPre.data() + task * n * hd, dvh.data(), sizeof(float) * n * hd);
    }
  });
  if (n == 0) return;
  std::vector<float> sumK(n * hd), sumV(n * hd);
  for (int64_t g = 0; g < KV; g++) {
    std::fill(sumK.begin(), sumK.end(), 0.f);
    std::fill(sumV.begin(), sumV.end(), 0.f);
    for (int64_t b = 0; b < B; b++) {
      axpy(n * hd, 1.f, dkPre.data() + (b * KV + g) * n * hd, sumK.data());
      axpy(n * hd, 1.f, dvPre.data() + (b * KV + g) * n * hd, sumV.data());
    }
    scatterHead(sumK.data(), KV * hd, 0, n, g, hd, dkPrefix, &pre);
    scatterHead(sumV.data(), KV * hd, 0, n, g, hd, dvPrefix);
  }
}

// ---- Frozen weights in low precision (int8 with per-row scales, bf16), accumulated in fp32 ----
namespace {

/** W [rows, cols] of element type T; row r's values are scale(r) * toFloat(W[r, c]). */
template <typename T>
struct Rows {
  const T* data;
  const float* scales;
  int64_t cols;
  const T* row(int64_t r) const { return data + r * cols; }
  float scale(int64_t r) const { return scales ? scales[r] : 1.f; }
};

/**
 * out[s * n + r] = scale(r) * dot(W[r], x[s]) for W rows [r0, r1) and all m rows of x [m, k]: C = x W^T for a block of
 * its columns. Four W rows at a time, each converted once per pair of x rows; x stays in L1.
 */
template <typename T>
void lowDots(const Rows<T>& w, int64_t r0, int64_t r1, const float* x, int64_t m, int64_t n, float* out) {
  const int64_t k = w.cols, k8 = k & ~int64_t(7);
  const int64_t ahead = 4 * Ahead::distance(4 * k * int64_t(sizeof(T)));  // rows
  int64_t r = r0;
  for (; r + 4 <= r1; r += 4) {
    const T *w0 = w.row(r), *w1 = w.row(r + 1), *w2 = w.row(r + 2), *w3 = w.row(r + 3);
    Ahead fetch(w.row(std::min(r + ahead, r1)), w.row(std::min(r + ahead + 4, r1)), k8 / 8);
    int64_t s = 0;
    for (; s + 2 <= m; s += 2) {
      const float *x0 = x + s * k, *x1 = x0 + k;
      __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00, a21 = a00, a30 = a00, a31 = a00;
      for (int64_t p = 0; p < k8; p += 8) {
        fetch.step();
        const __m256 u = _mm256_loadu_ps(x0 + p), v = _mm256_loadu_ps(x1 + p);
        __m256 y = load8(w0 + p);
        a00 = _mm256_fmadd_ps(y, u, a00), a01 = _mm256_fmadd_ps(y, v, a01);
        y = load8(w1 + p);
        a10 = _mm256_fmadd_ps(y, u, a10), a11 = _mm256_fmadd_ps(y, v, a11);
        y = load8(w2 + p);
        a20 = _mm256_fmadd_ps(y, u, a20), a21 = _mm256_fmadd_ps(y, v, a21);
        y = load8(w3 + p);
        a30 = _mm256_fmadd_ps(y, u, a30), a31 = _mm256_fmadd_ps(y, v, a31);
      }
      float t[8] = {hsum(a00), hsum(a01), hsum(a10), hsum(a11), hsum(a20), hsum(a21), hsum(a30), hsum(a31)};
      for (int64_t p = k8; p < k; p++) {
        const float y0 = toFloat(w0[p]), y1 = toFloat(w1[p]), y2 = toFloat(w2[p]), y3 = toFloat(w3[p]);
        t[0] += y0 * x0[p], t[1] += y0 * x1[p], t[2] += y1 * x0[p], t[3] += y1 * x1[p];
        t[4] += y2 * x0[p], t[5] += y2 * x1[p], t[6] += y3 * x0[p], t[7] += y3 * x1[p];
      }
      for (int q = 0; q < 4; q++) {
        out[s * n + r + q] = t[2 * q] * w.scale(r + q);
        out[(s + 1) * n + r + q] = t[2 * q + 1] * w.scale(r + q);
      }
    }
    for (; s < m; s++) {
      float t[4];
      fourDots(w0, w1, w2, w3, x + s * k, k, fetch, t);
      for (int q = 0; q < 4; q++) out[s * n + r + q] = t[q] * w.scale(r + q);
    }
  }
  for (; r < r1; r++) {
    const T* w0 = w.row(r);
    for (int64_t s = 0; s < m; s++) {
      const float* x0 = x + s * k;
      __m256 acc = _mm256_setzero_ps();
      for (int64_t p = 0; p < k8; p += 8) acc = _mm256_fmadd_ps(load8(w0 + p), _mm256_loadu_ps(x0 + p), acc);
      float t = hsum(acc);
      for (int64_t p = k8; p < k; p++) t += toFloat(w0[p]) * x0[p];
      out[s * n + r] = t * w.scale(r);
    }
  }
}

/** Columns [j0, j1) of C = x W for x [m, k], W [k, n]: C[s, j] = sum_p x[s, p] scale(p) W[p, j], W rows streamed once. */
template <typename T>
void lowRowUpdates(const Rows<T>& w, int64_t j0, int64_t j1, const float* x, int64_t m, int64_t k, float* c) {
  const int64_t n = w.cols, len = j1 - j0;
  std::vector<float> row(len);
  for (int64_t s = 0; s < m; s++) std::memset(c + s * n + j0, 0, sizeof(float) * len);
  for (int64_t p = 0; p < k; p++) {
    const T* src = w.row(p) + j0;
    int64_t j = 0;
    for (; j + 8 <= len; j += 8) _mm256_storeu_ps(row.data() + j, load8(src + j));
    for (; j < len; j++) row[j] = toFloat(src[j]);
    const float sp = w.scale(p);
    for (int64_t s = 0; s < m; s++) {
      const float alpha = x[s * k + p] * sp;
      if (alpha != 0.f) axpy(len, alpha, row.data(), c + s * n + j0);
    }
  }
}

/**
 * Packs the block rows [p0, p0+kc) x cols [j0, j0+nc) of op(W) (dequantised) into NR-column panels as packB does:
 * transW: op(W)[p, j] = scale(j) W[j, p]; else op(W)[p, j] = scale(p) W[p, j].
 */
template <typename T>
void packLowB(const Rows<T>& w, bool transW, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t cols = std::min<int64_t>(NR, nc - jr);
    float* panel = out + jr * kc;
    if (transW) {  // contiguous along p
      for (int j = 0; j < NR; j++) {
        if (j < cols) {
          const T* src = w.row(j0 + jr + j) + p0;
          const float sj = w.scale(j0 + jr + j);
          for (int64_t p = 0; p < kc; p++) panel[p * NR + j] = toFloat(src[p]) * sj;
        } else {
          for (int64_t p = 0; p < kc; p++) panel[p * NR + j] = 0.f;
        }
      }
    } else {  // contiguous along j
      for (int64_t p = 0; p < kc; p++) {
        const T* src = w.row(p0 + p) + j0 + jr;
        const float sp = w.scale(p0 + p);
        if (cols == NR) {
          const __m256 s8 = _mm256_set1_ps(sp);
          _mm256_storeu_ps(panel + p * NR, _mm256_mul_ps(load8(src), s8));
          _mm256_storeu_ps(panel + p * NR + 8, _mm256_mul_ps(load8(src + 8), s8));
        } else {
          for (int j = 0; j < NR; j++) panel[p * NR + j] = j < cols ? toFloat(src[j]) * sp : 0.f;
        }
      }
    }
  }
}

template <typename T>
void lowMatMul(const Rows<T>& w, bool transW, int64_t m, int64_t n, int64_t k, const float* a, float* c, bool parallel) {
  const int64_t work = m * n * k;
  if (m <= 16) {  // decoding and small batches: bandwidth-bound, W streamed once
    if (transW) splitRange(n, 16, parallel, work, [&](int64_t lo, int64_t hi) { lowDots(w, lo, hi, a, m, n, c); });
    else splitRange(n, 64, parallel, work, [&](int64_t lo, int64_t hi) { lowRowUpdates(w, lo, hi, a, m, k, c); });
    return;
  }
  const Gemm g{false, false, m, n, k};
  const View A{a, k, 1};
  auto pack = [&](int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) { packLowB(w, transW, p0, kc, j0, nc, out); };
  if (m >= n) {
    splitRange(m, MR * 8, parallel, work, [&](int64_t lo, int64_t hi) { gemmBlockWith(g, A, pack, c, lo, hi, 0, n); });
  } else {
    splitRange(n, NR * 8, parallel, work, [&](int64_t lo, int64_t hi) { gemmBlockWith(g, A, pack, c, 0, m, lo, hi); });
  }
}

template <typename T>
void lowRows(const Rows<T>& w, const int32_t* ids, int64_t count, float* out) {
  const int64_t d = w.cols;
  for (int64_t i = 0; i < count; i++) {
    const T* src = w.row(ids[i]);
    const float s = w.scale(ids[i]);
    float* dst = out + i * d;
    const __m256 s8 = _mm256_set1_ps(s);
    int64_t j = 0;
    for (; j + 8 <= d; j += 8) _mm256_storeu_ps(dst + j, _mm256_mul_ps(load8(src + j), s8));
    for (; j < d; j++) dst[j] = toFloat(src[j]) * s;
  }
}

}  // namespace

void lowPrecisionMatMul(const LowPrecision& w, bool transW, int64_t m, const float* a, float* c, bool parallel,
                        bool int16Activations) {
  const int64_t n = transW ? w.rows : w.cols, k = transW ? w.cols : w.rows;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(c, 0, sizeof(float) * m * n);
  } else if (w.type == LowPrecision::Int8 && int16Activations && m > 16) {
    thread_local i16gemm::QuantA qa;
    i16gemm::matMul(static_cast<const int8_t*>(w.data), w.scales, w.rows, w.cols, transW, m, a, c, parallel, qa);
  } else if (w.type == LowPrecision::Int8) {
    lowMatMul(Rows<int8_t>{static_cast<const int8_t*>(w.data), w.scales, w.cols}, transW, m, n, k, a, c, parallel);
  } else {
    lowMatMul(Rows<uint16_t>{static_cast<const uint16_t*>(w.data), nullptr, w.cols}, transW, m, n, k, a, c, parallel);
  }
}

const char* int16Kernel() { return i16gemm::kernelName(i16gemm::kernel()); }

bool setInt16Kernel(const char* name) {
  for (auto k : i16gemm::kKernels) {
    if (std::strcmp(name, i16gemm::kernelName(k)) == 0) return i16gemm::setKernel(k);
  }
  return false;
}

const char* int16Kernels() {
  static const std::string names = [] {
    std::string s;
    for (auto k : i16gemm::kKernels) {
      if (i16gemm::cpuHas(k)) s += (s.empty() ? "" : ",") + std::string(i16gemm::kernelName(k));
    }
    return s;
  }();
  return names.c_str();
}

void lowPrecisionRows(const LowPrecision& w, const int32_t* ids, int64_t count, float* out) {
  if (w.type == LowPrecision::Int8) lowRows(Rows<int8_t>{static_cast<const int8_t*>(w.data), w.scales, w.cols}, ids, count, out);
  else lowRows(Rows<uint16_t>{static_cast<const uint16_t*>(w.data), nullptr, w.cols}, ids, count, out);
}

}  // namespace avx2

// ---- The GEMM micro-kernel chosen at run time (kernels.h gemmKernel): this file's AVX2 one or kernels_avx512.cc's ----
// This translation unit is AVX2 code, which every CPU the addon runs on has; the AVX-512 code runs only after the checks
// below.
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
