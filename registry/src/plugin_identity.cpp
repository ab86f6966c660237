// File identities and the files mapped into this process (plugin_identity.hpp).
#include "plugin_identity.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>
#include <string>

namespace vyre::registry_detail {

std::optional<FileIdentity> identity_of(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev,          st.st_ino,          st.st_size,         st.st_mtim.tv_sec,
                      st.st_mtim.tv_nsec, st.st_ctim.tv_sec,  st.st_ctim.tv_nsec};
}

bool is_mapped(const FileIdentity& file) {
  // "start-end perms offset major:minor inode path", device numbers in hex.
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms, offset, device;
    unsigned long long inode = 0;
    if (!(fields >> range >> perms >> offset >> device >> inode) || inode != file.inode) continue;
    const std::size_t colon = device.find(':');
    if (colon == std::string::npos) continue;
    try {
      const unsigned long major_number = std::stoul(device.substr(0, colon), nullptr, 16);
      const unsigned long minor_number = std::stoul(device.substr(colon + 1), nullptr, 16);
      if (::makedev(major_number, minor_number) == file.device) return true;
    } catch (const std::exception&) {
      continue;
    }
  }
  return false;
}

}  // namespace vyre::registry_detail
