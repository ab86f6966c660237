// The random program generator: buffers first, then statements with a lexical scope, each
// expression generated *for a wanted type* so every program is well-typed by construction.
#include "support/random_program.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vyre/builder.hpp"
#include "vyre/ops.hpp"

namespace vyre::test {

namespace {

constexpr Type kNarrowTypes[] = {Type::U8, Type::U16, Type::I8, Type::I16, Type::F16, Type::BF16};

std::uint64_t width_mask(Type t) {
  std::uint32_t bits = bit_width(t);
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

std::uint64_t random_float_bits(std::mt19937_64& rng, Type t) {
  static constexpr std::uint32_t kF32[] = {
      0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FC00001, 0xFFBFFFFF,
      0x00000001, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0x3F800000, 0xBF800000, 0x3F000000,
      0x3EAAAAAB, 0x40490FDB, 0x4B800000, 0xCF000000};
  static constexpr std::uint64_t kF64[] = {
      0x0000000000000000, 0x8000000000000000, 0x7FF0000000000000, 0xFFF0000000000000,
      0x7FF8000000000000, 0x7FF0000000000001, 0xFFF8000000000123, 0x0000000000000001,
      0x000FFFFFFFFFFFFF, 0x0010000000000000, 0x7FEFFFFFFFFFFFFF, 0x3FF0000000000000,
      0xBFF0000000000000, 0x3FE0000000000000, 0x3FD5555555555555, 0x400921FB54442D18};
  bool f32 = t == Type::F32;
  switch (rng() % 3) {
    case 0: return f32 ? kF32[rng() % std::size(kF32)] : kF64[rng() % std::size(kF64)];
    case 1: {  // a "nice" value: small integer or simple fraction
      double v = static_cast<double>(static_cast<int>(rng() % 200) - 100) / (1 + rng() % 8);
      return f32 ? std::bit_cast<std::uint32_t>(static_cast<float>(v)) : std::bit_cast<std::uint64_t>(v);
    }
    default: return rng() & width_mask(t);
  }
}

std::uint64_t random_int_bits(std::mt19937_64& rng, Type t) {
  std::uint64_t mask = width_mask(t);
  std::uint64_t top = (mask >> 1) + 1;  // the sign bit
  switch (rng() % 4) {
    case 0: {
      const std::uint64_t edges[] = {0, 1, 2, mask, mask - 1, top, top - 1, top + 1,
                                     0x5555555555555555 & mask, 0xAAAAAAAAAAAAAAAA & mask};
      return edges[rng() % std::size(edges)];
    }
    case 1: return rng() % 64;
    default: return rng() & mask;
  }
}

// A lexical scope of generated variables.
struct Variable {
  std::string name;
  Type type;
  bool assignable;  // loop variables are read-only
};

class Generator {
 public:
  Generator(std::uint64_t seed, const RandomProgramOptions& options) : rng_(seed), opt_(options) {}

  Program generate() {
    use_subgroups_ = opt_.subgroups && chance(2);
    choose_workgroup();
    declare_buffers();
    program_.body = body(0, true);
    return std::move(program_);
  }

 private:
  // ---- randomness ----
  std::uint32_t below(std::uint32_t n) { return n == 0 ? 0 : static_cast<std::uint32_t>(rng_() % n); }
  bool chance(std::uint32_t one_in) { return below(one_in) == 0; }
  template <typename T>
  const T& pick(const std::vector<T>& items) { return items[below(static_cast<std::uint32_t>(items.size()))]; }
  Type random_value_type() { return kValueTypes[below(std::size(kValueTypes))]; }

  // ---- program shape ----
  void choose_workgroup() {
    static const std::array<std::uint32_t, 3> kAny[] = {
        {1, 1, 1}, {7, 1, 1}, {64, 1, 1}, {8, 4, 1}, {4, 4, 2}, {3, 5, 7}, {1024, 1, 1}};
    static const std::array<std::uint32_t, 3> kSubgroup[] = {
        {32, 1, 1}, {64, 1, 1}, {8, 4, 1}, {32, 2, 2}, {16, 2, 3}, {256, 1, 1}};
    program_.workgroup_size =
        use_subgroups_ ? kSubgroup[below(std::size(kSubgroup))] : kAny[below(std::size(kAny))];
  }

  Type random_element() {
    if (opt_.narrow_types && chance(3)) return kNarrowTypes[below(std::size(kNarrowTypes))];
    return random_value_type();
  }

  void declare_buffers() {
    std::vector<Access> accesses = {Access::Read, Access::ReadWrite, Access::Output};
    std::uint32_t extra = 1 + below(4);
    for (std::uint32_t i = 0; i < extra; ++i) {
      auto access = static_cast<Access>(below(kAccessCount));
      if (access == Access::Workgroup && !opt_.workgroup_buffers) access = Access::Uniform;
      accesses.push_back(access);
    }
    std::shuffle(accesses.begin(), accesses.end(), rng_);
    std::uint32_t first_binding = below(3);
    for (std::size_t i = 0; i < accesses.size(); ++i) program_.buffers.push_back(buffer(i, first_binding, accesses[i]));
    if (opt_.atomics) add_atomic_buffers();
  }

  BufferDecl buffer(std::size_t index, std::uint32_t first_binding, Access access) {
    BufferDecl d;
    d.name = fmt::format("b{}", index);
    // Unique, increasing, with gaps: 0, 3, 4, 7, 8, ... plus an offset.
    d.binding = first_binding + static_cast<std::uint32_t>(index * 2 + index % 2);
    d.access = access;
    d.element = random_element();
    bool needs_count = access == Access::Output || access == Access::Workgroup;
    d.count = needs_count || chance(2) ? 1 + below(64) : 0;
    if (is_host_output(access) && chance(3)) d.output_byte_range = random_range(d);
    return d;
  }

  ByteRange random_range(const BufferDecl& d) {
    std::uint64_t total = d.count > 0 ? std::uint64_t{d.count} * byte_size(d.element) : 256;
    std::uint64_t begin = below(static_cast<std::uint32_t>(total));
    std::uint64_t end = begin + 1 + below(static_cast<std::uint32_t>(total - begin));
    return {begin, end};
  }

  // Buffers for atomics, so every program can use them: one global, one workgroup.
  void add_atomic_buffers() {
    static constexpr Type kAtomicTypes[] = {Type::U32, Type::I32, Type::U64};
    std::uint32_t binding = 0;
    for (const auto& d : program_.buffers) binding = std::max(binding, d.binding + 1);
    BufferDecl global;
    global.name = "atomics";
    global.binding = binding;
    global.access = chance(2) ? Access::ReadWrite : Access::Output;
    global.element = kAtomicTypes[below(3)];
    global.count = 1 + below(16);
    program_.buffers.push_back(global);
    if (!opt_.workgroup_buffers) return;
    BufferDecl local = global;
    local.name = "shared";
    local.binding = binding + 1;
    local.access = Access::Workgroup;
    local.element = kAtomicTypes[below(3)];
    program_.buffers.push_back(local);
  }

  // ---- scope ----
  void push() { marks_.push_back(vars_.size()); }
  void pop() {
    vars_.resize(marks_.back());
    marks_.pop_back();
  }
  std::string fresh_name() { return fmt::format("v{}", next_var_++); }
  std::vector<const Variable*> vars_of(Type t, bool assignable_only) const {
    std::vector<const Variable*> found;
    for (const auto& v : vars_)
      if (v.type == t && (!assignable_only || v.assignable)) found.push_back(&v);
    return found;
  }

  // ---- statements (`depth` is the body nesting; their expressions start at depth 0) ----
  std::vector<Node> body(std::uint32_t depth, bool top_level) {
    push();
    std::vector<Node> nodes;
    std::uint32_t count = 1 + below(opt_.max_statements);
    for (std::uint32_t i = 0; i < count; ++i) nodes.push_back(statement(depth, top_level));
    pop();
    return nodes;
  }

  Node statement(std::uint32_t depth, bool top_level) {
    bool nest = depth < opt_.max_body_depth;
    switch (below(12)) {
      case 0:
      case 1:
      case 2: return let_statement();
      case 3: return assign_statement();
      case 4:
      case 5: return opt_.stores ? store_statement() : let_statement();
      case 6: return nest ? if_statement(depth) : let_statement();
      case 7: return nest ? loop_statement(depth) : let_statement();
      case 8: return nest ? dsl::block(body(depth + 1, false)) : let_statement();
      case 9: return opt_.returns && chance(2) ? dsl::ret() : let_statement();
      case 10: return opt_.barriers ? dsl::barrier() : let_statement();
      default:
        if (top_level && opt_.grid_sync && chance(2)) {
          vars_.clear();  // nothing crosses a grid_sync
          marks_.assign(marks_.size(), 0);
          return dsl::grid_sync();
        }
        return let_statement();
    }
  }

  Node let_statement() {
    Type t = random_value_type();
    Node n = dsl::let(fresh_name(), expr(t, 0));
    vars_.push_back({n.name, t, true});
    return n;
  }

  Node assign_statement() {
    Type t = random_value_type();
    auto targets = vars_of(t, true);
    if (targets.empty()) return let_statement();
    std::string name = pick(targets)->name;
    return dsl::assign(name, expr(t, 0));
  }

  Node store_statement() {
    std::vector<const BufferDecl*> writable;
    for (const auto& d : program_.buffers)
      if (is_writable(d.access)) writable.push_back(&d);
    const BufferDecl& target = *pick(writable);
    Expr index = index_expr(0);
    return dsl::store(target.name, std::move(index), expr(widen(target.element), 0));
  }

  Node if_statement(std::uint32_t depth) {
    Expr cond = expr(Type::Bool, 0);
    auto then_body = body(depth + 1, false);
    auto else_body = chance(2) ? std::vector<Node>{} : body(depth + 1, false);
    return dsl::if_(std::move(cond), std::move(then_body), std::move(else_body));
  }

  Node loop_statement(std::uint32_t depth) {
    // At most 8 iterations: to = min(anything, 8).
    Expr from = chance(2) ? dsl::u32(below(4)) : expr(Type::U32, 0);
    Expr to = dsl::min(expr(Type::U32, 0), dsl::u32(below(9)));
    std::string name = fresh_name();
    push();
    vars_.push_back({name, Type::U32, false});
    auto loop_body = body(depth + 1, false);
    pop();
    return dsl::loop(name, std::move(from), std::move(to), std::move(loop_body));
  }

  // ---- expressions ----
  Expr index_expr(std::uint32_t depth) {
    if (chance(4)) return expr(Type::I32, depth + 1);
    return chance(2) ? dsl::invocation_id(0) : expr(Type::U32, depth + 1);
  }

  Expr expr(Type want, std::uint32_t depth) {
    if (depth >= opt_.max_expr_depth || chance(4)) return leaf(want, depth);
    for (int attempt = 0; attempt < 8; ++attempt) {
      std::optional<Expr> e = compound(want, depth);
      if (e) return std::move(*e);
    }
    return leaf(want, depth);
  }

  Expr leaf(Type want, std::uint32_t depth) {
    switch (below(4)) {
      case 0: {
        auto vars = vars_of(want, false);
        if (!vars.empty()) return dsl::var(pick(vars)->name);
        break;
      }
      case 1:
        if (want == Type::U32) return u32_builtin();
        break;
      case 2:
        if (auto load = load_of(want, depth)) return std::move(*load);
        break;
      default: break;
    }
    return dsl::lit(want, random_literal_bits(rng_, want));
  }

  Expr u32_builtin() {
    switch (below(7)) {
      case 0: return dsl::invocation_id(below(3));
      case 1: return dsl::local_id(below(3));
      case 2: return dsl::workgroup_id(below(3));
      case 3: return dsl::num_workgroups(below(3));
      case 4: return dsl::subgroup_lane();
      case 5: return dsl::subgroup_size();
      default: {
        std::vector<std::string> names;
        for (const auto& d : program_.buffers)
          if (d.access != Access::Workgroup) names.push_back(d.name);
        return dsl::buf_len(pick(names));
      }
    }
  }

  std::optional<Expr> load_of(Type want, std::uint32_t depth) {
    std::vector<const BufferDecl*> sources;
    for (const auto& d : program_.buffers)
      if (widen(d.element) == want) sources.push_back(&d);
    if (sources.empty()) return std::nullopt;
    std::string name = pick(sources)->name;
    return dsl::load(std::move(name), index_expr(depth));
  }

  std::optional<Expr> compound(Type want, std::uint32_t depth) {
    std::uint32_t next = depth + 1;
    switch (below(11)) {
      case 0:
      case 1:
      case 2: return bin_of(want, next);
      case 3:
      case 4: return un_of(want, next);
      case 5: return dsl::select(expr(Type::Bool, next), expr(want, next), expr(want, next));
      case 6: return conversion_of(want, next);
      case 7:
        if (want != Type::F32 && want != Type::F64) return std::nullopt;
        return dsl::fma(expr(want, next), expr(want, next), expr(want, next));
      case 8: return opt_.atomics ? atomic_of(want, next) : std::nullopt;
      case 9: return use_subgroups_ ? subgroup_of(want, next) : std::nullopt;
      default: return load_of(want, next);
    }
  }

  std::optional<Expr> bin_of(Type want, std::uint32_t depth) {
    std::vector<std::pair<BinOp, Type>> candidates;
    for (int o = 0; o < kBinOpCount; ++o)
      for (Type t : kValueTypes)
        if (bin_op_defined(static_cast<BinOp>(o), t) && bin_result_type(static_cast<BinOp>(o), t) == want)
          candidates.emplace_back(static_cast<BinOp>(o), t);
    if (candidates.empty()) return std::nullopt;
    auto [op, t] = pick(candidates);
    Expr a = expr(t, depth);
    Expr b = expr(is_shift(op) ? Type::U32 : t, depth);
    return dsl::bin(op, std::move(a), std::move(b));
  }

  std::optional<Expr> un_of(Type want, std::uint32_t depth) {
    std::vector<std::pair<UnOp, Type>> candidates;
    for (int o = 0; o < kUnOpCount; ++o)
      for (Type t : kValueTypes)
        if (un_op_defined(static_cast<UnOp>(o), t) && un_result_type(static_cast<UnOp>(o), t) == want)
          candidates.emplace_back(static_cast<UnOp>(o), t);
    if (candidates.empty()) return std::nullopt;
    auto [op, t] = pick(candidates);
    return dsl::un(op, expr(t, depth));
  }

  std::optional<Expr> conversion_of(Type want, std::uint32_t depth) {
    std::vector<Type> bitcast_sources;
    for (Type from : kValueTypes)
      if (bitcast_defined(from, want)) bitcast_sources.push_back(from);
    if (!bitcast_sources.empty() && chance(2))
      return dsl::bitcast(want, expr(pick(bitcast_sources), depth));
    Type from = random_value_type();
    if (from == want) return std::nullopt;
    return dsl::cast(want, expr(from, depth));
  }

  std::optional<Expr> atomic_of(Type want, std::uint32_t depth) {
    std::vector<const BufferDecl*> targets;
    for (const auto& d : program_.buffers)
      if (d.element == want && is_writable(d.access)) targets.push_back(&d);
    if (targets.empty()) return std::nullopt;
    const BufferDecl& target = *pick(targets);
    std::vector<AtomicOp> ops;
    for (int o = 0; o < kAtomicOpCount; ++o)
      if (atomic_defined(static_cast<AtomicOp>(o), want, target.access == Access::Workgroup))
        ops.push_back(static_cast<AtomicOp>(o));
    if (ops.empty()) return std::nullopt;
    AtomicOp op = pick(ops);
    Expr index = index_expr(depth);
    if (op == AtomicOp::CompareExchange)
      return dsl::compare_exchange(target.name, std::move(index), expr(want, depth), expr(want, depth));
    return dsl::atomic(op, target.name, std::move(index), expr(want, depth));
  }

  std::optional<Expr> subgroup_of(Type want, std::uint32_t depth) {
    switch (below(3)) {
      case 0:
        if (want != Type::U32) return std::nullopt;
        return dsl::ballot(expr(Type::Bool, depth));
      case 1:
        if (!shuffle_defined(want)) return std::nullopt;
        return dsl::shuffle(expr(want, depth), expr(Type::U32, depth));
      default: {
        std::vector<ReduceOp> ops;
        for (int o = 0; o < kReduceOpCount; ++o)
          if (reduce_defined(static_cast<ReduceOp>(o), want)) ops.push_back(static_cast<ReduceOp>(o));
        if (ops.empty()) return std::nullopt;
        return dsl::reduce(pick(ops), expr(want, depth));
      }
    }
  }

  std::mt19937_64 rng_;
  RandomProgramOptions opt_;
  Program program_;
  bool use_subgroups_ = false;
  std::vector<Variable> vars_;
  std::vector<std::size_t> marks_;
  std::uint32_t next_var_ = 0;
};

}  // namespace

std::uint64_t random_literal_bits(std::mt19937_64& rng, Type t) {
  if (t == Type::Bool) return rng() & 1;
  if (t == Type::F32 || t == Type::F64) return random_float_bits(rng, t);
  return random_int_bits(rng, t);
}

Program random_program(std::uint64_t seed, const RandomProgramOptions& options) {
  RandomProgramOptions checked = options;
  checked.max_statements = std::max<std::uint32_t>(1, checked.max_statements);
  return Generator(seed, checked).generate();
}

}  // namespace vyre::test
