#include "vyre/conform/report.hpp"

#include <cstdio>
#include <map>
#include <vector>

#include "vyre/ops.hpp"

namespace vyre::conform {

Reporter::Reporter(std::ostream& out, std::ostream& err, bool progress)
    : out_(out), err_(err), progress_(progress) {}

void Reporter::start(std::string label, std::uint64_t total) {
  std::lock_guard lock(mutex_);
  label_ = std::move(label);
  total_ = total;
  done_ = 0;
  draw_locked();
}

void Reporter::advance(std::uint64_t n) {
  std::lock_guard lock(mutex_);
  done_ += n;
  const auto now = std::chrono::steady_clock::now();
  if (done_ < total_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  draw_locked();
}

void Reporter::finish() {
  std::lock_guard lock(mutex_);
  clear_locked();
}

void Reporter::print(const std::string& text) {
  std::lock_guard lock(mutex_);
  clear_locked();
  out_ << text << std::flush;
  if (total_ > 0 && done_ < total_) draw_locked();
}

void Reporter::draw_locked() {
  if (!progress_ || total_ == 0) return;
  last_draw_ = std::chrono::steady_clock::now();
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * done_ / total_);
  std::string bar(filled, '=');
  if (filled < kWidth) bar += '>';
  bar.resize(kWidth, ' ');
  char line[256];
  std::snprintf(line, sizeof line, "\r[%s] %3d%% %llu/%llu %s", bar.c_str(),
                static_cast<int>(100 * done_ / total_), static_cast<unsigned long long>(done_),
                static_cast<unsigned long long>(total_), label_.c_str());
  err_ << line << "\x1b[K" << std::flush;
  drawn_ = true;
}

void Reporter::clear_locked() {
  if (!drawn_) return;
  err_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

std::string summary_table(const Certificate& c) {
  struct Row {
    std::uint64_t n[5] = {};
  };
  std::map<std::string, Row> rows;
  std::vector<std::string> order;
  Row total;
  for (const auto& entry : c.ops) {
    const OpInfo* op = find_op(entry.op);
    const std::string family(op ? op_family_name(op->family) : "?");
    if (!rows.count(family)) order.push_back(family);
    ++rows[family].n[static_cast<int>(entry.status)];
    ++total.n[static_cast<int>(entry.status)];
  }
  const bool offline = c.mode == "offline";
  const int cols[3] = {offline ? 3 : 0, offline ? 4 : 1, 2};
  char line[160];
  std::string out;
  std::snprintf(line, sizeof line, "%-12s %8s %8s %12s\n", "family", offline ? "lowered" : "pass",
                offline ? "failed" : "fail", "unsupported");
  out += line;
  auto add = [&](const std::string& name, const Row& r) {
    std::snprintf(line, sizeof line, "%-12s %8llu %8llu %12llu\n", name.c_str(),
                  static_cast<unsigned long long>(r.n[cols[0]]), static_cast<unsigned long long>(r.n[cols[1]]),
                  static_cast<unsigned long long>(r.n[cols[2]]));
    out += line;
  };
  for (const auto& f : order) add(f, rows[f]);
  add("total", total);
  return out;
}

}  // namespace vyre::conform
