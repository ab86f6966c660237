// host::Group: sharded dispatch across the members of a device group.
#include "vyre/group.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <string_view>
#include <thread>
#include <tuple>

#include <fmt/format.h>

#include "backend_state.hpp"
#include "vyre/geometry.hpp"
#include "vyre/plugin_exit_guard.hpp"
#include "vyre/types.hpp"

namespace vyre::host {

namespace detail {

// The plugin's communicator over the members (group_create), released with the last Group copy.
struct Communicator {
  std::vector<Backend> members;  // keep the instances alive until the group is released
  const vyre_device_group_extension* extension = nullptr;
  vyre_device_group* handle = nullptr;

  Communicator() = default;
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;
  ~Communicator() {
    if (handle == nullptr) return;
    const PluginExitGuard guard(members.front().label().c_str(), "group_release");
    extension->group_release(handle);
  }
};

}  // namespace detail

struct Group::Shared {
  std::mutex mutex;
  std::shared_ptr<detail::Communicator> communicator;
};

namespace {

// The extension with collectives, or null (no extension, or one that predates them).
const vyre_device_group_extension* collectives_of(const Backend& member) {
  const vyre_extension* ext = member.extension(VYRE_EXTENSION_DEVICE_GROUP);
  if (ext == nullptr || ext->struct_size < VYRE_DEVICE_GROUP_EXTENSION_COLLECTIVES_SIZE) return nullptr;
  const auto* group = reinterpret_cast<const vyre_device_group_extension*>(ext);
  if (group->group_create == nullptr || group->group_collective == nullptr || group->group_release == nullptr) return nullptr;
  return group;
}

// Call a member plugin's extension function `name` and throw its failure.
template <class Call>
void call_plugin(const Backend& member, const char* name, Call&& call) {
  detail::ErrorSlot slot(member.fns());
  vyre_status status = VYRE_ERR_INTERNAL;
  {
    const PluginExitGuard guard(member.label().c_str(), name);
    status = call(slot.out());
  }
  slot.check(status, name);
}

}  // namespace

namespace detail {

// One declared buffer of a group dispatch and where its bytes go.
struct BufferPlan {
  const BufferDecl* decl = nullptr;
  std::uint64_t elements = 0;
  std::uint32_t element_bytes = 0;
  Placement placement;
  Bytes input;                   // read/uniform/read_write: the caller's bytes
  std::ptrdiff_t output = -1;    // read_write/output: index into the result

  std::uint64_t byte_len() const { return elements * element_bytes; }
};

}  // namespace detail

namespace {

using detail::BufferPlan;

[[noreturn]] void bad_placement(const BufferDecl& b, std::string_view why) {
  fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("group dispatch: buffer '{}' {}", b.name, why),
       "place read/uniform buffers replicated or split, read_write buffers split, and outputs gathered or summed "
       "(vyre/group.hpp)");
}

Placement resolve_placement(const BufferDecl& b, const Placements& placements) {
  const auto found = placements.find(b.name);
  using Kind = Placement::Kind;
  if (found == placements.end()) {
    if (b.access == Access::Read || b.access == Access::Uniform) return Placement::replicate();
    bad_placement(b, "has no placement");
  }
  const Placement p = found->second;
  if ((p.kind == Kind::split || p.kind == Kind::gathered) && p.per_invocation == 0) bad_placement(b, "has per_invocation 0");
  switch (b.access) {
    case Access::Read:
    case Access::Uniform:
      if (p.kind == Kind::replicated || p.kind == Kind::split) return p;
      bad_placement(b, "is an input and cannot be gathered or summed");
    case Access::ReadWrite:
      if (p.kind == Kind::split) return p;
      bad_placement(b, "is read_write: only split places it (each member's elements are gathered back)");
    case Access::Output:
      if (p.kind == Kind::gathered) return p;
      if (p.kind == Kind::summed && is_int(b.element) && (byte_size(b.element) == 4 || byte_size(b.element) == 8)) return p;
      if (p.kind == Kind::summed) bad_placement(b, "is summed but does not hold 32- or 64-bit integers (float sums are not exact)");
      bad_placement(b, "is an output: gather or sum it");
    case Access::Workgroup:
      bad_placement(b, "is a workgroup buffer, which has no placement");
  }
  bad_placement(b, "has an unknown access");
}

std::vector<BufferPlan> plan_buffers(const vyre::Program& program, std::span<const Bytes> inputs,
                                     const Placements& placements) {
  for (const auto& [name, placement] : placements) {
    (void)placement;
    if (program.find_buffer(name) == nullptr)
      fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("group dispatch: a placement names buffer '{}', which the program does not declare", name),
           "name the program's buffers");
  }
  const std::vector<std::size_t> input_indices = program.input_indices();
  const std::vector<std::size_t> output_indices = program.output_indices();
  if (inputs.size() != input_indices.size()) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("group dispatch: {} inputs for a program with {}", inputs.size(), input_indices.size()),
         "pass the read, uniform and read_write buffers in declaration order");
  }
  std::vector<BufferPlan> plans(program.buffers.size());
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    plans[i].decl = &program.buffers[i];
    plans[i].element_bytes = byte_size(program.buffers[i].element);
    plans[i].elements = program.buffers[i].count;
  }
  for (std::size_t k = 0; k < input_indices.size(); ++k) {
    BufferPlan& p = plans[input_indices[k]];
    p.input = inputs[k];
    if (p.decl->count == 0) p.elements = inputs[k].size() / p.element_bytes;
    if (inputs[k].size() != p.byte_len()) {
      fail(VYRE_ERR_INVALID_ARGUMENT,
           fmt::format("group dispatch: input '{}' has {} bytes; it needs {} ({} elements of {} bytes)", p.decl->name,
                       inputs[k].size(), p.byte_len(), p.elements, p.element_bytes),
           "pass whole buffers of the declared size (a runtime-sized one: a multiple of its element size)");
    }
  }
  for (std::size_t k = 0; k < output_indices.size(); ++k) plans[output_indices[k]].output = static_cast<std::ptrdiff_t>(k);
  for (BufferPlan& p : plans)
    if (p.decl->access != Access::Workgroup) p.placement = resolve_placement(*p.decl, placements);
  return plans;
}

