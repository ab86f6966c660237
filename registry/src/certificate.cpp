// Conformance certificates: JSON form, integrity digest, atomic files, matching for routing.
#include "vyre/certificate.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include <boost/json.hpp>

#include "vyre/error.hpp"
#include "vyre/file_read.hpp"
#include "vyre/fingerprint.hpp"
#include "vyre/json_text.hpp"
#include "vyre/ops.hpp"

namespace vyre {
namespace {

namespace json = boost::json;

// Larger certificate files are refused unread (one for the whole catalog is a few hundred KiB).
constexpr std::uint64_t kMaxCertificateBytes = std::uint64_t{64} << 20;

constexpr std::string_view kStatusNames[] = {"pass", "fail", "unsupported", "lowered",
                                             "lowering_failed"};

[[noreturn]] void bad_field(std::string_view path, std::string_view problem) {
  fail(VYRE_ERR_DECODE, "certificate field '" + std::string(path) + "' " + std::string(problem),
       "regenerate the certificate with vyre-conform; certificates must not be edited by hand");
}

// ---- writing -----------------------------------------------------------------------------------

json::value failure_json(const CertFailure& f) {
  json::object o;
  o["test"] = f.test;
  o["case"] = f.case_index;
  o["output"] = f.output;
  o["element"] = f.element;
  json::array inputs;
  for (const auto& in : f.inputs) inputs.emplace_back(in);
  o["inputs"] = std::move(inputs);
  o["expected"] = f.expected;
  o["actual"] = f.actual;
  o["ulp"] = f.ulp ? json::value(*f.ulp) : json::value(nullptr);
  o["message"] = f.message;
  o["replay"] = f.replay;
  return o;
}

json::value exhaustive_json(const CertExhaustive& e) {
  json::object o;
  o["status"] = cert_status_name(e.status);
  o["cases"] = e.cases;
  o["failures"] = e.failures;
  o["max_ulp"] = e.max_ulp;
  if (e.first_failure) o["first_failure"] = failure_json(*e.first_failure);
  return o;
}

json::value op_json(const CertOpEntry& op) {
  json::object o;
  o["op"] = op.op;
  o["status"] = cert_status_name(op.status);
  o["cases"] = op.cases;
  o["max_ulp"] = op.max_ulp;
  if (!op.reason.empty()) o["reason"] = op.reason;
  if (op.first_failure) o["first_failure"] = failure_json(*op.first_failure);
  if (op.exhaustive) o["exhaustive"] = exhaustive_json(*op.exhaustive);
  return o;
}

json::value device_json(const CertDevice& d) {
  if (d.kind == "cpu" && d.name == "cpu" && d.compute_capability.empty() && d.driver_version == 0 &&
      d.target.empty())
    return json::value("cpu");
  json::object o;
  o["kind"] = d.kind;
  o["name"] = d.name;
  o["compute_capability"] = d.compute_capability;
  o["driver_version"] = d.driver_version;
  o["target"] = d.target;
  return o;
}

json::value summary_json(const CertSummary& s) {
  json::object o;
  o["pass"] = s.pass;
  o["fail"] = s.fail;
  o["unsupported"] = s.unsupported;
  o["lowered"] = s.lowered;
  o["lowering_failed"] = s.lowering_failed;
  return o;
}

// Everything but the digest, in a fixed key order.
json::object body_json(const Certificate& c) {
  json::object o;
  o["schema"] = kCertificateSchema;
  o["tool_version"] = c.tool_version;
  o["abi_version"] = c.abi_version;
  o["mode"] = c.mode;
  o["backend"] = {{"id", c.backend_id}, {"version", c.backend_version}};
  o["plugin"] = {{"path", c.plugin_path}, {"sha256", c.plugin_sha256}};
  o["device"] = device_json(c.device);
  o["reference_backend"] = c.reference_backend;
  o["seed"] = c.seed;
  o["random_lanes"] = c.random_lanes;
  o["witness_cases"] = c.witness_cases;
  o["random_cases"] = c.random_cases;
  o["catalog_hash"] = c.catalog_hash;
  o["timestamp"] = c.timestamp;
  json::array ops;
  for (const auto& op : c.ops) ops.push_back(op_json(op));
  o["ops"] = std::move(ops);
  json::array surfaces;
  for (const auto& s : c.surfaces)
    surfaces.push_back(json::object{{"surface", s.surface},
                                    {"status", cert_status_name(s.status)},
                                    {"programs", s.programs},
                                    {"detail", s.detail}});
  o["surfaces"] = std::move(surfaces);
  o["summary"] = summary_json(c.summary);
  return o;
}

std::string digest_of(const json::object& body) { return sha256_hex(sha256(json::serialize(body))); }

json::object signature_json(const CertSignature& s) {
  return json::object{{"algorithm", s.algorithm}, {"key_id", s.key_id}, {"value", s.value}};
}

// ---- reading -----------------------------------------------------------------------------------

class Reader {
 public:
  Reader(const json::object& o, std::string path) : o_(o), path_(std::move(path)) {}

