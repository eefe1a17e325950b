// The native kernels the addon exports. All work on float32 row-major buffers in the wasm heap (or any
// memory), addressed by pointers the N-API glue computes from offsets.
#pragma once
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace rlhf {

/**
 * Whether AVX-512 code may run: false when the environment has RLHF_AVX512=0 as the process loads the addon (read once),
 * and then the GEMM and the int16 GEMM choose among their other micro-kernels, as on a CPU without AVX-512.
 */
inline bool avx512Allowed() {
  static const bool allowed = [] {
    const char* v = std::getenv("RLHF_AVX512");
    return !(v != nullptr && std::strcmp(v, "0") == 0);
  }();
  return allowed;
}

/**
 * One matrix product C[m, n] = op(A) op(B) with op(A) [m, k], op(B) [k, n]:
 * A is stored [m, k] (transA false) or [k, m] (true); B is stored [k, n] (transB false) or [n, k] (true).
 * C is overwritten. Single-threaded unless `parallel`: the caller splits batches itself.
 */
struct Gemm {
  bool transA, transB;
  int64_t m, n, k;
};

/**
 * The precision of a GEMM's operands: fp32, or bf16 (each operand rounded to bf16, round to nearest even, when it is
 * packed; the products, exact in fp32, summed in fp32 into an fp32 C). bf16 is the GEMM of mixed-precision training:
 * the tensors (weights, activations, gradients) stay fp32, only the GEMM reads them in bf16.
 */
enum class Precision { Fp32, Bf16 };

/**
 * The GEMMs' micro-kernels, chosen at run time (gemm_choice.cc):
 *   avx2        fp32 6 x 16 ymm FMA (gemm_avx2.cc); bf16 emulated: operands rounded at packing, then that fp32 kernel
 *   avx512      fp32 12 x 32 zmm FMA (kernels_avx512.cc); bf16 emulated on it the same way
 *   avx512bf16  fp32 as avx512; bf16 on vdpbf16ps (12 x 32 zmm, pairs along k)
 * By default the widest this CPU has (AVX2 with RLHF_AVX512=0: avx512Allowed); the emulated and the vdpbf16ps bf16 GEMMs differ only in the order of the fp32
 * additions (and vdpbf16ps flushes denormals). fp32 on avx2 and avx512 gives bit-identical results (same blocking
 * along k, one FMA per k in order).
 */
const char* gemmKernel();
/** Chooses it by name (tests, benchmarks, RLHF_AVX512=0); false, and nothing changed, for an unknown name or one this CPU lacks. */
bool setGemmKernel(const char* name);
/** The names of the ones this CPU has, comma-separated, AVX2 first. */
const char* gemmKernels();
/**
 * C[m, n] = op(A) op(B) (see Gemm) on the active micro-kernel, in `precision`, every shape through the packed GEMM
 * (the callers route few rows or columns to avx2::skinny for fp32 themselves). C overwritten; k > 0.
 */
void gemmActive(const Gemm& g, const float* a, const float* b, float* c, bool parallel, Precision precision = Precision::Fp32);
/**
 * The measured peak of one kind of multiply-add, register-only (no memory traffic), on every thread of the pool at
 * once for `seconds`: "avx2" (vfmadd ymm, 16 FLOP), "avx512" (vfmadd zmm, 32) or "avx512bf16" (vdpbf16ps zmm, 64).
 * GFLOP/s summed over the threads; -1 when the CPU lacks the instruction.
 */
double peakGflops(const char* kind, double seconds);

/** Own AVX2/FMA kernels (the *_avx2.cc files, compiled with -mavx2 -mfma; call only when the CPU has both). */
namespace avx2 {
/** bf16Operands: the packed operands rounded to bf16 values (the emulated bf16 GEMM). */
void gemm(const Gemm& g, const float* a, const float* b, float* c, bool parallel, bool bf16Operands = false);
/** FLOPs done by a register-only ymm FMA loop run for about `seconds` (peakGflops). */
double fmaFlops(double seconds);
/** Few rows or few columns: dot products and row updates that stream the big operand once. */
void skinny(const Gemm& g, const float* a, const float* b, float* c, bool parallel);
/** Fused AdamW (torch.optim.AdamW), writing new p, m, v to the out buffers (which may alias the inputs). */
void adamw(int64_t n, const float* p, const float* g, const float* m, const float* v, float* pOut, float* mOut,
           float* vOut, float lr, float beta1, float beta2, float eps, float decay, float bc1, float bc2);
/**
 * The sum of x_i^2 over `count` float32 arrays in double precision (a gradient norm's square): fixed chunks summed in
 * order, so the result does not depend on the thread count.
 */
double sumSquares(int64_t count, const float* const* xs, const int64_t* sizes);
/** value[r] = x[r, t_r] - logsumexp(x[r]) and lse[r], for rows of length vocab. */
void targetLogProbs(int64_t rows, int64_t vocab, const float* x, const int32_t* targets, float* value, float* lse);
/** dx[r] = dy[r] * (onehot(t_r) - softmax(x[r])), softmax recomputed from lse. */
void targetLogProbsGrad(int64_t rows, int64_t vocab, const float* x, const int32_t* targets, const float* lse,
                        const float* dy, float* dx);

/** Shapes of one cached-attention call (see cachedAttention). */
struct AttentionDims {
  int64_t batch, seq, heads, kvHeads, headDim;
  int64_t past;      // positions already in the cache before this call (training attention: shared prefix keys)
  int64_t capacity;  // positions the cache buffers hold
  float theta;       // RoPE base
};

/**
 * Inference attention over a preallocated KV cache, Qwen2's: qkv [B*T, (H + 2 KV) * hd] (projections with
 * bias) -> rotary embedding of q and k at `positions` [B, T] -> this call's k, v written into the caches
 * [B, KV, capacity, hd] at [past, past + T) -> softmax(q k^T / sqrt(hd)) v over the keys j <= past + t whose
 * `keyMask` [B, capacity] is 1 -> out [B*T, H * hd]. A query with no allowed key gets zeros.
 */
void cachedAttention(const AttentionDims& d, const float* qkv, const int32_t* positions, const float* keyMask,
                     float* kCache, float* vCache, float* out);
/**
 * Training attention (causal, GQA, RoPE), forward: q [B*T, H*hd], k and v [B*T, KV*hd] (projections with bias,
 * before RoPE), positions [B, T], keyMask [B, T] -> out [B*T, H*hd] and lse [B, H, T] (log of each softmax's
 * normaliser, +inf for a query with no allowed key, whose output is 0). Scores are computed per head with the
 * GEMM kernel and kept only for one head at a time; the backward pass recomputes them from lse.
 * With d.past = n > 0, every row's queries also attend to n shared prefix keys / values kPrefix, vPrefix [n, KV*hd]
 * (before RoPE, at positions 0 .. n-1), before its own (whose positions then start at n).
 */
void attentionForward(const AttentionDims& d, const float* q, const float* k, const float* v, const int32_t* positions,
                      const float* keyMask, const float* kPrefix, const float* vPrefix, float* out, float* lse);
/**
 * Gradients of attentionForward: dout [B*T, H*hd] -> dq, dk, dv (shapes of q, k, v; overwritten) and, with a prefix,
 * dkPrefix, dvPrefix [n, KV*hd] summed over the rows (overwritten).
 */
void attentionBackward(const AttentionDims& d, const float* q, const float* k, const float* v, const int32_t* positions,
                       const float* keyMask, const float* kPrefix, const float* vPrefix, const float* out, const float* lse,
                       const float* dout, float* dq, float* dk, float* dv, float* dkPrefix, float* dvPrefix);
/**
 * A frozen weight matrix W [rows, cols] (row-major) held in low precision: int8 with one fp32 scale per row
 * (per output channel, symmetric: w = q * scale) or bf16 (the top 16 bits of a float32; scales unused).
 */
struct LowPrecision {
  enum Type : int { Int8 = 0, Bf16 = 1 } type;
  const void* data;
  const float* scales;  // [rows] for Int8, null for Bf16
  int64_t rows, cols;
};
/**
 * C[m, n] = A[m, k] op(W) in fp32, W dequantised on the fly: transW true reads W [n, k] (C = A W^T, a linear layer's
 * forward pass), false reads W [k, n] (C = A W, its input gradient). Few rows (m <= 16) stream W once with fused
 * dot products / row updates; more go through the GEMM, whose packing of B dequantises. With int16Activations, an int8
 * W with more than 16 rows of A goes through the integer GEMM of int16_gemm.h instead (A quantised per row and per
 * block of 512 columns to int16, vpmaddwd or vpdpwssd into int32): two to four times the multiply-adds per
 * instruction, results within the int16 rounding of A (~3e-5 of a row block's largest value); bf16 and few rows are
 * unaffected.
 */
void lowPrecisionMatMul(const LowPrecision& w, bool transW, int64_t m, const float* a, float* c, bool parallel,
                        bool int16Activations = false);
/**
 * The micro-kernel of that integer GEMM: "avx2" (vpmaddwd + vpaddd), "avxvnni" or "avx512vnni" (vpdpwssd on ymm /
 * zmm), by default the widest this CPU has; all give the same numbers (exact int32 sums).
 */
const char* int16Kernel();
/** Chooses it by name (tests, benchmarks); false, and nothing changed, for an unknown name or one this CPU lacks. */
bool setInt16Kernel(const char* name);
/** The names of the ones this CPU has, comma-separated, AVX2 first. */
const char* int16Kernels();
/** out[i, :] = the dequantised row ids[i] of W (an embedding lookup), out [count, cols] (ids checked by the caller). */
void lowPrecisionRows(const LowPrecision& w, const int32_t* ids, int64_t count, float* out);
/** y = x / sqrt(mean(x^2) + eps) * w, rows of length dim. */
void rmsNorm(int64_t rows, int64_t dim, const float* x, const float* w, float eps, float* y);
/** dx and dw of rmsNorm for dy: dx [rows, dim] overwritten, dw [dim] overwritten (summed over rows). */
void rmsNormGrad(int64_t rows, int64_t dim, const float* x, const float* w, float eps, const float* dy, float* dx, float* dw);
/** y[r, i] = silu(g[r, i]) * u[r, i] for rows of `inner` values, g and u rows `stride` apart (a fused [gate|up]
    matrix has stride 2 * inner, separate ones have stride inner), y [rows, inner]. */
void swiglu(int64_t rows, int64_t inner, const float* g, const float* u, int64_t stride, float* y);
/** Gradients of swiglu (separate g, u [rows, inner]) for dy: dg, du overwritten. */
void swigluGrad(int64_t rows, int64_t inner, const float* g, const float* u, const float* dy, float* dg, float* du);
/**
 * The sampler's softmax terms of one row of logits x [n] (host memory): out[i] = exp((x[i] - max) * scale) in double
 * precision (a vectorised exp within 2 ulp; 0 below exp(-708), so a masked -inf logit weighs exactly 0), max = the
 * largest x (NaNs skipped); returns the sum of the terms.
 */
double expTerms(int64_t n, const float* x, double scale, double* out, float* max);
/**
 * out[r, c] = a[r, c] + b[r, c] (bRows = rows) or a[r, c] + b[0, c] (bRows = 1: one row broadcast, a bias), out
 * [rows, cols] (the same bits as a scalar loop: one rounding per element).
 */
void addRows(int64_t rows, int64_t cols, const float* a, const float* b, int64_t bRows, float* out);
/**
 * out[c] = the sum over r of x[r, c], x [rows, cols], out [cols] overwritten: blocks of kSumRowsBlock rows summed in
 * float, then the blocks' sums added in block order, so the result does not depend on the thread count.
 */
void sumRows(int64_t rows, int64_t cols, const float* x, float* out);
/** out[s] = sum of x rows r with ids[r] == s, out [segments, cols] overwritten (ids checked by the caller). */
void segmentSum(int64_t rows, int64_t cols, const float* x, const int32_t* ids, int64_t segments, float* out);
}  // namespace avx2

/**
 * AVX-512 GEMMs (kernels_avx512.cc, compiled with -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx512bf16 -mfma; call only
 * when the CPU has them, through gemmActive).
 */
namespace avx512 {
/** fp32 FMA; fp32 with the packed operands rounded to bf16 (AVX-512F without BF16); vdpbf16ps (needs AVX-512 BF16). */
enum class Mode { Fp32, Fp32RoundedBf16, Bf16 };
void gemm(const Gemm& g, const float* a, const float* b, float* c, bool parallel, Mode mode);
/** FLOPs done by register-only loops of zmm FMA / vdpbf16ps run for about `seconds` (peakGflops). */
double fmaFlops(double seconds);
double bf16Flops(double seconds);
}  // namespace avx512

/** OpenBLAS loaded with dlopen (openblas.cc); absent when the library is not installed. */
namespace openblas {
bool load();
bool loaded();
void setThreads(int n);
void gemm(const Gemm& g, const float* a, const float* b, float* c);
}  // namespace openblas

}  // namespace rlhf
