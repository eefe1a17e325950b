// Matrix products in AVX2 / FMA (compiled with -mavx2 -mfma): the fp32 GEMM every training step uses on a CPU without
// AVX-512, the skinny products of decoding and LoRA, and the products with frozen low-precision (int8, bf16) weights.
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

#include "avx2.h"
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

// ---- Frozen weights in low precision (int8 with per-row scales, bf16), accumulated in fp32 ----
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
}  // namespace rlhf
