// A bundle on disk: the manifest, the kernel images (checked against their SHA-256), and the bytes
// each device buffer starts with (inputs, weights), and where its outputs go. All of it is read
// and checked before the device is touched.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "file_access.hpp"
#include "manifest.hpp"

namespace vyre_launch {

struct Bundle {
  std::string dir;
  Directory root;  // `dir`, opened once: every bundle file is reached from it without following links
  Manifest manifest;
  std::string ptx;                   // kernel.ptx, checked
  std::optional<std::string> cubin;  // kernel.cubin when the bundle has one, checked
  // Per manifest buffer: the bytes to upload (host inputs and weights, padded to the buffer's
  // size), or nothing (output buffers start zeroed; workgroup buffers have no allocation).
  std::vector<std::optional<std::string>> initial;
};

// Read `dir`/manifest.json, validate it, read and check the kernel files and weights, and resolve
// every input buffer's bytes: `inputs` (--in NAME=FILE) first, then the bundle's own input files,
// then the weights for the first input buffer. Every file of the bundle is a regular file reached
// without following a link (file_access.hpp), checked for type and size before it is read. Throws
// LaunchError naming what is missing or wrong.
Bundle load_bundle(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& inputs);

// Read bundle file `ref` (relative to the bundle) and check its size, then its SHA-256.
std::string read_checked(const Directory& bundle, const FileRef& ref, const std::string& what);

// Before the device is touched: throw LaunchError if writing the outputs would have to go through
// a link or replace something that is not a regular file (BUNDLE/outputs or any NAME.bin a link, a
// directory, a FIFO ...). `out_dir` is --out, empty for BUNDLE/outputs. Creates nothing.
void check_outputs(const Bundle& bundle, const std::string& out_dir);

// The directory the outputs go to, created if absent: `out_dir` as given, or, when it is empty,
// BUNDLE/outputs, created or opened beneath the bundle without following a link. Throws LaunchError.
Directory open_outputs(const Bundle& bundle, const std::string& out_dir);

// The file an output buffer is written to, relative to the output directory: NAME.bin.
std::string output_file_name(const Buffer& buffer);

}  // namespace vyre_launch
