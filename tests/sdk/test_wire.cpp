// The wire format: the documented bytes, round trips of random programs, and a decoder that turns
// every truncated, corrupted or hostile input into VYRE_ERR_DECODE naming a byte offset.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include "support/random_program.hpp"
#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/wire.hpp"

namespace {

using Bytes = std::vector<std::uint8_t>;

// Decode `bytes`; returns the error message, or "" when the bytes decoded. Only vyre::Error may
// escape the decoder: anything else fails the test.
std::string decode_error(const Bytes& bytes) {
  try {
    vyre::decode_wire(bytes);
    return "";
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_DECODE);
    std::string what = e.what();
    CHECK(what.find("at byte offset ") != std::string::npos);
    CHECK(what.find("Fix: ") != std::string::npos);
    return what;
  }
}

struct ByteWriter {
  Bytes bytes;
  ByteWriter& u8(std::uint8_t v) { bytes.push_back(v); return *this; }
  ByteWriter& u16(std::uint16_t v) { return u8(v & 0xFF).u8(v >> 8); }
  ByteWriter& u32(std::uint32_t v) { return u16(v & 0xFFFF).u16(v >> 16); }
  ByteWriter& str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    for (char c : s) u8(static_cast<std::uint8_t>(c));
    return *this;
  }
  // Wrap as a complete wire message.
  Bytes wire() const {
    ByteWriter w;
    w.u8('V').u8('Y').u8('R').u8('E').u16(1).u16(0).u32(static_cast<std::uint32_t>(bytes.size()));
    w.bytes.insert(w.bytes.end(), bytes.begin(), bytes.end());
    return w.bytes;
  }
};

vyre::Program return_only() {
  vyre::ProgramBuilder b;
  b.workgroup(64);
  b.buffer("out", vyre::Access::Output, vyre::Type::U32, 4);
  b.ret();
  return b.build();
}

}  // namespace

TEST_CASE("the documented example encodes to the documented bytes") {
  const Bytes expected = {
      0x56, 0x59, 0x52, 0x45, 0x01, 0x00, 0x00, 0x00, 0x28, 0x00, 0x00, 0x00,  // header
      0x40, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,  // workgroup
      0x01, 0x00, 0x00, 0x00,                                                  // 1 buffer
      0x03, 0x00, 0x00, 0x00, 'o', 'u', 't', 0x00, 0x00, 0x00, 0x00, 0x03, 0x01,
      0x04, 0x00, 0x00, 0x00, 0x00,                                            // out
      0x01, 0x00, 0x00, 0x00, 0x05, 0x00};                                     // [return]
  CHECK(vyre::encode_wire(return_only()) == expected);
  CHECK(vyre::decode_wire(expected) == return_only());
  CHECK(vyre::looks_like_wire(expected));
  CHECK_FALSE(vyre::looks_like_wire(Bytes{'{', '"'}));
  CHECK_FALSE(vyre::looks_like_wire(Bytes{'V', 'Y', 'R'}));
}

TEST_CASE("random programs round-trip exactly, with the same fingerprint") {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    CAPTURE(seed);
    vyre::Program p = vyre::test::random_program(seed);
    Bytes bytes = vyre::encode_wire(p);
    vyre::Program back = vyre::decode_wire(bytes);
    CHECK(back == p);
    CHECK(vyre::encode_wire(back) == bytes);
    CHECK(vyre::fingerprint(back) == vyre::fingerprint(p));
    CHECK(vyre::fingerprint(p) == vyre::sha256_hex(bytes));
  }
}

TEST_CASE("different programs have different fingerprints") {
  vyre::Program a = return_only();
  vyre::Program b = a;
  b.buffers[0].count = 5;
  vyre::Program c = a;
  c.workgroup_size[1] = 2;
  vyre::Program d = a;
  d.buffers[0].output_byte_range = vyre::ByteRange{0, 4};
  CHECK(vyre::fingerprint(a) != vyre::fingerprint(b));
  CHECK(vyre::fingerprint(a) != vyre::fingerprint(c));
  CHECK(vyre::fingerprint(a) != vyre::fingerprint(d));
  CHECK(vyre::fingerprint(a).size() == 64);
}

TEST_CASE("every truncation is a decode error") {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    Bytes bytes = vyre::encode_wire(vyre::test::random_program(seed));
    for (std::size_t length = 0; length < bytes.size(); ++length) {
      Bytes prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length));
      CAPTURE(length);
      CHECK(!decode_error(prefix).empty());
      // The same prefix with a header that claims exactly its length: truncated payload.
      if (length >= 12) {
        std::uint32_t payload = static_cast<std::uint32_t>(length - 12);
        for (int i = 0; i < 4; ++i) prefix[8 + i] = static_cast<std::uint8_t>(payload >> (8 * i));
        CHECK(!decode_error(prefix).empty());
      }
    }
  }
}

