/* vyre backend plugin ABI, version 1.1 (SPEC §7). Pure C11; this comment is the ABI's document
 * (docs/ABI.md says where each part is used, how to add to it, and how compatibility is tested).
 *
 * A plugin is a shared object exporting exactly one symbol, `vyre_backend_register`. The host
 * calls it with a `vyre_host_info` and a `vyre_backend_info` to fill; the info carries the
 * backend's id, rank, capabilities, supported op ids and a table of functions (`vyre_backend_fns`)
 * through which everything else happens. Registration is cheap and never touches a device.
 *
 * Versioning (the rules; the version macros below say when each number changes)
 *   - Every struct starts with `size_t struct_size`. The writer of a struct sets it to the size it
 *     knows; the reader reads only the fields that size covers and treats the rest as zero (a
 *     pointer as NULL, a function slot as "not provided").
 *   - Structs the callee fills (out-structs: vyre_backend_info, vyre_device_profile, vyre_timing,
 *     vyre_memory_export) are allocated by the caller, who sets `struct_size` to its own size. The
 *     callee writes at most that many bytes and sets `struct_size` to the number of bytes it filled.
 *   - Arrays of structs are strided by the `struct_size` of their first element; every element of
 *     one array carries the same `struct_size`.
 *   - Each struct has a VYRE_<NAME>_V1_0_SIZE macro (the end of its last 1.0 field), and one per
 *     later minor that grew it (VYRE_<NAME>_V1_1_SIZE...). A reader requires `struct_size >=` the
 *     1.0 size, never `==` its own size; fields a newer minor added are present when
 *     `struct_size >=` that minor's size (VYRE_FNS_HAS for table slots).
 *   - A host accepts a plugin with the same VYRE_ABI_VERSION_MAJOR and any minor, older or newer.
 *
 * Errors
 *   Every call returns a `vyre_status` (VYRE_OK = 0, else one of the stable VYRE_ERR_* codes). On
 *   failure, if `error` is not NULL, `*error` receives an error object owned by the caller, who
 *   releases it with `fns->error_release`. Its message ends with an actionable "Fix: ..." sentence.
 *   No C++ exception ever crosses this boundary.
 *
 * Handles and threads
 *   `vyre_backend` is one backend instance. Programs, resident buffers, pending dispatches and
 *   pipelines belong to the instance that made them: passing one to another instance, or using one
 *   after it was released, returns VYRE_ERR_INVALID_HANDLE and never crashes. Every call may be made
 *   from many threads at once on the same instance. Destroying an instance releases every handle
 *   it still owns (pending dispatches are waited for first).
 *
 * Memory
 *   Pointers inside `vyre_backend_info`, the function table and its extension chain stay valid
 *   while the library is loaded. Everything else the plugin hands out (errors, AOT output) is
 *   released through the table. Buffers the caller passes are borrowed for the duration of the
 *   call, except where a function says otherwise (async dispatch outputs, imported memory).
 *
 * External memory (1.1; VYRE_CAP_EXTERNAL_MEMORY)
 *   `resident_import` wraps memory the caller owns as a resident buffer without a copy: a device
 *   address valid in the instance's context (CUDA: a CUdeviceptr of the instance's device, from
 *   PyTorch, CuPy, cuMemAlloc...) or a host pointer (CPU backends). The backend checks the byte
 *   length (the memory must be at least that long where the driver can tell) and the alignment
 *   (a multiple of vyre_device_profile.external_alignment) at import, never frees the memory, and
 *   calls the caller's `release` exactly once, after the buffer was freed (resident_free or
 *   instance destroy) and the last work using it finished. When import fails, `release` is never
 *   called: the caller keeps ownership. Ordering with the memory's owner is the caller's job:
 *   work the owner queued on the memory must be complete before the import (or before the next
 *   vyre call that uses it), and vyre work is complete when its call (or pending handle) says so.
 *   `resident_export` returns a resident buffer's native address and device, what DLPack needs;
 *   the address stays valid until the buffer is freed, and the call returns after every earlier
 *   work on the buffer finished (so the consumer may use the memory on any stream).
 *
 * Deadlines and cancellation (1.1; VYRE_CAP_DEADLINE, VYRE_CAP_CANCEL)
 *   A dispatch may carry a time limit (vyre_dispatch_config.time_limit_ns, with
 *   VYRE_CONFIG_HAS_TIME_LIMIT): its deadline is the entry of the call that starts it (dispatch,
 *   dispatch_async, dispatch_resident, sequence_run, pipeline_dispatch...) plus the limit. Work
 *   not finished by its deadline is stopped and reports VYRE_ERR_TIMEOUT. `pending_cancel` asks
 *   pending work to stop; it then reports VYRE_ERR_CANCELLED. Either way no host output byte is
 *   written, the instance stays usable, and a resident buffer the work writes may hold partial
 *   results (the error message says so). A backend without VYRE_CAP_DEADLINE refuses a config
 *   with a time limit (VYRE_ERR_UNSUPPORTED); one without VYRE_CAP_CANCEL returns
 *   VYRE_ERR_UNSUPPORTED from pending_cancel. A 1.0 plugin rejects the unknown config flag bit.
 *
 * Extensions (1.1)
 *   `vyre_backend_fns.extensions` starts a chain of typed extension structs, each beginning with
 *   a `vyre_extension` header (struct_size, type, next), for features that are not in every
 *   backend; PJRT's `extension_start` is the model. A host walks the chain (vyre_find_extension)
 *   and ignores types it does not know, so adding an extension type needs no new major version,
 *   and an extension struct grows by the same struct_size rules as everything else.
 */
#ifndef VYRE_BACKEND_ABI_H
#define VYRE_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- versions ------------------------------------------------------------------------------
 * MAJOR changes when an existing plugin or host would misbehave with the other side of the new
 * version: a field or slot removed, reordered, retyped or given another meaning; a status code
 * renumbered; a rule of this header changed. Hosts reject plugins of another major.
 * MINOR changes when something is added that an older counterpart may ignore: new fields and new
 * table slots, always at the END of their struct (never in the middle, never reusing padding);
 * new status codes, capability bits, flag bits, extension types and memory kinds. Each minor
 * adds the *_V1_<minor>_SIZE macros of the structs it grew.
 *   1.0  the first release.
 *   1.1  resident_import/resident_export (external memory), pending_cancel, the extension chain,
 *        vyre_dispatch_config.time_limit_ns, vyre_device_profile.external_alignment,
 *        VYRE_ERR_CANCELLED, VYRE_CAP_EXTERNAL_MEMORY/DEADLINE/CANCEL. */
