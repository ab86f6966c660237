// The JSON form: exact round trips (random programs, every float bit pattern class), the
// documented spelling of literals, errors that name the JSON path, and program files.
#include <doctest/doctest.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>

#include "support/random_program.hpp"
#include "vyre/builder.hpp"
#include "vyre/error.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/json.hpp"
#include "vyre/wire.hpp"

namespace {

using namespace vyre::dsl;
using vyre::Access;
using vyre::Type;

// The error message from_json gives, or "" when the text decodes. Only vyre::Error may escape.
std::string json_error(std::string_view text) {
  try {
    vyre::from_json(text);
    return "";
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_DECODE);
    std::string what = e.what();
    CHECK(what.find("Fix: ") != std::string::npos);
    return what;
  }
}

// A program around one expression: out[0] = <expr>, so literal tests can look at the JSON.
vyre::Program with_value(vyre::Expr e) {
  vyre::Program p;
  p.body.push_back(let("x", std::move(e)));
  return p;
}

std::string value_json(vyre::Expr e) {
  std::string json = vyre::to_json(with_value(std::move(e)), false);
  auto start = json.find("\"value\":") + 8;
  return json.substr(start, json.size() - 3 - start);  // up to the closing "}]}"
}

vyre::Expr round_trip_expr(const vyre::Expr& e) {
  return vyre::from_json(vyre::to_json(with_value(e))).body.at(0).exprs.at(0);
}

std::filesystem::path temp_path(std::string_view name) {
  return std::filesystem::temp_directory_path() /
         (std::string("vyre_json_test_") + std::to_string(::getpid()) + "_" + std::string(name));
}

}  // namespace

TEST_CASE("random programs round-trip through JSON, pretty and compact") {
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    CAPTURE(seed);
    vyre::Program p = vyre::test::random_program(seed);
    for (bool pretty : {true, false}) {
      std::string json = vyre::to_json(p, pretty);
      vyre::Program back = vyre::from_json(json);
      CHECK(back == p);
      CHECK(vyre::fingerprint(back) == vyre::fingerprint(p));
      CHECK(vyre::to_json(back, pretty) == json);
      CHECK((json.find('\n') != std::string::npos) == pretty);
    }
  }
}

TEST_CASE("a hand-written program reads as the builder's program") {
  const char* text = R"({
    "vyre": 1,
    "workgroup_size": [64],
    "buffers": [
      {"name": "x", "access": "read", "element": "f16"},
      {"name": "out", "binding": 3, "access": "output", "element": "u32", "count": 8,
       "output_byte_range": [0, 16]}
    ],
    "body": [
      {"let": "i", "value": {"builtin": "invocation_id"}},
      {"if": {"bin": "ge", "a": {"var": "i"}, "b": {"buf_len": "x"}}, "then": [{"return": true}]},
      {"loop": "k", "from": {"lit": "u32", "value": 0}, "to": {"lit": "u32", "value": 4}, "body": [
        {"store": "out", "index": {"var": "k"},
         "value": {"cast": "u32", "value": {"fma": [{"load": "x", "index": {"var": "i"}},
                                                    {"lit": "f32", "value": 0.5},
                                                    {"lit": "f32", "value": "-inf"}]}}}
      ]},
      {"barrier": "workgroup"},
      {"block": [{"let": "m", "value": {"ballot": {"lit": "bool", "value": true}}}]}
    ]
  })";
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto x = b.buffer("x", Access::Read, Type::F16);
  auto out = b.buffer("out", Access::Output, Type::U32, 8);
  vyre::Program expected = b.build();
  expected.buffers[1].binding = 3;
  expected.buffers[1].output_byte_range = vyre::ByteRange{0, 16};
  expected.body = {
      let("i", invocation_id(0)),
      if_(ge(var("i"), x.len()), {ret()}),
      loop("k", u32(0), u32(4),
           {store("out", var("k"),
                  cast(Type::U32, fma(x[var("i")], f32(0.5f), f32(-std::numeric_limits<float>::infinity()))))}),
      barrier(),
      block({let("m", ballot(boolean(true)))}),
  };
  (void)out;
  CHECK(vyre::from_json(text) == expected);
}

