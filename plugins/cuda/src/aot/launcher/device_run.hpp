// Running a loaded bundle on the device: driver, device selection and limits, module, buffers,
// the launch sequence (with the test-time-training loop), the metrics record and the outputs.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "bundle.hpp"
#include "settings.hpp"

namespace vyre_launch {

// The metrics record (docs/AOT.md): the last kMetricRecordWords u32 words of the `metrics` buffer.
// Word 0 is the step, word 1 the loss as f32 bits, word 2 the token count; words 3..7 are free for
// the program.
struct MetricRecord {
  std::uint32_t step = 0;
  float loss = 0.0f;
  std::uint32_t tokens = 0;
};

MetricRecord decode_metric_record(const std::uint32_t (&words)[kMetricRecordWords]);
// "FINAL step=S loss=L tokens=T" and "TTT_CONVERGED step=K loss=L tokens=T".
std::string final_line(const MetricRecord& record);
std::string converged_line(std::uint32_t launch_step, const MetricRecord& record);

// Run `bundle` on the device `env` names and write its outputs into open_outputs(bundle, out_dir),
// each a fresh file renamed into place. Progress and the metrics lines go to `out`. Throws
// LaunchError.
void run_on_device(const Bundle& bundle, const Environment& env, const std::string& out_dir, std::ostream& out);

}  // namespace vyre_launch
