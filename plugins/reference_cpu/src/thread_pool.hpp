// A small pool of helper threads for fork-join work. Several callers may run jobs at once; each
// caller works on its own job too, so a job never waits for a busy pool to start it.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace vyre::refcpu {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned helpers);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned helpers() const { return static_cast<unsigned>(threads_.size()); }

  // Runs task(0) on the calling thread and task(1..extra) on helpers that are free to take it;
  // returns once task(0) and every helper that started have returned. `task` must not throw.
  void run(unsigned extra, const std::function<void(unsigned slot)>& task);

 private:
  struct Job;
  void helper_loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> tickets_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace vyre::refcpu
