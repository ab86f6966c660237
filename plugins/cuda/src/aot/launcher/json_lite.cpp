#include "json_lite.hpp"

#include "errors.hpp"

namespace vyre_launch::json {
namespace {

class Parser {
 public:
  Parser(const std::string& text, const std::string& what) : text_(text), what_(what) {}

  Value document() {
    if (text_.size() > kMaxTextBytes)
      fail(cat(what_, " is ", text_.size(), " bytes, over the ", kMaxTextBytes, "-byte limit"),
           "regenerate the bundle with vyre-aot; a manifest is a few kilobytes");
    Value value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) error("unexpected text after the JSON document");
    return value;
  }

 private:
  [[noreturn]] void error(const std::string& problem) const {
    fail(cat(what_, " is not valid JSON at byte ", pos_, ": ", problem),
         "regenerate the bundle with vyre-aot instead of editing the manifest by hand");
  }

  bool at_end() const { return pos_ >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[pos_]; }

  void skip_space() {
    while (!at_end()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
      ++pos_;
    }
  }

  void expect(char c) {
    if (peek() != c) error(cat("expected '", c, "'"));
    ++pos_;
  }

  void expect_word(const char* word) {
    for (const char* p = word; *p != '\0'; ++p) {
      if (peek() != *p) error(cat("expected '", word, "'"));
      ++pos_;
    }
  }

  Value parse_value(std::size_t depth) {
    if (depth >= kMaxDepth) error(cat("nesting deeper than ", kMaxDepth, " levels"));
    skip_space();
    const char c = peek();
    if (c == '{') return parse_object(depth);
    if (c == '[') return parse_array(depth);
    if (c == '"') return string_value();
    if (c == 't' || c == 'f') return parse_bool();
    if (c == 'n') {
      expect_word("null");
      return Value{};
    }
    if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
    error(at_end() ? "unexpected end of text" : cat("unexpected character '", c, "'"));
  }

  Value parse_bool() {
    Value value;
    value.kind = Kind::Bool;
    value.boolean = peek() == 't';
    expect_word(value.boolean ? "true" : "false");
    return value;
  }

  void digits() {
    if (!(peek() >= '0' && peek() <= '9')) error("expected a digit");
    while (peek() >= '0' && peek() <= '9') ++pos_;
  }

  Value parse_number() {
    const std::size_t start = pos_;
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else {
      digits();
    }
    if (peek() == '.') {
      ++pos_;
      digits();
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      digits();
    }
    Value value;
    value.kind = Kind::Number;
    value.text = text_.substr(start, pos_ - start);
    return value;
  }

  unsigned hex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = peek();
      unsigned digit = 0;
      if (c >= '0' && c <= '9')
        digit = static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        digit = static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        digit = static_cast<unsigned>(c - 'A' + 10);
      else
        error("expected 4 hex digits after \\u");
      code = code * 16 + digit;
      ++pos_;
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  unsigned unicode_escape() {
    const unsigned code = hex4();
    if (code >= 0xDC00 && code <= 0xDFFF) error("a lone low surrogate in \\u escape");
    if (code < 0xD800 || code > 0xDBFF) return code;
    if (peek() != '\\') error("a high surrogate without its low surrogate");
    ++pos_;
    expect('u');
    const unsigned low = hex4();
    if (low < 0xDC00 || low > 0xDFFF) error("a high surrogate without its low surrogate");
    return 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
  }

  void escape(std::string& out) {
    const char c = peek();
    ++pos_;
    switch (c) {
      case '"':
        out += '"';
        return;
      case '\\':
        out += '\\';
        return;
      case '/':
        out += '/';
        return;
      case 'b':
        out += '\b';
        return;
      case 'f':
        out += '\f';
        return;
      case 'n':
        out += '\n';
        return;
      case 'r':
        out += '\r';
        return;
      case 't':
        out += '\t';
        return;
      case 'u':
        append_utf8(out, unicode_escape());
        return;
      default:
        --pos_;
        error("an unknown escape sequence");
    }
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    while (true) {
      if (at_end()) error("unterminated string");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) error("a control character inside a string");
      ++pos_;
      if (c == '\\') {
        escape(out);
      } else {
        out += c;
      }
    }
  }

  Value string_value() {
    Value value;
    value.kind = Kind::String;
    value.text = parse_string();
    return value;
  }

  Value parse_array(std::size_t depth) {
    expect('[');
    Value value;
    value.kind = Kind::Array;
    skip_space();
    if (peek() == ']') {
      ++pos_;
      return value;
    }
    while (true) {
      value.items.push_back(parse_value(depth + 1));
      skip_space();
      if (peek() == ']') {
        ++pos_;
        return value;
      }
      expect(',');
    }
  }

  Value parse_object(std::size_t depth) {
    expect('{');
    Value value;
    value.kind = Kind::Object;
    skip_space();
    if (peek() == '}') {
      ++pos_;
      return value;
    }
    while (true) {
      skip_space();
      std::string key = parse_string();
      if (value.find(key) != nullptr) error(cat("the key \"", key, "\" appears twice"));
      skip_space();
      expect(':');
      value.items.push_back(parse_value(depth + 1));
      value.keys.push_back(std::move(key));
      skip_space();
      if (peek() == '}') {
        ++pos_;
        return value;
      }
      expect(',');
    }
  }

  const std::string& text_;
  const std::string& what_;
  std::size_t pos_ = 0;
};

}  // namespace

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::Null:
      return "null";
    case Kind::Bool:
      return "a boolean";
    case Kind::Number:
      return "a number";
    case Kind::String:
      return "a string";
    case Kind::Array:
      return "an array";
    case Kind::Object:
      return "an object";
  }
  return "an unknown value";
}

const Value* Value::find(const std::string& key) const {
  if (kind != Kind::Object) return nullptr;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return &items[i];
  return nullptr;
}

Value parse(const std::string& text, const std::string& what) { return Parser(text, what).document(); }

}  // namespace vyre_launch::json