#define VYRE_ABI_VERSION_MAJOR 1
#define VYRE_ABI_VERSION_MINOR 1

/* The size of `type` up to and including `field`: the *_V1_x_SIZE macros. Trailing padding is
 * excluded, so a writer that knows exactly those fields is accepted. */
#define VYRE_SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))

#if defined(__GNUC__) || defined(__clang__)
#define VYRE_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define VYRE_PLUGIN_EXPORT
#endif

/* ---- status codes (stable; never renumbered) ------------------------------------------------ */

typedef int32_t vyre_status;

#define VYRE_OK 0
#define VYRE_ERR_INVALID_ARGUMENT 1 /* a NULL pointer, a bad size or count, a malformed struct */
#define VYRE_ERR_INVALID_PROGRAM 2  /* the program fails validation (SPEC §2) */
#define VYRE_ERR_DECODE 3           /* wire bytes or JSON that cannot be decoded */
#define VYRE_ERR_UNSUPPORTED 4      /* the backend does not implement this call or op */
#define VYRE_ERR_INVALID_HANDLE 5   /* a handle that is NULL, released, or from another instance */
#define VYRE_ERR_OUT_OF_MEMORY 6    /* host or device memory exhausted (or over budget) */
#define VYRE_ERR_NO_DEVICE 7        /* no driver or no usable device (from create) */
#define VYRE_ERR_DEVICE 8           /* the device or its driver failed a call */
#define VYRE_ERR_LIMIT 9            /* geometry or sizes beyond what the device allows */
#define VYRE_ERR_BUSY 10            /* the resource is in use by an in-flight dispatch */
#define VYRE_ERR_EXECUTION 11       /* the program misbehaved at run time (divergent barrier...) */
#define VYRE_ERR_ABI 12             /* ABI version or struct size mismatch */
#define VYRE_ERR_IO 13              /* a file could not be read or written */
#define VYRE_ERR_NOT_FOUND 14       /* a named backend, op, file or entry does not exist */
#define VYRE_ERR_TIMEOUT 15         /* a wait ran out of time, or a dispatch passed its deadline */
#define VYRE_ERR_INTERNAL 16        /* a bug in the backend; the message says where */
#define VYRE_ERR_CANCELLED 17       /* 1.1: the work was cancelled (pending_cancel) */

typedef struct vyre_error {
  size_t struct_size;
  vyre_status code;
  const char* message; /* UTF-8, NUL-terminated, ends with "Fix: ..." */
} vyre_error;
#define VYRE_ERROR_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_error, message)

/* ---- opaque handles ------------------------------------------------------------------------- */

typedef struct vyre_backend vyre_backend;   /* one backend instance */
typedef struct vyre_program vyre_program;   /* a compiled program */
typedef struct vyre_resident vyre_resident; /* a buffer that lives on the backend's device */
typedef struct vyre_pending vyre_pending;   /* an in-flight asynchronous dispatch */
typedef struct vyre_pipeline vyre_pipeline; /* a program + config compiled for repeated dispatch */

/* ---- capabilities --------------------------------------------------------------------------- */

#define VYRE_CAP_DISPATCH (1ull << 0)
#define VYRE_CAP_ASYNC (1ull << 1)
#define VYRE_CAP_TIMED (1ull << 2)
#define VYRE_CAP_RESIDENT (1ull << 3)
#define VYRE_CAP_SEQUENCE (1ull << 4)
#define VYRE_CAP_COMPILED_PIPELINE (1ull << 5)
#define VYRE_CAP_GRAPH_REPLAY (1ull << 6)
#define VYRE_CAP_AOT (1ull << 7)
#define VYRE_CAP_F16 (1ull << 8)
#define VYRE_CAP_BF16 (1ull << 9)
#define VYRE_CAP_F64 (1ull << 10)
#define VYRE_CAP_INT64 (1ull << 11)
#define VYRE_CAP_SUBGROUP (1ull << 12)
#define VYRE_CAP_GRID_SYNC (1ull << 13)
#define VYRE_CAP_ATOMICS (1ull << 14)
#define VYRE_CAP_REFERENCE_ORACLE (1ull << 15)
#define VYRE_CAP_ALL_V1_0 ((1ull << 16) - 1)
#define VYRE_CAP_EXTERNAL_MEMORY (1ull << 16) /* 1.1: resident_import / resident_export work */
#define VYRE_CAP_DEADLINE (1ull << 17)        /* 1.1: VYRE_CONFIG_HAS_TIME_LIMIT is honoured */
#define VYRE_CAP_CANCEL (1ull << 18)          /* 1.1: pending_cancel stops pending work */
#define VYRE_CAP_ALL_V1_1 ((1ull << 19) - 1)

/* ---- registration --------------------------------------------------------------------------- */

#define VYRE_LOG_DEBUG 0
#define VYRE_LOG_INFO 1
#define VYRE_LOG_WARN 2
#define VYRE_LOG_ERROR 3
typedef void (*vyre_log_fn)(void* user, int32_t level, const char* message);

/* What the host tells the plugin at registration. */
typedef struct vyre_host_info {
  size_t struct_size;
  uint32_t abi_major;   /* VYRE_ABI_VERSION_MAJOR the host was built with */
  uint32_t abi_minor;
  const char* host_name; /* e.g. "vyre-registry 0.1.0"; may be NULL */
  vyre_log_fn log;       /* may be NULL; thread-safe; valid while the library is loaded */
  void* log_user;
} vyre_host_info;
#define VYRE_HOST_INFO_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_host_info, log_user)

struct vyre_backend_fns;

/* What the plugin tells the host (an out-struct; see "Versioning"). Registration is cheap and
 * never touches a device. */
typedef struct vyre_backend_info {
  size_t struct_size;
  uint32_t abi_major; /* VYRE_ABI_VERSION_MAJOR the plugin was built with */
  uint32_t abi_minor;
  const char* id;      /* [a-z0-9_]+, unique among loaded plugins */
  const char* version; /* free-form, e.g. "0.1.0" */
  uint32_t rank;       /* precedence: lower wins */
  uint64_t capabilities;          /* VYRE_CAP_* */
  const char* const* op_ids;      /* the op ids of SPEC §4 this backend supports */
  size_t op_count;
  const struct vyre_backend_fns* fns;
  const char* failure; /* when registration returns an error: a static reason with "Fix: ..." */
} vyre_backend_info;
#define VYRE_BACKEND_INFO_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_backend_info, failure)

