// The int16-activation x int8-weight GEMM (lowPrecisionMatMul with int16Activations, kernels.h): C[m, n] =
// A[m, k] op(W) with W int8 (one fp32 scale per row of W, as LowPrecisionMatrix holds it) and A quantised to int16 on
// the fly, multiplied with vpmaddwd or vpdpwssd (16 multiply-adds per ymm instruction against 8 for an fp32 FMA) into
// int32 accumulators that are converted to fp32 at the end of every K block. Included by gemm_avx2.cc (-mavx2
// -mfma) and by the microbenchmark tools/int16-gemm.
//   transW: W [n, k], C = A W^T (a linear layer's forward); C[s, j] = scale[j] * sum_p A[s, p] W[j, p]
//   else:   W [k, n], C = A W   (its input gradient);    C[s, j] = sum_p (A[s, p] scale[p]) W[p, j]: the scale runs
//           along the reduction, so it is folded into A before A is quantised.
// A is quantised per row and per block of KC columns: q = round(a / s), s = max|a| / 32767 over the block. With
// |q| <= 32767 and |w| <= 127, KC = 512 values (256 vpmaddwd pairs) sum to at most 256 * 2 * 32767 * 127 < 2^31: an
// int32 accumulator cannot overflow within a block (vpdpwssd wraps like vpaddd: the same bound holds).
// Three micro-kernels, chosen at run time by the CPU (kernel(); setKernel forces one for tests and benchmarks; none of
// AVX-512 with RLHF_AVX512=0, kernels.h avx512Allowed): AVX2
// (vpmaddwd + vpaddd, 6 x 16 in ymm: every x86-64 the addon runs on), AVX-VNNI (one vpdpwssd for the two, same tile)
// and AVX-512 VNNI (vpdpwssd on zmm, 8 x 32). Only the micro-kernel functions carry the target attribute of their
// extension; the rest of the file is AVX2 code like its translation unit (gemm_avx2.cc, -mavx2 -mfma).
#pragma once
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels.h"
#include "pool.h"

namespace i16gemm {

constexpr int64_t KC = 512;   // even; see the file comment
constexpr int64_t MC = 96;    // 96 x 512 int16 of A: 96 KB; a multiple of every kernel's MR
constexpr int64_t NC = 1024;  // 512 x 1024 int16 of B: 1 MB; a multiple of every kernel's NR

/** A [m, k] quantised: q [m, kp] int16 (kp = k rounded up to even, zero-padded), scale [m, blocks] per KC block. */
struct QuantA {
  std::vector<int16_t> q;
  std::vector<float> scale;
  int64_t m = 0, k = 0, kp = 0, blocks = 0;
};

/** Rows [r0, r1) of A (times fold[p] when fold is given) into qa. */
inline void quantiseRows(const float* a, const float* fold, QuantA& qa, int64_t r0, int64_t r1) {
  const int64_t k = qa.k, kp = qa.kp;
  const __m256 absMask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  std::vector<float> tmp(KC);
  for (int64_t r = r0; r < r1; r++) {
    const float* row = a + r * k;
    int16_t* out = qa.q.data() + r * kp;
    for (int64_t b = 0; b < qa.blocks; b++) {
      const int64_t p0 = b * KC, len = std::min(KC, k - p0);
      float* t = tmp.data();
      int64_t p = 0;
      __m256 vmax = _mm256_setzero_ps();
      if (fold) {
        for (; p + 8 <= len; p += 8) {
          const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(row + p0 + p), _mm256_loadu_ps(fold + p0 + p));
          _mm256_storeu_ps(t + p, v);
          vmax = _mm256_max_ps(vmax, _mm256_and_ps(v, absMask));
        }
        for (; p < len; p++) t[p] = row[p0 + p] * fold[p0 + p];
      } else {
        for (; p + 8 <= len; p += 8) {
          const __m256 v = _mm256_loadu_ps(row + p0 + p);
          _mm256_storeu_ps(t + p, v);
          vmax = _mm256_max_ps(vmax, _mm256_and_ps(v, absMask));
        }
        for (; p < len; p++) t[p] = row[p0 + p];
      }
      alignas(32) float mx8[8];
      _mm256_store_ps(mx8, vmax);
      float mx = 0.f;
      for (float v : mx8) mx = std::max(mx, v);
      for (int64_t i = (len & ~int64_t(7)); i < len; i++) mx = std::max(mx, std::fabs(t[i]));
      const float s = mx > 0.f ? mx / 32767.f : 0.f;
      const float inv = mx > 0.f ? 32767.f / mx : 0.f;
      qa.scale[r * qa.blocks + b] = s;
      const __m256 vinv = _mm256_set1_ps(inv);
      int16_t* o = out + p0;
      p = 0;
      for (; p + 16 <= len; p += 16) {
        const __m256i lo = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(t + p), vinv));
        const __m256i hi = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(t + p + 8), vinv));
        // packs works within 128-bit lanes: [lo0-3 hi0-3 | lo4-7 hi4-7] -> reorder the 64-bit quarters 0, 2, 1, 3.
        const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi32(lo, hi), 0xD8);
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + p), packed);
      }
      for (; p < len; p++) o[p] = static_cast<int16_t>(std::lrintf(t[p] * inv));
    }
    for (int64_t p = k; p < kp; p++) out[p] = 0;
  }
}