TEST_CASE("literals are written as documented") {
  CHECK(value_json(u32(4294967295u)) == R"({"lit":"u32","value":4294967295})");
  CHECK(value_json(i32(-2147483647 - 1)) == R"({"lit":"i32","value":-2147483648})");
  CHECK(value_json(u64(~0ull)) == R"({"lit":"u64","value":18446744073709551615})");
  CHECK(value_json(i64(INT64_MIN)) == R"({"lit":"i64","value":-9223372036854775808})");
  CHECK(value_json(boolean(true)) == R"({"lit":"bool","value":true})");
  CHECK(value_json(f32(0.1f)) == R"({"lit":"f32","value":0.1})");
  CHECK(value_json(f32(1.0f)) == R"({"lit":"f32","value":1.0})");
  CHECK(value_json(f32(-0.0f)) == R"({"lit":"f32","value":-0.0})");
  CHECK(value_json(f64(1e300)) == R"({"lit":"f64","value":1e+300})");
  CHECK(value_json(f64(-2.5)) == R"({"lit":"f64","value":-2.5})");
  CHECK(value_json(lit(Type::F32, 0x7FC00000)) == R"({"lit":"f32","value":"nan"})");
  CHECK(value_json(lit(Type::F64, 0x7FF8000000000000)) == R"({"lit":"f64","value":"nan"})");
  CHECK(value_json(lit(Type::F32, 0x7FC00001)) == R"({"lit":"f32","value":"0x7fc00001"})");
  CHECK(value_json(lit(Type::F32, 0xFFC00000)) == R"({"lit":"f32","value":"0xffc00000"})");
  CHECK(value_json(lit(Type::F64, 0xFFF0000000000000)) == R"({"lit":"f64","value":"-inf"})");
  // Invalid literals (the validator's business) still survive the trip.
  CHECK(value_json(lit(Type::Bool, 2)) == R"({"lit":"bool","value":"0x0000000000000002"})");
  CHECK(round_trip_expr(lit(Type::U32, 1ull << 40)) == lit(Type::U32, 1ull << 40));
  CHECK(round_trip_expr(lit(Type::U8, 7)) == lit(Type::U8, 7));
}

TEST_CASE("every float bit pattern round-trips exactly") {
  std::mt19937_64 rng(7);
  std::vector<std::uint64_t> f32_bits = {0, 0x80000000, 1, 0x807FFFFF, 0x00800000, 0x7F7FFFFF,
                                         0xFF7FFFFF, 0x7F800000, 0x7FC00000, 0x7FFFFFFF, 0xFFFFFFFF,
                                         0x3DCCCCCD, 0x33800000, 0x4B7FFFFF};
  std::vector<std::uint64_t> f64_bits = {0, 0x8000000000000000, 1, 0x000FFFFFFFFFFFFF,
                                         0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
                                         0x7FF8000000000000, 0x7FF0000000000001,
                                         0x3FB999999999999A, 0x4340000000000000};
  for (int i = 0; i < 5000; ++i) {
    f32_bits.push_back(rng() & 0xFFFFFFFF);
    f64_bits.push_back(rng());
  }
  for (auto bits : f32_bits) {
    CAPTURE(bits);
    CHECK(round_trip_expr(lit(Type::F32, bits)).bits == bits);
  }
  for (auto bits : f64_bits) {
    CAPTURE(bits);
    CHECK(round_trip_expr(lit(Type::F64, bits)).bits == bits);
  }
}

TEST_CASE("literal forms accepted on input") {
  auto read = [](std::string_view type, std::string_view value) {
    std::string text = std::string(R"({"body":[{"let":"x","value":{"lit":")") + std::string(type) +
                       R"(","value":)" + std::string(value) + "}}]}";
    return vyre::from_json(text).body.at(0).exprs.at(0).bits;
  };
  CHECK(read("u32", "\"0xff\"") == 0xFF);
  CHECK(read("f32", "\"0x3f800000\"") == 0x3F800000);
  CHECK(read("f32", "2") == 0x40000000);
  CHECK(read("f64", "-1") == std::bit_cast<std::uint64_t>(-1.0));
  CHECK(read("f32", "16777217") == 0x4B800000);  // one rounding, to nearest even
  CHECK(read("f64", "0.1") == 0x3FB999999999999A);
  CHECK(read("f64", "2.2250738585072011e-308") == 0x000FFFFFFFFFFFFF);
  CHECK(read("f32", "\"inf\"") == 0x7F800000);
  CHECK(read("i32", "-1") == 0xFFFFFFFF);
  CHECK(read("i64", "-1") == ~0ull);
  CHECK(read("bool", "false") == 0);
}

