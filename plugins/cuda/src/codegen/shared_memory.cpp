// Zeroing the shared block at workgroup start and after every grid barrier (SPEC: workgroup memory
// is zero at workgroup start and again after a grid_sync). The block is a multiple of 16 bytes, so
// invocations store whole 32-bit words, strided by the workgroup's size. The optimizer leaves the
// zeroing out of phases that never read workgroup memory before overwriting it
// (optimize/workgroup_init.hpp; entry_builder.cpp).
#include <string>
#include <utility>

#include "codegen/entry_parts.hpp"

namespace vyre::cuda::codegen {

namespace {

// local linear id = x + y * nx + z * nx * ny, and the workgroup's invocation count.
std::pair<std::string, std::string> linear_id_and_count(FunctionEmitter& f) {
  std::string axes[3], sizes[3];
  for (int a = 0; a < 3; ++a) {
    char axis = "xyz"[a];
    axes[a] = f.reg(RegClass::B32);
    sizes[a] = f.reg(RegClass::B32);
    f.ins("mov.u32 {}, %tid.{};", axes[a], axis);
    f.ins("mov.u32 {}, %ntid.{};", sizes[a], axis);
  }
  std::string row = f.reg(RegClass::B32);
  f.ins("mad.lo.u32 {}, {}, {}, {};", row, axes[2], sizes[1], axes[1]);
  std::string id = f.reg(RegClass::B32);
  f.ins("mad.lo.u32 {}, {}, {}, {};", id, row, sizes[0], axes[0]);
  std::string plane = f.reg(RegClass::B32);
  f.ins("mul.lo.u32 {}, {}, {};", plane, sizes[0], sizes[1]);
  std::string count = f.reg(RegClass::B32);
  f.ins("mul.lo.u32 {}, {}, {};", count, plane, sizes[2]);
  return {id, count};
}

// st.shared.u32 of `zero` at word `word` of the shared block.
void store_word(FunctionEmitter& f, const std::string& word, const std::string& zero) {
  std::string offset = f.reg(RegClass::B32);
  f.ins("shl.b32 {}, {}, 2;", offset, word);
  std::string address = f.reg(RegClass::B32);
  f.ins("add.u32 {}, {}, {};", address, f.params.shared_base, offset);
  f.ins("st.shared.u32 [{}], {};", address, zero);
}

// A module specialised to its launch workgroup (.reqntid) knows the invocation count: with at
// least one invocation per word, each stores its word once, without a loop (with the optimizer).
bool zero_shared_straight(FunctionEmitter& f, std::uint32_t words) {
  const auto& workgroup = f.layout().launch_workgroup;
  if (!workgroup || f.layout().ranges == nullptr) return false;  // with the optimizer only (A/B)
  const std::uint64_t count = std::uint64_t{(*workgroup)[0]} * (*workgroup)[1] * (*workgroup)[2];
  if (count < words) return false;
  auto [id, unused] = linear_id_and_count(f);
  std::string done = f.new_label("zero_shared_done");
  std::string outside = f.reg(RegClass::Pred);
  f.ins("setp.ge.u32 {}, {}, {};", outside, id, words);
  f.ins("@{} bra {};", outside, done);
  std::string zero = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, 0;", zero);
  store_word(f, id, zero);
  f.put_label(done);
  f.ins("bar.sync 0;");
  return true;
}

}  // namespace

void emit_zero_shared(FunctionEmitter& f) {
  std::uint32_t words = f.layout().shared_bytes / 4;
  if (words == 0) return;
  if (zero_shared_straight(f, words)) return;
  auto [id, count] = linear_id_and_count(f);
  std::string word = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, {};", word, id);
  std::string zero = f.reg(RegClass::B32);
  f.ins("mov.u32 {}, 0;", zero);
  std::string head = f.new_label("zero_shared");
  std::string done = f.new_label("zero_shared_done");
  f.put_label(head);
  std::string finished = f.reg(RegClass::Pred);
  f.ins("setp.ge.u32 {}, {}, {};", finished, word, words);
  f.ins("@{} bra {};", finished, done);
  store_word(f, word, zero);
  f.ins("add.u32 {}, {}, {};", word, word, count);
  f.ins("bra {};", head);
  f.put_label(done);
  f.ins("bar.sync 0;");
}

}  // namespace vyre::cuda::codegen
