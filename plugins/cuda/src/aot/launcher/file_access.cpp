#include "file_access.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include "errors.hpp"

namespace vyre_launch {
namespace {

constexpr const char* kNoLinksFix =
    "replace the link with the file or directory itself (vyre-aot never writes links), or regenerate the bundle "
    "with vyre-aot";

constexpr const char* kReadableFix = "check that the file exists and is readable";
constexpr const char* kWritableFix = "choose a writable --out directory with enough space";

std::string errno_text(int error) { return std::strerror(error); }

const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void fail_link(const std::string& shown, const std::string& what) {
  fail(cat(what, " \"", shown, "\" is a symbolic link; the launcher never follows a link inside a bundle or an ",
           "output directory"),
       kNoLinksFix);
}

[[noreturn]] void fail_not_regular(const std::string& shown, const std::string& what, mode_t mode) {
  if (S_ISLNK(mode)) fail_link(shown, what);
  fail(cat(what, " \"", shown, "\" is ", kind_of(mode), ", not a regular file"),
       "pass a regular file (a bundle holds only regular files and directories)");
}

// Every component of `relative`: no empty, "." or ".." component, no leading slash.
std::vector<std::string> components(const std::string& relative, const std::string& what) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= relative.size()) {
    std::size_t slash = relative.find('/', start);
    if (slash == std::string::npos) slash = relative.size();
    std::string part = relative.substr(start, slash - start);
    if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string::npos)
      fail(cat(what, " \"", relative, "\" is not a plain relative path"), "name a file inside the directory");
    parts.push_back(std::move(part));
    start = slash + 1;
  }
  return parts;
}

std::string joined(const std::string& base, const std::vector<std::string>& parts, std::size_t count) {
  std::string path = base;
  for (std::size_t i = 0; i < count; ++i) path += "/" + parts[i];
  return path;
}

// Why openat(dir, name) failed. A link is named as such whatever errno the system gives for
// O_NOFOLLOW on one (ELOOP on Linux, EMLINK on FreeBSD, ENOTDIR with O_DIRECTORY elsewhere).
[[noreturn]] void fail_open(int dir, const std::string& name, const std::string& shown, const std::string& what,
                            int error) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) fail_link(shown, what);
  if (error == ENOENT)
    fail(cat(what, " \"", shown, "\" does not exist"), "check the bundle: regenerate it with vyre-aot");
  fail(cat("cannot open ", what, " \"", shown, "\": ", errno_text(error)), "check that it exists and is readable");
}

// The directory `name` in `dir`, never through a link; created first when `create`. Returns an
// invalid descriptor when it is absent and `!create`.
FileDescriptor open_child_dir(int dir, const std::string& name, bool create, const std::string& shown,
                              const std::string& what) {
  if (create && ::mkdirat(dir, name.c_str(), 0777) != 0 && errno != EEXIST)
    fail(cat("cannot create directory \"", shown, "\": ", errno_text(errno)), "choose a writable --out directory");
  const int fd = ::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd >= 0) return FileDescriptor(fd);
  const int error = errno;
  if (error == ENOENT && !create) return FileDescriptor();
  fail_open(dir, name, shown, what, error);
}

// Walk every component of `parts` but the last from `root`, without links. Returns the descriptor of
// the last component's directory (`root` itself or one owned by `held`), or -1 when a directory on
// the way is absent and `!create`.
int walk_to_parent(int root, const std::string& base, const std::vector<std::string>& parts, bool create,
                   const std::string& what, FileDescriptor& held) {
  int current = root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    FileDescriptor next = open_child_dir(current, parts[i], create, joined(base, parts, i + 1), what);
    if (next.get() < 0) return -1;
    held = std::move(next);
    current = held.get();
  }
  return current;
}

// fstat `fd` (just opened as `shown`) and require a regular file.
RegularFile regular_file(FileDescriptor fd, const std::string& shown, const std::string& what) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0)
    fail(cat("cannot stat ", what, " \"", shown, "\": ", errno_text(errno)), "check the file system");
  if (!S_ISREG(st.st_mode)) fail_not_regular(shown, what, st.st_mode);
  return RegularFile{std::move(fd), static_cast<std::uint64_t>(st.st_size), shown};
}

void write_all(int fd, std::string_view bytes, const std::string& shown) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      fail(cat("cannot write \"", shown, "\": ", errno_text(n < 0 ? errno : EIO)), kWritableFix);
    done += static_cast<std::size_t>(n);
  }
}

// A new file in `dir` that did not exist before (O_EXCL), named after `name`.
FileDescriptor create_temporary(int dir, const std::string& name, const std::string& shown, std::string& temporary) {
  static std::atomic<unsigned> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    temporary = cat(".", name, ".", ::getpid(), ".", counter.fetch_add(1), ".tmp");
    const int fd = ::openat(dir, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) return FileDescriptor(fd);
    if (errno != EEXIST) break;
  }
  fail(cat("cannot create a temporary file beside \"", shown, "\": ", errno_text(errno)),
       "choose a writable --out directory");
}

}  // namespace

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

