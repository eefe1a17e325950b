// The AVX-512 GEMMs (kernels.h avx512::gemm), compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16
// -mfma: nothing in this file may run before the dispatcher (gemm_choice.cc gemmActive) has checked the CPU.
//
// Same BLIS design as the AVX2 GEMM of gemm_avx2.cc (Van Zee & van de Geijn 2015), sized for 32 zmm registers:
//   fp32  a 12 x 32 micro-kernel: 24 zmm accumulators (12 rows x 2 vectors of 16 columns), 2 zmm of the B panel,
//         one broadcast of A; per k step 2 vector loads + 12 broadcasts feed 24 FMAs (12 cycles on Zen 5's two
//         512-bit FMA pipes), so the loads never limit it.
//   bf16  the same 12 x 32 tile with vdpbf16ps: each 32-bit lane of A and B holds a pair of bf16 values along k, and
//         one instruction adds both products of the pair into an fp32 accumulator (twice the FLOPs per instruction).
//         The operands are rounded to bf16 (round to nearest even, as vcvtne2ps2bf16 does) when they are packed;
//         products of bf16 values are exact in fp32, so the result is the fp32 sum of the rounded operands' products.
// Packing absorbs the transposes: A goes into [MR x KC] panels (bf16: [KC/2 pairs x MR] words), B into [KC x NR]
// panels (bf16: [KC/2 pairs x NR] words); a layout that is contiguous the wrong way is transposed 16 x 16 in
// registers. Blocking for Zen 5 (L1 48 KB, L2 1 MB per core): a B micro-panel (KC x 32 floats = 32 KB at KC 256)
// stays in L1 across the A panels of an MC block, the MC x KC block of A (144 KB) and the KC x NC block of B share
// L2 when n is a model's width (NC covers n up to 4096; the LM head's wider B block streams from L3).
// With the same KC as the AVX2 GEMM, both sum every output in the same order, one FMA per k: the fp32 results of the
// two kernels are bit-identical.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels.h"
#include "pool.h"

namespace rlhf {
namespace avx512 {
namespace {

constexpr int MR = 12;        // rows of a micro-tile (broadcast from A)
constexpr int NV = 2;         // zmm vectors per row of a micro-tile
constexpr int NR = 16 * NV;   // columns of a micro-tile (32)
constexpr int64_t KC = 256;   // k per block (fp32); the bf16 GEMM takes KC2 pairs
constexpr int64_t KC2 = 256;  // k pairs per block of the bf16 GEMM (512 values of k: the same 32 KB B micro-panel)
constexpr int64_t MC = 144;   // rows of A per block: 144 x 256 floats = 144 KB, in L2 (a multiple of MR)
constexpr int64_t NC = 4096;  // columns of B per block (a multiple of NR)

/** Element (r, c) of op(A) or op(B), given how it is stored. */
struct View {
  const float* data;
  int64_t rowStride, colStride;
  const float* ptr(int64_t r, int64_t c) const { return data + r * rowStride + c * colStride; }
  float at(int64_t r, int64_t c) const { return *ptr(r, c); }
};

View viewA(const Gemm& g, const float* a) { return g.transA ? View{a, 1, g.m} : View{a, g.k, 1}; }
View viewB(const Gemm& g, const float* b) { return g.transB ? View{b, 1, g.k} : View{b, g.n, 1}; }

/** The mask of the first `count` of 16 lanes (none for count <= 0, all for count >= 16). */
inline __mmask16 firstLanes(int64_t count) {
  return count >= 16 ? __mmask16(0xFFFF) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
}

/** Transposes the 16 x 16 block held in r[0..15] (row i in r[i]) in place: afterwards r[j] holds old column j. */
inline void transpose16(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  // Each 128-bit lane now holds a transposed 4 x 4 block; move the lanes.
  for (int i = 0; i < 4; i++) {
    t[i] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0x88);
    t[i + 4] = _mm512_shuffle_f32x4(r[i], r[i + 4], 0xdd);
    t[i + 8] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0x88);
    t[i + 12] = _mm512_shuffle_f32x4(r[i + 8], r[i + 12], 0xdd);
  }
  for (int i = 0; i < 8; i++) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xdd);
  }
}