TEST_CASE("corrupted bytes are rejected or decode to a canonical program") {
  std::mt19937_64 rng(12345);
  int accepted = 0;
  int rejected = 0;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    Bytes original = vyre::encode_wire(vyre::test::random_program(seed));
    for (int trial = 0; trial < 150; ++trial) {
      Bytes bytes = original;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        std::size_t at = 12 + rng() % (bytes.size() - 12);
        bytes[at] = rng() % 2 ? static_cast<std::uint8_t>(rng()) : bytes[at] ^ (1u << (rng() % 8));
      }
      if (decode_error(bytes).empty()) {
        // Whatever decodes re-encodes to the very same bytes: the format has one encoding.
        CHECK(vyre::encode_wire(vyre::decode_wire(bytes)) == bytes);
        ++accepted;
      } else {
        ++rejected;
      }
    }
  }
  CHECK(rejected > 0);
  CHECK(accepted > 0);
}

TEST_CASE("header errors name their offset") {
  Bytes good = vyre::encode_wire(return_only());
  auto with = [&](std::size_t at, std::uint8_t value) {
    Bytes b = good;
    b[at] = value;
    return decode_error(b);
  };
  CHECK(with(0, 'X').find("at byte offset 0: missing the \"VYRE\" magic") != std::string::npos);
  CHECK(with(4, 2).find("at byte offset 4: wire version 2 is not supported") != std::string::npos);
  CHECK(with(6, 1).find("at byte offset 6: flags 0x0001") != std::string::npos);
  CHECK(with(8, 0x27).find("at byte offset 8: the payload length says 39") != std::string::npos);
  Bytes trailing = good;
  trailing.push_back(0);
  CHECK(decode_error(trailing).find("payload length says 40 bytes but 41 follow") != std::string::npos);
  Bytes empty;
  CHECK(!decode_error(empty).empty());
}

TEST_CASE("payload errors: enums, flags, trailing bytes, counts") {
  Bytes good = vyre::encode_wire(return_only());
  // Offsets in the example: access at 39, element at 40, range flag at 45, node kind at 50.
  auto with = [&](std::size_t at, std::uint8_t value) {
    Bytes b = good;
    b[at] = value;
    return decode_error(b);
  };
  CHECK(with(39, 5).find("at byte offset 39: a buffer access 5 is out of range (0..4)") != std::string::npos);
  CHECK(with(40, 13).find("at byte offset 40: a buffer element type 13") != std::string::npos);
  CHECK(with(45, 2).find("at byte offset 45: output_byte_range flag 2") != std::string::npos);
  CHECK(with(50, 8).find("at byte offset 50: a node kind 8") != std::string::npos);
  // A node list that claims more nodes than the bytes could hold.
  ByteWriter huge;
  huge.u32(1).u32(1).u32(1).u32(0).u32(0xFFFFFFFF);
  CHECK(decode_error(huge.wire()).find("at byte offset 28: the node count 4294967295") != std::string::npos);
  // A string longer than the rest.
  ByteWriter long_name;
  long_name.u32(1).u32(1).u32(1).u32(1).u32(1000);
  for (int i = 0; i < 20; ++i) long_name.u8('a');
  CHECK(decode_error(long_name.wire()).find("a buffer name has length 1000") != std::string::npos);
  // Bytes left over after the body, inside the payload.
  ByteWriter extra;
  extra.u32(1).u32(1).u32(1).u32(0).u32(0).u8(0);
  CHECK(decode_error(extra.wire()).find("at byte offset 32: 1 trailing bytes") != std::string::npos);
}

TEST_CASE("nesting depth is bounded in both directions") {
  using namespace vyre::dsl;
  auto nested = [](int depth) {
    vyre::Expr e = u32(1);
    for (int i = 1; i < depth; ++i) e = -e;
    vyre::Program p;
    p.body.push_back(let("x", e));  // the let is depth 1, its value starts at depth 2
    return p;
  };
  auto ok = nested(static_cast<int>(vyre::kWireMaxDepth) - 1);
  CHECK(vyre::decode_wire(vyre::encode_wire(ok)) == ok);
  try {
    vyre::encode_wire(nested(static_cast<int>(vyre::kWireMaxDepth)));
    FAIL("encoded a program deeper than the limit");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_LIMIT);
  }
  // A hand-made message nesting 100000 negations decodes to an error, not a stack overflow.
  ByteWriter deep;
  deep.u32(1).u32(1).u32(1).u32(0).u32(1).u8(0).str("x").u8(1);
  for (int i = 0; i < 100000; ++i) deep.u8(11).u8(0).u8(1);
  CHECK(decode_error(deep.wire()).find("nesting deeper than 256") != std::string::npos);
}