std::string read_whole(const RegularFile& file, const std::string& what) {
  std::string bytes(static_cast<std::size_t>(file.size), '\0');
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(file.fd.get(), &bytes[done], bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(cat("reading ", what, " \"", file.path, "\" failed: ", errno_text(errno)), "check the file system");
    if (n == 0)
      fail(cat(what, " \"", file.path, "\" shrank while it was read"), "do not modify the files while they are read");
    done += static_cast<std::size_t>(n);
  }
  return bytes;
}

RegularFile open_user_file(const std::string& path, const std::string& what) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    fail(cat("cannot read ", what, " \"", path, "\": ", errno_text(errno)), kReadableFix);
  if (!S_ISREG(st.st_mode)) fail_not_regular(path, what, st.st_mode);  // before opening: no FIFO, no device
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    fail(cat("cannot open ", what, " \"", path, "\": ", errno_text(errno)), kReadableFix);
  return regular_file(FileDescriptor(fd), path, what);  // again on the open file: it may have been swapped
}

Directory Directory::open(const std::string& path, const std::string& what, bool create, const std::string& fix) {
  if (create) {
    std::error_code ec;
    std::filesystem::create_directories(path, ec);
    if (ec)
      fail(cat("cannot create ", what, " \"", path, "\": ", ec.message()), "choose a writable --out directory");
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    fail(cat("cannot open ", what, " \"", path, "\": ", errno_text(errno)), fix);
  return Directory(FileDescriptor(fd), path);
}

std::string Directory::path_of(const std::string& relative) const { return path_ + "/" + relative; }

Directory Directory::subdirectory(const std::string& relative, const std::string& what, bool create) const {
  const std::vector<std::string> parts = components(relative, what);
  FileDescriptor held;
  const int parent = walk_to_parent(fd_.get(), path_, parts, create, what, held);
  const std::string shown = path_of(relative);
  if (parent < 0) fail(cat(what, " \"", shown, "\" does not exist"), "create it first");
  FileDescriptor fd = open_child_dir(parent, parts.back(), create, shown, what);
  if (fd.get() < 0) fail(cat(what, " \"", shown, "\" does not exist"), "create it first");
  return Directory(std::move(fd), shown);
}

RegularFile Directory::open_file(const std::string& relative, const std::string& what) const {
  const std::vector<std::string> parts = components(relative, what);
  FileDescriptor held;
  const int parent = walk_to_parent(fd_.get(), path_, parts, false, what, held);
  const std::string shown = path_of(relative);
  if (parent < 0) fail(cat(what, " \"", shown, "\" does not exist"), "check the bundle: regenerate it with vyre-aot");
  const std::string& name = parts.back();
  struct stat st {};
  if (::fstatat(parent, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) fail_open(parent, name, shown, what, errno);
  if (!S_ISREG(st.st_mode)) fail_not_regular(shown, what, st.st_mode);  // before opening: no FIFO, no device
  const int fd = ::openat(parent, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) fail_open(parent, name, shown, what, errno);
  return regular_file(FileDescriptor(fd), shown, what);  // again on the open file: it may have been swapped
}

void Directory::check_replaceable(const std::string& relative, const std::string& what) const {
  const std::vector<std::string> parts = components(relative, what);
  FileDescriptor held;
  const int parent = walk_to_parent(fd_.get(), path_, parts, false, what, held);
  if (parent < 0) return;  // written later under directories created then
  struct stat st {};
  if (::fstatat(parent, parts.back().c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;  // absent
  if (!S_ISREG(st.st_mode))
    fail(cat(what, " \"", path_of(relative), "\" exists and is ", kind_of(st.st_mode),
             "; the launcher replaces only regular files and never writes through a link"),
         S_ISLNK(st.st_mode) ? cat("remove the link, or pass --out with another directory")
                             : cat("remove it, or pass --out with another directory"));
}

void Directory::write(const std::string& relative, std::string_view bytes) const {
  check_replaceable(relative, "the output file");
  const std::vector<std::string> parts = components(relative, "the output file");
  FileDescriptor held;
  const int parent = walk_to_parent(fd_.get(), path_, parts, true, "the output directory", held);
  const std::string shown = path_of(relative);
  std::string temporary;
  {
    FileDescriptor out = create_temporary(parent, parts.back(), shown, temporary);
    try {
      write_all(out.get(), bytes, shown);
    } catch (...) {
      ::unlinkat(parent, temporary.c_str(), 0);
      throw;
    }
    if (::close(out.release()) != 0) {
      const int error = errno;
      ::unlinkat(parent, temporary.c_str(), 0);
      fail(cat("cannot write \"", shown, "\": ", errno_text(error)), kWritableFix);
    }
  }
  // rename() replaces the name itself: a link planted since the check above is replaced, its target untouched.
  if (::renameat(parent, temporary.c_str(), parent, parts.back().c_str()) != 0) {
    const int error = errno;
    ::unlinkat(parent, temporary.c_str(), 0);
    fail(cat("cannot write \"", shown, "\": ", errno_text(error)),
         "remove what is in the way, or pass --out with another directory");
  }
}

}  // namespace vyre_launch
