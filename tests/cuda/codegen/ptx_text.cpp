// Reading and merging the emitter's PTX modules (tests only).
#include "ptx_text.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include "codegen/entry_parts.hpp"

namespace ptx_test {

namespace {

constexpr std::string_view kEntryStart = ".visible .entry ";

std::string trim(const std::string& s) {
  auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return {};
  auto end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool is_instruction(const std::string& line) {
  if (line.empty() || line == "{" || line == "}" || line.back() == ':') return false;
  if (starts_with(line, "//") || starts_with(line, ".reg") || starts_with(line, ".shared") ||
      starts_with(line, ".param") || starts_with(line, ".reqntid"))
    return false;
  return true;
}

std::pair<int, int> version_of(const std::string& line) {
  std::string number = trim(line.substr(std::string_view(".version").size()));
  auto dot = number.find('.');
  return {std::stoi(number.substr(0, dot)), std::stoi(number.substr(dot + 1))};
}

struct Parts {
  std::pair<int, int> version{0, 0};
  std::string target;
  std::vector<std::pair<std::string, std::string>> math;  // name, definition
  std::vector<std::string> entries;                       // entry definitions
};

Parts split_module(const std::string& module) {
  Parts parts;
  enum { Header, Math, Entry } where = Header;
  for (const std::string& line : split_lines(module)) {
    if (starts_with(line, ".version")) {
      parts.version = version_of(line);
    } else if (starts_with(line, ".target")) {
      parts.target = line;
    } else if (starts_with(line, std::string(vyre::cuda::codegen::kMathMarker))) {
      parts.math.emplace_back(line.substr(vyre::cuda::codegen::kMathMarker.size()), "");
      where = Math;
    } else if (starts_with(line, kEntryStart)) {
      parts.entries.emplace_back();
      where = Entry;
    }
    if (where == Math) parts.math.back().second += line + "\n";
    if (where == Entry) parts.entries.back() += line + "\n";
  }
  return parts;
}

}  // namespace

std::vector<EntryText> entries(const std::string& module) {
  std::vector<EntryText> result;
  for (const std::string& text : split_module(module).entries) {
    EntryText entry;
    entry.text = text;
    auto lines = split_lines(text);
    std::string first = lines.front().substr(kEntryStart.size());
    entry.name = first.substr(0, first.find('('));
    bool in_params = true;
    for (std::size_t i = 1; i < lines.size(); ++i) {
      std::string line = trim(lines[i]);
      if (in_params) {
        if (line == ")") {
          in_params = false;
          continue;
        }
        if (!line.empty() && line.back() == ',') line.pop_back();
        entry.params.push_back(line);
        continue;
      }
      if (is_instruction(line)) entry.instructions.push_back(line);
    }
    result.push_back(std::move(entry));
  }
  return result;
}

bool is_predicated(const std::string& instruction) { return starts_with(instruction, "@"); }

std::string opcode(const std::string& instruction) {
  std::string s = instruction;
  if (is_predicated(s)) s = trim(s.substr(s.find(' ')));
  return s.substr(0, s.find_first_of(" \t;"));
}

std::string merge_modules(const std::vector<std::string>& modules) {
  std::pair<int, int> version{0, 0};
  std::string target;
  std::vector<std::pair<std::string, std::string>> math;
  std::string entry_text;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    Parts parts = split_module(modules[m]);
    version = std::max(version, parts.version);
    target = parts.target;
    for (auto& definition : parts.math) {
      bool seen = std::any_of(math.begin(), math.end(),
                              [&](const auto& d) { return d.first == definition.first; });
      if (!seen) math.push_back(std::move(definition));
    }
    std::string prefix = std::string(kEntryStart) + "m" + std::to_string(m) + "_";
    for (const std::string& entry : parts.entries) entry_text += "\n" + prefix + entry.substr(kEntryStart.size());
  }
  std::string merged = "// merged by the ptxas test\n.version " + std::to_string(version.first) + "." +
                       std::to_string(version.second) + "\n" + target + "\n.address_size 64\n";
  for (const auto& definition : math) merged += "\n" + definition.second;
  return merged + entry_text;
}

}  // namespace ptx_test
