#include "vyre/file_read.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// Throw unless `st` is a regular file of at most `max_bytes`.
void check_type_and_size(const struct stat& st, const std::filesystem::path& path, std::uint64_t max_bytes,
                         std::string_view what) {
  if (!S_ISREG(st.st_mode))
    fail(VYRE_ERR_IO, fmt::format("{} '{}' is {}, not a regular file", what, path.string(), kind_of(st.st_mode)),
         fmt::format("pass a regular file as the {}", what));
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    fail(VYRE_ERR_IO,
         fmt::format("{} '{}' is {} bytes, larger than the limit of {} bytes", what, path.string(), st.st_size,
                     max_bytes),
         fmt::format("pass a {} of at most {} bytes", what, max_bytes));
}

[[noreturn]] void fail_errno(std::string_view action, const std::filesystem::path& path, std::string_view what) {
  fail(VYRE_ERR_IO, fmt::format("cannot {} {} '{}': {}", action, what, path.string(), std::strerror(errno)),
       "check that the file exists and is readable");
}

}  // namespace

std::vector<std::uint8_t> read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes,
                                            std::string_view what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) fail_errno("read", path, what);
  check_type_and_size(st, path, max_bytes, what);  // before opening: no FIFO to block on, no device
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail_errno("open", path, what);
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  if (::fstat(fd, &st) != 0) fail_errno("stat", path, what);
  check_type_and_size(st, path, max_bytes, what);  // the path may have been swapped since
  // Exactly the size fstat reported, never more: a file that grows meanwhile is read up to it.
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_errno("read", path, what);
    if (n == 0) break;  // it shrank: what is there
    done += static_cast<std::size_t>(n);
  }
  bytes.resize(done);
  return bytes;
}

}  // namespace vyre
