// The validator: reports *all* problems of a program at once, each with a stable code, the path of
// the offending node ("body[3].then[0].value.b") and a message ending in "Fix: ...".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre {

// Stable codes (never renumbered; new ones are appended).
enum class Check : std::uint16_t {
  WorkgroupSize = 100,        // an axis is 0 or the product exceeds 1024
  NoBuffersOrBody = 101,      // reserved: an empty program is valid; kept for numbering
  DuplicateBufferName = 102,
  DuplicateBinding = 103,
  InvalidName = 104,          // empty, or not [A-Za-z_][A-Za-z0-9_]*
  BufferCount = 105,          // output/workgroup buffer with count 0
  OutputRange = 106,          // output_byte_range on a non-output, empty, or past the buffer
  InvalidType = 107,          // an enum value out of range (from decoders)
  UnknownBuffer = 108,
  UnknownVariable = 109,
  DuplicateVariable = 110,    // a Let or Loop variable that is already in scope
  TypeMismatch = 111,         // operand types differ or are not what the node needs
  OpNotDefined = 112,         // operator/cast/atomic/subgroup op not defined on the type
  NotWritable = 113,          // Store/Atomic to a read or uniform buffer
  AtomicElement = 114,        // Atomic on a buffer whose element type has no atomics
  InvalidAxis = 115,          // builtin axis not 0..2
  GridSyncPlacement = 116,    // Barrier(grid_sync) not a top-level statement
  CrossesGridSync = 117,      // a variable bound before a grid_sync used after it
  SubgroupWorkgroup = 118,    // subgroup op with a workgroup product that is not a multiple of 32
  ArityMismatch = 119,        // wrong number of operands/children for the kind
  InvalidLiteral = 120,       // bool literal not 0/1, or bits beyond the type's width
  AssignLoopVariable = 121,   // Assign to a Loop variable
  WorkgroupBufferAccess = 122,// BufLen/host access shapes not allowed on workgroup buffers
  CastToSameType = 123,
  NestingDepth = 124,         // nodes/expressions nested deeper than kWireMaxDepth
};

std::string_view check_name(Check code);

struct Diagnostic {
  Check code;
  std::string path;     // "buffers[1]", "body[2].then[0].value.a"
  std::string message;  // ends with "Fix: ..."
};

std::vector<Diagnostic> validate(const Program& program);

// Throws vyre::Error (VYRE_ERR_INVALID_PROGRAM) listing every diagnostic, one per line.
void validate_or_throw(const Program& program);

}  // namespace vyre