void check_shardable(const vyre::Program& program, const LaunchGeometry& geometry) {
  if (has_grid_sync(program)) {
    fail(VYRE_ERR_UNSUPPORTED, "group dispatch: the program has a Barrier(grid_sync), which cannot be split across devices",
         "dispatch it on one device, or split it at the grid_sync into programs that each run on the group");
  }
  if (geometry.fixpoint_iterations > 1) {
    fail(VYRE_ERR_UNSUPPORTED, "group dispatch: fixpoint_iterations > 1 iterates over the whole grid, which cannot be split across devices",
         "dispatch it on one device, or run the iterations as separate group dispatches");
  }
}

// The byte range of `p` that belongs to `shard` (split and gathered placements).
IndexRange shard_bytes(const BufferPlan& p, const LaunchGeometry& geometry, const ShardRange& shard) {
  const IndexRange e = shard_elements(geometry, shard, p.placement.per_invocation, p.elements);
  return {e.begin * p.element_bytes, e.end * p.element_bytes};
}

bool gathers(const BufferPlan& p) {
  return p.placement.kind == Placement::Kind::gathered || (p.output >= 0 && p.placement.kind == Placement::Kind::split);
}

// One member's work: buffers, uploads, its share, downloads. Gathered bytes go straight into
// `outputs` (members write disjoint ranges); summed buffers come back whole in the result.
std::map<std::size_t, ByteVector> run_member(const Backend& member, const vyre::Program& ir,
                                              const std::vector<BufferPlan>& plans, const LaunchGeometry& geometry,
                                              const ShardRange& shard, const DispatchConfig& config,
                                              std::vector<ByteVector>& outputs) {
  std::map<std::size_t, ByteVector> summed;
  if (shard.empty()) return summed;  // nothing runs here; summed members add zeros
  const Program program = member.compile(ir);
  std::vector<Binding> bindings;
  std::vector<ResidentBuffer> residents(plans.size());
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const BufferPlan& p = plans[i];
    if (p.decl->access == Access::Workgroup) continue;
    if (p.placement.kind == Placement::Kind::replicated) {
      bindings.push_back(Binding::host_bytes(p.input));
      continue;
    }
    residents[i] = member.alloc(p.byte_len());
    if (p.placement.kind == Placement::Kind::split) {
      const IndexRange bytes = shard_bytes(p, geometry, shard);
      if (bytes.size() > 0) member.upload(residents[i], bytes.begin, p.input.subspan(bytes.begin, bytes.size()));
    }
    bindings.push_back(Binding::of(residents[i]));
  }
  member.dispatch_resident_shard(program, bindings, shard, config);
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const BufferPlan& p = plans[i];
    if (p.output < 0) continue;
    ByteVector& out = outputs[static_cast<std::size_t>(p.output)];
    if (gathers(p)) {
      const IndexRange bytes = shard_bytes(p, geometry, shard);
      if (bytes.size() == 0) continue;
      const ResidentRead read{residents[i], bytes.begin, MutableBytes(out).subspan(bytes.begin, bytes.size())};
      member.download(std::span(&read, 1));
    } else {
      summed[i] = member.download(residents[i], 0, p.byte_len());
    }
  }
  return summed;
}

