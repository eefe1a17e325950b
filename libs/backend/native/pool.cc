// See pool.h.
#include "pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace rlhf {
namespace {

struct Pool {
  std::mutex mu;
  std::condition_variable wake;
  int wanted = 1;              // threads including the caller
  int started = 0;             // worker threads started so far (never stopped, only parked)
  std::atomic<long> generation{0};
  // The current job.
  const std::function<void(int)>* fn = nullptr;
  int tasks = 0;
  int active = 0;              // workers allowed to join this job
  std::atomic<int> next{0};    // next unclaimed task
  std::atomic<int> finished{0};  // workers done with this job
};

Pool& pool() {
  static Pool* p = new Pool();  // leaked on purpose: never destroyed while workers may touch it
  return *p;
}

void runTasks(Pool& p) {
  for (int t = p.next.fetch_add(1); t < p.tasks; t = p.next.fetch_add(1)) (*p.fn)(t);
}

void worker(int index) {
  Pool& p = pool();
  long seen = p.generation.load();
  for (;;) {
    // Spin about 50 us for a new job before sleeping: jobs come in bursts.
    bool got = false;
    for (int spin = 0; spin < 2000; spin++) {
      if (p.generation.load(std::memory_order_acquire) != seen) {
        got = true;
        break;
      }
#if defined(__x86_64__) || defined(__i386__)
      __builtin_ia32_pause();
#endif
    }
    if (!got) {
      std::unique_lock<std::mutex> lock(p.mu);
      p.wake.wait(lock, [&] { return p.generation.load() != seen; });
    }
    seen = p.generation.load(std::memory_order_acquire);
    if (index < p.active) runTasks(p);
    p.finished.fetch_add(1, std::memory_order_acq_rel);
  }
}

}  // namespace

void setThreads(int n) {
  Pool& p = pool();
  if (n < 1) n = 1;
  std::lock_guard<std::mutex> lock(p.mu);
  p.wanted = n;
  while (p.started < n - 1) {
    std::thread(worker, p.started).detach();
    p.started++;
  }
}

int threads() { return pool().wanted; }

void parallelFor(int tasks, const std::function<void(int)>& fn) {
  Pool& p = pool();
  int helpers = std::min(p.wanted, tasks) - 1;
  if (helpers <= 0) {
    for (int t = 0; t < tasks; t++) fn(t);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(p.mu);
    p.fn = &fn;
    p.tasks = tasks;
    p.active = helpers;
    p.next.store(0);
    p.finished.store(0);
    p.generation.fetch_add(1, std::memory_order_acq_rel);
  }
  p.wake.notify_all();
  runTasks(p);
  // Every started worker acknowledges the job (idle ones without working), so the next job cannot
  // start while one of them still reads this one.
  int spins = 0;
  while (p.finished.load(std::memory_order_acquire) < p.started) {
    if (++spins > 4000) std::this_thread::yield();
#if defined(__x86_64__) || defined(__i386__)
    else __builtin_ia32_pause();
#endif
  }
}

}  // namespace rlhf