  const json::value& at(std::string_view key) const {
    const json::value* v = o_.if_contains(key);
    if (!v) bad_field(child(key), "is missing");
    return *v;
  }
  bool has(std::string_view key) const { return o_.contains(key); }
  std::string child(std::string_view key) const {
    return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
  }

  std::string str(std::string_view key) const {
    const json::value& v = at(key);
    if (!v.is_string()) bad_field(child(key), "is not a string");
    return std::string(v.get_string());
  }
  std::string str_or(std::string_view key, std::string fallback) const {
    return has(key) ? str(key) : fallback;
  }
  std::uint64_t u64(std::string_view key) const {
    const json::value& v = at(key);
    if (v.is_uint64()) return v.get_uint64();
    if (v.is_int64() && v.get_int64() >= 0) return static_cast<std::uint64_t>(v.get_int64());
    bad_field(child(key), "is not a non-negative integer");
  }
  std::optional<std::uint64_t> u64_or_null(std::string_view key) const {
    if (at(key).is_null()) return std::nullopt;
    return u64(key);
  }
  CertStatus status(std::string_view key) const {
    const std::string name = str(key);
    const auto s = parse_cert_status(name);
    if (!s) bad_field(child(key), "has the unknown status '" + name + "'");
    return *s;
  }
  Reader object(std::string_view key) const {
    const json::value& v = at(key);
    if (!v.is_object()) bad_field(child(key), "is not an object");
    return Reader(v.get_object(), child(key));
  }
  const json::array& array(std::string_view key) const {
    const json::value& v = at(key);
    if (!v.is_array()) bad_field(child(key), "is not an array");
    return v.get_array();
  }
  Reader element(std::string_view key, std::size_t i) const {
    const json::value& v = array(key)[i];
    const std::string path = child(key) + "[" + std::to_string(i) + "]";
    if (!v.is_object()) bad_field(path, "is not an object");
    return Reader(v.get_object(), path);
  }

 private:
  const json::object& o_;
  std::string path_;
};

CertFailure read_failure(const Reader& r) {
  CertFailure f;
  f.test = r.str("test");
  f.case_index = r.u64("case");
  f.output = r.str("output");
  f.element = r.u64("element");
  const json::array& inputs = r.array("inputs");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].is_string()) bad_field(r.child("inputs"), "holds a value that is not a string");
    f.inputs.emplace_back(inputs[i].get_string());
  }
  f.expected = r.str("expected");
  f.actual = r.str("actual");
  f.ulp = r.u64_or_null("ulp");
  f.message = r.str("message");
  f.replay = r.str("replay");
  return f;
}

CertExhaustive read_exhaustive(const Reader& r) {
  CertExhaustive e;
  e.status = r.status("status");
  e.cases = r.u64("cases");
  e.failures = r.u64("failures");
  e.max_ulp = r.u64("max_ulp");
  if (r.has("first_failure")) e.first_failure = read_failure(r.object("first_failure"));
  return e;
}

CertOpEntry read_op(const Reader& r) {
  CertOpEntry op;
  op.op = r.str("op");
  op.status = r.status("status");
  op.cases = r.u64("cases");
  op.max_ulp = r.u64("max_ulp");
  op.reason = r.str_or("reason", "");
  if (r.has("first_failure")) op.first_failure = read_failure(r.object("first_failure"));
  if (r.has("exhaustive")) op.exhaustive = read_exhaustive(r.object("exhaustive"));
  if (!find_op(op.op)) bad_field(r.child("op"), "names '" + op.op + "', which is not a catalog op id");
  if (op.status == CertStatus::Pass && op.cases == 0)
    bad_field(r.child("cases"), "is 0 for an op marked pass");
  if (op.status == CertStatus::Fail && !op.first_failure)
    bad_field(r.child("first_failure"), "is missing for an op marked fail");
  return op;
}