TEST_CASE("errors name the JSON path") {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {R"({"body":[{"let":"x","value":{"bin":"add","a":{"var":"y"},"bb":{"var":"z"}}}]})",
       "at body[0].value.bb: unknown key \"bb\""},
      {R"({"body":[{"let":"x","value":{"bin":"add","a":{"var":"y"}}}]})",
       "at body[0].value: a \"bin\" expression has no \"b\" key"},
      {R"({"body":[{"if":{"lit":"bool","value":true},"then":[{"store":"o","index":{"var":"i"},"value":{"lit":"u32","value":-1}}]}]})",
       "at body[0].then[0].value.value: -1 is not a u32"},
      {R"({"body":[{"let":"x","value":{"lit":"i32","value":2147483648}}]})", "2147483648 is not a i32"},
      {R"({"body":[{"let":"x","value":{"lit":"u32","value":1.5}}]})", "1.5 is not a u32"},
      {R"({"body":[{"let":"x","value":{"lit":"f32","value":1e39}}]})", "at body[0].value.value: 1e+39 overflows f32"},
      {R"({"body":[{"let":"x","value":{"lit":"u32","value":"0x12345678901234567"}}]})", "is not a literal of type u32"},
      {R"({"body":[{"let":"x","value":{"lit":"u32","value":"nan"}}]})", "\"nan\" is not a literal of type u32"},
      {R"({"body":[{"let":"x","value":{"lit":"u8","value":3}}]})", "storage-only type u8"},
      {R"({"body":[{"let":"x","value":{"lit":"u31","value":3}}]})", "at body[0].value.lit: unknown type \"u31\""},
      {R"({"body":[{"let":"x","value":{"var":"a","load":"b"}}]})", "has both \"var\" and \"load\""},
      {R"({"body":[{"let":"x","value":{"varr":"a"}}]})", "at body[0].value: an expression has none of the keys"},
      {R"({"body":[{"lett":"x"}]})", "at body[0]: a statement has none of the keys"},
      {R"({"body":[{"let":"x","value":{"un":"sqroot","a":{"var":"a"}}}]})", "at body[0].value.un: unknown un operator \"sqroot\""},
      {R"({"body":[{"let":"x","value":{"fma":[{"var":"a"},{"var":"b"}]}}]})", "at body[0].value.fma: has 2 operands"},
      {R"({"body":[{"let":"x","value":{"fma":[{"var":"a"},{"var":"b"},{"vr":"c"}]}}]})", "at body[0].value.fma[2]: an expression has none"},
      {R"({"body":[{"let":"x","value":{"atomic":"add","buffer":"b","index":{"var":"i"},"value":{"var":"v"},"expected":{"var":"e"}}}]})",
       "at body[0].value.expected: unknown key \"expected\""},
      {R"({"body":[{"let":"x","value":{"atomic":"compare_exchange","buffer":"b","index":{"var":"i"},"value":{"var":"v"}}}]})",
       "has no \"expected\" key"},
      {R"({"body":[{"let":"x","value":{"builtin":"subgroup_lane","axis":0}}]})", "at body[0].value.axis: unknown key"},
      {R"({"body":[{"let":"x","value":{"builtin":"thread_id"}}]})", "unknown builtin \"thread_id\""},
      {R"({"body":[{"return":false}]})", "at body[0].return: expected true"},
      {R"({"body":[{"barrier":"device"}]})", "unknown barrier \"device\""},
      {R"({"body":[{"loop":"k","from":{"var":"a"},"to":{"var":"b"},"body":{}}]})", "at body[0].body: expected an array"},
      {R"({"buffers":[{"name":"a","access":"write","element":"u32"}]})", "at buffers[0].access: unknown access \"write\""},
      {R"({"buffers":[{"name":"a","access":"read"}]})", "at buffers[0]: a buffer has no \"element\" key"},
      {R"({"buffers":[{"name":"a","access":"read","element":"u32","count":-1}]})", "at buffers[0].count: expected an integer"},
      {R"({"buffers":[{"name":"a","access":"read","element":"u32","output_byte_range":[1]}]})", "at buffers[0].output_byte_range: has 1 entries"},
      {R"({"workgroup_size":[1,2,3,4]})", "at workgroup_size: has 4 axes"},
      {R"({"workgroup_size":[64,4294967296]})", "at workgroup_size[1]: 4294967296 is larger than 4294967295"},
      {R"({"vyre":2})", "at vyre: this program is JSON form version 2"},
      {R"({"bodyy":[]})", "at bodyy: unknown key \"bodyy\""},
      {R"([1,2])", "at the top level: expected an object for the program"},
      {"{\"body\": [\n  {\"return\": true},\n  {\"return\": true,}\n]}", "JSON: line 3, column 19"},
      {R"({"body":[],"body":[]})", "the key \"body\" appears twice"},
      {R"({"body":[]} x)", "extra data"},
      {R"({"body":[{"let":"x","value":{"lit":"f64","value":1e999}}]})", "out of the range of a double"},
      {"", "JSON: line 1, column 1"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.text);
    std::string message = json_error(c.text);
    CAPTURE(message);
    CHECK(message.find(c.message) != std::string::npos);
  }
}

