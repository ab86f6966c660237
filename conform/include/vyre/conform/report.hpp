// Console output of vyre-conform: a progress bar on a TTY, failure reports that never interleave,
// and the per-family summary table.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

#include "vyre/certificate.hpp"

namespace vyre::conform {

class Reporter {
 public:
  // `progress`: draw a bar on `err` (only pass true when err is a terminal).
  Reporter(std::ostream& out, std::ostream& err, bool progress);

  void start(std::string label, std::uint64_t total);
  void advance(std::uint64_t n = 1);
  void finish();
  // Print a block on `out` (thread-safe; the bar is cleared first and redrawn after).
  void print(const std::string& text);

 private:
  void draw_locked();
  void clear_locked();

  std::ostream& out_;
  std::ostream& err_;
  bool progress_;
  std::mutex mutex_;
  std::string label_;
  std::uint64_t total_ = 0;
  std::uint64_t done_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

// The table of pass/fail/unsupported (or lowered/lowering_failed) per op family, with a total row.
std::string summary_table(const Certificate& certificate);

}  // namespace vyre::conform