template <class Word>
void add_words(MutableBytes into, Bytes from) {
  for (std::size_t at = 0; at + sizeof(Word) <= into.size(); at += sizeof(Word)) {
    Word a, b;
    std::memcpy(&a, into.data() + at, sizeof a);
    std::memcpy(&b, from.data() + at, sizeof b);
    a = static_cast<Word>(a + b);
    std::memcpy(into.data() + at, &a, sizeof a);
  }
}

// The output bytes the host sees: output_byte_range of the full buffer, when declared.
ByteVector trimmed(const BufferDecl& b, ByteVector full) {
  if (!b.output_byte_range) return full;
  const std::uint64_t end = std::min<std::uint64_t>(b.output_byte_range->end, full.size());
  const std::uint64_t begin = std::min(b.output_byte_range->begin, end);
  return ByteVector(full.begin() + static_cast<std::ptrdiff_t>(begin), full.begin() + static_cast<std::ptrdiff_t>(end));
}

}  // namespace

Group::Group(std::vector<Backend> members)
    : members_(std::move(members)), ranks_(static_cast<std::uint32_t>(members_.size())), shared_(std::make_shared<Shared>()) {
  if (members_.empty()) fail(VYRE_ERR_INVALID_ARGUMENT, "a device group needs at least one member", "pass one instance per device");
  for (const Backend& m : members_) {
    if (&m.fns() != &members_.front().fns()) {
      fail(VYRE_ERR_INVALID_ARGUMENT, "a device group mixes backends ('" + members_.front().label() + "' and '" + m.label() + "')",
           "make every member from the same backend plugin");
    }
    if (!m.can_shard()) {
      fail(VYRE_ERR_UNSUPPORTED, "backend '" + m.label() + "' cannot form device groups (it has no device-group extension)",
           "form device groups from instances of a backend that can (cuda)");
    }
  }
}

// A dispatch across processes: this process ran its rank's range; every rank now gives the others
// its part of each output, through the group's collectives, in the program's output order (every
// rank makes the same calls). Gathered buffers: each rank's elements go into a chunk of the largest
// share's size (u32 words), all_gather'ed, and every rank copies each rank's piece to its place.
// Summed buffers: all_reduce sum (exact: integers). Data goes through the host, once each way.
void Group::exchange_outputs(const std::vector<BufferPlan>& plans, const LaunchGeometry& geometry,
                             const std::vector<ShardRange>& shards, const std::map<std::size_t, ByteVector>& summed,
                             std::vector<ByteVector>& outputs) const {
  const Backend& member = members_.front();
  for (std::size_t i = 0; i < plans.size(); ++i) {
    const BufferPlan& p = plans[i];
    if (p.output < 0) continue;
    ByteVector& out = outputs[static_cast<std::size_t>(p.output)];
    if (gathers(p)) {
      std::vector<IndexRange> pieces;
      std::uint64_t largest = 0;
      for (const ShardRange& shard : shards) {
        pieces.push_back(shard_bytes(p, geometry, shard));
        largest = std::max(largest, pieces.back().size());
      }
      const std::uint64_t words = (largest + 3) / 4;
      if (words == 0) continue;
      const IndexRange mine = pieces[first_rank_];
      const GroupBuffers send = alloc(words * 4), recv = alloc(words * 4 * ranks_);
      if (mine.size() > 0) member.upload(send[0], 0, Bytes(out).subspan(mine.begin, mine.size()));
      all_gather(send, recv, Type::U32, words);
      const ByteVector all = member.download(recv[0], 0, words * 4 * ranks_);
      for (std::uint32_t q = 0; q < ranks_; ++q) {
        if (q == first_rank_ || pieces[q].size() == 0) continue;
        std::memcpy(out.data() + pieces[q].begin, all.data() + std::uint64_t{q} * words * 4, pieces[q].size());
      }
    } else {
      if (p.byte_len() == 0) continue;
      const auto found = summed.find(i);
      const GroupBuffers buffer = alloc(p.byte_len());  // zeroed: a rank without work adds zeros
      if (found != summed.end()) member.upload(buffer[0], 0, found->second);
      all_reduce(buffer, buffer, p.decl->element, Reduce::sum, p.elements);
      out = member.download(buffer[0], 0, p.byte_len());
    }
  }
}