TEST_CASE("nesting is bounded") {
  auto nested = [](int depth) {
    std::string text = R"({"body":[{"let":"x","value":)";
    for (int i = 0; i < depth; ++i) text += R"({"un":"neg","a":)";
    text += R"({"lit":"i32","value":1})";
    for (int i = 0; i < depth; ++i) text += "}";
    return text + "}]}";
  };
  CHECK(json_error(nested(250)).empty());
  CHECK(json_error(nested(300)).find("nests deeper than 256") != std::string::npos);
  std::string deep_arrays(100000, '[');
  CHECK(json_error(deep_arrays).find("nesting deeper than") != std::string::npos);
}

// Every prefix of each program: quadratic in its length, 2 minutes under ASan (CI's Debug build with
// sanitizers), where every fifth length is taken, a different fifth per program; the Release run of
// the same CI takes them all.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::size_t kPrefixStep = 5;
#else
constexpr std::size_t kPrefixStep = 1;
#endif

TEST_CASE("truncated and corrupted JSON is an error or a program, never a crash") {
  std::mt19937_64 rng(99);
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    std::string json = vyre::to_json(vyre::test::random_program(seed), seed % 2 == 0);
    for (std::size_t length = seed % kPrefixStep; length < json.size(); length += kPrefixStep)
      CHECK_FALSE(json_error(std::string_view(json).substr(0, length)).empty());
    for (int trial = 0; trial < 300; ++trial) {
      std::string bad = json;
      std::size_t at = rng() % bad.size();
      const char replacements[] = "{}[]\",:0x-.e\\ ab";
      bad[at] = replacements[rng() % (sizeof(replacements) - 1)];
      json_error(bad);  // checks the error's code and form when it fails
    }
  }
}

TEST_CASE("to_json refuses what the form cannot say") {
  vyre::Program p;
  auto broken = u32(1) + u32(2);
  broken.args.pop_back();
  p.body.push_back(let("x", broken));
  try {
    vyre::to_json(p);
    FAIL("wrote an expression with a missing operand");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_INVALID_PROGRAM);
    CHECK(std::string(e.what()).find("at body[0].value: a 'bin' expression needs 2 operands but has 1") !=
          std::string::npos);
  }
}

TEST_CASE("program files: JSON and wire, atomic replace, errors name the file") {
  vyre::Program p = vyre::test::random_program(42);
  auto json_path = temp_path("p.json");
  auto wire_path = temp_path("p.vyre");
  vyre::save_program_file(p, json_path);
  vyre::save_program_file(p, wire_path);
  CHECK(vyre::load_program_file(json_path) == p);
  CHECK(vyre::load_program_file(wire_path) == p);
  std::ifstream wire_in(wire_path, std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(wire_in)), std::istreambuf_iterator<char>());
  CHECK(bytes == vyre::encode_wire(p));

  vyre::Program q = vyre::test::random_program(43);
  vyre::save_program_file(q, json_path);  // replaces
  CHECK(vyre::load_program_file(json_path) == q);
  for (const auto& entry : std::filesystem::directory_iterator(json_path.parent_path()))
    CHECK(entry.path().filename().string().find(json_path.filename().string() + ".tmp") == std::string::npos);

  {
    std::ofstream bad(json_path);
    bad << R"({"body":[{"lett":1}]})";
  }
  try {
    vyre::load_program_file(json_path);
    FAIL("loaded a bad file");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_DECODE);
    CHECK(std::string(e.what()).starts_with(json_path.string() + ": JSON: at body[0]"));
  }
  std::filesystem::remove(json_path);
  std::filesystem::remove(wire_path);
  try {
    vyre::load_program_file(json_path);
    FAIL("loaded a missing file");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_IO);
  }
  try {
    vyre::save_program_file(p, temp_path("no_such_dir") / "p.json");
    FAIL("saved into a missing directory");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_IO);
  }
}