inline void quantise(const float* a, int64_t m, int64_t k, const float* fold, QuantA& qa, bool parallel) {
  qa.m = m, qa.k = k, qa.kp = (k + 1) & ~int64_t(1), qa.blocks = (k + KC - 1) / KC;
  qa.q.resize(m * qa.kp);
  qa.scale.resize(m * qa.blocks);
  const int tasks = parallel && m * k >= 65536 ? std::min<int64_t>(m, rlhf::threads() * 4) : 1;
  const int64_t chunk = (m + tasks - 1) / tasks;
  rlhf::parallelFor(tasks, [&](int t) { quantiseRows(a, fold, qa, t * chunk, std::min(m, (t + 1) * chunk)); });
}

/** Packs rows [i0, i0+mc) x k-pairs [q0, q0+kq) of qa into MR-row panels: panel[q * MR + i] = the pair (int32). */
template <int MR>
void packA(const QuantA& qa, int64_t i0, int64_t mc, int64_t q0, int64_t kq, int32_t* out) {
  const int32_t* pairs = reinterpret_cast<const int32_t*>(qa.q.data());
  const int64_t ld = qa.kp / 2;
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min<int64_t>(MR, mc - ir);
    int32_t* panel = out + ir * kq;
    for (int i = 0; i < MR; i++) {
      if (i < rows) {
        const int32_t* src = pairs + (i0 + ir + i) * ld + q0;
        for (int64_t q = 0; q < kq; q++) panel[q * MR + i] = src[q];
      } else {
        for (int64_t q = 0; q < kq; q++) panel[q * MR + i] = 0;
      }
    }
  }
}

/** 8 x 8 transpose of int32s held in 8 registers. */
inline void transpose8(__m256i r[8]) {
  __m256 t0 = _mm256_unpacklo_ps(_mm256_castsi256_ps(r[0]), _mm256_castsi256_ps(r[1]));
  __m256 t1 = _mm256_unpackhi_ps(_mm256_castsi256_ps(r[0]), _mm256_castsi256_ps(r[1]));
  __m256 t2 = _mm256_unpacklo_ps(_mm256_castsi256_ps(r[2]), _mm256_castsi256_ps(r[3]));
  __m256 t3 = _mm256_unpackhi_ps(_mm256_castsi256_ps(r[2]), _mm256_castsi256_ps(r[3]));
  __m256 t4 = _mm256_unpacklo_ps(_mm256_castsi256_ps(r[4]), _mm256_castsi256_ps(r[5]));
  __m256 t5 = _mm256_unpackhi_ps(_mm256_castsi256_ps(r[4]), _mm256_castsi256_ps(r[5]));
  __m256 t6 = _mm256_unpacklo_ps(_mm256_castsi256_ps(r[6]), _mm256_castsi256_ps(r[7]));
  __m256 t7 = _mm256_unpackhi_ps(_mm256_castsi256_ps(r[6]), _mm256_castsi256_ps(r[7]));
  __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_castps_si256(_mm256_permute2f128_ps(s0, s4, 0x20));
  r[1] = _mm256_castps_si256(_mm256_permute2f128_ps(s1, s5, 0x20));
  r[2] = _mm256_castps_si256(_mm256_permute2f128_ps(s2, s6, 0x20));
  r[3] = _mm256_castps_si256(_mm256_permute2f128_ps(s3, s7, 0x20));
  r[4] = _mm256_castps_si256(_mm256_permute2f128_ps(s0, s4, 0x31));
  r[5] = _mm256_castps_si256(_mm256_permute2f128_ps(s1, s5, 0x31));
  r[6] = _mm256_castps_si256(_mm256_permute2f128_ps(s2, s6, 0x31));
  r[7] = _mm256_castps_si256(_mm256_permute2f128_ps(s3, s7, 0x31));
}