/**
 * Prefetches the `count` floats at `row` into L1 (a pack loop that reads a short segment of one row after another, rows
 * far apart: too short a stream for the hardware prefetcher to ramp up on, so each row would wait on L3 or memory).
 */
inline void prefetchRow(const float* row, int64_t count) {
  const char* p = reinterpret_cast<const char*>(row);
  for (int64_t b = 0; b < count * int64_t(sizeof(float)); b += 64) _mm_prefetch(p + b, _MM_HINT_T0);
}

/** Rows ahead that the row-at-a-time pack loops prefetch. */
constexpr int64_t kPrefetchRows = 6;

// ---- bf16 rounding ----

/** float32 -> bf16 bits, round to nearest even, a NaN kept a quiet NaN: the scalar twin of vcvtne2ps2bf16 for tails. */
inline uint32_t bf16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return ((u >> 16) | 0x40u) & 0xffffu;
  return ((u + 0x7fffu + ((u >> 16) & 1u)) >> 16) & 0xffffu;
}

/** The bf16 pair word of (lo, hi) along k: lo in the low half, as vdpbf16ps pairs elements 2i and 2i+1. */
inline uint32_t pairWord(float lo, float hi) { return bf16Bits(lo) | (bf16Bits(hi) << 16); }

/** Word j = (bf16(lo[j]), bf16(hi[j])) for 16 columns j: two rows of k interleaved into pairs. */
inline __m512i interleavePairs(__m512 lo, __m512 hi) {
  alignas(64) static const uint16_t order[32] = {0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23,
                                                 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i both = (__m512i)_mm512_cvtne2ps_pbh(hi, lo);  // bf16 elements 0..15 from lo, 16..31 from hi
  return _mm512_permutexvar_epi16(_mm512_load_si512(order), both);
}

/** 32 consecutive values along k -> 16 pair words (word j = (x[2j], x[2j+1])). */
inline __m512 pairsOf(const float* x, __mmask16 lo, __mmask16 hi) {
  const __m512 a = _mm512_maskz_loadu_ps(lo, x), b = _mm512_maskz_loadu_ps(hi, x + 16);
  return _mm512_castsi512_ps((__m512i)_mm512_cvtne2ps_pbh(b, a));
}

/**
 * Rounds count floats to bf16 values in place (they stay float32 with the low 16 bits zero): the emulation of the
 * bf16 GEMM by the fp32 micro-kernel on a CPU without AVX-512 BF16 (kernels.h). Same rounding as bf16Bits.
 */
void roundToBf16(float* x, int64_t count) {
  const __m512i absMask = _mm512_set1_epi32(0x7fffffff), inf = _mm512_set1_epi32(0x7f800000);
  const __m512i bias = _mm512_set1_epi32(0x7fff), one = _mm512_set1_epi32(1), high = _mm512_set1_epi32(int(0xffff0000u));
  const __m512i quiet = _mm512_set1_epi32(0x00400000);
  int64_t i = 0;
  for (; i + 16 <= count; i += 16) {
    const __m512i u = _mm512_loadu_si512(x + i);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, absMask), inf);
    __m512i r = _mm512_add_epi32(u, _mm512_add_epi32(bias, _mm512_and_si512(_mm512_srli_epi32(u, 16), one)));
    r = _mm512_mask_or_epi32(r, nan, u, quiet);
    _mm512_storeu_si512(x + i, _mm512_and_si512(r, high));
  }
  for (; i < count; i++) {
    const uint32_t u = bf16Bits(x[i]) << 16;
    std::memcpy(x + i, &u, sizeof u);
  }
}

// ---- fp32 packing ----

