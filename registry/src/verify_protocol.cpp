// The verifier request line (verify_protocol.hpp).
#include "verify_protocol.hpp"

#include <charconv>
#include <vector>

#include "hex.hpp"

namespace vyre::registry_detail {

namespace {

std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> words;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    words.push_back(text.substr(0, space));
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return words;
}

}  // namespace

std::string encode_request(const VerifyRequest& r) {
  return std::string(kRequestMagic) + r.nonce + " " + r.mode + " " + std::to_string(r.report_fd) + " " +
         hex_encode(r.plugin) + "\n";
}

bool decode_request(std::string_view line, VerifyRequest& out) {
  if (!line.starts_with(kRequestMagic)) return false;
  const std::vector<std::string_view> words = split_spaces(line.substr(kRequestMagic.size()));
  if (words.size() != 4 || words[0].empty() || !hex_decode(words[0])) return false;
  if (words[1] != kVerifyModeRegister && words[1] != kVerifyModeCreate) return false;
  int fd = -1;
  const auto [end, ec] = std::from_chars(words[2].data(), words[2].data() + words[2].size(), fd);
  if (ec != std::errc() || end != words[2].data() + words[2].size() || fd < 3) return false;
  const auto path = hex_decode(words[3]);
  if (!path || path->empty()) return false;
  out.nonce = std::string(words[0]);
  out.mode = std::string(words[1]);
  out.report_fd = fd;
  out.plugin.assign(path->begin(), path->end());
  return true;
}

}  // namespace vyre::registry_detail