std::vector<ByteVector> Group::dispatch(const vyre::Program& program, std::span<const Bytes> inputs,
                                        const Placements& placements, const DispatchConfig& config) const {
  const std::vector<BufferPlan> plans = plan_buffers(program, inputs, placements);
  std::vector<std::uint64_t> elements;
  for (const BufferPlan& p : plans) elements.push_back(p.elements);
  const LaunchGeometry geometry = resolve_geometry(program, config, elements);
  check_shardable(program, geometry);
  const std::vector<ShardRange> shards = shard_ranges(geometry.grid[0], ranks_);  // every rank's, in every process

  std::vector<ByteVector> outputs;
  for (std::size_t i : program.output_indices()) {
    const BufferPlan& p = plans[i];
    outputs.emplace_back(p.byte_len());
    if (p.decl->access == Access::ReadWrite)  // elements no shard writes keep their input bytes
      std::memcpy(outputs.back().data(), p.input.data(), p.input.size());
  }
  std::vector<std::future<std::map<std::size_t, ByteVector>>> work;
  for (std::size_t r = 0; r < members_.size(); ++r) {
    work.push_back(std::async(std::launch::async, [&, r] {
      return run_member(members_[r], program, plans, geometry, shards[first_rank_ + r], config, outputs);
    }));
  }
  std::vector<std::map<std::size_t, ByteVector>> summed;
  std::exception_ptr first_error;
  for (auto& w : work) {  // join every member before reporting the first failure
    try {
      summed.push_back(w.get());
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
  if (spans_processes_) {
    exchange_outputs(plans, geometry, shards, summed.front(), outputs);
  } else {
    for (const auto& member : summed) {  // rank order
    for (const auto& [i, bytes] : member) {
      ByteVector& out = outputs[static_cast<std::size_t>(plans[i].output)];
        if (plans[i].element_bytes == 4) add_words<std::uint32_t>(out, bytes);
        else add_words<std::uint64_t>(out, bytes);
      }
    }
  }
  for (std::size_t i : program.output_indices())
    outputs[static_cast<std::size_t>(plans[i].output)] =
        trimmed(*plans[i].decl, std::move(outputs[static_cast<std::size_t>(plans[i].output)]));
  return outputs;
}

namespace {

// The element count of every buffer of a resident group dispatch (declaration order), checking
// that the bindings fit: one per non-workgroup buffer, one live buffer of the right member per
// rank, equal sizes across members, host bytes for read/uniform buffers only.
std::vector<std::uint64_t> resident_elements(const vyre::Program& program, std::span<const GroupBinding> bindings,
                                             const std::vector<Backend>& members) {
  std::vector<std::uint64_t> elements;
  std::size_t k = 0;
  for (const BufferDecl& b : program.buffers) {
    if (b.access == Access::Workgroup) {
      elements.push_back(b.count);
      continue;
    }
    if (k >= bindings.size()) break;
    const GroupBinding& g = bindings[k++];
    std::uint64_t bytes = 0;
    if (g.is_host) {
      if (b.access != Access::Read && b.access != Access::Uniform) {
        fail(VYRE_ERR_INVALID_ARGUMENT,
             fmt::format("dispatch_resident: buffer '{}' is written by the program but bound to host bytes", b.name),
             "bind written buffers to resident buffers of every member (Group::alloc)");
      }
      bytes = g.host.size();
    } else {
      if (g.resident.size() != members.size()) {
        fail(VYRE_ERR_INVALID_ARGUMENT,
             fmt::format("dispatch_resident: buffer '{}' is bound to {} resident buffers for a group of {} members", b.name,
                         g.resident.size(), members.size()),
             "pass one buffer per member, in rank order (Group::alloc makes them)");
      }
      for (std::size_t r = 0; r < members.size(); ++r) {
        const ResidentBuffer& buffer = g.resident[r];
        if (!buffer || buffer.freed()) {
          fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("dispatch_resident: buffer '{}' of member {} is empty or freed", b.name, r),
               fmt::format("pass a live buffer of member {} (Group::alloc)", r));
        }
        if (buffer.byte_len() != g.resident.front().byte_len()) {
          fail(VYRE_ERR_INVALID_ARGUMENT,
               fmt::format("dispatch_resident: buffer '{}' has {} bytes on member {} and {} on member 0", b.name,
                           buffer.byte_len(), r, g.resident.front().byte_len()),
               "give every member a whole buffer of the same size (shards index it globally)");
        }
      }
      bytes = g.resident.front().byte_len();
    }
    elements.push_back(bytes / byte_size(b.element));
  }
  const std::size_t wanted = static_cast<std::size_t>(
      std::count_if(program.buffers.begin(), program.buffers.end(), [](const BufferDecl& b) { return b.access != Access::Workgroup; }));
  if (bindings.size() != wanted) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("dispatch_resident: {} bindings for a program with {} non-workgroup buffers", bindings.size(), wanted),
         "bind every read, uniform, read_write and output buffer, in declaration order");
  }
  return elements;
}

