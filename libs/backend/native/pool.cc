// See pool.h.
//
// Each parallelFor publishes a fresh Job; threads claim its tasks from an atomic counter, and the caller returns
// when every task has completed, without waiting for idle or descheduled workers (on a shared 2-core machine a
// worker may not run for milliseconds). A worker that wakes late finds the old job's tasks all claimed and does
// nothing, so no task can run twice.
#include "pool.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace rlhf {
namespace {

struct Job {
  const std::function<void(int)>* fn;
  int tasks;
  std::atomic<int> next{0};  // next unclaimed task
  std::atomic<int> done{0};  // tasks completed
};

struct Pool {
  std::mutex mu;
  std::condition_variable wake;
  int wanted = 1;   // threads including the caller
  int started = 0;  // worker threads started so far (never stopped, only parked)
  std::atomic<long> generation{0};
  std::shared_ptr<Job> current;  // guarded by mu
};

Pool& pool() {
  static Pool* p = new Pool();  // leaked on purpose: never destroyed while workers may touch it
  return *p;
}

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

void runTasks(Job& job) {
  for (int t = job.next.fetch_add(1); t < job.tasks; t = job.next.fetch_add(1)) {
    (*job.fn)(t);
    job.done.fetch_add(1, std::memory_order_release);
  }
}

/** A worker's loop; `seen` is the job generation when it was started (read then, under the pool's lock: read here, a job
    published before this thread first ran would count as seen, and the new worker would sit out that job). */
void worker(int index, long seen) {
  Pool& p = pool();
  for (;;) {
    // Spin about 50 us for the next job before sleeping: jobs come in bursts (a decode step issues dozens).
    bool got = false;
    for (int spin = 0; spin < 2000 && !got; spin++) {
      got = p.generation.load(std::memory_order_acquire) != seen;
      if (!got) pause();
    }
    std::shared_ptr<Job> job;
    {
      std::unique_lock<std::mutex> lock(p.mu);
      if (!got) p.wake.wait(lock, [&] { return p.generation.load() != seen; });
      seen = p.generation.load();
      if (index < p.wanted - 1) job = p.current;
    }
    if (job) runTasks(*job);
  }
}

}  // namespace

void setThreads(int n) {
  Pool& p = pool();
  if (n < 1) n = 1;
  std::lock_guard<std::mutex> lock(p.mu);
  p.wanted = n;
  while (p.started < n - 1) {
    std::thread(worker, p.started, p.generation.load()).detach();
    p.started++;
  }
}

int threads() { return pool().wanted; }

void parallelFor(int tasks, const std::function<void(int)>& fn) {
  Pool& p = pool();
  if (std::min(p.wanted, tasks) <= 1) {
    for (int t = 0; t < tasks; t++) fn(t);
    return;
  }
  auto job = std::make_shared<Job>();
  job->fn = &fn;
  job->tasks = tasks;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    p.current = job;
    p.generation.fetch_add(1, std::memory_order_acq_rel);
  }
  p.wake.notify_all();
  runTasks(*job);
  // Tasks claimed by other threads may still be running.
  for (int spins = 0; job->done.load(std::memory_order_acquire) < tasks; spins++) {
    if (spins > 4000) std::this_thread::yield();
    else pause();
  }
}

}  // namespace rlhf