/* The one exported symbol. Returns VYRE_OK, or an error code with `info->failure` set. */
typedef vyre_status (*vyre_backend_register_fn)(const vyre_host_info* host, vyre_backend_info* info);
#define VYRE_REGISTER_SYMBOL "vyre_backend_register"

/* ---- creation and device profile ------------------------------------------------------------ */

#define VYRE_CREATE_REVERSE_WORKGROUPS (1u << 0) /* run workgroups in reverse (exposes races) */

typedef struct vyre_create_options {
  size_t struct_size;
  int32_t device_ordinal;       /* -1: the backend's default (e.g. VYRE_CUDA_DEVICE_ORDINAL, else 0) */
  uint32_t flags;               /* VYRE_CREATE_* */
  uint32_t worker_threads;      /* host threads the backend may use; 0: its default */
  uint64_t memory_budget_bytes; /* cap on device memory for resident buffers; 0: what the device has */
} vyre_create_options;
#define VYRE_CREATE_OPTIONS_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_create_options, memory_budget_bytes)

#define VYRE_DEVICE_KIND_CPU 0
#define VYRE_DEVICE_KIND_GPU 1

typedef struct vyre_device_profile { /* out-struct */
  size_t struct_size;
  uint32_t kind;           /* VYRE_DEVICE_KIND_* */
  char name[128];          /* "NVIDIA H200", "cpu" */
  char target[32];         /* code generation target: "sm_90", "cpu" */
  uint32_t compute_major;  /* compute capability (0 on CPU) */
  uint32_t compute_minor;
  uint32_t driver_version; /* e.g. 13000 for CUDA 13.0 (0 on CPU) */
  uint32_t multiprocessors;   /* SMs, or worker threads on CPU */
  uint64_t total_memory_bytes;
  uint32_t subgroup_width;    /* warp size */
  uint32_t max_threads_per_workgroup;
  uint32_t max_workgroup_size[3];
  uint32_t max_grid_size[3];
  uint64_t shared_memory_per_workgroup;
  uint64_t shared_memory_per_multiprocessor;
  uint32_t registers_per_workgroup;
  uint32_t registers_per_multiprocessor;
  uint64_t l2_cache_bytes;
  uint32_t memory_clock_khz;
  uint32_t memory_bus_width_bits;
  double memory_bandwidth_gbps; /* estimate: 2 * clock * bus width / 8 */
  uint32_t cooperative_launch;  /* 1 if grid-wide barriers can be launched cooperatively */
  /* 1.1 */
  uint32_t external_alignment;  /* resident_import needs addresses that are a multiple of this
                                   (a power of two); 0: the backend cannot import memory */
} vyre_device_profile;
#define VYRE_DEVICE_PROFILE_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_device_profile, cooperative_launch)
#define VYRE_DEVICE_PROFILE_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_device_profile, external_alignment)

/* ---- dispatch ------------------------------------------------------------------------------- */

#define VYRE_CONFIG_HAS_DISPATCH_ELEMENTS (1u << 0)
#define VYRE_CONFIG_HAS_GRID (1u << 1)
#define VYRE_CONFIG_HAS_WORKGROUP (1u << 2)
#define VYRE_CONFIG_HAS_TIME_LIMIT (1u << 3) /* 1.1; needs VYRE_CAP_DEADLINE */

/* SPEC §3. NULL wherever a config is taken means "all defaults". */
typedef struct vyre_dispatch_config {
  size_t struct_size;
  uint32_t flags;              /* which optional fields are set (VYRE_CONFIG_HAS_*) */
  uint32_t fixpoint_iterations; /* 0 or 1: run once; k > 1: run k times on the same buffers */
  uint64_t dispatch_elements;  /* N, with VYRE_CONFIG_HAS_DISPATCH_ELEMENTS */
  uint32_t grid[3];            /* workgroups per axis, with VYRE_CONFIG_HAS_GRID */
  uint32_t workgroup[3];       /* replaces the program's workgroup_size, with VYRE_CONFIG_HAS_WORKGROUP */
  /* 1.1 */
  uint64_t time_limit_ns;      /* with VYRE_CONFIG_HAS_TIME_LIMIT: the deadline is the entry of the
                                  call that starts the work plus this (see "Deadlines") */
} vyre_dispatch_config;
#define VYRE_DISPATCH_CONFIG_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_dispatch_config, workgroup)
#define VYRE_DISPATCH_CONFIG_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_dispatch_config, time_limit_ns)

/* One host input: the bytes of one `read`, `uniform` or `read_write` buffer. */
typedef struct vyre_host_input {
  size_t struct_size;
  const void* data; /* may be NULL only when byte_len is 0 */
  size_t byte_len;
} vyre_host_input;
#define VYRE_HOST_INPUT_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_host_input, byte_len)

/* One host output: where the bytes of one `read_write` or `output` buffer go. */
typedef struct vyre_host_output {
  size_t struct_size;
  void* data;
  size_t capacity;  /* bytes available at `data` */
  size_t byte_len;  /* out: bytes written (the buffer, trimmed to its output_byte_range) */
} vyre_host_output;
#define VYRE_HOST_OUTPUT_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_host_output, byte_len)

/* Inputs are the program's host inputs and outputs its host outputs, each in declaration order
 * (SPEC §2); the counts must match the program exactly. */
typedef struct vyre_dispatch_args {
  size_t struct_size;
  vyre_program* program;
  const vyre_dispatch_config* config; /* may be NULL */
  const vyre_host_input* inputs;
  size_t input_count;
  vyre_host_output* outputs;
  size_t output_count;
  /* 1.1 */
  uint32_t output_flags; /* VYRE_OUTPUTS_*; bits a plugin does not know are ignored (each grants a
                            permission, none asks for anything) */
} vyre_dispatch_args;
#define VYRE_DISPATCH_ARGS_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_dispatch_args, output_count)
#define VYRE_DISPATCH_ARGS_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_dispatch_args, output_flags)

