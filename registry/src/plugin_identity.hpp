// Which file a plugin was really loaded from: the identity (device, inode, size, times) of a path,
// and whether a file of that identity is mapped into this process. The registry hashes a plugin
// file, loads it, and accepts the hash as the loaded file's only when the path still names the
// same unchanged file and that file is the one mapped.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>

namespace vyre::registry_detail {

struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  long mtime_sec = 0, mtime_nsec = 0;
  long ctime_sec = 0, ctime_nsec = 0;  // any write or rename changes it; no one can set it back

  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};

// The identity of the file `path` names (following links), or nullopt when it cannot be read.
std::optional<FileIdentity> identity_of(const std::filesystem::path& path);

// Whether a file with this device and inode is mapped into this process (/proc/self/maps).
bool is_mapped(const FileIdentity& file);

}  // namespace vyre::registry_detail
