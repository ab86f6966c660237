// Indented JSON text for files people read (certificates, benchmark results): two spaces per
// level, one member or element per line, empty objects and arrays as {} and [], scalars exactly as
// boost::json::serialize writes them. Parsing it back gives the same value.
#pragma once

#include <ostream>

#include <boost/json/value.hpp>

namespace vyre {

void write_indented_json(std::ostream& out, const boost::json::value& value);

}  // namespace vyre