/** Packs rows [i0, i0+mc) x cols [p0, p0+kc) of op(A) into MR-row panels, zero-padded: panel[p * MR + i]. */
void packA(const View& A, int64_t i0, int64_t mc, int64_t p0, int64_t kc, float* out) {
  constexpr __mmask16 tile = (1u << MR) - 1;
  if (A.colStride != 1) {
    // Stored transposed: row p of the stored matrix holds the block's mc values contiguously. Read it once, front to
    // back, into every panel (panel by panel, each row would be revisited mc / MR times: with a long row, a
    // dlogits^T of 16384 columns, that walked 64 KB strides across hundreds of pages per panel).
    for (int64_t p = 0; p < kc; p++) {
      const float* src = A.ptr(i0, p0 + p);
      if (p + kPrefetchRows < kc) prefetchRow(A.ptr(i0, p0 + p + kPrefetchRows), mc);
      for (int64_t ir = 0; ir < mc; ir += MR) {
        _mm512_mask_storeu_ps(out + ir * kc + p * MR, tile, _mm512_maskz_loadu_ps(firstLanes(mc - ir), src + ir));
      }
    }
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min<int64_t>(MR, mc - ir);
    float* panel = out + ir * kc;
    // Rows contiguous along p: 16 x 16 blocks transposed in registers.
    int64_t p = 0;
    for (; p + 16 <= kc; p += 16) {
      __m512 r[16];
      for (int i = 0; i < 16; i++) r[i] = i < rows ? _mm512_loadu_ps(A.ptr(i0 + ir + i, p0 + p)) : _mm512_setzero_ps();
      transpose16(r);
      for (int q = 0; q < 16; q++) _mm512_mask_storeu_ps(panel + (p + q) * MR, tile, r[q]);
    }
    for (; p < kc; p++) {
      for (int i = 0; i < MR; i++) panel[p * MR + i] = i < rows ? A.at(i0 + ir + i, p0 + p) : 0.f;
    }
  }
}

/** Packs rows [p0, p0+kc) x cols [j0, j0+nc) of op(B) into NR-column panels, zero-padded: panel[p * NR + j]. */
void packB(const View& B, int64_t p0, int64_t kc, int64_t j0, int64_t nc, float* out) {
  if (B.colStride == 1) {  // contiguous along j: each row of the block read once, front to back, into every panel
    for (int64_t p = 0; p < kc; p++) {
      const float* src = B.ptr(p0 + p, j0);
      if (p + kPrefetchRows < kc) prefetchRow(B.ptr(p0 + p + kPrefetchRows, j0), nc);
      for (int64_t jr = 0; jr < nc; jr += NR) {
        for (int v = 0; v < NV; v++) {
          _mm512_storeu_ps(out + jr * kc + p * NR + 16 * v, _mm512_maskz_loadu_ps(firstLanes(nc - jr - 16 * v), src + jr + 16 * v));
        }
      }
    }
    return;
  }
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t cols = std::min<int64_t>(NR, nc - jr);
    float* panel = out + jr * kc;
    {  // stored transposed (contiguous along p): 16 x 16 blocks transposed in registers
      int64_t p = 0;
      for (; p + 16 <= kc; p += 16) {
        for (int v = 0; v < NV; v++) {
          __m512 r[16];
          for (int j = 0; j < 16; j++) {
            const int64_t col = 16 * v + j;
            r[j] = col < cols ? _mm512_loadu_ps(B.ptr(p0 + p, j0 + jr + col)) : _mm512_setzero_ps();
          }
          transpose16(r);
          for (int q = 0; q < 16; q++) _mm512_storeu_ps(panel + (p + q) * NR + 16 * v, r[q]);
        }
      }
      for (; p < kc; p++) {
        for (int j = 0; j < NR; j++) panel[p * NR + j] = j < cols ? B.at(p0 + p, j0 + jr + j) : 0.f;
      }
    }
  }
}

// ---- bf16 packing: 32-bit words, each a pair of bf16 values along k (the low half the even k) ----

