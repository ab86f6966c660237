#include "thread_pool.hpp"

namespace vyre::refcpu {

struct ThreadPool::Job {
  const std::function<void(unsigned)>* task = nullptr;
  std::mutex mutex;
  std::condition_variable done;
  unsigned next_slot = 1;
  unsigned running = 0;
  bool closed = false;  // the caller finished its share: tickets not yet taken are void
};

ThreadPool::ThreadPool(unsigned helpers) {
  threads_.reserve(helpers);
  for (unsigned i = 0; i < helpers; ++i) threads_.emplace_back([this] { helper_loop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
}

void ThreadPool::helper_loop() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tickets_.empty(); });
      if (stopping_) return;
      job = std::move(tickets_.front());
      tickets_.pop_front();
    }
    unsigned slot = 0;
    {
      std::lock_guard lock(job->mutex);
      if (job->closed) continue;
      slot = job->next_slot++;
      ++job->running;
    }
    (*job->task)(slot);
    {
      std::lock_guard lock(job->mutex);
      --job->running;
    }
    job->done.notify_all();
  }
}

void ThreadPool::run(unsigned extra, const std::function<void(unsigned)>& task) {
  if (extra > threads_.size()) extra = static_cast<unsigned>(threads_.size());
  auto job = std::make_shared<Job>();
  job->task = &task;
  if (extra > 0) {
    {
      std::lock_guard lock(mutex_);
      for (unsigned i = 0; i < extra; ++i) tickets_.push_back(job);
    }
    if (extra == 1) {
      wake_.notify_one();
    } else {
      wake_.notify_all();
    }
  }
  task(0);
  std::unique_lock lock(job->mutex);
  job->closed = true;
  job->done.wait(lock, [&] { return job->running == 0; });
}

}  // namespace vyre::refcpu