/* 1.1: the caller throws every output away when the call fails, and no input overlaps an output
 * (the SDK's allocating dispatch calls set it). The backend may then write results straight into
 * the outputs instead of staging a copy and copying it out on success, so that outputs are held
 * once: "no output byte is written on error" no longer holds for this call, and nothing else
 * changes. Backends that stage anyway (a GPU backend downloads through pinned memory) ignore it. */
#define VYRE_OUTPUTS_DISCARDED_ON_FAILURE (1u << 0)

typedef struct vyre_timing { /* out-struct; nanoseconds */
  size_t struct_size;
  uint64_t wall_ns;       /* call entry to results in place */
  uint64_t device_ns;     /* measured on the device (events); valid only if has_device_ns */
  uint64_t enqueue_ns;    /* host time spent submitting work */
  uint64_t wait_ns;       /* host time spent waiting for the device */
  uint32_t has_device_ns; /* 0 on backends without a device clock (reference_cpu) */
} vyre_timing;
#define VYRE_TIMING_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_timing, has_device_ns)

/* ---- resident buffers and sequences --------------------------------------------------------- */

typedef struct vyre_resident_write {
  size_t struct_size;
  vyre_resident* dst;
  uint64_t offset; /* bytes into dst */
  const void* data;
  size_t byte_len;
} vyre_resident_write;
#define VYRE_RESIDENT_WRITE_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_resident_write, byte_len)

typedef struct vyre_resident_read {
  size_t struct_size;
  vyre_resident* src;
  uint64_t offset; /* bytes into src */
  void* data;
  size_t byte_len;
} vyre_resident_read;
#define VYRE_RESIDENT_READ_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_resident_read, byte_len)

#define VYRE_BIND_RESIDENT 0 /* the buffer is `resident` */
#define VYRE_BIND_HOST 1     /* the buffer is `host_data` (read and uniform buffers only) */

/* How one non-workgroup buffer of a program is bound in a resident dispatch. */
typedef struct vyre_binding {
  size_t struct_size;
  uint32_t kind; /* VYRE_BIND_* */
  vyre_resident* resident;
  const void* host_data;
  size_t host_byte_len;
} vyre_binding;
#define VYRE_BINDING_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_binding, host_byte_len)

/* Bindings: one per non-workgroup buffer of the program, in declaration order. A resident buffer
 * bound to a declaration with count > 0 must be exactly count* element size bytes long; a
 * runtime-sized one must be a multiple of the element size. The bound memory is used as it is:
 * `output` buffers are NOT zero-filled first, and nothing is read back implicitly. */
typedef struct vyre_resident_dispatch_args {
  size_t struct_size;
  vyre_program* program;
  const vyre_dispatch_config* config; /* may be NULL */
  const vyre_binding* bindings;
  size_t binding_count;
} vyre_resident_dispatch_args;
#define VYRE_RESIDENT_DISPATCH_ARGS_V1_0_SIZE \
  VYRE_SIZE_THROUGH(vyre_resident_dispatch_args, binding_count)

/* One step of a sequence: a resident dispatch whose bindings are all VYRE_BIND_RESIDENT. */
typedef struct vyre_sequence_step {
  size_t struct_size;
  vyre_program* program;
  const vyre_dispatch_config* config; /* may be NULL */
  const vyre_binding* bindings;
  size_t binding_count;
} vyre_sequence_step;
#define VYRE_SEQUENCE_STEP_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_sequence_step, binding_count)

/* Run `prefix` once, then `repeated` `repeat_count` times, then copy `reads` into host memory;
 * on one stream with one final fence. Equivalent to dispatching the steps one by one. A step's
 * time limit counts from the entry of sequence_run. */
typedef struct vyre_sequence_args {
  size_t struct_size;
  const vyre_sequence_step* prefix;
  size_t prefix_count;
  const vyre_sequence_step* repeated;
  size_t repeated_count;
  uint64_t repeat_count;
  const vyre_resident_read* reads;
  size_t read_count;
} vyre_sequence_args;
#define VYRE_SEQUENCE_ARGS_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_sequence_args, read_count)

/* ---- external memory (1.1) ------------------------------------------------------------------ */

#define VYRE_MEMORY_DEVICE 0 /* a device address valid in the instance's context (CUDA: CUdeviceptr) */
#define VYRE_MEMORY_HOST 1   /* a host pointer (CPU backends) */

/* The buffer may only be read: binding it to a `read_write` or `output` buffer, or uploading into
 * it, is VYRE_ERR_INVALID_ARGUMENT. */
#define VYRE_EXTERNAL_READ_ONLY (1u << 0)

/* Called exactly once when the backend no longer uses imported memory; from any thread (possibly
 * inside resident_free or destroy); must not call back into the same instance. */
typedef void (*vyre_release_fn)(void* user);

/* Memory the caller owns, to wrap as a resident buffer (resident_import). */
typedef struct vyre_external_memory {
  size_t struct_size;
  uint32_t kind;            /* VYRE_MEMORY_*; a kind the backend does not take: VYRE_ERR_UNSUPPORTED */
  uint32_t flags;           /* VYRE_EXTERNAL_*; unknown bits: VYRE_ERR_INVALID_ARGUMENT */
  uint64_t address;         /* the device address, or the host pointer as (uintptr_t) */
  uint64_t byte_len;        /* the buffer's size; the memory must be at least this long */
  vyre_release_fn release;  /* may be NULL (nothing to call) */
  void* release_user;
} vyre_external_memory;
#define VYRE_EXTERNAL_MEMORY_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_external_memory, release_user)

/* DLPack's DLDeviceType values, for vyre_memory_export.dlpack_device_type. */
#define VYRE_DLPACK_CPU 1
#define VYRE_DLPACK_CUDA 2
#define VYRE_DLPACK_VULKAN 7

/* Where a resident buffer's memory is (resident_export; an out-struct). */
typedef struct vyre_memory_export {
  size_t struct_size;
  uint32_t kind;               /* VYRE_MEMORY_* */
  int32_t dlpack_device_type;  /* VYRE_DLPACK_* (DLPack's DLDevice.device_type) */
  int32_t device_id;           /* DLPack's DLDevice.device_id: the CUDA ordinal; 0 on the host */
  uint32_t flags;              /* VYRE_EXTERNAL_READ_ONLY for read-only imported memory */
  uint64_t address;            /* the device address, or the host pointer as (uintptr_t) */
  uint64_t byte_len;
} vyre_memory_export;
#define VYRE_MEMORY_EXPORT_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_memory_export, byte_len)

/* ---- compiled pipelines --------------------------------------------------------------------- */