inline int32_t pairOf(int8_t lo, int8_t hi) {
  return static_cast<int32_t>(static_cast<uint16_t>(static_cast<int16_t>(lo)) | (static_cast<uint32_t>(static_cast<uint16_t>(static_cast<int16_t>(hi))) << 16));
}

/**
 * Packs op(W) rows [p0, p0+kc) x cols [j0, j0+nc) into NR-column panels of int16 pairs along k:
 * panel[q * NR + j] = (op(W)[p0 + 2q, j], op(W)[p0 + 2q + 1, j]) as one int32, zero past k and past the columns.
 * NR is a multiple of 16 (full panels are written 8 columns (transW) or 16 columns at a time).
 */
template <int NR>
void packB(const int8_t* w, int64_t ldw, bool transW, int64_t k, int64_t p0, int64_t kc, int64_t j0, int64_t nc, int32_t* out) {
  const int64_t kq = (kc + 1) / 2;
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t cols = std::min<int64_t>(NR, nc - jr);
    int32_t* panel = out + jr * kq;
    if (transW) {  // op(W)[p, j] = W[j, p]: the pair is two adjacent bytes of row j
      int64_t q = 0;
      if (cols == NR) {
        for (; q + 8 <= kq && p0 + 2 * q + 16 <= k; q += 8) {
          for (int g = 0; g < NR / 8; g++) {  // 8 columns at a time
            __m256i r[8];
            for (int j = 0; j < 8; j++) {
              const int8_t* src = w + (j0 + jr + g * 8 + j) * ldw + p0 + 2 * q;
              r[j] = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));  // 8 pairs
            }
            transpose8(r);
            for (int t = 0; t < 8; t++) _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel + (q + t) * NR + g * 8), r[t]);
          }
        }
      }
      for (; q < kq; q++) {
        const int64_t p = p0 + 2 * q;
        for (int j = 0; j < NR; j++) {
          if (j < cols) {
            const int8_t* row = w + (j0 + jr + j) * ldw;
            panel[q * NR + j] = pairOf(row[p], p + 1 < k && 2 * q + 1 < kc ? row[p + 1] : 0);
          } else {
            panel[q * NR + j] = 0;
          }
        }
      }
    } else {  // op(W)[p, j] = W[p, j]: interleave rows p and p + 1
      for (int64_t q = 0; q < kq; q++) {
        const int64_t p = p0 + 2 * q;
        const bool second = 2 * q + 1 < kc;
        const int8_t* r0 = w + p * ldw + j0 + jr;
        const int8_t* r1 = second ? r0 + ldw : nullptr;
        if (cols == NR) {
          for (int j = 0; j < NR; j += 16) {
            const __m256i a = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r0 + j)));
            const __m256i b = second ? _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(r1 + j))) : _mm256_setzero_si256();
            const __m256i lo = _mm256_unpacklo_epi16(a, b), hi = _mm256_unpackhi_epi16(a, b);  // [j0-3 | j8-11], [j4-7 | j12-15]
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel + q * NR + j), _mm256_permute2x128_si256(lo, hi, 0x20));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(panel + q * NR + j + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
          }
        } else {
          for (int j = 0; j < NR; j++) panel[q * NR + j] = j < cols ? pairOf(r0[j], second ? r1[j] : 0) : 0;
        }
      }
    }
  }
}

