// The binary wire format: how programs cross the plugin ABI and how they are fingerprinted.
//
// Layout (all integers little-endian): "VYRE", u16 version (kWireVersion), u16 flags (0),
// u32 payload length, payload. The payload encodes the program field by field, every list and
// string length-prefixed; docs/WIRE.md has the byte-level grammar. Encoding is canonical: equal
// programs give equal bytes. The decoder is safe on any input: every length is checked against
// the bytes left, nesting depth and counts are bounded, and a bad input is a vyre::Error
// (VYRE_ERR_DECODE) naming the byte offset and what was expected.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre {

inline constexpr std::uint16_t kWireVersion = 1;
inline constexpr std::uint32_t kWireMaxDepth = 256;  // nested expressions/nodes

std::vector<std::uint8_t> encode_wire(const Program& program);
Program decode_wire(std::span<const std::uint8_t> bytes);

// True when `bytes` start with the wire magic (cheap sniffing for file loaders).
bool looks_like_wire(std::span<const std::uint8_t> bytes);

}  // namespace vyre
