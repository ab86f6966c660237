// The JSON form of a program (Boost.JSON). It round-trips exactly: from_json(to_json(p)) == p,
// bit for bit, including float literals (NaN payloads and -0 too). docs/JSON.md describes it.
//
//   {"vyre": 1, "workgroup_size": [64, 1, 1],
//    "buffers": [{"name": "a", "binding": 0, "access": "read", "element": "u32", "count": 0}, ...],
//    "body": [{"let": "i", "value": {"builtin": "invocation_id", "axis": 0}}, ...]}
//
// Decoding errors are vyre::Error (VYRE_ERR_DECODE) naming the JSON path ("body[2].value.a").
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre {

std::string to_json(const Program& program, bool pretty = true);
Program from_json(std::string_view text);

// Read a program file: wire bytes (sniffed by magic) or JSON. Errors name the file.
Program load_program_file(const std::filesystem::path& path);
// Write JSON (".json") or wire bytes (any other extension), atomically.
void save_program_file(const Program& program, const std::filesystem::path& path);

}  // namespace vyre
