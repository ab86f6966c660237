// A bundle on disk: the manifest, the kernel images (checked against their SHA-256), and the bytes
// each device buffer starts with (inputs, weights). All of it is read and checked before the device
// is touched.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "manifest.hpp"

namespace vyre_launch {

struct Bundle {
  std::string dir;
  Manifest manifest;
  std::string ptx;                   // kernel.ptx, checked
  std::optional<std::string> cubin;  // kernel.cubin when the bundle has one, checked
  // Per manifest buffer: the bytes to upload (host inputs and weights, padded to the buffer's
  // size), or nothing (output buffers start zeroed; workgroup buffers have no allocation).
  std::vector<std::optional<std::string>> initial;
};

// Read `dir`/manifest.json, validate it, read and check the kernel files and weights, and resolve
// every input buffer's bytes: `inputs` (--in NAME=FILE) first, then the bundle's own input files,
// then the weights for the first input buffer. Throws LaunchError naming what is missing or wrong.
Bundle load_bundle(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs);

// Read a whole file; throws LaunchError naming `what`.
std::string read_file(const std::string& path, const std::string& what);

// Read bundle file `ref` (relative to `dir`) and check its size and SHA-256.
std::string read_checked(const std::string& dir, const FileRef& ref, const std::string& what);

// Write `bytes` to `path` (creating its directory); throws LaunchError.
void write_file(const std::string& path, const std::string& bytes);

}  // namespace vyre_launch