/* Opt-in cache of materialised outputs for programs without read_write buffers: a dispatch whose
 * inputs are byte-identical to an earlier one returns the earlier outputs without running. */
#define VYRE_PIPELINE_CACHE_OUTPUTS (1u << 0)

typedef struct vyre_pipeline_args {
  size_t struct_size;
  vyre_program* program;
  const vyre_dispatch_config* config; /* fixed for the pipeline's life; may be NULL */
  uint32_t flags;                     /* VYRE_PIPELINE_* */
} vyre_pipeline_args;
#define VYRE_PIPELINE_ARGS_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_pipeline_args, flags)

typedef struct vyre_pipeline_dispatch_args {
  size_t struct_size;
  vyre_pipeline* pipeline;
  const vyre_host_input* inputs;
  size_t input_count;
  vyre_host_output* outputs;
  size_t output_count;
} vyre_pipeline_dispatch_args;
#define VYRE_PIPELINE_DISPATCH_ARGS_V1_0_SIZE \
  VYRE_SIZE_THROUGH(vyre_pipeline_dispatch_args, output_count)

/* ---- ahead-of-time bundles (SPEC §10) ------------------------------------------------------- */

typedef struct vyre_aot_args {
  size_t struct_size;
  const uint8_t* wire; /* the program, as wire bytes */
  size_t wire_len;
  const char* target;  /* e.g. "sm_90"; NULL: the instance's device, or the backend's default */
  const vyre_dispatch_config* config; /* fixes the launch geometry (its time limit is ignored) */
  const void* weights; /* uploaded into the first input buffer at launch; may be NULL */
  size_t weights_byte_len;
} vyre_aot_args;
#define VYRE_AOT_ARGS_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_aot_args, weights_byte_len)

typedef struct vyre_aot_file {
  size_t struct_size;
  const char* name; /* relative path inside the bundle, '/'-separated, e.g. "launcher/main.cpp" */
  const uint8_t* data;
  size_t byte_len;
} vyre_aot_file;
#define VYRE_AOT_FILE_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_aot_file, byte_len)

typedef struct vyre_aot_output { /* owned by the plugin; release with fns->aot_release */
  size_t struct_size;
  const vyre_aot_file* files;
  size_t file_count;
} vyre_aot_output;
#define VYRE_AOT_OUTPUT_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_aot_output, file_count)

/* ---- telemetry ------------------------------------------------------------------------------ */

typedef struct vyre_metric {
  size_t struct_size;
  const char* name; /* static, e.g. "kernel_launches"; valid while the library is loaded */
  uint64_t value;
} vyre_metric;
#define VYRE_METRIC_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_metric, value)

/* ---- extensions (1.1) ----------------------------------------------------------------------- */

/* The header every extension struct starts with (as its first member, named `base` by
 * convention). `struct_size` is the size of the whole extension struct, which grows by the usual
 * rules. Chains end at NULL and never repeat a type. */
typedef struct vyre_extension {
  size_t struct_size;
  uint32_t type;                      /* VYRE_EXTENSION_* */
  uint32_t reserved;                  /* 0 */
  const struct vyre_extension* next;  /* the next extension, or NULL */
} vyre_extension;
#define VYRE_EXTENSION_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_extension, next)

/* Extension types. Values below VYRE_EXTENSION_PRIVATE_BASE are assigned in this header and never
 * reused; a backend may use values from VYRE_EXTENSION_PRIVATE_BASE up for its own features.
 * Every host skips a type it does not know.
 *   VYRE_EXTENSION_DEVICE_GROUP: reserved for device groups and collectives (SPEC §11): a struct
 *     of function pointers that make a group from instances of this plugin (one per device), run
 *     a sharded dispatch over it, and all_reduce / all_gather / reduce_scatter / broadcast
 *     resident buffers of its members. Everything a group needs is per-instance state the core
 *     table already has, so groups arrive as this extension within ABI 1.x. */
#define VYRE_EXTENSION_DEVICE_GROUP 1u
/*   VYRE_EXTENSION_NATIVE_STREAM: a resident dispatch ordered after work another library queued
 *     on one of its own streams of the same device (a torch or CuPy stream), by a wait on the
 *     device instead of a synchronize on the host. */
#define VYRE_EXTENSION_NATIVE_STREAM 2u
#define VYRE_EXTENSION_PRIVATE_BASE 0x10000u

/* VYRE_EXTENSION_DEVICE_GROUP. A group is a set of instances of one plugin, one per device, that
 * the host drives together (vyre/group.hpp): these members enumerate the devices an instance can
 * be created on (vyre_create_options.device_ordinal) and run one device's share of a sharded
 * dispatch; from its second revision (base.struct_size >= VYRE_DEVICE_GROUP_EXTENSION_COLLECTIVES_SIZE)
 * also make a communicator over member instances and run collectives on their resident buffers.
 * A host checks base.struct_size before calling a member. All members are thread-safe;
 * device_count and device_describe need no instance and may load the device driver. */

/* A communicator over instances of one plugin (group_create), one rank per instance. */
typedef struct vyre_device_group vyre_device_group;

/* vyre_collective_args.op */
#define VYRE_COLLECTIVE_ALL_REDUCE 1u     /* recv[r][i] = reduce over ranks q of send[q][i], i < count */
#define VYRE_COLLECTIVE_ALL_GATHER 2u     /* recv[r][q * count + i] = send[q][i] */
#define VYRE_COLLECTIVE_REDUCE_SCATTER 3u /* recv[r][i] = reduce over q of send[q][r * count + i] */
#define VYRE_COLLECTIVE_BROADCAST 4u      /* recv[r][i] = send[root][i] */
/* vyre_collective_args.reduce (all_reduce, reduce_scatter). Sum wraps for integers. The bitwise
 * operations take integer elements only. VYRE_REDUCE_SUM_RANK_ORDER is a sum whose float result
 * does not depend on the collective library's algorithm: element i is
 * ((x[0][i] + x[1][i]) + x[2][i]) + ... in rank order, each addition rounded to nearest even
 * (the ranks' data is exchanged, then added on each member); for integers it equals
 * VYRE_REDUCE_SUM. Plugins that predate it refuse it as an unknown reduction. */
