// Attention in AVX2 / FMA: the decode path's attention over a preallocated KV cache, and training attention forward
// and backward (causal, GQA, RoPE, an optional shared prefix of keys), in query blocks of kQueryBlock rows.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "avx2.h"
#include "kernels.h"
#include "pool.h"

namespace rlhf {
namespace avx2 {

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

/**
 * The rotary tables of `positions` (count of them), built once and reused while this thread asks for the same positions,
 * head dim and base: every layer of a training step, forward and backward, rotates by the same positions (0.46 ms a
 * table at 2,048 positions, 8 tables a step of the shipped shape). Valid until this thread's next call.
 */
const Rope& ropeFor(const int32_t* positions, int64_t count, int64_t hd, float theta) {
  thread_local std::vector<int32_t> key;
  thread_local int64_t keyHd = -1;
  thread_local float keyTheta = 0.f;
  thread_local std::unique_ptr<Rope> table;
  const bool same = table && keyHd == hd && keyTheta == theta && static_cast<int64_t>(key.size()) == count &&
                    std::equal(key.begin(), key.end(), positions);
  if (!same) {
    table = std::make_unique<Rope>(positions, count, hd, theta);
    key.assign(positions, positions + count);
    keyHd = hd;
    keyTheta = theta;
  }
  return *table;
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

void attentionForward(const AttentionDims& d, const float* q, const float* k, const float* v, const int32_t* positions,
                      const float* keyMask, const float* kPrefix, const float* vPrefix, float* out, float* lse) {
  const int64_t B = d.batch, T = d.seq, H = d.heads, KV = d.kvHeads, hd = d.headDim, rep = H / KV, n = d.past, S = n + T;
  const Rope& rope = ropeFor(positions, B * T, hd, d.theta);
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
  const Rope& rope = ropeFor(positions, B * T, hd, d.theta);
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

}  // namespace avx2
}  // namespace rlhf
