// Log-softmax over the vocabulary in AVX2 / FMA: the target tokens' log-probs and their gradient (training), and the
// sampler's softmax terms in double precision (decoding).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "avx2.h"
#include "kernels.h"
#include "pool.h"

namespace rlhf {
namespace avx2 {

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

}  // namespace avx2
}  // namespace rlhf