#define VYRE_REDUCE_SUM 1u
#define VYRE_REDUCE_MIN 2u
#define VYRE_REDUCE_MAX 3u
#define VYRE_REDUCE_AND 4u
#define VYRE_REDUCE_OR 5u
#define VYRE_REDUCE_XOR 6u
#define VYRE_REDUCE_SUM_RANK_ORDER 7u

/* One collective over the ranks of a group. Buffers are resident buffers of the member instances
 * of this process, one per member in rank order (send[r] and recv[r] belong to member r); sizes
 * count every rank of the group (in every process); each operation uses the
 * first bytes of its buffers (count elements, or the group size * count where the op says so), so
 * larger buffers are fine. send[r] == recv[r] (in place) is allowed for all_reduce and broadcast
 * only. broadcast reads only send[root]; the other ranks' send entries may be NULL. */
typedef struct vyre_collective_args {
  size_t struct_size;
  uint32_t op;      /* VYRE_COLLECTIVE_* */
  uint32_t reduce;  /* VYRE_REDUCE_* for all_reduce / reduce_scatter, else ignored */
  uint32_t element; /* the element type, a vyre type code (SPEC §2): u32 1, i32 2, u64 3, i64 4,
                       f32 5, f64 6; others are VYRE_ERR_UNSUPPORTED */
  int32_t root;     /* broadcast: the rank whose send buffer is sent */
  uint64_t count;   /* elements per rank (see op); 0 queues nothing */
  vyre_resident* const* send; /* rank_count entries */
  vyre_resident* const* recv; /* rank_count entries */
  uint32_t rank_count;        /* the group's members in this process: all ranks for a group from
                                 group_create, 1 for one from group_join */
  uint32_t reserved;          /* 0 */
} vyre_collective_args;
#define VYRE_COLLECTIVE_ARGS_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_collective_args, reserved)

typedef struct vyre_device_group_extension {
  vyre_extension base; /* type VYRE_EXTENSION_DEVICE_GROUP */
  /* How many devices are visible (ordinals 0..*out-1); 0 when the driver reports none.
   * VYRE_ERR_NO_DEVICE when the driver cannot be loaded. */
  vyre_status (*device_count)(uint32_t* out, vyre_error** error);
  /* The profile of device `ordinal` (an out-struct, as from device_profile), without creating an
   * instance. VYRE_ERR_NO_DEVICE for an ordinal that is not visible. */
  vyre_status (*device_describe)(int32_t ordinal, vyre_device_profile* out, vyre_error** error);
  /* One device's share of a group dispatch (SPEC §11): run only the workgroups
   * [first_workgroup_x, first_workgroup_x + workgroup_count_x) along x, over every y and z, of the
   * resident dispatch `args` describes, with the WorkgroupId, InvocationId and NumWorkgroups of the
   * whole dispatch, so that the shares of all devices together do exactly the single-device work.
   * Synchronous. VYRE_ERR_UNSUPPORTED for a program with Barrier(grid_sync) or a config with
   * fixpoint_iterations > 1 (neither can be split across devices); VYRE_ERR_INVALID_ARGUMENT when
   * the range passes the dispatch's grid. A count of 0 runs nothing. */
  vyre_status (*dispatch_resident_shard)(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                         uint32_t first_workgroup_x, uint32_t workgroup_count_x,
                                         vyre_error** error);
  /* ---- the second revision: collectives ---- */
  /* A communicator over `members` (member_count instances of this plugin, rank r = members[r]),
   * one device each: the members must be on distinct devices. Loads the collective library
   * where needed (cuda: NCCL, at run time); VYRE_ERR_NO_DEVICE naming what was tried when it is
   * missing, VYRE_ERR_INVALID_HANDLE for a member that is not a live instance of this plugin,
   * VYRE_ERR_INVALID_ARGUMENT for no members or two on one device. The members must outlive the
   * group; release it with group_release. */
  vyre_status (*group_create)(vyre_backend* const* members, uint32_t member_count, vyre_device_group** out,
                              vyre_error** error);
  /* Queue one collective (vyre_collective_args) on every member, each after the earlier work on
   * its buffers, and return; later work on the buffers (downloads, dispatches, frees) runs after
   * it. Every check is made before anything is queued: VYRE_ERR_INVALID_ARGUMENT for sizes,
   * counts, ranks or buffers that do not fit (naming the rank), a read-only receive buffer, an
   * unknown op, or a bitwise reduction of floats; VYRE_ERR_UNSUPPORTED for another element type;
   * VYRE_ERR_INVALID_HANDLE for a buffer that is not its member's. VYRE_ERR_DEVICE when the
   * library fails (the group is then unusable: release it and create another). Collectives on
   * one group are queued in the order of the calls (concurrent calls are serialised). */
  vyre_status (*group_collective)(vyre_device_group* group, const vyre_collective_args* args, vyre_error** error);
  /* Wait for the group's queued collectives, then release it. NULL is ignored. */
  void (*group_release)(vyre_device_group* group);
  /* ---- the third revision: groups that span processes (one process per device) ---- */
  /* A fresh id for a group that spans processes (cuda: ncclGetUniqueId), VYRE_GROUP_ID_BYTES bytes
   * into `out`; one process makes it and hands it to every process's group_join (vyre/group.hpp
   * passes it through a file). VYRE_ERR_NO_DEVICE when the collective library is missing. */
  vyre_status (*group_unique_id)(uint8_t* out, size_t out_len, vyre_error** error);
  /* Join rank `rank` of `rank_count` of the group `id` with one instance of this process, and
   * return the group (release it with group_release). Blocks until every rank joined (cuda:
   * ncclCommInitRank). On such a group, vyre_collective_args.rank_count is 1 (this process's
   * buffers) and sizes count all rank_count ranks. VYRE_ERR_INVALID_ARGUMENT for a rank out of
   * range or an id of the wrong length; VYRE_ERR_DEVICE when joining fails. */
  vyre_status (*group_join)(vyre_backend* member, const uint8_t* id, size_t id_len, uint32_t rank_count,
                            uint32_t rank, vyre_device_group** out, vyre_error** error);
} vyre_device_group_extension;
#define VYRE_DEVICE_GROUP_EXTENSION_V1_1_SIZE \
  VYRE_SIZE_THROUGH(vyre_device_group_extension, dispatch_resident_shard)
#define VYRE_DEVICE_GROUP_EXTENSION_COLLECTIVES_SIZE \
  VYRE_SIZE_THROUGH(vyre_device_group_extension, group_release)
