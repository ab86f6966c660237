// vyre::Error composition and the stable names of status codes.
#include "vyre/error.hpp"

#include <filesystem>
#include <ios>
#include <new>
#include <string>

namespace vyre {

namespace {

// Drop trailing whitespace and one trailing '.' so that "<problem>. Fix: <fix>." reads right
// whether or not the caller punctuated.
std::string_view trim_sentence(std::string_view text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n' || text.back() == '\t'))
    text.remove_suffix(1);
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  return text;
}

// A NUL byte (from a name in hostile input) would cut the message short wherever it is read as a
// C string (what(), the C ABI), losing the "Fix:" sentence: spell it as the two characters \0.
std::string without_nul(std::string message) {
  for (std::size_t at = message.find('\0'); at != std::string::npos; at = message.find('\0', at + 2))
    message.replace(at, 1, "\\0");
  return message;
}

}  // namespace

Error Error::make(vyre_status code, std::string_view problem, std::string_view fix) {
  std::string message(trim_sentence(problem));
  message += ". Fix: ";
  std::string_view fix_text = trim_sentence(fix);
  message += fix_text.empty() ? std::string_view("see the documentation") : fix_text;
  message += '.';
  return Error(code, without_nul(std::move(message)));
}

void fail(vyre_status code, std::string_view problem, std::string_view fix) {
  throw Error::make(code, problem, fix);
}

namespace detail {

Error out_of_memory_error() {
  return Error::make(VYRE_ERR_OUT_OF_MEMORY, "out of host memory",
                     "free memory, or use smaller inputs, buffers or programs");
}

Error system_error_as_error(const std::system_error& e) {
  if (dynamic_cast<const std::filesystem::filesystem_error*>(&e) != nullptr)
    return Error::make(VYRE_ERR_IO, e.what(), "check the path, its permissions and the free disk space");
  if (dynamic_cast<const std::ios_base::failure*>(&e) != nullptr)
    return Error::make(VYRE_ERR_IO, std::string("file input or output failed: ") + e.what(),
                       "check that every file named is a readable regular file and that the disk has space");
  return unexpected_error(e.what());
}

Error unexpected_error(const char* what) {
  if (what == nullptr)
    return Error::make(VYRE_ERR_INTERNAL, "an unknown exception", "report this with the command line that caused it");
  return Error::make(VYRE_ERR_INTERNAL, std::string("unexpected error: ") + what,
                     "report this with the command line that caused it");
}

}  // namespace detail

std::string_view status_name(vyre_status code) {
  switch (code) {
    case VYRE_OK: return "ok";
    case VYRE_ERR_INVALID_ARGUMENT: return "invalid_argument";
    case VYRE_ERR_INVALID_PROGRAM: return "invalid_program";
    case VYRE_ERR_DECODE: return "decode";
    case VYRE_ERR_UNSUPPORTED: return "unsupported";
    case VYRE_ERR_INVALID_HANDLE: return "invalid_handle";
    case VYRE_ERR_OUT_OF_MEMORY: return "out_of_memory";
    case VYRE_ERR_NO_DEVICE: return "no_device";
    case VYRE_ERR_DEVICE: return "device";
    case VYRE_ERR_LIMIT: return "limit";
    case VYRE_ERR_BUSY: return "busy";
    case VYRE_ERR_EXECUTION: return "execution";
    case VYRE_ERR_ABI: return "abi";
    case VYRE_ERR_IO: return "io";
    case VYRE_ERR_NOT_FOUND: return "not_found";
    case VYRE_ERR_TIMEOUT: return "timeout";
    case VYRE_ERR_INTERNAL: return "internal";
    case VYRE_ERR_CANCELLED: return "cancelled";
    default: return "unknown";
  }
}

}  // namespace vyre
