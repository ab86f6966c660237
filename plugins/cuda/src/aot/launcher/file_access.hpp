// Files the launcher reads and writes, treated as hostile: a bundle may come from anyone.
//
// - Inside a directory the launcher opens (the bundle, the output directory) every path is walked
//   one component at a time with O_NOFOLLOW from the directory's descriptor, so no component below
//   it may be a symbolic link: a link is refused before anything is read from or written to it,
//   and nothing about its target is revealed. The directory itself is opened as named, links
//   included: the user chose that path.
// - Every file read must be a regular file (never a FIFO, device, socket or directory: opened with
//   O_NONBLOCK so a FIFO cannot hang the open). Its size comes from fstat before a byte is read,
//   the caller checks it, and exactly that many bytes are read.
// - A file is written as a fresh temporary (O_CREAT|O_EXCL|O_NOFOLLOW) beside its name, then renamed
//   over it: never through a link, never into an existing file (or a hard link's other names).
//
// POSIX and C++17 only (the launcher builds with nothing but a compiler and the CUDA driver).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace vyre_launch {

// An open file descriptor, closed on destruction.
class FileDescriptor {
 public:
  FileDescriptor() = default;
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor();

  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

// A regular file opened for reading, with its size as fstat reported it.
struct RegularFile {
  FileDescriptor fd;
  std::uint64_t size = 0;
  std::string path;  // for messages
};

// Read `file` whole: exactly `file.size` bytes. The caller has checked the size against its limit
// first. Throws LaunchError naming `what` when the file fails to read or shrinks meanwhile.
std::string read_whole(const RegularFile& file, const std::string& what);

// Open the regular file `path` (a path the user gave, so links are followed) for reading. Throws
// LaunchError naming `what` when it is missing, unreadable or not a regular file.
RegularFile open_user_file(const std::string& path, const std::string& what);

// A directory whose contents are reached without following links. Thread-compatible.
class Directory {
 public:
  // Open `path` (links in it are followed: the caller named it); with `create`, create it and its
  // parents first. Throws LaunchError naming `what`, with `fix` when it cannot be opened.
  static Directory open(const std::string& path, const std::string& what, bool create, const std::string& fix);

  // The directory `relative` beneath this one, no component a link; created when absent and
  // `create`. Throws LaunchError naming `what`.
  Directory subdirectory(const std::string& relative, const std::string& what, bool create) const;

  // Open the regular file `relative` beneath this one for reading; no component may be a link.
  // Throws LaunchError naming `what` (missing, a link, not a regular file, unreadable).
  RegularFile open_file(const std::string& relative, const std::string& what) const;

  // Throw LaunchError unless `relative` (beneath this directory, no component a link) is absent or
  // a regular file, i.e. unless write() may replace it.
  void check_replaceable(const std::string& relative, const std::string& what) const;

  // Write `bytes` as `relative`, its directories created beneath this one: a fresh temporary file
  // in the same directory, renamed over the name. An existing link, directory or other non-regular
  // file of that name is refused. Throws LaunchError.
  void write(const std::string& relative, std::string_view bytes) const;

  // `path` as opened, and `path`/`relative`, for messages.
  const std::string& path() const { return path_; }
  std::string path_of(const std::string& relative) const;

 private:
  Directory(FileDescriptor fd, std::string path) : fd_(std::move(fd)), path_(std::move(path)) {}

  FileDescriptor fd_;
  std::string path_;
};

}  // namespace vyre_launch
