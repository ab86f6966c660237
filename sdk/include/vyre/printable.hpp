// Text from outside (plugin ids, versions, log lines and error messages, file names) made safe to
// print to a terminal or a log: control characters cannot move the cursor, clear the screen, forge
// another line or hide what follows, and a huge message cannot flood the output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vyre {

enum class Newlines {
  escape,  // one line: '\n' becomes \x0a (log lines, names, one-line reasons)
  keep,    // '\n' stays (multi-line error messages such as validation reports)
};

// `text` with every C0 control except tab (and newline with Newlines::keep), DEL, every C1 control
// (U+0080..U+009F), the bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069), and
// every byte that is not part of well-formed UTF-8 spelled as \xNN or \uNNNN; other UTF-8 text is
// kept. At most `max_bytes` bytes of `text` are used (cut at a character boundary); a longer text
// ends in "... (clipped at <max_bytes> bytes)". Applying it twice changes nothing when nothing is
// clipped: printable(printable(x)) == printable(x). Thread-safe.
std::string printable(std::string_view text, std::size_t max_bytes, Newlines newlines = Newlines::escape);

// The same for a NUL-terminated string a plugin handed over, reading at most `max_bytes + 1` bytes
// of it; "(null)" for a null pointer.
std::string printable(const char* text, std::size_t max_bytes, Newlines newlines = Newlines::escape);

}  // namespace vyre