/** The multiply-add of two int16 pairs into int32: vpmaddwd + vpaddd (AVX2), or one vpdpwssd (AVX-VNNI). */
struct MaddAvx2 {
  static __m256i madd(__m256i acc, __m256i a, __m256i b) { return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b)); }
};
struct MaddAvxVnni {
  __attribute__((target("avxvnni"))) static __m256i madd(__m256i acc, __m256i a, __m256i b) { return _mm256_dpwssd_avx_epi32(acc, a, b); }
};

/**
 * The arguments of a micro-kernel: C[0:mr, 0:nr] (+)= rowScale[i] * colScale[j] * (Apanel[MR x kq pairs] .
 * Bpanel[kq pairs x NR]) in int32, then fp32.
 */
using MicroKernelFn = void (*)(int64_t kq, const int32_t* a, const int32_t* b, float* c, int64_t ldc, int mr, int nr,
                               const float* rowScale, const float* colScale, bool accumulate);

/** Edge tiles (mr < MR or nr < NR): the int32 tile acc [MR x NR] scaled into C one value at a time. */
inline void storeEdge(const int32_t* acc, int NR, float* c, int64_t ldc, int mr, int nr, const float* rowScale, const float* colScale, bool accumulate) {
  for (int i = 0; i < mr; i++) {
    for (int j = 0; j < nr; j++) {
      const float v = static_cast<float>(acc[i * NR + j]) * (rowScale[i] * colScale[j]);
      c[i * ldc + j] = accumulate ? c[i * ldc + j] + v : v;
    }
  }
}

/**
 * The 6 x 16 ymm micro-kernel, Madd its multiply-add. Instantiated only inside the noinline kernels below (flatten):
 * inlined into block(), gcc kept half the accumulators on the stack (a load and a store per multiply-add), which
 * halved the speed; the accumulators leave through a tile.
 */
template <class Madd>
inline void kernel6x16(int64_t kq, const int32_t* a, const int32_t* b, float* c, int64_t ldc, int mr, int nr,
                       const float* rowScale, const float* colScale, bool accumulate) {
  constexpr int MR = 6, NR = 16;
  __m256i c00 = _mm256_setzero_si256(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00;
  __m256i c30 = c00, c31 = c00, c40 = c00, c41 = c00, c50 = c00, c51 = c00;
  for (int64_t q = 0; q < kq; q++) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + q * NR));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + q * NR + 8));
    const int32_t* ap = a + q * MR;
    __m256i x = _mm256_set1_epi32(ap[0]);
    c00 = Madd::madd(c00, x, b0), c01 = Madd::madd(c01, x, b1);
    x = _mm256_set1_epi32(ap[1]);
    c10 = Madd::madd(c10, x, b0), c11 = Madd::madd(c11, x, b1);
    x = _mm256_set1_epi32(ap[2]);
    c20 = Madd::madd(c20, x, b0), c21 = Madd::madd(c21, x, b1);
    x = _mm256_set1_epi32(ap[3]);
    c30 = Madd::madd(c30, x, b0), c31 = Madd::madd(c31, x, b1);
    x = _mm256_set1_epi32(ap[4]);
    c40 = Madd::madd(c40, x, b0), c41 = Madd::madd(c41, x, b1);
    x = _mm256_set1_epi32(ap[5]);
    c50 = Madd::madd(c50, x, b0), c51 = Madd::madd(c51, x, b1);
  }
  alignas(32) int32_t acc[MR * NR];
  _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 0 * NR), c00), _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 0 * NR + 8), c01);
  _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 1 * NR), c10), _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 1 * NR + 8), c11);
  _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 2 * NR), c20), _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 2 * NR + 8), c21);
  _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 3 * NR), c30), _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 3 * NR + 8), c31);
  _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 4 * NR), c40), _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 4 * NR + 8), c41);
  _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 5 * NR), c50), _mm256_store_si256(reinterpret_cast<__m256i*>(acc + 5 * NR + 8), c51);
  if (mr < MR || nr < NR) return storeEdge(acc, NR, c, ldc, mr, nr, rowScale, colScale, accumulate);
  const __m256 cs0 = _mm256_loadu_ps(colScale), cs1 = _mm256_loadu_ps(colScale + 8);
  for (int i = 0; i < MR; i++) {
    const __m256 rs = _mm256_set1_ps(rowScale[i]);
    float* row = c + i * ldc;
    __m256 lo = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i * NR))), _mm256_mul_ps(rs, cs0));
    __m256 hi = _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(acc + i * NR + 8))), _mm256_mul_ps(rs, cs1));
    if (accumulate) lo = _mm256_add_ps(lo, _mm256_loadu_ps(row)), hi = _mm256_add_ps(hi, _mm256_loadu_ps(row + 8));
    _mm256_storeu_ps(row, lo);
    _mm256_storeu_ps(row + 8, hi);
  }
}

