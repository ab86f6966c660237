#include "runtime/batcher.hpp"

namespace vyre::vulkan {

Batcher::Batcher(std::shared_ptr<Device> device, SubmissionPool& pool, std::atomic<std::uint64_t>* submissions)
    : device_(std::move(device)), pool_(pool), submissions_(submissions) {
  device_->set_flush_hook([this] { flush(); });
}

Batcher::~Batcher() {
  device_->set_flush_hook(nullptr);
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (drivers_shut_down()) return;  // see loader.hpp: nothing is submitted at exit
  try {
    flush();
  } catch (...) {
    // the failure is the tickets' (their pendings hold the error)
  }
}

std::shared_ptr<Ticket> Batcher::add(const std::function<void(VkCommandBuffer)>& record) {
  std::unique_lock lock(mutex_);
  if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  if (!open_.submission) {
    // May wait for the oldest submission in flight (already queued work: no deadlock on mutex_).
    auto submission = pool_.acquire();
    try {
      submission->begin(false);  // starts with the full barrier
    } catch (...) {
      pool_.release(std::move(submission));
      throw;
    }
    open_.submission = std::move(submission);
    open_.ticket = std::make_shared<Ticket>();
    open_.count = 0;
  } else {
    full_barrier(device_->fn(), open_.submission->command_buffer());
  }
  record(open_.submission->command_buffer());
  ++open_.count;
  std::shared_ptr<Ticket> ticket = open_.ticket;
  if (open_.count >= kMaxPerBatch) close_open_locked();
  const bool wake = idle_;
  lock.unlock();
  if (wake) wake_.notify_one();
  return ticket;
}

void Batcher::close_open_locked() {
  if (!open_.submission) return;
  closed_.push_back(std::move(open_));
  open_ = Batch{};
}

void Batcher::drain() {
  std::lock_guard submitting(submit_mutex_);
  for (;;) {
    Batch batch;
    {
      std::lock_guard lock(mutex_);
      if (closed_.empty()) return;
      batch = std::move(closed_.front());
      closed_.pop_front();
    }
    try {
      batch.ticket->value.store(batch.submission->submit_batched(), std::memory_order_release);
      if (submissions_ != nullptr) submissions_->fetch_add(1, std::memory_order_relaxed);
    } catch (...) {
      batch.ticket->error = std::current_exception();
      batch.ticket->failed.store(true, std::memory_order_release);
    }
    pool_.release(std::move(batch.submission));
  }
}

void Batcher::flush() {
  {
    std::lock_guard lock(mutex_);
    close_open_locked();
  }
  drain();
}

std::uint64_t Batcher::value_of(const std::shared_ptr<Ticket>& ticket) {
  if (std::uint64_t v = ticket->value.load(std::memory_order_acquire); v != 0) return v;
  if (!ticket->failed.load(std::memory_order_acquire)) {
    {
      std::lock_guard lock(mutex_);
      if (open_.ticket == ticket) close_open_locked();
    }
    drain();  // also waits for a batch the thread is submitting now (it holds submit_mutex_)
  }
  if (ticket->failed.load(std::memory_order_acquire)) std::rethrow_exception(ticket->error);
  return ticket->value.load(std::memory_order_acquire);
}

void Batcher::run() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      idle_ = true;
      wake_.wait(lock, [&] { return stop_ || open_.submission || !closed_.empty(); });
      idle_ = false;
      if (stop_) return;
      if (closed_.empty()) close_open_locked();
    }
    drain();
  }
}

}  // namespace vyre::vulkan
