// vyre::printable: text from plugins and file names, made safe for terminals and logs.
#include <doctest/doctest.h>

#include <string>

#include "vyre/printable.hpp"

using vyre::Newlines;
using vyre::printable;

TEST_CASE("plain text and well-formed UTF-8 pass unchanged") {
  CHECK(printable("cuda 1.2.3 (NVIDIA H200)", 100) == "cuda 1.2.3 (NVIDIA H200)");
  CHECK(printable("tab\there", 100) == "tab\there");
  CHECK(printable("Gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80", 100) == "Gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST_CASE("controls, C1 controls, bidirectional overrides and malformed UTF-8 are escaped") {
  CHECK(printable("\x1b[2J", 100) == "\\x1b[2J");
  CHECK(printable(std::string("a\0b", 3), 100) == "a\\x00b");
  CHECK(printable("\r\x07\x7f", 100) == "\\x0d\\x07\\x7f");
  CHECK(printable("\xc2\x9b" "31m", 100) == "\\u009b31m");                  // an 8-bit CSI
  CHECK(printable("a\xe2\x80\xae" "b\xe2\x81\xa6", 100) == "a\\u202eb\\u2066");  // RLO, LRI
  CHECK(printable("\xff\xfe", 100) == "\\xff\\xfe");                         // not UTF-8
  CHECK(printable("\xc0\xaf", 100) == "\\xc0\\xaf");                         // overlong '/'
  CHECK(printable("\xed\xa0\x80", 100) == "\\xed\\xa0\\x80");                // a surrogate
  CHECK(printable("\xf4\x90\x80\x80", 100) == "\\xf4\\x90\\x80\\x80");       // beyond U+10FFFF
  CHECK(printable("\xe2\x82", 100) == "\\xe2\\x82");                         // truncated
}

TEST_CASE("newlines are escaped in lines and kept in multi-line messages") {
  CHECK(printable("one\ntwo", 100) == "one\\x0atwo");
  CHECK(printable("one\ntwo\x1b", 100, Newlines::keep) == "one\ntwo\\x1b");
}

TEST_CASE("long text is clipped at a character boundary and says so") {
  const std::string huge(std::size_t{8} << 20, 'A');
  const std::string out = printable(huge, 4096);
  CHECK(out == std::string(4096, 'A') + "... (clipped at 4096 bytes)");
  CHECK(printable("ab\xe2\x82\xac", 4) == "ab... (clipped at 4 bytes)");  // the euro sign does not fit
  CHECK(printable("abcd", 4) == "abcd");
}

TEST_CASE("C strings: null, and read no further than the limit") {
  CHECK(printable(static_cast<const char*>(nullptr), 10) == "(null)");
  const char unterminated[4] = {'a', 'b', 'c', 'd'};  // no NUL within the limit + 1 bytes read
  CHECK(printable(unterminated, 2) == "ab... (clipped at 2 bytes)");
  CHECK(printable("\x1b" "ok", 10) == "\\x1bok");
}

TEST_CASE("escaping twice changes nothing") {
  for (const char* text : {"\x1b[2J\r\n", "\xff\xc2\x9b", "plain", "\\x1b already"}) {
    const std::string once = printable(text, 100);
    CHECK(printable(once, 1000) == once);
  }
}
