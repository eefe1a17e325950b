// Node-API glue of the native kernels. Built without -mavx2, so loading the addon is safe on any x86-64: the
// AVX2 kernels run only after the CPU check below, the AVX-512 GEMMs only after gemmActive's (gemm_choice.cc). Every function takes the wasm heap as a Float32Array plus
// element offsets into it, checks the ranges, and computes in place: the tfjs wasm backend's tensors are
// used where they live, with no copies.
#include <node_api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"
#include "pool.h"

namespace rlhf {
namespace {

bool cpuOk = false;     // AVX2 and FMA present
bool useOpenblas = false;

#define CHECK(env, call)                                                   \
  do {                                                                     \
    if ((call) != napi_ok) {                                               \
      napi_throw_error(env, nullptr, "rlhf-native: bad argument to " #call); \
      return nullptr;                                                      \
    }                                                                      \
  } while (0)

struct Heap {
  float* data = nullptr;
  size_t length = 0;  // in floats
};

bool getHeap(napi_env env, napi_value value, Heap* heap) {
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_value buffer;
  size_t byteOffset;
  if (napi_get_typedarray_info(env, value, &type, &length, &data, &buffer, &byteOffset) != napi_ok ||
      type != napi_float32_array) {
    napi_throw_type_error(env, nullptr, "rlhf-native: the heap must be a Float32Array");
    return false;
  }
  heap->data = static_cast<float*>(data);
  heap->length = length;
  return true;
}

/** heap + offset, after checking that [offset, offset + count) lies inside the heap. */
float* at(napi_env env, const Heap& heap, int64_t offset, int64_t count, const char* what) {
  if (offset < 0 || count < 0 || static_cast<uint64_t>(offset + count) > heap.length) {
    std::string msg = std::string("rlhf-native: ") + what + " lies outside the heap";
    napi_throw_range_error(env, nullptr, msg.c_str());
    return nullptr;
  }
  return heap.data + offset;
}

bool args(napi_env env, napi_callback_info info, size_t want, napi_value* argv) {
  size_t argc = want;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || argc != want) {
    napi_throw_type_error(env, nullptr, ("rlhf-native: expected " + std::to_string(want) + " arguments").c_str());
    return false;
  }
  return true;
}

/** The call's `want` arguments, the first of which is the heap (a Float32Array); throws and returns false if not. */
bool heapArgs(napi_env env, napi_callback_info info, size_t want, napi_value* argv, Heap* heap) {
  return args(env, info, want, argv) && getHeap(env, argv[0], heap);
}

int64_t i64(napi_env env, napi_value v) {
  int64_t out = 0;
  napi_get_value_int64(env, v, &out);
  return out;
}
double f64(napi_env env, napi_value v) {
  double out = 0;
  napi_get_value_double(env, v, &out);
  return out;
}
bool boolean(napi_env env, napi_value v) {
  bool out = false;
  napi_get_value_bool(env, v, &out);
  return out;
}

/** An Int32Array argument as a vector (batch offsets). */
bool int32s(napi_env env, napi_value v, std::vector<int64_t>* out) {
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_value buffer;
  size_t byteOffset;
  if (napi_get_typedarray_info(env, v, &type, &length, &data, &buffer, &byteOffset) != napi_ok ||
      type != napi_int32_array) {
    napi_throw_type_error(env, nullptr, "rlhf-native: batch offsets must be an Int32Array");
    return false;
  }
  const int32_t* p = static_cast<const int32_t*>(data);
  out->assign(p, p + length);
  return true;
}

/** Rows or columns at or below this go to the skinny kernels (GEMM would pack the big operand for nothing). */
constexpr int64_t kSkinny = 16;

/**
 * One product by the rules of every float32 product: fp32 with few rows or columns on the skinny kernels, OpenBLAS when
 * chosen, else the GEMM's active micro-kernel (kernels.h gemmKernel); bf16 always the packed GEMM, whose packing rounds
 * the operands (so every shape gets the same bf16 numbers).
 */
void matmulOne(const Gemm& g, const float* a, const float* b, float* c, bool parallel, Precision precision = Precision::Fp32) {
  if (g.m == 0 || g.n == 0) return;
  if (g.k == 0) {
    std::memset(c, 0, sizeof(float) * g.m * g.n);
  } else if (precision == Precision::Bf16) {
    gemmActive(g, a, b, c, parallel, Precision::Bf16);
  } else if (g.m <= kSkinny || g.n <= kSkinny) {
    avx2::skinny(g, a, b, c, parallel);
  } else if (useOpenblas && parallel) {
    openblas::gemm(g, a, b, c);
  } else {
    gemmActive(g, a, b, c, parallel);
  }
}

/** A precision argument: "fp32" or "bf16"; throws and returns false otherwise. */
bool precisionArg(napi_env env, napi_value v, Precision* out) {
  char name[8] = {0};
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, name, sizeof name, &len) == napi_ok) {
    const std::string s(name, len);
    if (s == "fp32" || s == "bf16") {
      *out = s == "bf16" ? Precision::Bf16 : Precision::Fp32;
      return true;
    }
  }
  napi_throw_range_error(env, nullptr, "rlhf-native: precision must be 'fp32' or 'bf16'");
  return false;
}

