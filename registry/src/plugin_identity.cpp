// File identities and the files mapped into this process (plugin_identity.hpp).
#include "plugin_identity.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace vyre::registry_detail {

std::optional<FileIdentity> identity_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev,          st.st_ino,          st.st_size,         st.st_mtim.tv_sec,
                      st.st_mtim.tv_nsec, st.st_ctim.tv_sec,  st.st_ctim.tv_nsec};
}

namespace {

// The whole of /proc/self/maps, read with open/read: no iostreams (and so no locale), because a
// library loaded earlier can break the process's iostream number parsing (NumPy's wheels carry
// their own static libstdc++ whose unique locale-facet symbols win; seen on the GPU machine).
std::string read_maps() {
  std::string text;
  const int fd = ::open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

// Parses one hexadecimal or decimal unsigned field at `p`, advancing it; false when none is there.
bool parse_unsigned(const char*& p, const char* end, int base, unsigned long long& out) {
  const char* start = p;
  out = 0;
  for (; p < end; ++p) {
    const char c = *p;
    unsigned digit;
    if (c >= '0' && c <= '9') digit = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') digit = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') digit = static_cast<unsigned>(c - 'A' + 10);
    else break;
    out = out * static_cast<unsigned long long>(base) + digit;
  }
  return p != start;
}

void skip_field(const char*& p, const char* end) {
  while (p < end && *p != ' ') ++p;
  while (p < end && *p == ' ') ++p;
}

}  // namespace

bool is_mapped(const FileIdentity& file) {
  // "start-end perms offset major:minor inode path", device numbers in hex.
  const std::string maps = read_maps();
  const char* line = maps.data();
  const char* const text_end = maps.data() + maps.size();
  while (line < text_end) {
    const char* end = static_cast<const char*>(std::memchr(line, '\n', static_cast<std::size_t>(text_end - line)));
    if (end == nullptr) end = text_end;
    const char* p = line;
    skip_field(p, end);  // range
    skip_field(p, end);  // perms
    skip_field(p, end);  // offset
    unsigned long long major_number = 0, minor_number = 0, inode = 0;
    const bool parsed = parse_unsigned(p, end, 16, major_number) && p < end && *p++ == ':' &&
                        parse_unsigned(p, end, 16, minor_number) && p < end && *p++ == ' ' &&
                        parse_unsigned(p, end, 10, inode);
    if (parsed && inode == static_cast<unsigned long long>(file.inode) &&
        ::makedev(static_cast<unsigned>(major_number), static_cast<unsigned>(minor_number)) == file.device)
      return true;
    line = end + 1;
  }
  return false;
}

}  // namespace vyre::registry_detail