__attribute__((noinline, flatten)) inline void microKernelAvx2(int64_t kq, const int32_t* a, const int32_t* b, float* c, int64_t ldc, int mr,
                                                               int nr, const float* rowScale, const float* colScale, bool accumulate) {
  kernel6x16<MaddAvx2>(kq, a, b, c, ldc, mr, nr, rowScale, colScale, accumulate);
}

__attribute__((noinline, flatten, target("avxvnni"))) inline void microKernelAvxVnni(int64_t kq, const int32_t* a, const int32_t* b, float* c,
                                                                                      int64_t ldc, int mr, int nr, const float* rowScale,
                                                                                      const float* colScale, bool accumulate) {
  kernel6x16<MaddAvxVnni>(kq, a, b, c, ldc, mr, nr, rowScale, colScale, accumulate);
}

/**
 * The 8 x 32 zmm micro-kernel (AVX-512 VNNI): a row of the B panel is two zmm of 16 pairs, each A pair broadcast to
 * all 16 lanes; 16 accumulators of the 32 zmm registers. A full tile is scaled and stored straight from them.
 */
__attribute__((noinline, target("avx512f,avx512bw,avx512vnni"))) inline void microKernelAvx512Vnni(
    int64_t kq, const int32_t* a, const int32_t* b, float* c, int64_t ldc, int mr, int nr, const float* rowScale,
    const float* colScale, bool accumulate) {
  constexpr int MR = 8, NR = 32;
  __m512i c00 = _mm512_setzero_si512(), c01 = c00, c10 = c00, c11 = c00, c20 = c00, c21 = c00, c30 = c00, c31 = c00;
  __m512i c40 = c00, c41 = c00, c50 = c00, c51 = c00, c60 = c00, c61 = c00, c70 = c00, c71 = c00;
  for (int64_t q = 0; q < kq; q++) {
    const __m512i b0 = _mm512_loadu_si512(b + q * NR), b1 = _mm512_loadu_si512(b + q * NR + 16);
    const int32_t* ap = a + q * MR;
    __m512i x = _mm512_set1_epi32(ap[0]);
    c00 = _mm512_dpwssd_epi32(c00, x, b0), c01 = _mm512_dpwssd_epi32(c01, x, b1);
    x = _mm512_set1_epi32(ap[1]);
    c10 = _mm512_dpwssd_epi32(c10, x, b0), c11 = _mm512_dpwssd_epi32(c11, x, b1);
    x = _mm512_set1_epi32(ap[2]);
    c20 = _mm512_dpwssd_epi32(c20, x, b0), c21 = _mm512_dpwssd_epi32(c21, x, b1);
    x = _mm512_set1_epi32(ap[3]);
    c30 = _mm512_dpwssd_epi32(c30, x, b0), c31 = _mm512_dpwssd_epi32(c31, x, b1);
    x = _mm512_set1_epi32(ap[4]);
    c40 = _mm512_dpwssd_epi32(c40, x, b0), c41 = _mm512_dpwssd_epi32(c41, x, b1);
    x = _mm512_set1_epi32(ap[5]);
    c50 = _mm512_dpwssd_epi32(c50, x, b0), c51 = _mm512_dpwssd_epi32(c51, x, b1);
    x = _mm512_set1_epi32(ap[6]);
    c60 = _mm512_dpwssd_epi32(c60, x, b0), c61 = _mm512_dpwssd_epi32(c61, x, b1);
    x = _mm512_set1_epi32(ap[7]);
    c70 = _mm512_dpwssd_epi32(c70, x, b0), c71 = _mm512_dpwssd_epi32(c71, x, b1);
  }
  const __m512i rows[MR][2] = {{c00, c01}, {c10, c11}, {c20, c21}, {c30, c31}, {c40, c41}, {c50, c51}, {c60, c61}, {c70, c71}};
  if (mr < MR || nr < NR) {
    alignas(64) int32_t acc[MR * NR];
    for (int i = 0; i < MR; i++) _mm512_store_si512(acc + i * NR, rows[i][0]), _mm512_store_si512(acc + i * NR + 16, rows[i][1]);
    return storeEdge(acc, NR, c, ldc, mr, nr, rowScale, colScale, accumulate);
  }
  const __m512 cs0 = _mm512_loadu_ps(colScale), cs1 = _mm512_loadu_ps(colScale + 16);
  for (int i = 0; i < MR; i++) {
    const __m512 rs = _mm512_set1_ps(rowScale[i]);
    float* row = c + i * ldc;
    __m512 lo = _mm512_mul_ps(_mm512_cvtepi32_ps(rows[i][0]), _mm512_mul_ps(rs, cs0));
    __m512 hi = _mm512_mul_ps(_mm512_cvtepi32_ps(rows[i][1]), _mm512_mul_ps(rs, cs1));
    if (accumulate) lo = _mm512_add_ps(lo, _mm512_loadu_ps(row)), hi = _mm512_add_ps(hi, _mm512_loadu_ps(row + 16));
    _mm512_storeu_ps(row, lo);
    _mm512_storeu_ps(row + 16, hi);
  }
}

