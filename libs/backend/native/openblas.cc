// OpenBLAS, when the machine has it (Debian: libopenblas0-pthread), loaded at run time with dlopen so that
// the addon has no link-time dependency and builds and runs without it.
#include <dlfcn.h>

#include <initializer_list>

#include "kernels.h"

namespace rlhf {
namespace openblas {
namespace {

// cblas.h's enums, spelled out so no header is needed.
constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;
using Sgemm = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
using SetThreads = void (*)(int);

Sgemm sgemm = nullptr;
SetThreads setThreadsFn = nullptr;

}  // namespace

bool load() {
  if (sgemm != nullptr) return true;
  for (const char* name : {"libopenblas.so.0", "libopenblas.so"}) {
    void* lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) continue;
    sgemm = reinterpret_cast<Sgemm>(dlsym(lib, "cblas_sgemm"));
    setThreadsFn = reinterpret_cast<SetThreads>(dlsym(lib, "openblas_set_num_threads"));
    if (sgemm != nullptr) return true;
    dlclose(lib);
  }
  return false;
}

bool loaded() { return sgemm != nullptr; }

void setThreads(int n) {
  if (setThreadsFn != nullptr) setThreadsFn(n);
}

void gemm(const Gemm& g, const float* a, const float* b, float* c) {
  const int lda = static_cast<int>(g.transA ? g.m : g.k);
  const int ldb = static_cast<int>(g.transB ? g.k : g.n);
  sgemm(kRowMajor, g.transA ? kTrans : kNoTrans, g.transB ? kTrans : kNoTrans, static_cast<int>(g.m),
        static_cast<int>(g.n), static_cast<int>(g.k), 1.0f, a, lda, b, ldb, 0.0f, c, static_cast<int>(g.n));
}

}  // namespace openblas
}  // namespace rlhf