/** Packs rows [i0, i0+mc) x cols [p0, p0+kc) of op(A) as pairs: panel[q * MR + i] = (A[i, 2q], A[i, 2q+1]), zero-padded. */
void packABf16(const View& A, int64_t i0, int64_t mc, int64_t p0, int64_t kc, uint32_t* out) {
  constexpr __mmask16 tile = (1u << MR) - 1;
  const int64_t kq = (kc + 1) / 2;
  if (A.colStride != 1) {  // stored transposed: two rows of k (mc contiguous values each) read once, interleaved
    for (int64_t q = 0; q < kq; q++) {
      const float* lo = A.ptr(i0, p0 + 2 * q);
      const float* hi = 2 * q + 1 < kc ? A.ptr(i0, p0 + 2 * q + 1) : nullptr;
      for (int64_t r = 2 * q + kPrefetchRows; r < std::min(kc, 2 * q + kPrefetchRows + 2); r++) prefetchRow(A.ptr(i0, p0 + r), mc);
      for (int64_t ir = 0; ir < mc; ir += MR) {
        const __mmask16 valid = firstLanes(mc - ir);
        const __m512 l = _mm512_maskz_loadu_ps(valid, lo + ir), h = hi ? _mm512_maskz_loadu_ps(valid, hi + ir) : _mm512_setzero_ps();
        _mm512_mask_storeu_epi32(out + ir * kq + q * MR, tile, interleavePairs(l, h));
      }
    }
    return;
  }
  for (int64_t ir = 0; ir < mc; ir += MR) {
    const int64_t rows = std::min<int64_t>(MR, mc - ir);
    uint32_t* panel = out + ir * kq;
    {  // rows contiguous along p: 32 values = 16 pairs per row, 16 x 16 words transposed
      int64_t p = 0;
      for (; p + 32 <= kc; p += 32) {
        __m512 r[16];
        for (int i = 0; i < 16; i++) r[i] = i < rows ? pairsOf(A.ptr(i0 + ir + i, p0 + p), 0xFFFF, 0xFFFF) : _mm512_setzero_ps();
        transpose16(r);
        for (int q = 0; q < 16; q++) _mm512_mask_storeu_ps(panel + (p / 2 + q) * MR, tile, r[q]);
      }
      for (; p < kc; p += 2) {
        for (int i = 0; i < MR; i++) {
          panel[(p / 2) * MR + i] = i < rows ? pairWord(A.at(i0 + ir + i, p0 + p), p + 1 < kc ? A.at(i0 + ir + i, p0 + p + 1) : 0.f) : 0u;
        }
      }
    }
  }
}

/** Packs rows [p0, p0+kc) x cols [j0, j0+nc) of op(B) as pairs: panel[q * NR + j] = (B[2q, j], B[2q+1, j]), zero-padded. */
void packBBf16(const View& B, int64_t p0, int64_t kc, int64_t j0, int64_t nc, uint32_t* out) {
  const int64_t kq = (kc + 1) / 2;
  if (B.colStride == 1) {  // contiguous along j: two rows of k (nc values each) read once, interleaved
    for (int64_t q = 0; q < kq; q++) {
      const float* lo = B.ptr(p0 + 2 * q, j0);
      const float* hi = 2 * q + 1 < kc ? B.ptr(p0 + 2 * q + 1, j0) : nullptr;
      for (int64_t r = 2 * q + kPrefetchRows; r < std::min(kc, 2 * q + kPrefetchRows + 2); r++) prefetchRow(B.ptr(p0 + r, j0), nc);
      for (int64_t j = 0; j < nc; j += 16) {
        const __mmask16 valid = firstLanes(nc - j);
        const __m512 l = _mm512_maskz_loadu_ps(valid, lo + j), h = hi ? _mm512_maskz_loadu_ps(valid, hi + j) : _mm512_setzero_ps();
        _mm512_storeu_si512(out + (j / NR) * NR * kq + q * NR + j % NR, interleavePairs(l, h));
      }
    }
    // Whole vectors of columns past nc in the last panel: zero.
    for (int64_t j = (nc + 15) / 16 * 16; j < (nc + NR - 1) / NR * NR; j += 16) {
      for (int64_t q = 0; q < kq; q++) _mm512_storeu_si512(out + (j / NR) * NR * kq + q * NR + j % NR, _mm512_setzero_si512());
    }
    return;
  }
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t cols = std::min<int64_t>(NR, nc - jr);
    uint32_t* panel = out + jr * kq;
    {  // contiguous along p: 32 values = 16 pairs per column, 16 x 16 words transposed
      int64_t p = 0;
      for (; p + 32 <= kc; p += 32) {
        for (int v = 0; v < NV; v++) {
          __m512 r[16];
          for (int j = 0; j < 16; j++) {
            const int64_t col = 16 * v + j;
            r[j] = col < cols ? pairsOf(B.ptr(p0 + p, j0 + jr + col), 0xFFFF, 0xFFFF) : _mm512_setzero_ps();
          }
          transpose16(r);
          for (int q = 0; q < 16; q++) _mm512_storeu_ps(reinterpret_cast<float*>(panel + (p / 2 + q) * NR + 16 * v), r[q]);
        }
      }
      for (; p < kc; p += 2) {
        for (int j = 0; j < NR; j++) {
          panel[(p / 2) * NR + j] = j < cols ? pairWord(B.at(p0 + p, j0 + jr + j), p + 1 < kc ? B.at(p0 + p + 1, j0 + jr + j) : 0.f) : 0u;
        }
      }
    }
  }
}

