// The binary wire format (docs/WIRE.md): canonical encoding of a Program and a decoder that is
// safe on any input.
#include "vyre/wire.hpp"

#include <fmt/format.h>

#include <string>

#include "vyre/error.hpp"

namespace vyre {

namespace {

constexpr std::uint8_t kMagic[4] = {'V', 'Y', 'R', 'E'};
constexpr std::size_t kHeaderSize = 12;  // magic, version, flags, payload length
// Lists are not reserved from their counts (nested lists could then claim far more memory than
// the input's size); counts are only checked against the bytes left.
// Smallest encodings, used to bound list counts by the bytes left: an Expr is at least its kind
// and argument count; a Node its kind and expression count; a buffer its fixed fields.
constexpr std::size_t kMinExprSize = 2;
constexpr std::size_t kMinNodeSize = 2;
constexpr std::size_t kMinBufferSize = 4 + 4 + 1 + 1 + 4 + 1;
constexpr std::size_t kMaxListCount = 0xFF;  // exprs per Expr/Node (u8 counts)

bool has_name(NodeKind k) {
  return k == NodeKind::Let || k == NodeKind::Assign || k == NodeKind::Store || k == NodeKind::Loop;
}
bool has_body(NodeKind k) { return k == NodeKind::If || k == NodeKind::Loop || k == NodeKind::Block; }

bool has_buffer_name(ExprKind k) {
  return k == ExprKind::Var || k == ExprKind::Load || k == ExprKind::BufLen || k == ExprKind::Atomic;
}
bool has_axis(ExprKind k) {
  return k == ExprKind::InvocationId || k == ExprKind::LocalId || k == ExprKind::WorkgroupId ||
         k == ExprKind::NumWorkgroups;
}

// ---- encoding ----------------------------------------------------------------------------------

class Writer {
 public:
  std::vector<std::uint8_t> bytes;

