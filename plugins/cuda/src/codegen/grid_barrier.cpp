// The grid barrier of cooperative entries, on the launch's own state (u32 arrival count at +0, u32
// generation at +4; zero-initialised by the runtime, left consistent after every barrier, so
// consecutive barriers and relaunches reuse it). No module-level state: launches never share it.
//
//   bar.sync                                  every invocation of the CTA has finished the phase
//   leader (local id 0):
//     gen  = ld.acquire.gpu [generation]      before arriving: it cannot advance without us
//     fence.acq_rel.gpu                       the CTA's writes (ordered by bar.sync) are released
//     old  = atom.acq_rel.gpu.add [count], 1
//     last arriver: st.relaxed [count] = 0; st.release [generation] = gen + 1
//     others:       spin on ld.acquire.gpu [generation] until it differs from gen
//     fence.acq_rel.gpu
//   bar.sync                                  the CTA continues only after its leader passed
#include "codegen/entry_parts.hpp"

namespace vyre::cuda::codegen {

namespace {

std::string is_leader(FunctionEmitter& f) {
  std::string axes[3];
  for (int a = 0; a < 3; ++a) {
    axes[a] = f.reg(RegClass::B32);
    f.ins("mov.u32 {}, %tid.{};", axes[a], "xyz"[a]);
  }
  std::string xy = f.reg(RegClass::B32);
  f.ins("or.b32 {}, {}, {};", xy, axes[0], axes[1]);
  std::string xyz = f.reg(RegClass::B32);
  f.ins("or.b32 {}, {}, {};", xyz, xy, axes[2]);
  std::string leader = f.reg(RegClass::Pred);
  f.ins("setp.eq.u32 {}, {}, 0;", leader, xyz);
  return leader;
}

std::string workgroup_count(FunctionEmitter& f) {
  std::string sizes[3];
  for (int a = 0; a < 3; ++a) {
    sizes[a] = f.reg(RegClass::B32);
    f.ins("mov.u32 {}, %nctaid.{};", sizes[a], "xyz"[a]);
  }
  std::string plane = f.reg(RegClass::B32);
  f.ins("mul.lo.u32 {}, {}, {};", plane, sizes[0], sizes[1]);
  std::string count = f.reg(RegClass::B32);
  f.ins("mul.lo.u32 {}, {}, {};", count, plane, sizes[2]);
  return count;
}

}  // namespace

void emit_grid_barrier(FunctionEmitter& f) {
  const std::string& state = f.params.grid_barrier;
  std::string wait = f.new_label("grid_wait");
  std::string passed = f.new_label("grid_passed");
  std::string done = f.new_label("grid_done");
  f.comment("grid barrier");
  f.ins("bar.sync 0;");
  std::string leader = is_leader(f);
  f.ins("@!{} bra {};", leader, done);
  std::string total = workgroup_count(f);
  std::string generation = f.reg(RegClass::B32);
  f.ins("ld.acquire.gpu.global.u32 {}, [{}+4];", generation, state);
  f.ins("fence.acq_rel.gpu;");
  std::string arrived = f.reg(RegClass::B32);
  f.ins("atom.acq_rel.gpu.global.add.u32 {}, [{}], 1;", arrived, state);
  std::string last_index = f.reg(RegClass::B32);
  f.ins("sub.u32 {}, {}, 1;", last_index, total);
  std::string waiter = f.reg(RegClass::Pred);
  f.ins("setp.ne.u32 {}, {}, {};", waiter, arrived, last_index);
  f.ins("@{} bra {};", waiter, wait);
  std::string zero = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, 0;", zero);
  f.ins("st.relaxed.gpu.global.u32 [{}], {};", state, zero);
  std::string next = f.reg(RegClass::B32);
  f.ins("add.u32 {}, {}, 1;", next, generation);
  f.ins("st.release.gpu.global.u32 [{}+4], {};", state, next);
  f.ins("bra {};", passed);
  f.put_label(wait);
  std::string current = f.reg(RegClass::B32);
  f.ins("ld.acquire.gpu.global.u32 {}, [{}+4];", current, state);
  std::string same = f.reg(RegClass::Pred);
  f.ins("setp.eq.u32 {}, {}, {};", same, current, generation);
  f.ins("@{} bra {};", same, wait);
  f.put_label(passed);
  f.ins("fence.acq_rel.gpu;");
  f.put_label(done);
  f.ins("bar.sync 0;");
}

}  // namespace vyre::cuda::codegen