// ---- micro-kernels ----

/**
 * C[0:mr, 0:nr] (+)= the MR x NR tile acc. Every index into acc is a constant once the loops unroll, so the
 * accumulators stay in registers (an index that depends on mr would put the whole tile on the stack, in the k loop too):
 * a full tile is stored directly, a partial one goes through a buffer.
 */
inline void storeTile(__m512 (&acc)[MR][NV], float* c, int64_t ldc, int mr, int nr, bool accumulate) {
  if (mr == MR && nr == NR) {
#pragma GCC unroll 16
    for (int i = 0; i < MR; i++) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; v++) {
        float* at = c + i * ldc + 16 * v;
        _mm512_storeu_ps(at, accumulate ? _mm512_add_ps(acc[i][v], _mm512_loadu_ps(at)) : acc[i][v]);
      }
    }
    return;
  }
  alignas(64) float tile[MR][NR];
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) _mm512_store_ps(&tile[i][16 * v], acc[i][v]);
  }
  for (int i = 0; i < mr; i++) {
    for (int v = 0; v < NV; v++) {
      const __mmask16 mask = firstLanes(nr - 16 * v);
      float* at = c + i * ldc + 16 * v;
      __m512 x = _mm512_load_ps(&tile[i][16 * v]);
      if (accumulate) x = _mm512_add_ps(x, _mm512_maskz_loadu_ps(mask, at));
      _mm512_mask_storeu_ps(at, mask, x);
    }
  }
}

/** C[0:mr, 0:nr] (+)= Apanel[kc x MR] * Bpanel[kc x NR], fp32: one FMA per (row, vector, k). */
__attribute__((noinline)) void microKernel(int64_t kc, const float* a, const float* b, float* c, int64_t ldc, int mr, int nr,
                                           bool accumulate) {
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();
  for (int i = 0; i < MR; i++) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
  for (int64_t p = 0; p < kc; p++) {
    __m512 bv[NV];
    for (int v = 0; v < NV; v++) bv[v] = _mm512_loadu_ps(b + p * NR + 16 * v);
    const float* ap = a + p * MR;
    for (int i = 0; i < MR; i++) {
      const __m512 x = _mm512_set1_ps(ap[i]);
      for (int v = 0; v < NV; v++) acc[i][v] = _mm512_fmadd_ps(x, bv[v], acc[i][v]);
    }
  }
  storeTile(acc, c, ldc, mr, nr, accumulate);
}

/** C[0:mr, 0:nr] (+)= Apanel[kq x MR pairs] . Bpanel[kq x NR pairs], bf16 pairs into fp32 with vdpbf16ps. */
__attribute__((noinline)) void microKernelBf16(int64_t kq, const uint32_t* a, const uint32_t* b, float* c, int64_t ldc, int mr,
                                               int nr, bool accumulate) {
  __m512 acc[MR][NV];
#pragma GCC unroll 16
  for (int i = 0; i < MR; i++)
#pragma GCC unroll 4
    for (int v = 0; v < NV; v++) acc[i][v] = _mm512_setzero_ps();
  for (int i = 0; i < MR; i++) _mm_prefetch(reinterpret_cast<const char*>(c + i * ldc), _MM_HINT_T0);
  for (int64_t q = 0; q < kq; q++) {
    __m512bh bv[NV];
    for (int v = 0; v < NV; v++) bv[v] = (__m512bh)_mm512_loadu_si512(b + q * NR + 16 * v);
    const uint32_t* ap = a + q * MR;
    for (int i = 0; i < MR; i++) {
      const __m512bh x = (__m512bh)_mm512_set1_epi32(static_cast<int>(ap[i]));
      for (int v = 0; v < NV; v++) acc[i][v] = _mm512_dpbf16_ps(acc[i][v], x, bv[v]);
    }
  }
  storeTile(acc, c, ldc, mr, nr, accumulate);
}

