// A small persistent thread pool: parallelFor(tasks, fn) runs fn(0..tasks-1) on the calling thread plus
// up to threads-1 workers and returns when all are done. Workers spin briefly for the next job (a decode
// step issues dozens of small jobs back to back), then sleep on a condition variable, so an idle pool
// costs no CPU. The pool is never destroyed: its threads are detached and die with the process, which
// they do not keep alive.
#pragma once
#include <functional>

namespace rlhf {

/** Sets the number of threads (the caller included), >= 1. Starts workers as needed. */
void setThreads(int n);
int threads();

/** Runs fn(task) for task in [0, tasks); tasks are claimed dynamically by the pool's threads. */
void parallelFor(int tasks, const std::function<void(int)>& fn);

}  // namespace rlhf
