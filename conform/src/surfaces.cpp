// The dispatch surfaces a backend declares (async, timed, resident, sequence, compiled pipeline)
// must give the same bytes as a plain dispatch, on a sample of programs whose ops passed.
#include <functional>

#include "certify.hpp"
#include "vyre/conform/differential.hpp"

namespace vyre::conform::detail {
namespace {

using Outputs = std::vector<host::ByteVector>;

// Programs of different shapes: elementwise int and float, atomics on read_write buffers,
// workgroup memory with barriers, subgroups, narrow storage, fixpoint iterations.
constexpr const char* kSampleOps[] = {"bin.add.u32",      "un.sin.f32",         "atomic.add.u32",
                                      "node.barrier",     "subgroup.reduce.add.f32", "load.f16",
                                      "dispatch.fixpoint"};

struct Sample {
  OpTest test;
  BuiltTest built;
  std::vector<std::vector<std::uint8_t>> inputs;
  host::Program program;
  Outputs baseline;
};

// Resident buffers for every non-workgroup buffer, inputs uploaded.
std::vector<host::ResidentBuffer> resident_buffers(const host::Backend& b, const Sample& s, std::uint32_t cases) {
  std::vector<host::ResidentBuffer> buffers;
  std::size_t input = 0;
  std::size_t output = 0;
  for (const BufferDecl& d : s.built.program.buffers) {
    if (d.access == Access::Workgroup) continue;
    const std::uint64_t len = is_host_input(d.access) ? s.inputs[input].size()
                                                      : output_bytes(s.test.outputs[output], cases);
    host::ResidentBuffer r = b.alloc(len);
    if (is_host_input(d.access)) b.upload(r, 0, std::as_bytes(std::span(s.inputs[input])));
    input += is_host_input(d.access);
    output += is_host_output(d.access);
    buffers.push_back(std::move(r));
  }
  return buffers;
}

Outputs download_outputs(const host::Backend& b, const Sample& s, const std::vector<host::ResidentBuffer>& buffers) {
  Outputs out;
  std::size_t k = 0;
  for (const BufferDecl& d : s.built.program.buffers) {
    if (d.access == Access::Workgroup) continue;
    const host::ResidentBuffer& r = buffers[k++];
    if (is_host_output(d.access)) out.push_back(b.download(r, 0, r.byte_len()));
  }
  return out;
}

struct Surface {
  const char* name;
  std::uint64_t capability;
  std::function<Outputs(const host::Backend&, const Sample&, std::uint32_t)> run;
};

std::vector<Surface> surfaces() {
  return {
      {"async", VYRE_CAP_ASYNC,
       [](const host::Backend& b, const Sample& s, std::uint32_t) {
         return b.dispatch_async(s.program, as_inputs(s.inputs), s.built.config).wait();
       }},
      {"timed", VYRE_CAP_TIMED,
       [](const host::Backend& b, const Sample& s, std::uint32_t) {
         return b.dispatch_timed(s.program, as_inputs(s.inputs), s.built.config).outputs;
       }},
      {"resident", VYRE_CAP_RESIDENT,
       [](const host::Backend& b, const Sample& s, std::uint32_t cases) {
         const auto buffers = resident_buffers(b, s, cases);
         std::vector<host::Binding> bindings;
         for (const auto& r : buffers) bindings.push_back(host::Binding::of(r));
         b.dispatch_resident(s.program, bindings, s.built.config);
         return download_outputs(b, s, buffers);
       }},
      {"sequence", VYRE_CAP_SEQUENCE,
       [](const host::Backend& b, const Sample& s, std::uint32_t cases) {
         const auto buffers = resident_buffers(b, s, cases);
         host::Sequence seq;
         seq.prefix.push_back(host::SequenceStep{s.program, s.built.config, buffers});
         b.sequence(seq);
         return download_outputs(b, s, buffers);
       }},
      {"pipeline", VYRE_CAP_COMPILED_PIPELINE,
       [](const host::Backend& b, const Sample& s, std::uint32_t) {
         return b.pipeline(s.program, s.built.config).dispatch(as_inputs(s.inputs));
       }},
  };
}

bool passed(const std::vector<CertOpEntry>& entries, std::string_view op) {
  for (const auto& e : entries)
    if (e.op == op) return e.status == CertStatus::Pass;
  return false;
}

}  // namespace

std::vector<CertSurface> certify_surfaces(const Candidate& candidate, const Options& options,
                                          const std::vector<CertOpEntry>& entries) {
  const host::Backend& b = candidate.instance;
  std::vector<Sample> samples;
  std::vector<std::uint32_t> sample_cases;
  for (const char* id : kSampleOps) {
    if (!passed(entries, id)) continue;
    Sample s{op_tests(id).at(0), {}, {}, {}, {}};
    const auto lanes = LaneSource::witnesses_then_random(s.test, options.seed, stream_id(id, 0), options.random_lanes);
    const std::uint32_t cases = lanes.cases_for(s.test);
    s.built = s.test.build(cases);
    s.inputs = fill_inputs(s.test, lanes, 0, cases);
    try {
      s.program = b.compile(s.built.program);
      s.baseline = b.dispatch(s.program, as_inputs(s.inputs), s.built.config);
    } catch (const std::exception&) {
      continue;  // the op passed moments ago; a flaky sample is not a surface result
    }
    samples.push_back(std::move(s));
    sample_cases.push_back(cases);
  }
  std::vector<CertSurface> out;
  for (const Surface& surface : surfaces()) {
    CertSurface r{surface.name, CertStatus::Unsupported, 0, ""};
    if (!candidate.plugin->has(surface.capability)) {
      r.detail = "capability not declared";
      out.push_back(r);
      continue;
    }
    r.status = CertStatus::Pass;
    for (std::size_t i = 0; i < samples.size() && r.status == CertStatus::Pass; ++i) {
      ++r.programs;
      try {
        if (surface.run(b, samples[i], sample_cases[i]) != samples[i].baseline) {
          r.status = CertStatus::Fail;
          r.detail = samples[i].test.op + ": outputs differ from a plain dispatch";
        }
      } catch (const std::exception& e) {
        r.status = CertStatus::Fail;
        r.detail = samples[i].test.op + ": " + e.what();
      }
    }
    if (samples.empty()) {
      r.status = CertStatus::Unsupported;
      r.detail = "no sample op passed, nothing to compare";
    }
    out.push_back(r);
  }
  return out;
}

}  // namespace vyre::conform::detail