// batchMatMul(heap, transA, transB, m, n, k, aOffsets, bOffsets, cOffsets[, precision]): C_i = op(A_i) op(B_i) for each
// i; precision "fp32" (default) or "bf16" (operands rounded to bf16, fp32 accumulation: kernels.h Precision).
napi_value BatchMatMul(napi_env env, napi_callback_info info) {
  napi_value argv[10];
  size_t argc = 10;
  Heap heap;
  if (napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr) != napi_ok || (argc != 9 && argc != 10)) {
    napi_throw_type_error(env, nullptr, "rlhf-native: expected 9 or 10 arguments");
    return nullptr;
  }
  if (!getHeap(env, argv[0], &heap)) return nullptr;
  Precision precision = Precision::Fp32;
  if (argc == 10 && !precisionArg(env, argv[9], &precision)) return nullptr;
  const Gemm g{boolean(env, argv[1]), boolean(env, argv[2]), i64(env, argv[3]), i64(env, argv[4]), i64(env, argv[5])};
  if (g.m < 0 || g.n < 0 || g.k < 0) {
    napi_throw_range_error(env, nullptr, "rlhf-native: negative matrix size");
    return nullptr;
  }
  std::vector<int64_t> ao, bo, co;
  if (!int32s(env, argv[6], &ao) || !int32s(env, argv[7], &bo) || !int32s(env, argv[8], &co)) return nullptr;
  if (ao.size() != co.size() || bo.size() != co.size()) {
    napi_throw_range_error(env, nullptr, "rlhf-native: batch offset arrays differ in length");
    return nullptr;
  }
  const size_t batch = co.size();
  std::vector<const float*> as(batch), bs(batch);
  std::vector<float*> cs(batch);
  for (size_t i = 0; i < batch; i++) {
    if (!(as[i] = at(env, heap, ao[i], g.m * g.k, "a")) || !(bs[i] = at(env, heap, bo[i], g.k * g.n, "b")) ||
        !(cs[i] = at(env, heap, co[i], g.m * g.n, "c"))) {
      return nullptr;
    }
  }
  // Many small products (attention heads): one per task. Few large ones: each uses every thread.
  const int64_t work = g.m * g.n * g.k;
  if (batch > 1 && (batch >= 2 * static_cast<size_t>(threads()) || work < (1 << 22))) {
    parallelFor(static_cast<int>(batch), [&](int i) { matmulOne(g, as[i], bs[i], cs[i], false, precision); });
  } else {
    for (size_t i = 0; i < batch; i++) matmulOne(g, as[i], bs[i], cs[i], true, precision);
  }
  return nullptr;
}

// sumSquares(heap, offsets, sizes): the sum of squares of every element of the arrays at `offsets` (float32 elements)
// with `sizes` elements each, in double (kernels.h sumSquares).
napi_value SumSquares(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  Heap heap;
  if (!heapArgs(env, info, 3, argv, &heap)) return nullptr;
  std::vector<int64_t> offsets, sizes;
  if (!int32s(env, argv[1], &offsets) || !int32s(env, argv[2], &sizes)) return nullptr;
  if (offsets.size() != sizes.size()) {
    napi_throw_range_error(env, nullptr, "rlhf-native: sumSquares offsets and sizes differ in length");
    return nullptr;
  }
  std::vector<const float*> xs(offsets.size());
  for (size_t i = 0; i < offsets.size(); i++) {
    if (sizes[i] < 0) {
      napi_throw_range_error(env, nullptr, "rlhf-native: sumSquares: a negative size");
      return nullptr;
    }
    if (!(xs[i] = at(env, heap, offsets[i], sizes[i], "x"))) return nullptr;
  }
  napi_value out;
  CHECK(env, napi_create_double(env, avx2::sumSquares(static_cast<int64_t>(xs.size()), xs.data(), sizes.data()), &out));
  return out;
}