// ---- blocking ----

/** C[i0:i1, j0:j1] of op(A) op(B), single-threaded, with this thread's packing buffers. */
void gemmBlock(const Gemm& g, const View& A, const View& B, float* c, int64_t i0, int64_t i1, int64_t j0, int64_t j1, Mode mode) {
  thread_local std::vector<float> bufA, bufB;
  const bool pairs = mode == Mode::Bf16;
  const int64_t kcMax = pairs ? 2 * KC2 : KC;
  bufA.resize(MC * std::max(KC, KC2));  // fp32: MC x KC floats; bf16: MC x KC2 pair words
  bufB.resize(NC * std::max(KC, KC2));
  for (int64_t jc = j0; jc < j1; jc += NC) {
    const int64_t nc = std::min(NC, j1 - jc);
    for (int64_t pc = 0; pc < g.k; pc += kcMax) {
      const int64_t kc = std::min(kcMax, g.k - pc), kq = (kc + 1) / 2;
      if (pairs) {
        packBBf16(B, pc, kc, jc, nc, reinterpret_cast<uint32_t*>(bufB.data()));
      } else {
        packB(B, pc, kc, jc, nc, bufB.data());
        if (mode == Mode::Fp32RoundedBf16) roundToBf16(bufB.data(), ((nc + NR - 1) / NR) * NR * kc);
      }
      for (int64_t ic = i0; ic < i1; ic += MC) {
        const int64_t mc = std::min(MC, i1 - ic);
        if (pairs) {
          packABf16(A, ic, mc, pc, kc, reinterpret_cast<uint32_t*>(bufA.data()));
        } else {
          packA(A, ic, mc, pc, kc, bufA.data());
          if (mode == Mode::Fp32RoundedBf16) roundToBf16(bufA.data(), ((mc + MR - 1) / MR) * MR * kc);
        }
        for (int64_t jr = 0; jr < nc; jr += NR) {
          const int nr = static_cast<int>(std::min<int64_t>(NR, nc - jr));
          for (int64_t ir = 0; ir < mc; ir += MR) {
            const int mr = static_cast<int>(std::min<int64_t>(MR, mc - ir));
            float* tile = c + (ic + ir) * g.n + jc + jr;
            if (pairs) {
              const uint32_t* a = reinterpret_cast<const uint32_t*>(bufA.data()) + ir * kq;
              const uint32_t* b = reinterpret_cast<const uint32_t*>(bufB.data()) + jr * kq;
              microKernelBf16(kq, a, b, tile, g.n, mr, nr, pc > 0);
            } else {
              microKernel(kc, bufA.data() + ir * kc, bufB.data() + jr * kc, tile, g.n, mr, nr, pc > 0);
            }
          }
        }
      }
    }
  }
}

/** [0, total) in `parts` near-equal chunks, each a multiple of `align` but the last: chunk t is [t * size, ...). */
int64_t chunkSize(int64_t total, int64_t align, int parts) {
  const int64_t units = (total + align - 1) / align;
  return ((units + parts - 1) / parts) * align;
}

// ---- register-only loops for the peak (no memory traffic: the multiply-adds alone) ----

/**
 * `iters` rounds of 16 independent multiply-adds `OP(acc, x, y)` (two pipes x up to 6 cycles of latency need 12 chains);
 * the empty asm keeps every accumulator in its register (a compiler would otherwise keep some on the stack) and the
 * loop alive. Returns a sum of the accumulators for the caller to discard.
 */