CertDevice read_device(const Reader& top) {
  const json::value& v = top.at("device");
  if (v.is_string() && v.get_string() == "cpu") return CertDevice{};
  const Reader r = top.object("device");
  CertDevice d;
  d.kind = r.str("kind");
  d.name = r.str("name");
  d.compute_capability = r.str("compute_capability");
  d.driver_version = static_cast<std::uint32_t>(r.u64("driver_version"));
  d.target = r.str("target");
  return d;
}

CertSignature read_signature(const json::value& v) {
  if (!v.is_object()) bad_field("signature", "is not an object");
  const Reader r(v.get_object(), "signature");
  return CertSignature{r.str("algorithm"), r.str("key_id"), r.str("value")};
}

CertSummary read_summary(const Reader& r) {
  CertSummary s;
  s.pass = r.u64("pass");
  s.fail = r.u64("fail");
  s.unsupported = r.u64("unsupported");
  s.lowered = r.u64("lowered");
  s.lowering_failed = r.u64("lowering_failed");
  return s;
}

Certificate read_body(const Reader& r) {
  if (r.str("schema") != kCertificateSchema)
    bad_field("schema", "is '" + r.str("schema") + "', not '" + std::string(kCertificateSchema) + "'");
  Certificate c;
  c.tool_version = r.str("tool_version");
  c.abi_version = r.str("abi_version");
  c.mode = r.str("mode");
  if (c.mode != "differential" && c.mode != "offline") bad_field("mode", "is not differential or offline");
  c.backend_id = r.object("backend").str("id");
  c.backend_version = r.object("backend").str("version");
  c.plugin_path = r.object("plugin").str("path");
  c.plugin_sha256 = r.object("plugin").str("sha256");
  c.device = read_device(r);
  c.reference_backend = r.str("reference_backend");
  c.seed = r.u64("seed");
  c.random_lanes = r.u64("random_lanes");
  c.witness_cases = r.u64("witness_cases");
  c.random_cases = r.u64("random_cases");
  c.catalog_hash = r.str("catalog_hash");
  c.timestamp = r.str("timestamp");
  for (std::size_t i = 0; i < r.array("ops").size(); ++i) c.ops.push_back(read_op(r.element("ops", i)));
  for (std::size_t i = 0; i < r.array("surfaces").size(); ++i) {
    const Reader s = r.element("surfaces", i);
    c.surfaces.push_back(CertSurface{s.str("surface"), s.status("status"), s.u64("programs"), s.str("detail")});
  }
  c.summary = read_summary(r.object("summary"));
  return c;
}

void check_consistent(const Certificate& c) {
  if (c.summary != summarize(c.ops))
    bad_field("summary", "does not match the op entries");
  std::vector<std::string> ids;
  for (const auto& op : c.ops) ids.push_back(op.op);
  std::sort(ids.begin(), ids.end());
  if (std::adjacent_find(ids.begin(), ids.end()) != ids.end()) bad_field("ops", "lists an op twice");
  const bool offline = c.mode == "offline";
  for (const auto& op : c.ops) {
    const bool offline_status = op.status == CertStatus::Lowered || op.status == CertStatus::LoweringFailed;
    if (offline_status != offline && op.status != CertStatus::Unsupported)
      bad_field("ops", "holds status '" + std::string(cert_status_name(op.status)) + "' for " + op.op +
                           " in a " + c.mode + " certificate");
  }
}

std::string slug(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '_') {
      out += static_cast<char>(std::tolower(c));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "device" : out;
}

}  // namespace

std::string_view cert_status_name(CertStatus status) {
  return kStatusNames[static_cast<std::size_t>(status)];
}

std::optional<CertStatus> parse_cert_status(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kStatusNames); ++i)
    if (kStatusNames[i] == name) return static_cast<CertStatus>(i);
  return std::nullopt;
}

CertDevice device_from_profile(const vyre_device_profile& profile) {
  const std::string name(profile.name, strnlen(profile.name, sizeof profile.name));
  // The host CPU of a CPU backend is plain "cpu"; a CPU device behind a driver (Vulkan's
  // lavapipe) is recorded like a GPU, so its certificate names the driver that earned it.
  if (profile.kind == VYRE_DEVICE_KIND_CPU && name == "cpu") return CertDevice{};
  CertDevice d;
  d.kind = profile.kind == VYRE_DEVICE_KIND_CPU ? "cpu" : "gpu";
  d.name = name;
  d.compute_capability = std::to_string(profile.compute_major) + "." + std::to_string(profile.compute_minor);
  d.driver_version = profile.driver_version;
  d.target = std::string(profile.target, strnlen(profile.target, sizeof profile.target));
  return d;
}