// addRows(heap, rows, cols, a, b, bRows, out): out = a + b, b [rows, cols] or one row (bRows 1) broadcast (kernels.h).
napi_value AddRows(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap heap;
  if (!heapArgs(env, info, 7, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), cols = i64(env, argv[2]), bRows = i64(env, argv[5]);
  if (rows < 0 || cols < 0 || (bRows != 1 && bRows != rows)) {
    napi_throw_range_error(env, nullptr, "rlhf-native: addRows: rows, cols >= 0 and bRows 1 or rows");
    return nullptr;
  }
  float *a, *b, *out;
  if (!(a = at(env, heap, i64(env, argv[3]), rows * cols, "a")) || !(b = at(env, heap, i64(env, argv[4]), bRows * cols, "b")) ||
      !(out = at(env, heap, i64(env, argv[6]), rows * cols, "out"))) {
    return nullptr;
  }
  avx2::addRows(rows, cols, a, b, bRows, out);
  return nullptr;
}

// sumRows(heap, rows, cols, x, out): out[c] = the sum over rows of x[r, c] (kernels.h).
napi_value SumRows(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  Heap heap;
  if (!heapArgs(env, info, 5, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), cols = i64(env, argv[2]);
  if (rows < 0 || cols < 0) {
    napi_throw_range_error(env, nullptr, "rlhf-native: sumRows: rows, cols >= 0");
    return nullptr;
  }
  float *x, *out;
  if (!(x = at(env, heap, i64(env, argv[3]), rows * cols, "x")) || !(out = at(env, heap, i64(env, argv[4]), cols, "out"))) return nullptr;
  avx2::sumRows(rows, cols, x, out);
  return nullptr;
}

// adamw(heap, p, g, m, v, pOut, mOut, vOut, n, lr, beta1, beta2, eps, decay, bc1, bc2)
napi_value AdamW(napi_env env, napi_callback_info info) {
  napi_value argv[16];
  Heap heap;
  if (!heapArgs(env, info, 16, argv, &heap)) return nullptr;
  const int64_t n = i64(env, argv[8]);
  const char* names[] = {"p", "g", "m", "v", "pOut", "mOut", "vOut"};
  float* ptr[7];
  for (int i = 0; i < 7; i++) {
    if (!(ptr[i] = at(env, heap, i64(env, argv[1 + i]), n, names[i]))) return nullptr;
  }
  avx2::adamw(n, ptr[0], ptr[1], ptr[2], ptr[3], ptr[4], ptr[5], ptr[6], f64(env, argv[9]), f64(env, argv[10]),
              f64(env, argv[11]), f64(env, argv[12]), f64(env, argv[13]), f64(env, argv[14]), f64(env, argv[15]));
  return nullptr;
}

/** Whether every target is in [0, vocab); throws a RangeError if not. */
bool targetsInVocab(napi_env env, const int32_t* targets, int64_t rows, int64_t vocab) {
  for (int64_t r = 0; r < rows; r++) {
    if (targets[r] < 0 || targets[r] >= vocab) {
      napi_throw_range_error(env, nullptr, "rlhf-native: a target lies outside the vocabulary");
      return false;
    }
  }
  return true;
}

// targetLogProbs(heap, rows, vocab, x, targets, value, lse)
napi_value TargetLogProbs(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap heap;
  if (!heapArgs(env, info, 7, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), vocab = i64(env, argv[2]);
  float *x, *t, *value, *lse;
  if (!(x = at(env, heap, i64(env, argv[3]), rows * vocab, "x")) || !(t = at(env, heap, i64(env, argv[4]), rows, "targets")) ||
      !(value = at(env, heap, i64(env, argv[5]), rows, "value")) || !(lse = at(env, heap, i64(env, argv[6]), rows, "lse"))) {
    return nullptr;
  }
  const int32_t* targets = reinterpret_cast<const int32_t*>(t);
  if (!targetsInVocab(env, targets, rows, vocab)) return nullptr;
  avx2::targetLogProbs(rows, vocab, x, targets, value, lse);
  return nullptr;
}

// targetLogProbsGrad(heap, rows, vocab, x, targets, lse, dy, dx)
napi_value TargetLogProbsGrad(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  Heap heap;
  if (!heapArgs(env, info, 8, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), vocab = i64(env, argv[2]);
  float *x, *t, *lse, *dy, *dx;
  if (!(x = at(env, heap, i64(env, argv[3]), rows * vocab, "x")) || !(t = at(env, heap, i64(env, argv[4]), rows, "targets")) ||
      !(lse = at(env, heap, i64(env, argv[5]), rows, "lse")) || !(dy = at(env, heap, i64(env, argv[6]), rows, "dy")) ||
      !(dx = at(env, heap, i64(env, argv[7]), rows * vocab, "dx"))) {
    return nullptr;
  }
  const int32_t* targets = reinterpret_cast<const int32_t*>(t);
  if (!targetsInVocab(env, targets, rows, vocab)) return nullptr;
  avx2::targetLogProbsGrad(rows, vocab, x, targets, lse, dy, dx);
  return nullptr;
}

// cachedAttention(heap, batch, seq, heads, kvHeads, headDim, past, capacity, theta, qkv, positions, keyMask, kCache, vCache, out)
napi_value CachedAttention(napi_env env, napi_callback_info info) {
  napi_value argv[15];
  Heap heap;
  if (!heapArgs(env, info, 15, argv, &heap)) return nullptr;
  const avx2::AttentionDims d{i64(env, argv[1]), i64(env, argv[2]), i64(env, argv[3]), i64(env, argv[4]), i64(env, argv[5]),
                        i64(env, argv[6]), i64(env, argv[7]), static_cast<float>(f64(env, argv[8]))};
  if (d.batch < 1 || d.seq < 1 || d.kvHeads < 1 || d.heads % d.kvHeads != 0 || d.headDim < 2 || d.headDim % 2 != 0 ||
      d.past < 0 || d.past + d.seq > d.capacity) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad cachedAttention dimensions");
    return nullptr;
  }
  const int64_t bt = d.batch * d.seq, cache = d.batch * d.kvHeads * d.capacity * d.headDim;
  float *qkv, *pos, *mask, *k, *v, *out;
  if (!(qkv = at(env, heap, i64(env, argv[9]), bt * (d.heads + 2 * d.kvHeads) * d.headDim, "qkv")) ||
      !(pos = at(env, heap, i64(env, argv[10]), bt, "positions")) ||
      !(mask = at(env, heap, i64(env, argv[11]), d.batch * d.capacity, "keyMask")) ||
      !(k = at(env, heap, i64(env, argv[12]), cache, "kCache")) || !(v = at(env, heap, i64(env, argv[13]), cache, "vCache")) ||
      !(out = at(env, heap, i64(env, argv[14]), bt * d.heads * d.headDim, "out"))) {
    return nullptr;
  }
  avx2::cachedAttention(d, qkv, reinterpret_cast<const int32_t*>(pos), mask, k, v, out);
  return nullptr;
}

// rmsNorm(heap, rows, dim, x, w, eps, y)
napi_value RmsNorm(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap heap;
  if (!heapArgs(env, info, 7, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), dim = i64(env, argv[2]);
  float *x, *w, *y;
  if (!(x = at(env, heap, i64(env, argv[3]), rows * dim, "x")) || !(w = at(env, heap, i64(env, argv[4]), dim, "w")) ||
      !(y = at(env, heap, i64(env, argv[6]), rows * dim, "y"))) {
    return nullptr;
  }
  avx2::rmsNorm(rows, dim, x, w, static_cast<float>(f64(env, argv[5])), y);
  return nullptr;
}

// swiglu(heap, rows, inner, g, u, stride, y)
napi_value SwiGLU(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap heap;
  if (!heapArgs(env, info, 7, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), inner = i64(env, argv[2]), stride = i64(env, argv[5]);
  if (rows < 0 || inner < 0 || stride < inner) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad swiglu dimensions");
    return nullptr;
  }
  const int64_t span = rows > 0 ? (rows - 1) * stride + inner : 0;
  float *g, *u, *y;
  if (!(g = at(env, heap, i64(env, argv[3]), span, "g")) || !(u = at(env, heap, i64(env, argv[4]), span, "u")) ||
      !(y = at(env, heap, i64(env, argv[6]), rows * inner, "y"))) {
    return nullptr;
  }
  avx2::swiglu(rows, inner, g, u, stride, y);
  return nullptr;
}

// swigluGrad(heap, rows, inner, g, u, dy, dg, du)
napi_value SwiGLUGrad(napi_env env, napi_callback_info info) {
  napi_value argv[8];
  Heap heap;
  if (!heapArgs(env, info, 8, argv, &heap)) return nullptr;
  const int64_t size = i64(env, argv[1]) * i64(env, argv[2]);
  const char* names[] = {"g", "u", "dy", "dg", "du"};
  float* p[5];
  for (int i = 0; i < 5; i++) {
    if (!(p[i] = at(env, heap, i64(env, argv[3 + i]), size, names[i]))) return nullptr;
  }
  avx2::swigluGrad(i64(env, argv[1]), i64(env, argv[2]), p[0], p[1], p[2], p[3], p[4]);
  return nullptr;
}

// rmsNormGrad(heap, rows, dim, x, w, eps, dy, dx, dw)
napi_value RmsNormGrad(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  Heap heap;
  if (!heapArgs(env, info, 9, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), dim = i64(env, argv[2]);
  float *x, *w, *dy, *dx, *dw;
  if (!(x = at(env, heap, i64(env, argv[3]), rows * dim, "x")) || !(w = at(env, heap, i64(env, argv[4]), dim, "w")) ||
      !(dy = at(env, heap, i64(env, argv[6]), rows * dim, "dy")) || !(dx = at(env, heap, i64(env, argv[7]), rows * dim, "dx")) ||
      !(dw = at(env, heap, i64(env, argv[8]), dim, "dw"))) {
    return nullptr;
  }
  avx2::rmsNormGrad(rows, dim, x, w, static_cast<float>(f64(env, argv[5])), dy, dx, dw);
  return nullptr;
}

// segmentSum(heap, rows, cols, x, ids, segments, out)
napi_value SegmentSum(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  Heap heap;
  if (!heapArgs(env, info, 7, argv, &heap)) return nullptr;
  const int64_t rows = i64(env, argv[1]), cols = i64(env, argv[2]), segments = i64(env, argv[5]);
  float *x, *ids, *out;
  if (!(x = at(env, heap, i64(env, argv[3]), rows * cols, "x")) || !(ids = at(env, heap, i64(env, argv[4]), rows, "ids")) ||
      !(out = at(env, heap, i64(env, argv[6]), segments * cols, "out"))) {
    return nullptr;
  }
  const int32_t* seg = reinterpret_cast<const int32_t*>(ids);
  for (int64_t r = 0; r < rows; r++) {
    if (seg[r] < 0 || seg[r] >= segments) {
      napi_throw_range_error(env, nullptr, "rlhf-native: a segment id lies outside [0, numSegments)");
      return nullptr;
    }
  }
  avx2::segmentSum(rows, cols, x, seg, segments, out);
  return nullptr;
}

/**
 * A low-precision matrix from (type, rows, cols, w, scales) at argv[i..i+4]: its packed bytes lie at float offset w
 * (an int32 tensor of the heap), int8's scales [rows] at float offset scales. Throws and returns false if not.
 */
bool lowPrecisionArgs(napi_env env, napi_value* argv, int i, const Heap& heap, avx2::LowPrecision* w) {
  const int64_t type = i64(env, argv[i]), rows = i64(env, argv[i + 1]), cols = i64(env, argv[i + 2]);
  if ((type != avx2::LowPrecision::Int8 && type != avx2::LowPrecision::Bf16) || rows < 0 || cols < 0) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad low-precision matrix (type 0 int8 or 1 bf16, rows, cols >= 0)");
    return false;
  }
  const int64_t bytes = rows * cols * (type == avx2::LowPrecision::Int8 ? 1 : 2);
  float *data, *scales = nullptr;
  if (!(data = at(env, heap, i64(env, argv[i + 3]), (bytes + 3) / 4, "w"))) return false;
  if (type == avx2::LowPrecision::Int8 && !(scales = at(env, heap, i64(env, argv[i + 4]), rows, "scales"))) return false;
  *w = avx2::LowPrecision{static_cast<avx2::LowPrecision::Type>(type), data, scales, rows, cols};
  return true;
}

// lowPrecisionMatMul(heap, type, rows, cols, w, scales, transW, m, a, c, int16): C [m, n] = A [m, k] op(W), W [rows,
// cols]; int16: an int8 W multiplies A quantised to int16 (kernels.h)
napi_value LowPrecisionMatMul(napi_env env, napi_callback_info info) {
  napi_value argv[11];
  Heap heap;
  avx2::LowPrecision w;
  if (!heapArgs(env, info, 11, argv, &heap) || !lowPrecisionArgs(env, argv, 1, heap, &w)) return nullptr;
  const bool transW = boolean(env, argv[6]);
  const int64_t m = i64(env, argv[7]), n = transW ? w.rows : w.cols, k = transW ? w.cols : w.rows;
  if (m < 0) {
    napi_throw_range_error(env, nullptr, "rlhf-native: negative matrix size");
    return nullptr;
  }
  float *a, *c;
  if (!(a = at(env, heap, i64(env, argv[8]), m * k, "a")) || !(c = at(env, heap, i64(env, argv[9]), m * n, "c"))) return nullptr;
  avx2::lowPrecisionMatMul(w, transW, m, a, c, true, boolean(env, argv[10]));
  return nullptr;
}

// lowPrecisionRows(heap, type, rows, cols, w, scales, ids, count, out): out [count, cols] = rows ids of W
napi_value LowPrecisionRows(napi_env env, napi_callback_info info) {
  napi_value argv[9];
  Heap heap;
  avx2::LowPrecision w;
  if (!heapArgs(env, info, 9, argv, &heap) || !lowPrecisionArgs(env, argv, 1, heap, &w)) return nullptr;
  const int64_t count = i64(env, argv[7]);
  float *ids, *out;
  if (count < 0 || !(ids = at(env, heap, i64(env, argv[6]), count, "ids")) || !(out = at(env, heap, i64(env, argv[8]), count * w.cols, "out"))) {
    if (count < 0) napi_throw_range_error(env, nullptr, "rlhf-native: negative row count");
    return nullptr;
  }
  const int32_t* rowIds = reinterpret_cast<const int32_t*>(ids);
  for (int64_t i = 0; i < count; i++) {
    if (rowIds[i] < 0 || rowIds[i] >= w.rows) {
      napi_throw_range_error(env, nullptr, "rlhf-native: a row id lies outside the matrix");
      return nullptr;
    }
  }
  avx2::lowPrecisionRows(w, rowIds, count, out);
  return nullptr;
}

// ---- One Qwen2 decoder layer of the decode path in one call (libs/model decode.ts) ----
// The same kernels, in the same order, as the decode path's per-op tfjs kernels (RMSNorm, the fused [q|k|v] product
// plus bias, cached attention, o_proj, residual, RMSNorm, the fused [gate|up] product, SwiGLU, down_proj, residual),
// products by the same rules (matmulOne for float32, lowPrecisionMatMul for bf16 / int8), each projection's LoRA term
// (when it has an adapter) added as the per-op path adds it, so the results are the same numbers; what goes is the
// tfjs dispatch, the output allocations and the JS glue between them (about 10 tfjs kernels a layer, 240 a step on the
// 0.5B shape).

/** A decode layer's weight W [rows, cols] (an HF [out, in] matrix): float32 (f32 set) or low precision. */
struct LayerMatrix {
  const float* f32 = nullptr;
  avx2::LowPrecision low{};
  int64_t rows = 0, cols = 0;
};

/** C [m, W.rows] = A [m, W.cols] W^T, by the rules of the stand-alone products. */
void productT(const LayerMatrix& w, int64_t m, const float* a, float* c) {
  if (w.f32) matmulOne(Gemm{false, true, m, w.rows, w.cols}, a, w.f32, c, true);
  else avx2::lowPrecisionMatMul(w.low, true, m, a, c, true);
}

/** A projection's LoRA adapter (libs/model lora.ts): rank r (0: none), A [r, in], B [out, r], scale alpha / r. */
struct LayerLora {
  int64_t r = 0;
  const float *A = nullptr, *B = nullptr;
  float scale = 0;
};

/**
 * y[n, offset + j] (rows of `stride` floats) += the LoRA term of x [N, in] for out columns, in lora.ts loraDelta's
 * order: t = x A^T [N, r], then t (scale B)^T [N, out], then added; so the per-op path's numbers.
 */
void addLora(const LayerLora& l, int64_t N, int64_t in, int64_t out, const float* x, float* y, int64_t stride, int64_t offset) {
  if (l.r == 0) return;
  thread_local std::vector<float> scratch;
  scratch.resize(N * l.r + out * l.r + N * out);
  float *t = scratch.data(), *b = t + N * l.r, *d = b + out * l.r;
  matmulOne(Gemm{false, true, N, l.r, in}, x, l.A, t, true);
  for (int64_t i = 0; i < out * l.r; i++) b[i] = l.B[i] * l.scale;
  matmulOne(Gemm{false, true, N, out, l.r}, t, b, d, true);
  for (int64_t n = 0; n < N; n++)
    for (int64_t j = 0; j < out; j++) y[n * stride + offset + j] += d[n * out + j];
}

/**
 * The layer's fields as decodeLayer's spec (a Float64Array) holds them, in this order; a matrix is 3 numbers: its type
 * (-1 float32, 0 int8, 1 bf16), the offset of its values (float32 values, or the packed int32 words) and of its int8
 * scales (0 otherwise); then a LoRA adapter per projection (q, k, v, o, gate, up, down), 4 numbers each: rank (0:
 * none), the offsets of A and B, the scale. Offsets are in float32 elements of the heap. libs/backend
 * native-kernels.ts writes the same order.
 */
enum LayerSpec : int {
  kBatch, kSeq, kHeads, kKvHeads, kHeadDim, kPast, kCapacity, kTheta, kHidden, kInner, kEps,
  kX, kPositions, kKeyMask, kKCache, kVCache, kOut, kInputNorm, kPostNorm, kQkvBias,
  kQkv, kO = kQkv + 3, kGateUp = kO + 3, kDown = kGateUp + 3, kLora = kDown + 3, kSpecLength = kLora + 4 * 7
};

/** The LoRA adapter of projection `which` (0 q ... 6 down) of the spec, [out, in]; throws and returns false if it lies outside the heap. */
bool layerLora(napi_env env, const double* spec, int which, int64_t out, int64_t in, const Heap& heap, LayerLora* l) {
  const double* f = spec + kLora + 4 * which;
  const double r = f[0];
  if (!(r >= 0) || r != static_cast<double>(static_cast<int64_t>(r))) {
    napi_throw_range_error(env, nullptr, "rlhf-native: a decode layer's LoRA rank must be a whole number >= 0");
    return false;
  }
  l->r = static_cast<int64_t>(r);
  if (l->r == 0) return true;
  l->scale = static_cast<float>(f[3]);
  return (l->A = at(env, heap, static_cast<int64_t>(f[1]), l->r * in, "a LoRA A")) &&
         (l->B = at(env, heap, static_cast<int64_t>(f[2]), out * l->r, "a LoRA B"));
}

/** Matrix `field` of the spec, [rows, cols]; throws and returns false if it lies outside the heap. */
bool layerMatrix(napi_env env, const double* spec, int field, int64_t rows, int64_t cols, const Heap& heap, LayerMatrix* w) {
  const int64_t type = static_cast<int64_t>(spec[field]), data = static_cast<int64_t>(spec[field + 1]), scales = static_cast<int64_t>(spec[field + 2]);
  w->rows = rows;
  w->cols = cols;
  if (type == -1) return (w->f32 = at(env, heap, data, rows * cols, "a layer's float32 matrix")) != nullptr;
  if (type != avx2::LowPrecision::Int8 && type != avx2::LowPrecision::Bf16) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad decode-layer matrix type (-1 float32, 0 int8, 1 bf16)");
    return false;
  }
  const bool int8 = type == avx2::LowPrecision::Int8;
  const float *values, *s = nullptr;
  if (!(values = at(env, heap, data, (rows * cols * (int8 ? 1 : 2) + 3) / 4, "a layer's packed matrix"))) return false;
  if (int8 && !(s = at(env, heap, scales, rows, "a layer's int8 scales"))) return false;
  w->low = avx2::LowPrecision{static_cast<avx2::LowPrecision::Type>(type), values, s, rows, cols};
  return true;
}

// decodeLayer(heap, spec: Float64Array of LayerSpec): out [B*T, D] = the layer applied to x [B*T, D]; the layer's
// keys and values of this call are written into kCache, vCache [B, KV, capacity, hd] at [past, past + T).
napi_value DecodeLayer(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Heap heap;
  if (!heapArgs(env, info, 2, argv, &heap)) return nullptr;
  napi_typedarray_type type;
  size_t length;
  void* data;
  napi_value buffer;
  size_t byteOffset;
  if (napi_get_typedarray_info(env, argv[1], &type, &length, &data, &buffer, &byteOffset) != napi_ok ||
      type != napi_float64_array || length != kSpecLength) {
    napi_throw_type_error(env, nullptr, "rlhf-native: the decode-layer spec must be a Float64Array of its fields");
    return nullptr;
  }
  const double* spec = static_cast<const double*>(data);
  const auto n = [&](int field) { return static_cast<int64_t>(spec[field]); };
  const avx2::AttentionDims d{n(kBatch), n(kSeq), n(kHeads), n(kKvHeads), n(kHeadDim), n(kPast), n(kCapacity), static_cast<float>(spec[kTheta])};
  const int64_t D = n(kHidden), I = n(kInner);
  if (d.batch < 1 || d.seq < 1 || d.kvHeads < 1 || d.heads % d.kvHeads != 0 || d.headDim < 2 || d.headDim % 2 != 0 ||
      d.past < 0 || d.past + d.seq > d.capacity || D < 1 || I < 1) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad decodeLayer dimensions");
    return nullptr;
  }
  const int64_t N = d.batch * d.seq, Q = (d.heads + 2 * d.kvHeads) * d.headDim, A = d.heads * d.headDim;
  const int64_t cache = d.batch * d.kvHeads * d.capacity * d.headDim;
  float *x, *pos, *mask, *kCache, *vCache, *out, *inputNorm, *postNorm, *bias;
  LayerMatrix qkv, o, gateUp, down;
  if (!(x = at(env, heap, n(kX), N * D, "x")) || !(pos = at(env, heap, n(kPositions), N, "positions")) ||
      !(mask = at(env, heap, n(kKeyMask), d.batch * d.capacity, "keyMask")) || !(kCache = at(env, heap, n(kKCache), cache, "kCache")) ||
      !(vCache = at(env, heap, n(kVCache), cache, "vCache")) || !(out = at(env, heap, n(kOut), N * D, "out")) ||
      !(inputNorm = at(env, heap, n(kInputNorm), D, "input_layernorm")) || !(postNorm = at(env, heap, n(kPostNorm), D, "post_attention_layernorm")) ||
      !(bias = at(env, heap, n(kQkvBias), Q, "qkv bias")) || !layerMatrix(env, spec, kQkv, Q, D, heap, &qkv) ||
      !layerMatrix(env, spec, kO, D, A, heap, &o) || !layerMatrix(env, spec, kGateUp, 2 * I, D, heap, &gateUp) ||
      !layerMatrix(env, spec, kDown, D, I, heap, &down)) {
    return nullptr;
  }
  const int64_t qOut = d.heads * d.headDim, kvOut = d.kvHeads * d.headDim;
  LayerLora lq, lk, lv, lo, lg, lu, ld;
  if (!layerLora(env, spec, 0, qOut, D, heap, &lq) || !layerLora(env, spec, 1, kvOut, D, heap, &lk) ||
      !layerLora(env, spec, 2, kvOut, D, heap, &lv) || !layerLora(env, spec, 3, D, A, heap, &lo) ||
      !layerLora(env, spec, 4, I, D, heap, &lg) || !layerLora(env, spec, 5, I, D, heap, &lu) || !layerLora(env, spec, 6, D, I, heap, &ld)) {
    return nullptr;
  }
  const float eps = static_cast<float>(spec[kEps]);
  // Scratch of the calling thread: h [N, D], qkv [N, Q], ctx [N, A], [gate|up] [N, 2I], act [N, I], a product [N, D].
  thread_local std::vector<float> scratch;
  scratch.resize(N * (D + Q + A + 2 * I + I + D));
  float *h = scratch.data(), *q = h + N * D, *ctx = q + N * Q, *gu = ctx + N * A, *act = gu + N * 2 * I, *y = act + N * I;
  avx2::rmsNorm(N, D, x, inputNorm, eps, h);                                              // input_layernorm
  productT(qkv, N, h, q);                                                                 // [q|k|v] = h Wqkv^T
  for (int64_t r = 0; r < N; r++)
    for (int64_t j = 0; j < Q; j++) q[r * Q + j] += bias[j];                              // + [q|k|v] biases
  addLora(lq, N, D, qOut, h, q, Q, 0);                                                    // + LoRA terms of q, k, v
  addLora(lk, N, D, kvOut, h, q, Q, qOut);
  addLora(lv, N, D, kvOut, h, q, Q, qOut + kvOut);
  avx2::cachedAttention(d, q, reinterpret_cast<const int32_t*>(pos), mask, kCache, vCache, ctx);  // RoPE, cache, softmax
  productT(o, N, ctx, y);                                                                 // o_proj
  addLora(lo, N, A, D, ctx, y, D, 0);                                                     // + its LoRA term
  for (int64_t i = 0; i < N * D; i++) out[i] = x[i] + y[i];                               // residual
  avx2::rmsNorm(N, D, out, postNorm, eps, h);                                             // post_attention_layernorm
  productT(gateUp, N, h, gu);                                                             // [gate|up] = h Wgu^T
  addLora(lg, N, D, I, h, gu, 2 * I, 0);                                                  // + LoRA terms of gate, up
  addLora(lu, N, D, I, h, gu, 2 * I, I);
  avx2::swiglu(N, I, gu, gu + I, 2 * I, act);                                             // silu(gate) * up
  productT(down, N, act, y);                                                              // down_proj
  addLora(ld, N, I, D, act, y, D, 0);                                                     // + its LoRA term
  for (int64_t i = 0; i < N * D; i++) out[i] += y[i];                                     // residual
  return nullptr;
}

/** The dims and the q, k, v, positions, keyMask, out, lse (and prefix) pointers shared by both attention directions. */
struct AttentionArgs {
  avx2::AttentionDims d;
  float *q, *k, *v, *pos, *mask, *out, *lse;
  float *kPrefix = nullptr, *vPrefix = nullptr;
};

/** The shared prefix: its length at argv[i], its keys and values at argv[i + 1], argv[i + 2] (unread when 0). */
bool prefixArgs(napi_env env, napi_value* argv, int i, const Heap& heap, AttentionArgs* a) {
  a->d.past = i64(env, argv[i]);
  if (a->d.past < 0) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad attention prefix length");
    return false;
  }
  if (a->d.past == 0) return true;
  const int64_t size = a->d.past * a->d.kvHeads * a->d.headDim;
  return (a->kPrefix = at(env, heap, i64(env, argv[i + 1]), size, "kPrefix")) && (a->vPrefix = at(env, heap, i64(env, argv[i + 2]), size, "vPrefix"));
}

// (heap, batch, seq, heads, kvHeads, headDim, theta, q, k, v, positions, keyMask, out, lse, ...)
bool attentionArgs(napi_env env, napi_value* argv, const Heap& heap, AttentionArgs* a) {
  a->d = avx2::AttentionDims{i64(env, argv[1]), i64(env, argv[2]), i64(env, argv[3]), i64(env, argv[4]), i64(env, argv[5]),
                             0, 0, static_cast<float>(f64(env, argv[6]))};
  const avx2::AttentionDims& d = a->d;
  if (d.batch < 1 || d.seq < 1 || d.kvHeads < 1 || d.heads % d.kvHeads != 0 || d.headDim < 2 || d.headDim % 2 != 0) {
    napi_throw_range_error(env, nullptr, "rlhf-native: bad attention dimensions");
    return false;
  }
  const int64_t bt = d.batch * d.seq;
  return (a->q = at(env, heap, i64(env, argv[7]), bt * d.heads * d.headDim, "q")) &&
         (a->k = at(env, heap, i64(env, argv[8]), bt * d.kvHeads * d.headDim, "k")) &&
         (a->v = at(env, heap, i64(env, argv[9]), bt * d.kvHeads * d.headDim, "v")) &&
         (a->pos = at(env, heap, i64(env, argv[10]), bt, "positions")) &&
         (a->mask = at(env, heap, i64(env, argv[11]), bt, "keyMask")) &&
         (a->out = at(env, heap, i64(env, argv[12]), bt * d.heads * d.headDim, "out")) &&
         (a->lse = at(env, heap, i64(env, argv[13]), bt * d.heads, "lse"));
}

// (..., out, lse, prefix, kPrefix, vPrefix)
napi_value AttentionForward(napi_env env, napi_callback_info info) {
  napi_value argv[17];
  Heap heap;
  AttentionArgs a;
  if (!heapArgs(env, info, 17, argv, &heap) || !attentionArgs(env, argv, heap, &a) || !prefixArgs(env, argv, 14, heap, &a)) return nullptr;
  avx2::attentionForward(a.d, a.q, a.k, a.v, reinterpret_cast<const int32_t*>(a.pos), a.mask, a.kPrefix, a.vPrefix, a.out, a.lse);
  return nullptr;
}

// (..., out, lse, dout, dq, dk, dv, prefix, kPrefix, vPrefix, dkPrefix, dvPrefix)
napi_value AttentionBackward(napi_env env, napi_callback_info info) {
  napi_value argv[23];
  Heap heap;
  AttentionArgs a;
  if (!heapArgs(env, info, 23, argv, &heap) || !attentionArgs(env, argv, heap, &a) || !prefixArgs(env, argv, 18, heap, &a)) return nullptr;
  const int64_t bt = a.d.batch * a.d.seq, qs = bt * a.d.heads * a.d.headDim, ks = bt * a.d.kvHeads * a.d.headDim;
  const int64_t ps = a.d.past * a.d.kvHeads * a.d.headDim;
  float *dout, *dq, *dk, *dv, *dkPrefix = nullptr, *dvPrefix = nullptr;
  if (!(dout = at(env, heap, i64(env, argv[14]), qs, "dout")) || !(dq = at(env, heap, i64(env, argv[15]), qs, "dq")) ||
      !(dk = at(env, heap, i64(env, argv[16]), ks, "dk")) || !(dv = at(env, heap, i64(env, argv[17]), ks, "dv"))) {
    return nullptr;
  }
  if (ps > 0 && (!(dkPrefix = at(env, heap, i64(env, argv[21]), ps, "dkPrefix")) || !(dvPrefix = at(env, heap, i64(env, argv[22]), ps, "dvPrefix")))) {
    return nullptr;
  }
  avx2::attentionBackward(a.d, a.q, a.k, a.v, reinterpret_cast<const int32_t*>(a.pos), a.mask, a.kPrefix, a.vPrefix, a.out, a.lse,
                          dout, dq, dk, dv, dkPrefix, dvPrefix);
  return nullptr;
}

// expTerms(x: Float32Array, scale, out: Float64Array): out[i] = exp((x[i] - max) * scale); returns [max, sum].
// Host arrays (the sampler's row of logits), not the heap.
napi_value ExpTerms(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  if (!args(env, info, 3, argv)) return nullptr;
  napi_typedarray_type xType, outType;
  size_t n, outLength, byteOffset;
  void *x, *out;
  napi_value buffer;
  if (napi_get_typedarray_info(env, argv[0], &xType, &n, &x, &buffer, &byteOffset) != napi_ok || xType != napi_float32_array ||
      napi_get_typedarray_info(env, argv[2], &outType, &outLength, &out, &buffer, &byteOffset) != napi_ok ||
      outType != napi_float64_array || outLength < n) {
    napi_throw_type_error(env, nullptr, "rlhf-native: expTerms takes a Float32Array and a Float64Array at least as long");
    return nullptr;
  }
  float max;
  const double sum = avx2::expTerms(static_cast<int64_t>(n), static_cast<const float*>(x), f64(env, argv[1]), static_cast<double*>(out), &max);
  napi_value result, values[2];
  CHECK(env, napi_create_array_with_length(env, 2, &result));
  CHECK(env, napi_create_double(env, max, &values[0]));
  CHECK(env, napi_create_double(env, sum, &values[1]));
  CHECK(env, napi_set_element(env, result, 0, values[0]));
  CHECK(env, napi_set_element(env, result, 1, values[1]));
  return result;
}

// configure(threads, gemm): gemm is "auto" (OpenBLAS when loaded), "own" or "openblas". Returns info().
napi_value Info(napi_env env, napi_callback_info info);

napi_value Configure(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return nullptr;
  const int64_t n = i64(env, argv[0]);
  char gemm[16] = {0};
  size_t len = 0;
  CHECK(env, napi_get_value_string_utf8(env, argv[1], gemm, sizeof gemm, &len));
  if (n < 1 || n > 256) {
    napi_throw_range_error(env, nullptr, "rlhf-native: threads must be in [1, 256]");
    return nullptr;
  }
  const std::string choice(gemm, len);
  if (choice != "auto" && choice != "own" && choice != "openblas") {
    napi_throw_range_error(env, nullptr, "rlhf-native: gemm must be auto, own or openblas");
    return nullptr;
  }
  if (choice == "openblas" && !openblas::load()) {
    napi_throw_error(env, nullptr, "rlhf-native: gemm 'openblas' asked for, but libopenblas.so.0 could not be loaded");
    return nullptr;
  }
  useOpenblas = choice == "openblas" || (choice == "auto" && openblas::load());
  setThreads(static_cast<int>(n));
  if (useOpenblas) openblas::setThreads(static_cast<int>(n));
  return Info(env, info);
}

// info(): {cpu: bool (AVX2 and FMA), gemm: "openblas" | "own", kernel: the own GEMM's micro-kernel (gemmKernels), threads}
napi_value Info(napi_env env, napi_callback_info) {
  napi_value out, cpu, gemm, kernel, nthreads;
  CHECK(env, napi_create_object(env, &out));
  CHECK(env, napi_get_boolean(env, cpuOk, &cpu));
  CHECK(env, napi_create_string_utf8(env, useOpenblas ? "openblas" : "own", NAPI_AUTO_LENGTH, &gemm));
  CHECK(env, napi_create_string_utf8(env, cpuOk ? gemmKernel() : "none", NAPI_AUTO_LENGTH, &kernel));
  CHECK(env, napi_create_int32(env, threads(), &nthreads));
  CHECK(env, napi_set_named_property(env, out, "cpu", cpu));
  CHECK(env, napi_set_named_property(env, out, "gemm", gemm));
  CHECK(env, napi_set_named_property(env, out, "kernel", kernel));
  CHECK(env, napi_set_named_property(env, out, "threads", nthreads));
  return out;
}

/** {active, available}: a kernel in use and the comma-separated names of those this CPU has, as a JS object. */
napi_value kernelsObject(napi_env env, const char* activeName, const std::string& names) {
  napi_value out, active, available;
  CHECK(env, napi_create_object(env, &out));
  CHECK(env, napi_create_string_utf8(env, activeName, NAPI_AUTO_LENGTH, &active));
  CHECK(env, napi_create_array(env, &available));
  uint32_t i = 0;
  for (size_t start = 0; start <= names.size();) {
    const size_t end = std::min(names.find(',', start), names.size());
    napi_value name;
    CHECK(env, napi_create_string_utf8(env, names.data() + start, end - start, &name));
    CHECK(env, napi_set_element(env, available, i++, name));
    start = end + 1;
  }
  CHECK(env, napi_set_named_property(env, out, "active", active));
  CHECK(env, napi_set_named_property(env, out, "available", available));
  return out;
}

// gemmKernels(): {active, available}: the GEMM's micro-kernel in use (avx2, avx512 or avx512bf16) and those this CPU
// has, AVX2 first (kernels.h gemmKernel).
napi_value GemmKernels(napi_env env, napi_callback_info) { return kernelsObject(env, gemmKernel(), gemmKernels()); }

// setGemmKernel(name): the GEMM's micro-kernel by name (kernels.h); a RangeError for one this CPU lacks. Returns
// gemmKernels().
napi_value SetGemmKernel(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return nullptr;
  char name[32] = {0};
  size_t len = 0;
  CHECK(env, napi_get_value_string_utf8(env, argv[0], name, sizeof name, &len));
  if (!setGemmKernel(name)) {
    napi_throw_range_error(env, nullptr, (std::string("rlhf-native: no GEMM kernel '") + name + "' on this CPU (it has " + gemmKernels() + ")").c_str());
    return nullptr;
  }
  return GemmKernels(env, info);
}

// peakGflops(kind, seconds): GFLOP/s of a register-only loop of one multiply-add ("avx2", "avx512", "avx512bf16") on
// all the pool's threads at once (kernels.h peakGflops); -1 when the CPU lacks it.
napi_value PeakGflops(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  if (!args(env, info, 2, argv)) return nullptr;
  char kind[32] = {0};
  size_t len = 0;
  CHECK(env, napi_get_value_string_utf8(env, argv[0], kind, sizeof kind, &len));
  const double seconds = f64(env, argv[1]);
  if (!(seconds > 0 && seconds <= 60)) {
    napi_throw_range_error(env, nullptr, "rlhf-native: peakGflops seconds must be in (0, 60]");
    return nullptr;
  }
  napi_value out;
  CHECK(env, napi_create_double(env, peakGflops(kind, seconds), &out));
  return out;
}

// int16Kernels(): {active, available}: the int16 GEMM's micro-kernel in use and those this CPU has, AVX2 first
// (kernels.h int16Kernel).
napi_value Int16Kernels(napi_env env, napi_callback_info) { return kernelsObject(env, avx2::int16Kernel(), avx2::int16Kernels()); }

// setInt16Kernel(name): the int16 GEMM's micro-kernel by name (kernels.h); a RangeError for one this CPU lacks.
// Returns int16Kernels().
napi_value SetInt16Kernel(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args(env, info, 1, argv)) return nullptr;
  char name[32] = {0};
  size_t len = 0;
  CHECK(env, napi_get_value_string_utf8(env, argv[0], name, sizeof name, &len));
  if (!avx2::setInt16Kernel(name)) {
    napi_throw_range_error(env, nullptr, (std::string("rlhf-native: no int16 kernel '") + name + "' on this CPU (it has " + avx2::int16Kernels() + ")").c_str());
    return nullptr;
  }
  return Int16Kernels(env, info);
}

