#include "vyre/printable.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

namespace vyre {
namespace {

// The code point of the well-formed UTF-8 sequence at the start of `text` and its length, or a
// length of 0 when it is not one (a stray byte, an overlong form, a surrogate, beyond U+10FFFF).
struct Decoded {
  char32_t code = 0;
  std::size_t length = 0;
};

Decoded decode_utf8(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  std::size_t length = 0;
  char32_t code = 0;
  char32_t minimum = 0;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2, code = lead & 0x1F, minimum = 0x80;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3, code = lead & 0x0F, minimum = 0x800;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4, code = lead & 0x07, minimum = 0x10000;
  } else {
    return {};
  }
  if (text.size() < length) return {};
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {};
    code = (code << 6) | (byte(i) & 0x3F);
  }
  if (code < minimum || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) return {};
  return {code, length};
}

bool must_escape(char32_t code, Newlines newlines) {
  if (code == '\t') return false;
  if (code == '\n') return newlines == Newlines::escape;
  if (code < 0x20 || code == 0x7F) return true;
  if (code >= 0x80 && code <= 0x9F) return true;      // C1 controls (0x9B is a CSI on some terminals)
  if (code >= 0x202A && code <= 0x202E) return true;  // bidirectional embeddings and overrides
  return code >= 0x2066 && code <= 0x2069;            // bidirectional isolates
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes, Newlines newlines) {
  std::string out;
  out.reserve(std::min(text.size(), max_bytes) + 16);
  std::size_t at = 0;
  while (at < text.size()) {
    const Decoded d = decode_utf8(text.substr(at));
    const std::size_t length = d.length == 0 ? 1 : d.length;
    if (at + length > max_bytes) break;
    if (d.length == 0)
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[at]));
    else if (must_escape(d.code, newlines))
      out += d.code < 0x80 ? fmt::format("\\x{:02x}", static_cast<unsigned>(d.code))
                           : fmt::format("\\u{:04x}", static_cast<std::uint32_t>(d.code));
    else
      out.append(text.substr(at, length));
    at += length;
  }
  if (at < text.size()) out += fmt::format("... (clipped at {} bytes)", max_bytes);
  return out;
}

std::string printable(const char* text, std::size_t max_bytes, Newlines newlines) {
  if (text == nullptr) return "(null)";
  return printable(std::string_view(text, strnlen(text, max_bytes + 1)), max_bytes, newlines);
}

}  // namespace vyre