// Run every member's part concurrently and rethrow the first failure after all finished.
template <class Work>
void on_every_member(std::size_t count, Work&& work) {
  std::vector<std::future<void>> running;
  for (std::size_t r = 0; r < count; ++r) running.push_back(std::async(std::launch::async, [&work, r] { work(r); }));
  std::exception_ptr first_error;
  for (auto& w : running) {
    try {
      w.get();
    } catch (...) {
      if (!first_error) first_error = std::current_exception();
    }
  }
  if (first_error) std::rethrow_exception(first_error);
}

}  // namespace

GroupShards Group::dispatch_resident(const vyre::Program& program, std::span<const GroupBinding> bindings,
                                     const DispatchConfig& config) const {
  const std::vector<std::uint64_t> elements = resident_elements(program, bindings, members_);
  for (const GroupBinding& g : bindings) {
    if (g.is_host) continue;
    for (std::size_t r = 0; r < members_.size(); ++r) {
      if (g.resident[r].state_->instance != members_[r].state_) {
        fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("dispatch_resident: a binding's buffer {} is not a buffer of member {}", r, r),
             "pass buffers in rank order, each allocated by its own member (Group::alloc)");
      }
    }
  }
  GroupShards out;
  out.geometry = resolve_geometry(program, config, elements);
  check_shardable(program, out.geometry);
  out.ranges = shard_ranges(out.geometry.grid[0], ranks_);
  on_every_member(members_.size(), [&](std::size_t r) {
    const ShardRange shard = out.ranges[first_rank_ + r];
    if (shard.empty()) return;
    const Backend& member = members_[r];
    const Program compiled = member.compile(program);
    std::vector<Binding> member_bindings;
    for (const GroupBinding& g : bindings)
      member_bindings.push_back(g.is_host ? Binding::host_bytes(g.host) : Binding::of(g.resident[r]));
    member.dispatch_resident_shard(compiled, member_bindings, shard, config);
  });
  return out;
}

// ---- collectives ---------------------------------------------------------------------------------

bool Group::has_collectives() const { return collectives_of(members_.front()) != nullptr; }

const detail::Communicator& Group::communicator() const {
  std::lock_guard lock(shared_->mutex);
  if (shared_->communicator) return *shared_->communicator;
  const vyre_device_group_extension* extension = collectives_of(members_.front());
  if (extension == nullptr) {
    fail(VYRE_ERR_UNSUPPORTED,
         "backend '" + members_.front().label() + "' cannot run collectives (its device-group extension has none)",
         "run collectives on a backend that has them (cuda), or update the plugin");
  }
  auto made = std::make_shared<detail::Communicator>();
  made->members = members_;
  made->extension = extension;
  std::vector<vyre_backend*> handles;
  for (const Backend& m : members_) handles.push_back(m.native());
  call_plugin(members_.front(), "group_create", [&](vyre_error** e) {
    return extension->group_create(handles.data(), static_cast<std::uint32_t>(handles.size()), &made->handle, e);
  });
  shared_->communicator = std::move(made);
  return *shared_->communicator;
}

void Group::connect() const { (void)communicator(); }

