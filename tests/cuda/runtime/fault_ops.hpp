// The representative operations of the fault-injection table (fault_table.hpp): creating an
// instance, compiling, host dispatch (mapped, image, copies, cooperative; sync, async, timed),
// resident allocation, upload, download, dispatch (plain, repeated, host-bound, async, timed) and
// free, sequences (plain and updating a cached graph) and compiled pipelines (first and replayed
// dispatch of each staging, also with image and copies shapes captured into graphs). Each runs on a fresh instance, and can run again after a failure.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test_programs.hpp"
#include "vyre/backend.hpp"

namespace vyre::cudatest {

// What an operation runs against: its instance, and how to make one.
struct FaultContext {
  host::Backend backend;
  std::function<host::Backend()> open;
};

class FaultOp {
 public:
  FaultOp(std::string name, Kernel kernel, std::uint32_t rotate_n = 0)
      : name_(std::move(name)), kernel_(kernel), rotate_n_(rotate_n) {}
  virtual ~FaultOp() = default;

  const std::string& name() const { return name_; }
  Kernel kernel() const { return kernel_; }       // the program whose kernels the fake must run
  std::uint32_t rotate_n() const { return rotate_n_; }
  // run() makes the instance itself (ctx.backend is empty before it).
  virtual bool creates() const { return false; }
  // Driver functions whose injected failure this operation finishes correctly despite, besides
  // those every operation may absorb (fault_table.cpp), with the reason.
  virtual std::set<std::string> absorbs() const { return {}; }

  virtual void setup(FaultContext&) {}    // once per instance, before any fault is armed
  virtual void prepare(FaultContext&) {}  // before each run, disarmed
  virtual void run(FaultContext& ctx) = 0;
  // After a run that succeeded (disarmed): "" when the results are right, else what is wrong.
  virtual std::string verify(FaultContext&) { return ""; }
  // After a run that failed: "" when no caller output byte was written, else where one was.
  virtual std::string untouched() const { return ""; }
  virtual void teardown() {}  // drop every handle, so the instance can go

 private:
  std::string name_;
  Kernel kernel_;
  std::uint32_t rotate_n_;
};

std::vector<std::unique_ptr<FaultOp>> representative_fault_ops();

}  // namespace vyre::cudatest
