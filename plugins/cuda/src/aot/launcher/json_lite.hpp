// A small, strict JSON reader for the launcher's manifest (RFC 8259 syntax). Safe on any input:
// the text size and nesting depth are bounded, every error names the byte offset, duplicate object
// keys are rejected, and nothing is read past the end. Numbers keep their literal text; the
// accessors convert them exactly or refuse.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vyre_launch::json {

constexpr std::size_t kMaxTextBytes = 64u << 20;  // 64 MiB
constexpr std::size_t kMaxDepth = 64;

enum class Kind { Null, Bool, Number, String, Array, Object };

const char* kind_name(Kind kind);

struct Value {
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;               // String: the decoded text; Number: the literal
  std::vector<Value> items;       // Array elements; Object member values
  std::vector<std::string> keys;  // Object member names (parallel to items)

  // The member named `key` of an object, or nullptr (also for non-objects).
  const Value* find(const std::string& key) const;
};

// Parse one JSON document. Throws LaunchError naming `what` (e.g. the file) and the offset.
Value parse(const std::string& text, const std::string& what);

}  // namespace vyre_launch::json