/** Which micro-kernel multiplies (the CPU's best unless setKernel chose one). */
enum class Kernel { Avx2, AvxVnni, Avx512Vnni };
constexpr Kernel kKernels[] = {Kernel::Avx2, Kernel::AvxVnni, Kernel::Avx512Vnni};  // narrowest first

inline const char* kernelName(Kernel k) { return k == Kernel::Avx512Vnni ? "avx512vnni" : k == Kernel::AvxVnni ? "avxvnni" : "avx2"; }

/** Whether this CPU (and OS: __builtin_cpu_supports checks the saved register state) runs kernel k. */
inline bool cpuHas(Kernel k) {
  __builtin_cpu_init();
  switch (k) {
    case Kernel::Avx512Vnni:
      return rlhf::avx512Allowed() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vnni");
    case Kernel::AvxVnni: return __builtin_cpu_supports("avxvnni");
    default: return true;  // the translation unit's own AVX2, checked by the addon before anything runs
  }
}

inline Kernel& currentKernel() {
  static Kernel k = cpuHas(Kernel::Avx512Vnni) ? Kernel::Avx512Vnni : cpuHas(Kernel::AvxVnni) ? Kernel::AvxVnni : Kernel::Avx2;
  return k;
}

inline Kernel kernel() { return currentKernel(); }

/** Forces kernel k (tests, benchmarks); false, and nothing changed, when this CPU lacks it. */
inline bool setKernel(Kernel k) {
  if (!cpuHas(k)) return false;
  currentKernel() = k;
  return true;
}