CertSummary summarize(const std::vector<CertOpEntry>& ops) {
  CertSummary s;
  for (const auto& op : ops) {
    switch (op.status) {
      case CertStatus::Pass: ++s.pass; break;
      case CertStatus::Fail: ++s.fail; break;
      case CertStatus::Unsupported: ++s.unsupported; break;
      case CertStatus::Lowered: ++s.lowered; break;
      case CertStatus::LoweringFailed: ++s.lowering_failed; break;
    }
  }
  return s;
}

std::string certificate_canonical_bytes(const Certificate& certificate) {
  return json::serialize(body_json(certificate));
}

std::string certificate_to_json(const Certificate& certificate) {
  json::object o = body_json(certificate);
  o["digest"] = digest_of(o);
  if (certificate.signature) o["signature"] = signature_json(*certificate.signature);
  std::ostringstream out;
  write_indented_json(out, o);
  out << '\n';
  return out.str();
}

Certificate certificate_from_json(std::string_view text) {
  std::error_code ec;
  json::value v = json::parse(json::string_view(text.data(), text.size()), ec);
  if (ec)
    fail(VYRE_ERR_DECODE, "the certificate is not valid JSON (" + ec.message() + ")",
         "regenerate it with vyre-conform");
  if (!v.is_object()) bad_field("(top level)", "is not an object");
  json::object o = v.get_object();
  const Reader top(o, "");
  const std::string digest = top.str("digest");
  std::optional<CertSignature> signature;
  if (const json::value* v = o.if_contains("signature")) signature = read_signature(*v);
  o.erase("digest");
  o.erase("signature");
  if (digest != digest_of(o))
    fail(VYRE_ERR_DECODE, "the certificate's digest does not match its content: it was modified after "
                          "vyre-conform wrote it",
         "regenerate it with vyre-conform; never edit a certificate by hand");
  Certificate c = read_body(Reader(o, ""));
  check_consistent(c);
  if (digest_of(body_json(c)) != digest)
    bad_field("(top level)", "holds fields or values this version does not write");
  c.signature = std::move(signature);
  return c;
}

std::string certificate_file_name(const Certificate& c) {
  std::string device = c.device == CertDevice{} ? "cpu" : slug(c.device.name);
  if (!c.device.target.empty()) device += "-" + slug(c.device.target);
  if (c.mode == "offline") device = "offline-" + slug(c.device.target);
  return slug(c.backend_id) + "-" + device + ".json";
}

std::filesystem::path write_certificate(const Certificate& certificate, const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    fail(VYRE_ERR_IO, "cannot create the certificate directory " + dir.string() + ": " + ec.message(),
         "pass a writable --out directory");
  const std::filesystem::path file = dir / certificate_file_name(certificate);
  const std::filesystem::path tmp = file.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << certificate_to_json(certificate);
    out.flush();
    if (!out)
      fail(VYRE_ERR_IO, "cannot write " + tmp.string(), "check the disk space and permissions of " + dir.string());
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    fail(VYRE_ERR_IO, "cannot move the certificate into place at " + file.string(),
         "check the permissions of " + dir.string());
  }
  return file;
}

Certificate read_certificate(const std::filesystem::path& file) {
  const std::vector<std::uint8_t> bytes = read_regular_file(file, kMaxCertificateBytes, "certificate");
  try {
    return certificate_from_json(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  } catch (const Error& e) {
    throw Error(e.code(), file.string() + ": " + e.what());
  }
}

std::vector<std::string> certified_ops(const Certificate& certificate) {
  std::vector<std::string> ids;
  for (const auto& op : certificate.ops)
    if (op.status == CertStatus::Pass) ids.push_back(op.op);
  std::sort(ids.begin(), ids.end());
  return ids;
}

std::vector<LoadedCertificate> load_certificates(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<LoadedCertificate> loaded;
  for (const auto& file : files) {
    LoadedCertificate l{file, std::nullopt, {}};
    try {
      l.certificate = read_certificate(file);
    } catch (const Error& e) {
      l.error = e.what();
    }
    loaded.push_back(std::move(l));
  }
  return loaded;
}

}  // namespace vyre
