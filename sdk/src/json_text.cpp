#include "vyre/json_text.hpp"

#include <string>

#include <boost/json/serialize.hpp>

namespace vyre {
namespace {

void write_at(std::ostream& out, const boost::json::value& value, std::size_t indent);

void write_key(std::ostream& out, boost::json::string_view key) {
  out << boost::json::serialize(boost::json::string(key)) << ": ";
}

void write_object(std::ostream& out, const boost::json::object& object, std::size_t indent) {
  out << "{\n";
  std::size_t written = 0;
  for (const auto& member : object) {
    out << std::string(indent + 2, ' ');
    write_key(out, member.key());
    write_at(out, member.value(), indent + 2);
    out << (++written < object.size() ? ",\n" : "\n");
  }
  out << std::string(indent, ' ') << '}';
}

void write_array(std::ostream& out, const boost::json::array& array, std::size_t indent) {
  out << "[\n";
  for (std::size_t i = 0; i < array.size(); ++i) {
    out << std::string(indent + 2, ' ');
    write_at(out, array[i], indent + 2);
    out << (i + 1 < array.size() ? ",\n" : "\n");
  }
  out << std::string(indent, ' ') << ']';
}

void write_at(std::ostream& out, const boost::json::value& value, std::size_t indent) {
  if (value.is_object() && !value.get_object().empty()) return write_object(out, value.get_object(), indent);
  if (value.is_array() && !value.get_array().empty()) return write_array(out, value.get_array(), indent);
  out << boost::json::serialize(value);
}

}  // namespace

void write_indented_json(std::ostream& out, const boost::json::value& value) { write_at(out, value, 0); }

}  // namespace vyre