/** C[i0:i1, j0:j1] for the product described in the file comment with an MR x NR micro-kernel, single-threaded. */
template <int MR, int NR>
void block(MicroKernelFn micro, const QuantA& qa, const int8_t* w, int64_t ldw, const float* scales, bool transW, int64_t n, float* c,
           int64_t i0, int64_t i1, int64_t j0, int64_t j1) {
  static_assert(MC % MR == 0 && NC % NR == 0 && NR % 16 == 0, "tile sizes");
  const int64_t k = qa.k;
  thread_local std::vector<int32_t> bufA, bufB;
  bufA.resize(MC * KC / 2);
  bufB.resize(NC * KC / 2);
  alignas(64) float rowScale[MR];
  alignas(64) float colScale[NR];
  for (int64_t jc = j0; jc < j1; jc += NC) {
    const int64_t nc = std::min(NC, j1 - jc);
    for (int64_t pc = 0, blk = 0; pc < k; pc += KC, blk++) {
      const int64_t kc = std::min(KC, k - pc), kq = (kc + 1) / 2;
      packB<NR>(w, ldw, transW, k, pc, kc, jc, nc, bufB.data());
      for (int64_t ic = i0; ic < i1; ic += MC) {
        const int64_t mc = std::min(MC, i1 - ic);
        packA<MR>(qa, ic, mc, pc / 2, kq, bufA.data());
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int nr = (int)std::min<int64_t>(NR, nc - jr);
          for (int j = 0; j < NR; j++) colScale[j] = j < nr ? (transW ? scales[jc + jr + j] : 1.f) : 0.f;
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int mr = (int)std::min<int64_t>(MR, mc - ir);
            for (int i = 0; i < MR; i++) rowScale[i] = i < mr ? qa.scale[(ic + ir + i) * qa.blocks + blk] : 0.f;
            micro(kq, bufA.data() + ir * kq, bufB.data() + jr * kq, c + (ic + ir) * n + jc + jr, n, mr, nr, rowScale, colScale, pc > 0);
          }
        }
      }
    }
  }
}

/** matMul's work split over the threads for an MR x NR micro-kernel (see matMul). */
template <int MR, int NR>
void run(MicroKernelFn micro, const int8_t* w, const float* scales, int64_t cols, bool transW, int64_t m, int64_t n, float* c,
         bool parallel, const QuantA& qa) {
  const int64_t work = m * n * qa.k;
  const int parts = parallel && work >= 200000 ? rlhf::threads() * 2 : 1;
  if (m >= n) {
    const int64_t align = MR * 8;
    int64_t chunk = std::max<int64_t>(align, ((m + parts - 1) / parts + align - 1) / align * align);
    const int tasks = (int)((m + chunk - 1) / chunk);
    rlhf::parallelFor(tasks, [&](int t) { block<MR, NR>(micro, qa, w, cols, scales, transW, n, c, t * chunk, std::min(m, (t + 1) * chunk), 0, n); });
  } else {
    const int64_t align = NR * 8;
    int64_t chunk = std::max<int64_t>(align, ((n + parts - 1) / parts + align - 1) / align * align);
    const int tasks = (int)((n + chunk - 1) / chunk);
    rlhf::parallelFor(tasks, [&](int t) { block<MR, NR>(micro, qa, w, cols, scales, transW, n, c, 0, m, t * chunk, std::min(n, (t + 1) * chunk)); });
  }
}

/**
 * C[m, n] = A op(W) for an int8 W [rows, cols] with per-row scales (see the file comment); A [m, k] float32 row-major.
 * `qa` is scratch (kept by the caller to avoid reallocating).
 */
inline void matMul(const int8_t* w, const float* scales, int64_t rows, int64_t cols, bool transW, int64_t m, const float* a,
                   float* c, bool parallel, QuantA& qa) {
  const int64_t n = transW ? rows : cols, k = transW ? cols : rows;
  if (m == 0 || n == 0) return;
  if (k == 0) {
    std::memset(c, 0, sizeof(float) * m * n);
    return;
  }
  quantise(a, m, k, transW ? nullptr : scales, qa, parallel);
  switch (kernel()) {
    case Kernel::Avx512Vnni: return run<8, 32>(microKernelAvx512Vnni, w, scales, cols, transW, m, n, c, parallel, qa);
    case Kernel::AvxVnni: return run<6, 16>(microKernelAvxVnni, w, scales, cols, transW, m, n, c, parallel, qa);
    default: return run<6, 16>(microKernelAvx2, w, scales, cols, transW, m, n, c, parallel, qa);
  }
}

}  // namespace i16gemm
