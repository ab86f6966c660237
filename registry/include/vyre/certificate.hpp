// Conformance certificates (SPEC §9): what vyre-conform writes and what the registry reads to route
// programs only to backends whose ops were certified on this plugin file and this device.
//
// A certificate is JSON (schema "vyre-conformance-certificate/1"). Its canonical bytes are the
// compact JSON of every field but "digest" and "signature", in the fixed order the writer uses
// (certificate_canonical_bytes). It carries a digest (the SHA-256 of the canonical bytes: an
// integrity check anyone can recompute) and a detached Ed25519 signature over the canonical bytes
// (vyre-conform signs; see vyre/certificate_trust.hpp for who is trusted). Reading checks the
// schema, the digest and that the summary agrees with the entries, so a certificate damaged or
// edited without recomputing the digest is rejected here; an edit that recomputes the digest is
// caught by the signature. Accepting one for routing (vyre/certificate_trust.hpp) also needs a
// signature by a trusted key, and the plugin file's SHA-256 and the device to match.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/backend_abi.h"

namespace vyre {

inline constexpr std::string_view kCertificateSchema = "vyre-conformance-certificate/1";

// pass/fail/unsupported: differential runs. lowered/lowering_failed: offline runs (the op was
// lowered and assembled for the target, nothing ran; never a pass).
enum class CertStatus : std::uint8_t { Pass, Fail, Unsupported, Lowered, LoweringFailed };
std::string_view cert_status_name(CertStatus status);
std::optional<CertStatus> parse_cert_status(std::string_view name);

// What the certified backend ran on. CPU backends: kind "cpu" (written as the string "cpu").
struct CertDevice {
  std::string kind = "cpu";          // "cpu", "gpu", or "offline" (no device: lowering only)
  std::string name = "cpu";          // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;    // "9.0"; empty on cpu
  std::uint32_t driver_version = 0;  // 13000 for CUDA 13.0; 0 on cpu
  std::string target;                // code generation target, "sm_90"; empty on cpu

  friend bool operator==(const CertDevice&, const CertDevice&) = default;
};

// The device of a backend instance, as a certificate records it.
CertDevice device_from_profile(const vyre_device_profile& profile);

// The first mismatch of an op: enough to understand it and to replay exactly that case.
struct CertFailure {
  std::string test;                 // which of the op's programs ("elementwise", ...)
  std::uint64_t case_index = 0;     // the case number `--case` takes
  std::string output;               // output buffer name; empty for errors before outputs
  std::uint64_t element = 0;        // element within the output
  std::vector<std::string> inputs;  // "a = f32 1.5 (0x3fc00000)", one per operand of the lane
  std::string expected;             // typed text and hex, or empty
  std::string actual;
  std::optional<std::uint64_t> ulp;
  std::string message;              // a dispatch error, a lowering error, or a summary line
  std::string replay;               // a command line that replays exactly this case

  friend bool operator==(const CertFailure&, const CertFailure&) = default;
};

// --exhaustive: every 32-bit input of a unary f32 op.
struct CertExhaustive {
  CertStatus status = CertStatus::Pass;
  std::uint64_t cases = 0;
  std::uint64_t failures = 0;
  std::uint64_t max_ulp = 0;
  std::optional<CertFailure> first_failure;

  friend bool operator==(const CertExhaustive&, const CertExhaustive&) = default;
};

struct CertOpEntry {
  std::string op;
  CertStatus status = CertStatus::Unsupported;
  std::uint64_t cases = 0;     // cases run (0 unless pass or fail)
  std::uint64_t max_ulp = 0;   // largest ULP distance seen on compared float values
  std::string reason;          // unsupported / lowering_failed: why
  std::optional<CertFailure> first_failure;
  std::optional<CertExhaustive> exhaustive;

