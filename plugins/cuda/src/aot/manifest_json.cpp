#include "aot/manifest_json.hpp"

#include <boost/json/serialize.hpp>

namespace vyre::cuda::aot {
namespace {

constexpr std::size_t kOneLineWidth = 100;

bool is_scalar(const boost::json::value& v) { return !v.is_object() && !v.is_array(); }

bool all_scalar(const boost::json::value& v) {
  if (v.is_array()) {
    for (const auto& item : v.as_array())
      if (!is_scalar(item)) return false;
    return true;
  }
  if (v.is_object()) {
    for (const auto& member : v.as_object())
      if (!is_scalar(member.value())) return false;
    return true;
  }
  return true;
}

// "[1, 2, 3]" / {"a": 1, "b": "x"} with a space after each separator.
std::string one_line(const boost::json::value& v) {
  if (is_scalar(v)) return boost::json::serialize(v);
  std::string out;
  if (v.is_array()) {
    out += '[';
    const auto& array = v.as_array();
    for (std::size_t i = 0; i < array.size(); ++i) {
      if (i > 0) out += ", ";
      out += one_line(array[i]);
    }
    return out + ']';
  }
  out += '{';
  bool first = true;
  for (const auto& member : v.as_object()) {
    if (!first) out += ", ";
    first = false;
    out += boost::json::serialize(boost::json::value(member.key())) + ": " + one_line(member.value());
  }
  return out + '}';
}

void write(std::string& out, const boost::json::value& v, std::size_t indent) {
  if (all_scalar(v)) {
    const std::string line = one_line(v);
    if (is_scalar(v) || line.size() + indent <= kOneLineWidth) {
      out += line;
      return;
    }
  }
  const std::string inner(indent + 2, ' ');
  const std::string outer(indent, ' ');
  if (v.is_array()) {
    const auto& array = v.as_array();
    out += "[\n";
    for (std::size_t i = 0; i < array.size(); ++i) {
      out += inner;
      write(out, array[i], indent + 2);
      out += i + 1 < array.size() ? ",\n" : "\n";
    }
    out += outer + ']';
    return;
  }
  const auto& object = v.as_object();
  out += "{\n";
  std::size_t i = 0;
  for (const auto& member : object) {
    out += inner + boost::json::serialize(boost::json::value(member.key())) + ": ";
    write(out, member.value(), indent + 2);
    out += ++i < object.size() ? ",\n" : "\n";
  }
  out += outer + '}';
}

}  // namespace

std::string pretty_json(const boost::json::value& value) {
  std::string out;
  write(out, value, 0);
  out += '\n';
  return out;
}

}  // namespace vyre::cuda::aot