napi_value Init(napi_env env, napi_value exports) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  cpuOk = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  const struct {
    const char* name;
    napi_callback fn;
  } fns[] = {{"info", Info}, {"configure", Configure}, {"batchMatMul", BatchMatMul}, {"sumSquares", SumSquares}, {"addRows", AddRows}, {"sumRows", SumRows},
             {"adamw", AdamW},
             {"targetLogProbs", TargetLogProbs}, {"targetLogProbsGrad", TargetLogProbsGrad},
             {"cachedAttention", CachedAttention}, {"rmsNorm", RmsNorm}, {"swiglu", SwiGLU},
             {"attentionForward", AttentionForward}, {"attentionBackward", AttentionBackward},
             {"swigluGrad", SwiGLUGrad}, {"rmsNormGrad", RmsNormGrad}, {"segmentSum", SegmentSum},
             {"lowPrecisionMatMul", LowPrecisionMatMul}, {"lowPrecisionRows", LowPrecisionRows},
             {"decodeLayer", DecodeLayer}, {"expTerms", ExpTerms}, {"int16Kernels", Int16Kernels}, {"setInt16Kernel", SetInt16Kernel},
             {"gemmKernels", GemmKernels}, {"setGemmKernel", SetGemmKernel}, {"peakGflops", PeakGflops}};
  for (const auto& f : fns) {
    napi_value fn;
    // Without AVX2/FMA only info() is exported: nothing else may run.
    if (!cpuOk && std::strcmp(f.name, "info") != 0) continue;
    if (napi_create_function(env, f.name, NAPI_AUTO_LENGTH, f.fn, nullptr, &fn) != napi_ok ||
        napi_set_named_property(env, exports, f.name, fn) != napi_ok) {
      return nullptr;
    }
  }
  return exports;
}

}  // namespace
}  // namespace rlhf

NAPI_MODULE(NODE_GYP_MODULE_NAME, rlhf::Init)