#define VYRE_DEVICE_GROUP_EXTENSION_PROCESSES_SIZE \
  VYRE_SIZE_THROUGH(vyre_device_group_extension, group_join)
#define VYRE_GROUP_ID_BYTES 128

/* VYRE_EXTENSION_NATIVE_STREAM. Thread-safe. */
#define VYRE_NATIVE_STREAM_CUDA 1u /* a CUstream (0: the legacy default stream) */

typedef struct vyre_native_stream_extension {
  vyre_extension base; /* type VYRE_EXTENSION_NATIVE_STREAM */
  uint32_t stream_kind; /* VYRE_NATIVE_STREAM_*: what `native_stream` below names */
  /* dispatch_resident, except that the dispatch's device work starts only after everything
   * queued on `native_stream` before this call has finished; the host does not wait for it.
   * cuda: a stream of the instance's device in its primary context (as torch and CuPy use);
   * the backend records an event on it and makes its own stream wait for that event. A stream the
   * driver refuses (another device or context): VYRE_ERR_INVALID_ARGUMENT, nothing queued; a stream
   * that is capturing a CUDA graph: VYRE_ERR_UNSUPPORTED, nothing queued (the dispatch cannot join
   * a foreign capture, and the capture is left intact); a value
   * that is not a live stream is the caller's bug, as with the driver itself (it may go undetected).
   * `out` as in dispatch_resident (NULL: wait for the dispatch to finish). */
  vyre_status (*dispatch_resident_after)(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                         uint64_t native_stream, vyre_pending** out, vyre_error** error);
} vyre_native_stream_extension;
#define VYRE_NATIVE_STREAM_EXTENSION_V1_1_SIZE \
  VYRE_SIZE_THROUGH(vyre_native_stream_extension, dispatch_resident_after)

/* ---- the function table ----------------------------------------------------------------------
 * The table's members are defined ONCE, by the lists below; the struct, the plugin kit's table
 * and defaults, the host's NULL checks and slot names, and the host wrapper's calls are all
 * expanded from them. Each list takes two macros:
 *   SLOT(return type, name, (parameters))  a function slot; every slot is non-NULL;
 *   FIELD(type, name)                        a data member (may be NULL).
 * A new minor appends a new list (VYRE_BACKEND_FNS_1_2 ...) and adds it to VYRE_BACKEND_FNS. */

/* Every slot is non-NULL. A call the backend does not implement returns VYRE_ERR_UNSUPPORTED.
 * `error` may be NULL in every call (the caller then gets only the status). */
#define VYRE_BACKEND_FNS_1_0(SLOT, FIELD)                                                          \
  /* Release an error object returned by any call of this table. NULL is ignored. */               \
  SLOT(void, error_release, (vyre_error* error))                                                   \
  /* Create an instance (`options` may be NULL). Fails with VYRE_ERR_NO_DEVICE, and a message      \
   * that says what to check, where the backend cannot run here. */                                \
  SLOT(vyre_status, create,                                                                        \
       (const vyre_create_options* options, vyre_backend** out, vyre_error** error))               \
  /* Destroy an instance and everything it still owns. NULL is ignored. */                         \
  SLOT(void, destroy, (vyre_backend* backend))                                                     \
  /* Fill `out` (an out-struct) with what the instance runs on. */                                 \
  SLOT(vyre_status, device_profile,                                                                \
       (vyre_backend* backend, vyre_device_profile* out, vyre_error** error))                      \
  /* Decode, validate and compile a program from wire bytes into a reusable handle. */             \
  SLOT(vyre_status, program_compile,                                                               \
       (vyre_backend* backend, const uint8_t* wire, size_t wire_len, vyre_program** out,           \
        vyre_error** error))                                                                       \
  /* Release a program. In-flight dispatches that use it keep it alive until they finish. */       \
  SLOT(vyre_status, program_release,                                                               \
       (vyre_backend* backend, vyre_program* program, vyre_error** error))                         \
  /* Run a program on host buffers and return when the outputs are written. Every input check      \
   * is made before any device work; on error no output byte is written. */                        \
  SLOT(vyre_status, dispatch,                                                                      \
       (vyre_backend* backend, const vyre_dispatch_args* args, vyre_error** error))                \
  /* As dispatch, but returns at once with a pending handle. Input bytes are consumed before the   \
   * call returns (the caller may reuse them); output memory must stay valid until poll or wait    \
   * reports completion (or the pending handle is released, which waits). */                       \
  SLOT(vyre_status, dispatch_async,                                                                \
       (vyre_backend* backend, const vyre_dispatch_args* args, vyre_pending** out,                 \
        vyre_error** error))                                                                       \
  /* Dispatch synchronously and report how long it took. */                                        \
  SLOT(vyre_status, dispatch_timed,                                                                \
       (vyre_backend* backend, const vyre_dispatch_args* args, vyre_timing* out,                   \
        vyre_error** error))                                                                       \
  /* *done = 1 once the work has finished (its error, if any, is returned here), else 0. */        \
  SLOT(vyre_status, pending_poll,                                                                  \
       (vyre_backend* backend, vyre_pending* pending, int32_t* done, vyre_error** error))          \
  /* Wait up to timeout_ns (UINT64_MAX: for ever). VYRE_ERR_TIMEOUT if it is still running (the    \
   * work goes on; only a dispatch's own deadline stops it). */                                    \
  SLOT(vyre_status, pending_wait,                                                                  \
       (vyre_backend* backend, vyre_pending* pending, uint64_t timeout_ns, vyre_error** error))    \
  /* Wait for the work, then release the handle. */                                                \
  SLOT(vyre_status, pending_release,                                                               \
       (vyre_backend* backend, vyre_pending* pending, vyre_error** error))                         \
  /* Allocate a resident buffer of byte_len bytes, all zero. VYRE_ERR_OUT_OF_MEMORY names the      \
   * requested and the available bytes. */                                                         \
  SLOT(vyre_status, resident_alloc,                                                                \
       (vyre_backend* backend, uint64_t byte_len, vyre_resident** out, vyre_error** error))        \
  /* Free a resident buffer. VYRE_ERR_BUSY while a dispatch using it is in flight. */              \
  SLOT(vyre_status, resident_free,                                                                 \
       (vyre_backend* backend, vyre_resident* buffer, vyre_error** error))                         \
  /* The buffer's size in bytes. */                                                                \
  SLOT(vyre_status, resident_byte_len,                                                             \
       (vyre_backend* backend, vyre_resident* buffer, uint64_t* out, vyre_error** error))          \
  /* Copy host bytes into resident buffers at offsets. The host memory may be reused when the      \
   * call returns; the writes are ordered before any later dispatch on the instance. */            \
  SLOT(vyre_status, resident_upload,                                                               \
       (vyre_backend* backend, const vyre_resident_write* writes, size_t count,                    \
        vyre_error** error))                                                                       \
  /* Copy byte ranges of resident buffers into host memory, after all earlier work on them. */     \
  SLOT(vyre_status, resident_download,                                                             \
       (vyre_backend* backend, const vyre_resident_read* reads, size_t count, vyre_error** error)) \
  /* Dispatch on resident (or host-bound input) buffers. With `out` NULL the call waits for the    \
   * work; otherwise it returns a pending handle at once. */                                       \
  SLOT(vyre_status, dispatch_resident,                                                             \
       (vyre_backend* backend, const vyre_resident_dispatch_args* args, vyre_pending** out,        \
        vyre_error** error))                                                                       \
  /* A synchronous resident dispatch that reports its timing. */                                   \
  SLOT(vyre_status, dispatch_resident_timed,                                                       \
       (vyre_backend* backend, const vyre_resident_dispatch_args* args, vyre_timing* out,          \
        vyre_error** error))                                                                       \
  /* Run a sequence of resident steps (see vyre_sequence_args). */                                 \
  SLOT(vyre_status, sequence_run,                                                                  \
       (vyre_backend* backend, const vyre_sequence_args* args, vyre_error** error))                \
  /* Compile a program + config for repeated host dispatch. */                                     \
  SLOT(vyre_status, pipeline_create,                                                               \
       (vyre_backend* backend, const vyre_pipeline_args* args, vyre_pipeline** out,                \
        vyre_error** error))                                                                       \
  /* Dispatch a pipeline into caller buffers, synchronously (same buffer rules as dispatch). */    \
  SLOT(vyre_status, pipeline_dispatch,                                                             \
       (vyre_backend* backend, const vyre_pipeline_dispatch_args* args, vyre_error** error))       \
  SLOT(vyre_status, pipeline_release,                                                              \
       (vyre_backend* backend, vyre_pipeline* pipeline, vyre_error** error))                       \
  /* Emit an AOT bundle's files. `backend` may be NULL: AOT emission needs no device. */           \
  SLOT(vyre_status, aot_emit,                                                                      \
       (vyre_backend* backend, const vyre_aot_args* args, vyre_aot_output** out,                   \
        vyre_error** error))                                                                       \
  SLOT(void, aot_release, (vyre_aot_output* output))                                               \
  /* Copy up to `capacity` counters into `out`; *count receives how many the backend has. */       \
  SLOT(vyre_status, metrics_snapshot,                                                              \
       (vyre_backend* backend, vyre_metric* out, size_t capacity, size_t* count,                   \
        vyre_error** error))                                                                       \
  /* Zero every counter (caches are kept). */                                                      \
  SLOT(vyre_status, metrics_reset, (vyre_backend* backend, vyre_error** error))