namespace {

const vyre_device_group_extension* processes_of(const Backend& member) {
  const vyre_extension* ext = member.extension(VYRE_EXTENSION_DEVICE_GROUP);
  if (ext == nullptr || ext->struct_size < VYRE_DEVICE_GROUP_EXTENSION_PROCESSES_SIZE) return nullptr;
  const auto* group = reinterpret_cast<const vyre_device_group_extension*>(ext);
  if (group->group_unique_id == nullptr || group->group_join == nullptr || group->group_release == nullptr) return nullptr;
  return group;
}

std::vector<std::uint8_t> read_id_file(const std::string& path, std::uint32_t timeout_ms) {
  namespace fs = std::filesystem;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::error_code ec;
    if (fs::file_size(path, ec) == VYRE_GROUP_ID_BYTES && !ec) {
      std::ifstream in(path, std::ios::binary);
      std::vector<std::uint8_t> id(VYRE_GROUP_ID_BYTES);
      if (in.read(reinterpret_cast<char*>(id.data()), static_cast<std::streamsize>(id.size()))) return id;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      fail(VYRE_ERR_TIMEOUT, fmt::format("Group::join: no group id appeared in '{}' within {} ms", path, timeout_ms),
           "start rank 0 with the same id file (it writes it), or raise the timeout");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void write_id_file(const std::string& path, const std::vector<std::uint8_t>& id) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec)) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("Group::join: the id file '{}' already exists", path),
         "remove it (a stale id would make the other ranks join a dead group) or use a fresh path per run");
  }
  const std::string temporary = fmt::format("{}.tmp.{}", path, static_cast<long>(getpid()));
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(id.data()), static_cast<std::streamsize>(id.size()));
    if (!out.flush()) {
      fail(VYRE_ERR_IO, fmt::format("Group::join: cannot write the id file '{}'", temporary),
           "pass an id file in a writable directory that every rank can read");
    }
  }
  fs::rename(temporary, path, ec);  // atomic: readers never see a partial id
  if (ec) {
    fs::remove(temporary, ec);
    fail(VYRE_ERR_IO, fmt::format("Group::join: cannot rename '{}' to '{}'", temporary, path),
         "pass an id file in a writable directory that every rank can read");
  }
}

}  // namespace

Group Group::join(Backend member, const std::string& id_file, std::uint32_t ranks, std::uint32_t rank,
                  std::uint32_t timeout_ms) {
  if (ranks == 0 || rank >= ranks) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("Group::join: rank {} of {} ranks", rank, ranks),
         "pass the group's size and this process's rank, from 0 to the size - 1");
  }
  Group group(std::vector<Backend>{std::move(member)});
  const Backend& m = group.members_.front();
  const vyre_device_group_extension* extension = processes_of(m);
  if (extension == nullptr) {
    fail(VYRE_ERR_UNSUPPORTED, "backend '" + m.label() + "' cannot form groups that span processes",
         "run multi-process groups on a backend that can (cuda), or update the plugin");
  }
  std::vector<std::uint8_t> id(VYRE_GROUP_ID_BYTES);
  if (rank == 0) {
    call_plugin(m, "group_unique_id", [&](vyre_error** e) { return extension->group_unique_id(id.data(), id.size(), e); });
    write_id_file(id_file, id);
  } else {
    id = read_id_file(id_file, timeout_ms);
  }
  auto made = std::make_shared<detail::Communicator>();
  made->members = group.members_;
  made->extension = extension;
  try {
    call_plugin(m, "group_join", [&](vyre_error** e) {
      return extension->group_join(m.native(), id.data(), id.size(), ranks, rank, &made->handle, e);
    });
  } catch (...) {
    if (rank == 0) {
      std::error_code ec;
      std::filesystem::remove(id_file, ec);
    }
    throw;
  }
  if (rank == 0) {  // every rank has joined, so every rank has read it
    std::error_code ec;
    std::filesystem::remove(id_file, ec);
  }
  group.shared_->communicator = std::move(made);
  group.ranks_ = ranks;
  group.first_rank_ = rank;
  group.spans_processes_ = true;
  return group;
}

GroupBuffers Group::alloc(std::uint64_t byte_len) const {
  GroupBuffers out;
  for (const Backend& m : members_) out.push_back(m.alloc(byte_len));
  return out;
}

namespace {

void check_buffer_list(const GroupBuffers& buffers, std::size_t ranks, const char* which, const char* name) {
  if (buffers.size() != ranks) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: {} {} buffers for a group of {} members", name, buffers.size(), which, ranks),
         "pass one buffer per member, in rank order (Group::alloc makes them)");
  }
}

}  // namespace