  void u8(std::uint8_t v) { bytes.push_back(v); }
  void u16(std::uint16_t v) { le(v, 2); }
  void u32(std::uint32_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void str(const std::string& s) {
    if (s.size() > 0xFFFFFFFFu)
      fail(VYRE_ERR_LIMIT, "a name is longer than 4 GiB", "use a short identifier");
    u32(static_cast<std::uint32_t>(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  void count8(std::size_t n, std::string_view what) {
    if (n > kMaxListCount)
      fail(VYRE_ERR_LIMIT, fmt::format("cannot encode {} with {} expressions (at most 255)", what, n),
           "no node or expression kind takes more than 3 operands; fix the program");
    u8(static_cast<std::uint8_t>(n));
  }
  void count32(std::size_t n) {
    if (n > 0xFFFFFFFFu) fail(VYRE_ERR_LIMIT, "a list has more than 2^32-1 entries", "split the program");
    u32(static_cast<std::uint32_t>(n));
  }

 private:
  void le(std::uint64_t v, int n) {
    for (int i = 0; i < n; ++i) bytes.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
};

class Encoder {
 public:
  std::vector<std::uint8_t> encode(const Program& program) {
    for (std::uint32_t axis : program.workgroup_size) out_.u32(axis);
    out_.count32(program.buffers.size());
    for (const auto& decl : program.buffers) buffer(decl);
    nodes(program.body, 1);
    return std::move(out_.bytes);
  }

 private:
  static void check_depth(std::uint32_t depth) {
    if (depth > kWireMaxDepth)
      fail(VYRE_ERR_LIMIT,
           fmt::format("the program nests deeper than the wire format's limit of {}", kWireMaxDepth),
           "flatten deeply nested expressions into Let statements");
  }

  void buffer(const BufferDecl& d) {
    out_.str(d.name);
    out_.u32(d.binding);
    out_.u8(static_cast<std::uint8_t>(d.access));
    out_.u8(static_cast<std::uint8_t>(d.element));
    out_.u32(d.count);
    out_.u8(d.output_byte_range ? 1 : 0);
    if (!d.output_byte_range) return;
    out_.u64(d.output_byte_range->begin);
    out_.u64(d.output_byte_range->end);
  }

  void nodes(const std::vector<Node>& body, std::uint32_t depth) {
    out_.count32(body.size());
    for (const auto& n : body) node(n, depth);
  }

  void node(const Node& n, std::uint32_t depth) {
    check_depth(depth);
    out_.u8(static_cast<std::uint8_t>(n.kind));
    if (has_name(n.kind)) out_.str(n.name);
    if (n.kind == NodeKind::Barrier) out_.u8(static_cast<std::uint8_t>(n.barrier));
    out_.count8(n.exprs.size(), "a node");
    for (const auto& e : n.exprs) expr(e, depth + 1);
    if (has_body(n.kind)) nodes(n.body, depth + 1);
    if (n.kind == NodeKind::If) nodes(n.else_body, depth + 1);
  }

  void expr(const Expr& e, std::uint32_t depth) {
    check_depth(depth);
    out_.u8(static_cast<std::uint8_t>(e.kind));
    expr_fields(e);
    out_.count8(e.args.size(), "an expression");
    for (const auto& arg : e.args) expr(arg, depth + 1);
  }

  void expr_fields(const Expr& e) {
    if (has_buffer_name(e.kind)) out_.str(e.name);
    if (has_axis(e.kind)) out_.u32(e.axis);
    switch (e.kind) {
      case ExprKind::Lit:
        out_.u8(static_cast<std::uint8_t>(e.type));
        out_.u64(e.bits);
        return;
      case ExprKind::Bin: out_.u8(static_cast<std::uint8_t>(e.bin_op)); return;
      case ExprKind::Un: out_.u8(static_cast<std::uint8_t>(e.un_op)); return;
      case ExprKind::Cast:
      case ExprKind::Bitcast: out_.u8(static_cast<std::uint8_t>(e.type)); return;
      case ExprKind::Atomic: out_.u8(static_cast<std::uint8_t>(e.atomic_op)); return;
      case ExprKind::SubgroupReduce: out_.u8(static_cast<std::uint8_t>(e.reduce_op)); return;
      default: return;
    }
  }

  Writer out_;
};

// ---- decoding ----------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> bytes, std::size_t start = 0)
      : bytes_(bytes), offset_(start) {}

  std::size_t offset() const { return offset_; }
  std::size_t left() const { return bytes_.size() - offset_; }

  [[noreturn]] void error(std::size_t at, std::string_view problem) const {
    fail(VYRE_ERR_DECODE, fmt::format("wire bytes: at byte offset {}: {}", at, problem),
         fmt::format("pass bytes produced by vyre::encode_wire (wire version {}); they may be "
                     "truncated or corrupted",
                     kWireVersion));
  }

  std::uint64_t uint(int n, std::string_view what) {
    if (left() < static_cast<std::size_t>(n))
      error(offset_, fmt::format("expected {} ({} bytes) but only {} bytes are left", what, n, left()));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t{bytes_[offset_ + i]} << (8 * i);
    offset_ += n;
    return v;
  }
  std::uint8_t u8(std::string_view what) { return static_cast<std::uint8_t>(uint(1, what)); }
  std::uint16_t u16(std::string_view what) { return static_cast<std::uint16_t>(uint(2, what)); }
  std::uint32_t u32(std::string_view what) { return static_cast<std::uint32_t>(uint(4, what)); }
  std::uint64_t u64(std::string_view what) { return uint(8, what); }

  // An enum stored as a u8, checked against its number of values.
  template <typename Enum>
  Enum enum8(int count, std::string_view what) {
    std::size_t at = offset_;
    std::uint8_t v = u8(what);
    if (v >= count) error(at, fmt::format("{} {} is out of range (0..{})", what, v, count - 1));
    return static_cast<Enum>(v);
  }

  std::string str(std::string_view what) {
    std::size_t at = offset_;
    std::uint32_t n = u32(what);
    if (n > left())
      error(at, fmt::format("{} has length {} but only {} bytes are left", what, n, left()));
    std::string s(reinterpret_cast<const char*>(bytes_.data() + offset_), n);
    offset_ += n;
    return s;
  }

  // A list count, which cannot exceed the entries the remaining bytes could hold.
  std::size_t count(std::size_t n, std::size_t at, std::size_t min_entry, std::string_view what) {
    if (n > left() / min_entry)
      error(at, fmt::format("{} count {} exceeds what the {} remaining bytes can hold", what, n, left()));
    return n;
  }
  std::size_t count32(std::size_t min_entry, std::string_view what) {
    std::size_t at = offset_;
    return count(u32(what), at, min_entry, what);
  }
  std::size_t count8(std::size_t min_entry, std::string_view what) {
    std::size_t at = offset_;
    return count(u8(what), at, min_entry, what);
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t offset_;
};

class Decoder {
 public:
  // Decodes the payload of `bytes`, which starts at `start` (the header is checked already).
  Decoder(std::span<const std::uint8_t> bytes, std::size_t start) : in_(bytes, start) {}

  Program decode() {
    Program p;
    for (auto& axis : p.workgroup_size) axis = in_.u32("a workgroup_size axis");
    std::size_t buffers = in_.count32(kMinBufferSize, "the buffer");
    for (std::size_t i = 0; i < buffers; ++i) p.buffers.push_back(buffer());
    p.body = nodes(1);
    if (in_.left() != 0) error(in_.offset(), fmt::format("{} trailing bytes after the program", in_.left()));
    return p;
  }

 private:
  [[noreturn]] void error(std::size_t at, std::string_view problem) const { in_.error(at, problem); }

  void check_depth(std::uint32_t depth) const {
    if (depth > kWireMaxDepth)
      error(in_.offset(), fmt::format("nesting deeper than {}", kWireMaxDepth));
  }

  BufferDecl buffer() {
    BufferDecl d;
    d.name = in_.str("a buffer name");
    d.binding = in_.u32("a buffer binding");
    d.access = in_.enum8<Access>(kAccessCount, "a buffer access");
    d.element = in_.enum8<Type>(kTypeCount, "a buffer element type");
    d.count = in_.u32("a buffer count");
    std::size_t at = in_.offset();
    std::uint8_t has_range = in_.u8("the output_byte_range flag");
    if (has_range > 1) error(at, fmt::format("output_byte_range flag {} is not 0 or 1", has_range));
    if (has_range == 0) return d;
    ByteRange range;
    range.begin = in_.u64("output_byte_range begin");
    range.end = in_.u64("output_byte_range end");
    d.output_byte_range = range;
    return d;
  }

  std::vector<Node> nodes(std::uint32_t depth) {
    std::size_t n = in_.count32(kMinNodeSize, "the node");
    std::vector<Node> body;
    for (std::size_t i = 0; i < n; ++i) body.push_back(node(depth));
    return body;
  }

  Node node(std::uint32_t depth) {
    check_depth(depth);
    Node n;
    n.kind = in_.enum8<NodeKind>(kNodeKindCount, "a node kind");
    if (has_name(n.kind)) n.name = in_.str("a node name");
    if (n.kind == NodeKind::Barrier) n.barrier = in_.enum8<BarrierKind>(2, "a barrier kind");
    std::size_t exprs = in_.count8(kMinExprSize, "the node expression");
    for (std::size_t i = 0; i < exprs; ++i) n.exprs.push_back(expr(depth + 1));
    if (has_body(n.kind)) n.body = nodes(depth + 1);
    if (n.kind == NodeKind::If) n.else_body = nodes(depth + 1);
    return n;
  }

  Expr expr(std::uint32_t depth) {
    check_depth(depth);
    Expr e;
    e.kind = in_.enum8<ExprKind>(kExprKindCount, "an expression kind");
    expr_fields(e);
    std::size_t args = in_.count8(kMinExprSize, "the expression operand");
    for (std::size_t i = 0; i < args; ++i) e.args.push_back(expr(depth + 1));
    return e;
  }

  void expr_fields(Expr& e) {
    if (has_buffer_name(e.kind)) e.name = in_.str(e.kind == ExprKind::Var ? "a variable name" : "a buffer name");
    if (has_axis(e.kind)) e.axis = in_.u32("a builtin axis");
    switch (e.kind) {
      case ExprKind::Lit:
        e.type = in_.enum8<Type>(kTypeCount, "a literal type");
        e.bits = in_.u64("literal bits");
        return;
      case ExprKind::Bin: e.bin_op = in_.enum8<BinOp>(kBinOpCount, "a binary operator"); return;
      case ExprKind::Un: e.un_op = in_.enum8<UnOp>(kUnOpCount, "a unary operator"); return;
      case ExprKind::Cast:
      case ExprKind::Bitcast: e.type = in_.enum8<Type>(kTypeCount, "a conversion target type"); return;
      case ExprKind::Atomic:
        e.atomic_op = in_.enum8<AtomicOp>(kAtomicOpCount, "an atomic operator");
        return;
      case ExprKind::SubgroupReduce:
        e.reduce_op = in_.enum8<ReduceOp>(kReduceOpCount, "a reduce operator");
        return;
      default: return;
    }
  }

  Reader in_;
};

}  // namespace

std::vector<std::uint8_t> encode_wire(const Program& program) {
  std::vector<std::uint8_t> payload = Encoder().encode(program);
  if (payload.size() > 0xFFFFFFFFu)
    fail(VYRE_ERR_LIMIT, "the encoded program is larger than 4 GiB", "split the program");
  Writer header;
  for (std::uint8_t b : kMagic) header.u8(b);
  header.u16(kWireVersion);
  header.u16(0);
  header.u32(static_cast<std::uint32_t>(payload.size()));
  header.bytes.insert(header.bytes.end(), payload.begin(), payload.end());
  return std::move(header.bytes);
}

bool looks_like_wire(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < sizeof(kMagic)) return false;
  for (std::size_t i = 0; i < sizeof(kMagic); ++i)
    if (bytes[i] != kMagic[i]) return false;
  return true;
}

Program decode_wire(std::span<const std::uint8_t> bytes) {
  Reader header(bytes);
  if (!looks_like_wire(bytes)) header.error(0, "missing the \"VYRE\" magic");
  header.u32("the magic");
  std::uint16_t version = header.u16("the wire version");
  if (version != kWireVersion)
    header.error(4, fmt::format("wire version {} is not supported (this build reads version {})",
                                version, kWireVersion));
  std::uint16_t flags = header.u16("the flags");
  if (flags != 0) header.error(6, fmt::format("flags 0x{:04x} are not 0", flags));
  std::uint32_t length = header.u32("the payload length");
  if (length != header.left())
    header.error(8, fmt::format("the payload length says {} bytes but {} follow the header", length,
                                header.left()));
  return Decoder(bytes, kHeaderSize).decode();
}

}  // namespace vyre