#define VYRE_BACKEND_FNS_1_1(SLOT, FIELD)                                                          \
  /* The first extension of the chain, or NULL (see "Extensions"). */                              \
  FIELD(const vyre_extension*, extensions)                                                         \
  /* Wrap caller-owned memory as a resident buffer without copying (see "External memory").        \
   * VYRE_ERR_UNSUPPORTED for a kind the backend does not take; VYRE_ERR_INVALID_ARGUMENT for a    \
   * zero or too short length, a misaligned address, or memory of another device. */               \
  SLOT(vyre_status, resident_import,                                                               \
       (vyre_backend* backend, const vyre_external_memory* memory, vyre_resident** out,            \
        vyre_error** error))                                                                       \
  /* Fill `out` (an out-struct) with the native address and device of a resident buffer,           \
   * allocated or imported, after every earlier work on it finished. */                            \
  SLOT(vyre_status, resident_export,                                                               \
       (vyre_backend* backend, vyre_resident* buffer, vyre_memory_export* out,                     \
        vyre_error** error))                                                                       \
  /* Ask pending work to stop and return at once (see "Deadlines and cancellation"). Work that     \
   * already finished keeps its result; cancelling twice is harmless; the handle must still be     \
   * released with pending_release. */                                                             \
  SLOT(vyre_status, pending_cancel,                                                                \
       (vyre_backend* backend, vyre_pending* pending, vyre_error** error))

/* Every member, in table order. */
#define VYRE_BACKEND_FNS(SLOT, FIELD) \
  VYRE_BACKEND_FNS_1_0(SLOT, FIELD)   \
  VYRE_BACKEND_FNS_1_1(SLOT, FIELD)

#define VYRE_DECLARE_SLOT_(ret, name, params) ret(*name) params;
#define VYRE_DECLARE_FIELD_(type, name) type name;

typedef struct vyre_backend_fns {
  size_t struct_size;
  VYRE_BACKEND_FNS(VYRE_DECLARE_SLOT_, VYRE_DECLARE_FIELD_)
} vyre_backend_fns;

#define VYRE_BACKEND_FNS_V1_0_SIZE VYRE_SIZE_THROUGH(vyre_backend_fns, metrics_reset)
#define VYRE_BACKEND_FNS_V1_1_SIZE VYRE_SIZE_THROUGH(vyre_backend_fns, pending_cancel)

/* Whether table `fns` (whose struct_size the host has checked) provides member `name`. */
#define VYRE_FNS_HAS(fns, name) ((fns)->struct_size >= VYRE_SIZE_THROUGH(vyre_backend_fns, name))

/* The extension of `type` in the chain of `fns`, or NULL (also for a 1.0 table). Walks at most
 * 256 links, so a cyclic chain cannot hang the host. */
static inline const vyre_extension* vyre_find_extension(const vyre_backend_fns* fns, uint32_t type) {
  const vyre_extension* ext;
  int links;
  if (fns == NULL || !VYRE_FNS_HAS(fns, extensions)) return NULL;
  for (ext = fns->extensions, links = 0; ext != NULL && links < 256; ext = ext->next, ++links)
    if (ext->struct_size < VYRE_EXTENSION_V1_1_SIZE) return NULL; /* malformed: stop */
    else if (ext->type == type) return ext;
  return NULL;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VYRE_BACKEND_ABI_H */
