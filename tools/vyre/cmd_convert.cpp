// vyre convert: JSON <-> wire.
#include <fmt/core.h>

#include <filesystem>

#include "cli.hpp"
#include "vyre/json.hpp"

namespace vyre::cli {

const std::string_view kConvertHelp = R"(usage: vyre convert IN OUT

Reads IN (wire bytes when it starts with the wire magic, JSON otherwise) and writes OUT as JSON
when its name ends in .json, as wire bytes otherwise. The program is converted as it is (not
validated; use `vyre validate`).
Exit status: 0 converted, 1 unreadable input or unwritable output, 2 usage error.
)";

int run_convert(const GlobalOptions&, Args& args) {
  const std::string in = args.take("input FILE");
  const std::string out = args.take("output FILE");
  args.finish("vyre convert");
  const Program program = load_program_file(in);
  save_program_file(program, out);
  const bool json = std::filesystem::path(out).extension() == ".json";
  fmt::print("{} -> {} ({}, {} bytes)\n", in, out, json ? "json" : "wire",
             std::filesystem::file_size(out));
  return kExitOk;
}

}  // namespace vyre::cli
