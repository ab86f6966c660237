// Pretty JSON text for AOT manifests: two-space indentation, keys in insertion order, scalar arrays
// and small flat objects on one line. vyre-aot writes manifests it extends with the same printer.
#pragma once

#include <string>

#include <boost/json/value.hpp>

namespace vyre::cuda::aot {

std::string pretty_json(const boost::json::value& value);

}  // namespace vyre::cuda::aot