#define RLHF_PEAK_LOOP(OP, x, y)                                                                                              \
  __m512 a0 = _mm512_set1_ps(0.01f), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0, a8 = a0, a9 = a0,        \
         a10 = a0, a11 = a0, a12 = a0, a13 = a0, a14 = a0, a15 = a0;                                                         \
  for (int64_t it = 0; it < iters; it++) {                                                                                   \
    a0 = OP(a0, x, y), a1 = OP(a1, x, y), a2 = OP(a2, x, y), a3 = OP(a3, x, y), a4 = OP(a4, x, y), a5 = OP(a5, x, y);      \
    a6 = OP(a6, x, y), a7 = OP(a7, x, y), a8 = OP(a8, x, y), a9 = OP(a9, x, y), a10 = OP(a10, x, y), a11 = OP(a11, x, y);  \
    a12 = OP(a12, x, y), a13 = OP(a13, x, y), a14 = OP(a14, x, y), a15 = OP(a15, x, y);                                    \
    __asm__ volatile("" : "+v"(a0), "+v"(a1), "+v"(a2), "+v"(a3), "+v"(a4), "+v"(a5), "+v"(a6), "+v"(a7));                 \
    __asm__ volatile("" : "+v"(a8), "+v"(a9), "+v"(a10), "+v"(a11), "+v"(a12), "+v"(a13), "+v"(a14), "+v"(a15));            \
  }                                                                                                                          \
  return _mm512_reduce_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a7), a15));

/** 16 x 32 FLOPs per round: vfmadd zmm. */
__attribute__((noinline)) float fmaRounds(int64_t iters) {
  const __m512 x = _mm512_set1_ps(0.999f), y = _mm512_set1_ps(0.001f);
  RLHF_PEAK_LOOP(_mm512_fmadd_ps, x, y)
}

/** 16 x 64 FLOPs per round: vdpbf16ps zmm (16 lanes x 2 products x 2 FLOPs). */
__attribute__((noinline)) float bf16Rounds(int64_t iters) {
  const __m512bh x = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.001f), _mm512_set1_ps(-0.001f));
  const __m512bh y = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.5f), _mm512_set1_ps(0.25f));
  RLHF_PEAK_LOOP(_mm512_dpbf16_ps, x, y)
}
#undef RLHF_PEAK_LOOP

/** FLOPs of rounds(2^16) calls, repeated for about `seconds`. */
double timedRounds(float (*rounds)(int64_t), double flopsPerRound, double seconds) {
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  constexpr int64_t kRounds = int64_t(1) << 16;
  double flops = 0;
  volatile float sink = 0;
  do {
    sink = sink + rounds(kRounds);
    flops += flopsPerRound * double(kRounds);
  } while (std::chrono::duration<double>(Clock::now() - start).count() < seconds);
  return flops;
}

}  // namespace

void gemm(const Gemm& g, const float* a, const float* b, float* c, bool parallel, Mode mode) {
  const View A = viewA(g, a), B = viewB(g, b);
  const int64_t work = g.m * g.n * g.k;
  // Split the larger of M and N evenly over the threads; each part packs its own copy of the other operand's block.
  const int parts = parallel && work >= 200000 ? threads() : 1;
  if (g.m >= g.n) {
    const int64_t chunk = chunkSize(g.m, MR, parts);
    const int tasks = static_cast<int>((g.m + chunk - 1) / chunk);
    parallelFor(tasks, [&](int t) { gemmBlock(g, A, B, c, t * chunk, std::min(g.m, (t + 1) * chunk), 0, g.n, mode); });
  } else {
    const int64_t chunk = chunkSize(g.n, NR, parts);
    const int tasks = static_cast<int>((g.n + chunk - 1) / chunk);
    parallelFor(tasks, [&](int t) { gemmBlock(g, A, B, c, 0, g.m, t * chunk, std::min(g.n, (t + 1) * chunk), mode); });
  }
}

double fmaFlops(double seconds) { return timedRounds(fmaRounds, 16 * 32, seconds); }

double bf16Flops(double seconds) { return timedRounds(bf16Rounds, 16 * 64, seconds); }

}  // namespace avx512
}  // namespace rlhf