  friend bool operator==(const CertOpEntry&, const CertOpEntry&) = default;
};

// A dispatch surface (async, timed, resident, sequence) checked against plain dispatch.
struct CertSurface {
  std::string surface;
  CertStatus status = CertStatus::Unsupported;
  std::uint64_t programs = 0;
  std::string detail;

  friend bool operator==(const CertSurface&, const CertSurface&) = default;
};

struct CertSummary {
  std::uint64_t pass = 0;
  std::uint64_t fail = 0;
  std::uint64_t unsupported = 0;
  std::uint64_t lowered = 0;
  std::uint64_t lowering_failed = 0;

  friend bool operator==(const CertSummary&, const CertSummary&) = default;
};

// The detached signature: who signed (key_id: hex SHA-256 of the raw Ed25519 public key) and the
// 64-byte signature of certificate_canonical_bytes() in hex. Reading keeps any strings here;
// checking them is certificate_trust.hpp's job.
struct CertSignature {
  std::string algorithm = "ed25519";
  std::string key_id;
  std::string value;

  friend bool operator==(const CertSignature&, const CertSignature&) = default;
};

struct Certificate {
  std::string tool_version;            // "vyre-conform 0.1.0"
  std::string abi_version;             // "1.0"
  std::string mode = "differential";   // "differential" or "offline"
  std::string backend_id;
  std::string backend_version;
  std::string plugin_path;
  std::string plugin_sha256;           // hex SHA-256 of the plugin file
  CertDevice device;
  std::string reference_backend;       // empty for offline runs
  std::uint64_t seed = 0;
  std::uint64_t random_lanes = 0;      // --cases: random lanes per test
  std::uint64_t witness_cases = 0;     // lanes fed from witness tables, over all ops run
  std::uint64_t random_cases = 0;      // lanes fed seeded random values, over all ops run
  std::string catalog_hash;            // vyre::catalog_hash() of the tool
  std::string timestamp;               // UTC, "2025-06-01T12:00:00Z"
  std::vector<CertOpEntry> ops;        // catalog order
  std::vector<CertSurface> surfaces;
  CertSummary summary;
  std::optional<CertSignature> signature;  // unset: unsigned (never used for routing)

  friend bool operator==(const Certificate&, const Certificate&) = default;
};

// The summary the entries imply.
CertSummary summarize(const std::vector<CertOpEntry>& ops);

// The bytes the digest hashes and the signature signs: compact JSON of everything but the digest
// and the signature, keys in the writer's fixed order.
std::string certificate_canonical_bytes(const Certificate& certificate);
// The JSON text, pretty-printed, with the digest and the signature (when set). Deterministic: equal
// certificates give equal text.
std::string certificate_to_json(const Certificate& certificate);
// Parse and check: schema, every field's type, statuses, summary == summarize(ops), and the digest.
// Throws vyre::Error (VYRE_ERR_DECODE) naming what is wrong.
Certificate certificate_from_json(std::string_view text);

// "<backend>-<device>.json", e.g. "cuda-nvidia-h100-80gb-hbm3-sm_90.json", "reference_cpu-cpu.json".
std::string certificate_file_name(const Certificate& certificate);
// Write `certificate` into `dir` (created if needed) under certificate_file_name, atomically
// (temporary file + rename). Returns the path. Throws vyre::Error (VYRE_ERR_IO).
std::filesystem::path write_certificate(const Certificate& certificate, const std::filesystem::path& dir);
// Read and check one file (certificate_from_json). Throws vyre::Error (VYRE_ERR_IO or _DECODE).
Certificate read_certificate(const std::filesystem::path& file);

// Every *.json file in `dir` (sorted by name): the certificate, or why it could not be read.
struct LoadedCertificate {
  std::filesystem::path file;
  std::optional<Certificate> certificate;
  std::string error;  // set when certificate is empty
};
std::vector<LoadedCertificate> load_certificates(const std::filesystem::path& dir);

// The op ids a certificate certifies: its entries with status pass, sorted.
std::vector<std::string> certified_ops(const Certificate& certificate);

}  // namespace vyre