void Group::upload(const GroupBuffers& buffers, std::span<const Bytes> data) const {
  check_buffer_list(buffers, members_.size(), "destination", "Group::upload");
  if (data.size() != members_.size()) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("Group::upload: {} byte ranges for a group of {} members", data.size(), members_.size()),
         "pass one byte range per member, in rank order");
  }
  for (std::size_t r = 0; r < members_.size(); ++r) members_[r].upload(buffers[r], 0, data[r]);
}

std::vector<ByteVector> Group::download(const GroupBuffers& buffers, std::uint64_t byte_len) const {
  check_buffer_list(buffers, members_.size(), "source", "Group::download");
  std::vector<ByteVector> out;
  for (std::size_t r = 0; r < members_.size(); ++r) out.push_back(members_[r].download(buffers[r], 0, byte_len));
  return out;
}

void Group::collective(std::uint32_t op, const GroupBuffers& send, const GroupBuffers& recv, Type element,
                       std::uint32_t reduce, std::uint64_t count, std::int32_t root, const char* name) const {
  const std::size_t ranks = members_.size();
  const bool broadcast = op == VYRE_COLLECTIVE_BROADCAST;
  check_buffer_list(send, ranks, "send", name);
  check_buffer_list(recv, ranks, "recv", name);
  std::vector<vyre_resident*> send_handles(ranks, nullptr), recv_handles(ranks, nullptr);
  for (std::size_t r = 0; r < ranks; ++r) {
    for (const auto& [list, handles, which] : {std::tuple{&send, &send_handles, "send"}, std::tuple{&recv, &recv_handles, "recv"}}) {
      const ResidentBuffer& buffer = (*list)[r];
      if (!buffer) {
        if (broadcast && std::string_view(which) == "send" && static_cast<std::int32_t>(first_rank_ + r) != root) continue;
        fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: {}[{}] is an empty ResidentBuffer", name, which, r),
             fmt::format("pass a buffer of member {} (Group::alloc)", r));
      }
      if (buffer.state_->instance != members_[r].state_) {
        fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("{}: {}[{}] is not a buffer of member {}", name, which, r, r),
             "pass buffers in rank order, each allocated by its own member (Group::alloc)");
      }
      (*handles)[r] = buffer.native();
    }
  }
  const detail::Communicator& comm = communicator();
  vyre_collective_args args{};
  args.struct_size = sizeof args;
  args.op = op;
  args.reduce = reduce;
  args.element = static_cast<std::uint32_t>(element);
  args.root = root;
  args.count = count;
  args.send = send_handles.data();
  args.recv = recv_handles.data();
  args.rank_count = static_cast<std::uint32_t>(ranks);
  call_plugin(members_.front(), "group_collective",
              [&](vyre_error** e) { return comm.extension->group_collective(comm.handle, &args, e); });
}

void Group::all_reduce(const GroupBuffers& send, const GroupBuffers& recv, Type element, Reduce op,
                       std::uint64_t count) const {
  collective(VYRE_COLLECTIVE_ALL_REDUCE, send, recv, element, static_cast<std::uint32_t>(op), count, 0, "all_reduce");
}

void Group::all_gather(const GroupBuffers& send, const GroupBuffers& recv, Type element, std::uint64_t count) const {
  collective(VYRE_COLLECTIVE_ALL_GATHER, send, recv, element, 0, count, 0, "all_gather");
}

void Group::reduce_scatter(const GroupBuffers& send, const GroupBuffers& recv, Type element, Reduce op,
                           std::uint64_t count) const {
  collective(VYRE_COLLECTIVE_REDUCE_SCATTER, send, recv, element, static_cast<std::uint32_t>(op), count, 0,
             "reduce_scatter");
}

void Group::broadcast(const GroupBuffers& send, const GroupBuffers& recv, Type element, std::uint64_t count,
                      std::uint32_t root) const {
  if (root >= ranks_) {
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("broadcast: root {} is not a rank of a group of {}", root, ranks_),
         fmt::format("pass a root from 0 to {}", ranks_ - 1));
  }
  collective(VYRE_COLLECTIVE_BROADCAST, send, recv, element, 0, count, static_cast<std::int32_t>(root), "broadcast");
}

}  // namespace vyre::host
