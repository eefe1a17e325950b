// The optimizer's kernels in AVX2 / FMA: fused AdamW, and the sum of squares of every gradient (the global norm).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "avx2.h"
#include "kernels.h"
#include "pool.h"

namespace rlhf {
namespace avx2 {

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

}  // namespace avx2
}  // namespace rlhf
