/* A vyre backend plugin written in C11 (no C++), built three ways by tests/abi/CMakeLists.txt to
 * prove that hosts of today accept plugins of other ABI minors:
 *   COMPAT_ABI_MINOR 0  against the frozen ABI 1.0 header (tests/abi/v1_0): a plugin built before
 *                       1.1 existed. Its table is followed by non-NULL poison pointers that abort
 *                       when called, so a host reading past the table's struct_size crashes.
 *   COMPAT_ABI_MINOR 1  against today's header (the C11 plugin of issue 12).
 *   COMPAT_ABI_MINOR 2  against today's header, claiming a future 1.2: its function table, error
 *                       objects and device profile are larger than 1.1 defines, its table has slots
 *                       no host knows yet (they abort when called), and its extension chain holds a
 *                       type no host knows.
 * The backend runs the programs of wire_subset.h on the host: dispatch (sync, and async completed at
 * once) and resident buffers (alloc, free, upload, download, resident dispatch). Every other call
 * returns VYRE_ERR_UNSUPPORTED. Handles carry a magic word; a wrong one is VYRE_ERR_INVALID_HANDLE. */
#include <stdlib.h>
#include <string.h>

#include "vyre/backend_abi.h"
#include "wire_subset.h"

#ifndef COMPAT_ABI_MINOR
#error "define COMPAT_ABI_MINOR (0, 1 or 2)"
#endif
#ifndef COMPAT_ID
#error "define COMPAT_ID"
#endif

#define SIZE_THROUGH(type, field) (offsetof(type, field) + sizeof(((type*)0)->field))
#define MAGIC_BACKEND 0x42434b31u
#define MAGIC_PROGRAM 0x50524f31u
#define MAGIC_RESIDENT 0x52455331u
#define MAGIC_PENDING 0x50454e31u

enum { ACCESS_READ = 0, ACCESS_UNIFORM = 1, ACCESS_READ_WRITE = 2, ACCESS_OUTPUT = 3 };

struct vyre_backend {
  uint32_t magic;
};
struct vyre_program {
  uint32_t magic;
  ws_program* program;
};
struct vyre_resident {
  uint32_t magic;
  uint32_t* words;
  uint64_t byte_len;
};
struct vyre_pending {
  uint32_t magic;
};

/* ---- errors ------------------------------------------------------------------------------- */

#if COMPAT_ABI_MINOR >= 2
typedef struct compat_error { /* 1.2 grew the error object (the host reads what it knows) */
  vyre_error base;
  uint64_t future_detail;
} compat_error;
#else
typedef struct compat_error {
  vyre_error base;
} compat_error;
#endif

static void error_release(vyre_error* error) { free(error); }

/* Returns `code`, with an error object holding `message` (static) when the caller asked for one. */
static vyre_status fail(vyre_error** error, vyre_status code, const char* message) {
  compat_error* e;
  if (error == NULL) return code;
  e = calloc(1, sizeof *e);
  *error = e != NULL ? &e->base : NULL;
  if (e == NULL) return code;
  e->base.struct_size = sizeof *e;
  e->base.code = code;
  e->base.message = message;
  return code;
}

static vyre_status unsupported(vyre_error** error) {
  return fail(error, VYRE_ERR_UNSUPPORTED,
              COMPAT_ID " implements dispatch and resident buffers only. Fix: use a backend that implements this call.");
}

/* ---- helpers ------------------------------------------------------------------------------- */

/* Element `i` of an array of structs strided by its first element's struct_size. */
static const void* element(const void* first, size_t i) {
  const size_t stride = *(const size_t*)first;
  return (const unsigned char*)first + stride * i;
}

static int backend_ok(const vyre_backend* b) { return b != NULL && b->magic == MAGIC_BACKEND; }
static int program_ok(const vyre_program* p) { return p != NULL && p->magic == MAGIC_PROGRAM; }
static int resident_ok(const vyre_resident* r) { return r != NULL && r->magic == MAGIC_RESIDENT; }

static vyre_status bad_handle(vyre_error** error) {
  return fail(error, VYRE_ERR_INVALID_HANDLE, "a handle that is NULL, released or not " COMPAT_ID "'s. Fix: pass handles this instance made.");
}

static int is_input(uint32_t access) { return access != ACCESS_OUTPUT; }
static int is_output(uint32_t access) { return access == ACCESS_READ_WRITE || access == ACCESS_OUTPUT; }

/* Dispatch elements N (SPEC §3): the config's, else the largest output, else the largest input. */
static vyre_status elements(const ws_program* p, const vyre_dispatch_config* config, const uint64_t* lengths,
                            uint64_t* n, uint32_t* iterations, vyre_error** error) {
  size_t i;
  uint64_t largest_output = 0, largest_input = 0;
  *iterations = 1;
  if (config != NULL) {
    if (config->struct_size < SIZE_THROUGH(vyre_dispatch_config, workgroup))
      return fail(error, VYRE_ERR_INVALID_ARGUMENT, "vyre_dispatch_config is smaller than ABI 1.0. Fix: set struct_size.");
    if ((config->flags & ~(uint32_t)VYRE_CONFIG_HAS_DISPATCH_ELEMENTS) != 0)
      return fail(error, VYRE_ERR_UNSUPPORTED,
                  COMPAT_ID " takes only dispatch_elements in a config (no grid, workgroup or time limit). Fix: drop them.");
    if (config->fixpoint_iterations > 1) *iterations = config->fixpoint_iterations;
    if (config->flags & VYRE_CONFIG_HAS_DISPATCH_ELEMENTS) {
      *n = config->dispatch_elements;
      return VYRE_OK;
    }
  }
  for (i = 0; i < ws_buffer_count(p); ++i) {
    const uint32_t access = ws_buffer_access(p, i);
    if (is_output(access) && lengths[i] > largest_output) largest_output = lengths[i];
    if (is_input(access) && lengths[i] > largest_input) largest_input = lengths[i];
  }
  *n = largest_output != 0 ? largest_output : largest_input;
  return VYRE_OK;
}

static void run(const ws_program* p, uint64_t n, uint32_t iterations, uint32_t* const* words, const uint64_t* lengths) {
  uint32_t k;
  for (k = 0; k < iterations; ++k) ws_run(p, n, words, lengths);
}

/* ---- instance ------------------------------------------------------------------------------ */

static vyre_status create(const vyre_create_options* options, vyre_backend** out, vyre_error** error) {
  vyre_backend* b;
  if (out == NULL) return fail(error, VYRE_ERR_INVALID_ARGUMENT, "create: out is NULL. Fix: pass a pointer.");
  *out = NULL;
  if (options != NULL && options->struct_size >= SIZE_THROUGH(vyre_create_options, device_ordinal) &&
      options->device_ordinal > 0)
    return fail(error, VYRE_ERR_NO_DEVICE, COMPAT_ID " has one device (ordinal 0). Fix: pass ordinal 0 or -1.");
  b = calloc(1, sizeof *b);
  if (b == NULL) return fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: free memory.");
  b->magic = MAGIC_BACKEND;
  *out = b;
  return VYRE_OK;
}

static void destroy(vyre_backend* backend) {
  if (!backend_ok(backend)) return;
  backend->magic = 0;
  free(backend);
}

#if COMPAT_ABI_MINOR >= 2
typedef struct compat_profile { /* 1.2 grew the profile */
  vyre_device_profile base;
  uint64_t future_clock_hz;
} compat_profile;
#else
typedef struct compat_profile {
  vyre_device_profile base;
} compat_profile;
#endif

static vyre_status device_profile(vyre_backend* backend, vyre_device_profile* out, vyre_error** error) {
  compat_profile p;
  size_t size;
  static const char name[] = COMPAT_ID;
  if (!backend_ok(backend)) return bad_handle(error);
  if (out == NULL || out->struct_size < SIZE_THROUGH(vyre_device_profile, cooperative_launch))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "device_profile: out is NULL or smaller than ABI 1.0. Fix: set struct_size.");
  memset(&p, 0, sizeof p);
  p.base.kind = VYRE_DEVICE_KIND_CPU;
  memcpy(p.base.name, name, sizeof name);
  memcpy(p.base.target, "cpu", 4);
  p.base.multiprocessors = 1;
  p.base.subgroup_width = 32;
  p.base.max_threads_per_workgroup = 1024;
  p.base.max_workgroup_size[0] = p.base.max_workgroup_size[1] = p.base.max_workgroup_size[2] = 1024;
  p.base.max_grid_size[0] = p.base.max_grid_size[1] = p.base.max_grid_size[2] = 0xFFFFFFFFu;
#if COMPAT_ABI_MINOR >= 2
  p.future_clock_hz = 1;
#endif
  size = out->struct_size < sizeof p ? out->struct_size : sizeof p; /* never more than the caller has */
  memcpy(out, &p, size);
  out->struct_size = size;
  return VYRE_OK;
}

/* ---- programs ------------------------------------------------------------------------------ */

static vyre_status program_compile(vyre_backend* backend, const uint8_t* wire, size_t wire_len, vyre_program** out,
                                   vyre_error** error) {
  int status = WS_OK;
  const char* why = NULL;
  vyre_program* p;
  if (!backend_ok(backend)) return bad_handle(error);
  if (out == NULL || (wire == NULL && wire_len != 0))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "program_compile: NULL pointer. Fix: pass the wire bytes and out.");
  *out = NULL;
  p = calloc(1, sizeof *p);
  if (p == NULL) return fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: free memory.");
  p->program = ws_decode(wire, wire_len, &status, &why);
  if (p->program == NULL) {
    free(p);
    (void)why; /* a static reason; the messages below are static too */
    return status == WS_MALFORMED
               ? fail(error, VYRE_ERR_DECODE, "the wire bytes are malformed. Fix: pass bytes from vyre::encode_wire.")
               : fail(error, VYRE_ERR_UNSUPPORTED,
                      COMPAT_ID " runs u32 programs of let/assign/store/if/return/block over lit, var, load, buf_len, "
                                "invocation_id and integer binary operators only. Fix: route the program to another backend.");
  }
  p->magic = MAGIC_PROGRAM;
  *out = p;
  return VYRE_OK;
}

static vyre_status program_release(vyre_backend* backend, vyre_program* program, vyre_error** error) {
  if (!backend_ok(backend) || !program_ok(program)) return bad_handle(error);
  program->magic = 0;
  ws_free(program->program);
  free(program);
  return VYRE_OK;
}

/* ---- host dispatch ------------------------------------------------------------------------- */

static vyre_status dispatch(vyre_backend* backend, const vyre_dispatch_args* args, vyre_error** error) {
  const ws_program* p;
  size_t i, count, next_in = 0, next_out = 0, inputs = 0, outputs = 0;
  uint32_t** words;
  uint64_t* lengths;
  uint64_t n = 0;
  uint32_t iterations = 1;
  vyre_status status;
  if (!backend_ok(backend)) return bad_handle(error);
  if (args == NULL || args->struct_size < SIZE_THROUGH(vyre_dispatch_args, output_count))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "vyre_dispatch_args is NULL or smaller than ABI 1.0. Fix: set struct_size.");
  if (!program_ok(args->program)) return bad_handle(error);
  p = args->program->program;
  count = ws_buffer_count(p);
  for (i = 0; i < count; ++i) {
    inputs += is_input(ws_buffer_access(p, i));
    outputs += is_output(ws_buffer_access(p, i));
  }
  if (args->input_count != inputs || args->output_count != outputs || (inputs && !args->inputs) || (outputs && !args->outputs))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "the input or output count does not match the program. Fix: pass one per buffer.");
  words = calloc(count + 1, sizeof *words);
  lengths = calloc(count + 1, sizeof *lengths);
  status = words != NULL && lengths != NULL ? VYRE_OK : fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: free memory.");
  for (i = 0; status == VYRE_OK && i < count; ++i) {
    const uint32_t access = ws_buffer_access(p, i);
    const uint32_t declared = ws_buffer_declared(p, i);
    size_t bytes = (size_t)declared * 4;
    const vyre_host_input* in = is_input(access) ? element(args->inputs, next_in++) : NULL;
    if (in != NULL) bytes = in->byte_len;
    if (bytes % 4 != 0 || (declared != 0 && bytes != (size_t)declared * 4) || (in != NULL && bytes && !in->data)) {
      status = fail(error, VYRE_ERR_INVALID_ARGUMENT, "an input's length does not fit its buffer. Fix: pass whole u32 elements.");
      break;
    }
    if (in == NULL && declared == 0) {
      status = fail(error, VYRE_ERR_UNSUPPORTED, "a runtime-sized output buffer. Fix: declare its count.");
      break;
    }
    lengths[i] = bytes / 4;
    words[i] = calloc(lengths[i] + 1, 4);
    if (words[i] == NULL) status = fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: free memory.");
    else if (in != NULL && bytes) memcpy(words[i], in->data, bytes);
    if (status == VYRE_OK && is_output(access)) {
      const vyre_host_output* o = element(args->outputs, next_out++);
      if (o->data == NULL || o->capacity < bytes)
        status = fail(error, VYRE_ERR_INVALID_ARGUMENT, "an output has less capacity than its buffer. Fix: pass a larger output.");
    }
  }
  if (status == VYRE_OK) status = elements(p, args->config, lengths, &n, &iterations, error);
  if (status == VYRE_OK) {
    run(p, n, iterations, words, lengths);
    for (i = 0, next_out = 0; i < count; ++i) {
      vyre_host_output* o;
      if (!is_output(ws_buffer_access(p, i))) continue;
      o = (vyre_host_output*)element(args->outputs, next_out++);
      if (lengths[i]) memcpy(o->data, words[i], lengths[i] * 4);
      o->byte_len = lengths[i] * 4;
    }
  }
  for (i = 0; words != NULL && i < count; ++i) free(words[i]);
  free(words);
  free(lengths);
  return status;
}

static vyre_status completed(vyre_pending** out, vyre_error** error) {
  vyre_pending* pending = calloc(1, sizeof *pending);
  if (pending == NULL) return fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: free memory.");
  pending->magic = MAGIC_PENDING;
  *out = pending;
  return VYRE_OK;
}

static vyre_status dispatch_async(vyre_backend* backend, const vyre_dispatch_args* args, vyre_pending** out,
                                  vyre_error** error) {
  vyre_status status;
  if (out == NULL) return fail(error, VYRE_ERR_INVALID_ARGUMENT, "dispatch_async: out is NULL. Fix: pass a pointer.");
  *out = NULL;
  status = dispatch(backend, args, error);
  return status == VYRE_OK ? completed(out, error) : status;
}

static vyre_status dispatch_timed(vyre_backend* backend, const vyre_dispatch_args* args, vyre_timing* out,
                                  vyre_error** error) {
  (void)backend, (void)args, (void)out;
  return unsupported(error);
}

static vyre_status pending_poll(vyre_backend* backend, vyre_pending* pending, int32_t* done, vyre_error** error) {
  if (!backend_ok(backend) || pending == NULL || pending->magic != MAGIC_PENDING) return bad_handle(error);
  if (done != NULL) *done = 1;
  return VYRE_OK;
}

static vyre_status pending_wait(vyre_backend* backend, vyre_pending* pending, uint64_t timeout_ns, vyre_error** error) {
  (void)timeout_ns;
  return pending_poll(backend, pending, NULL, error);
}

static vyre_status pending_release(vyre_backend* backend, vyre_pending* pending, vyre_error** error) {
  if (!backend_ok(backend) || pending == NULL || pending->magic != MAGIC_PENDING) return bad_handle(error);
  pending->magic = 0;
  free(pending);
  return VYRE_OK;
}

/* ---- resident buffers ---------------------------------------------------------------------- */

static vyre_status resident_alloc(vyre_backend* backend, uint64_t byte_len, vyre_resident** out, vyre_error** error) {
  vyre_resident* r;
  if (!backend_ok(backend)) return bad_handle(error);
  if (out == NULL || byte_len % 4 != 0 || byte_len > ((uint64_t)1 << 32))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "resident_alloc: NULL out, or a length that is not whole u32 words up to 4 GiB. Fix: pass one.");
  *out = NULL;
  r = calloc(1, sizeof *r);
  if (r != NULL) r->words = calloc((size_t)(byte_len / 4) + 1, 4);
  if (r == NULL || r->words == NULL) {
    free(r);
    return fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: allocate less.");
  }
  r->magic = MAGIC_RESIDENT;
  r->byte_len = byte_len;
  *out = r;
  return VYRE_OK;
}

static vyre_status resident_free(vyre_backend* backend, vyre_resident* buffer, vyre_error** error) {
  if (!backend_ok(backend) || !resident_ok(buffer)) return bad_handle(error);
  buffer->magic = 0;
  free(buffer->words);
  free(buffer);
  return VYRE_OK;
}

static vyre_status resident_byte_len(vyre_backend* backend, vyre_resident* buffer, uint64_t* out, vyre_error** error) {
  if (!backend_ok(backend) || !resident_ok(buffer)) return bad_handle(error);
  if (out == NULL) return fail(error, VYRE_ERR_INVALID_ARGUMENT, "resident_byte_len: out is NULL. Fix: pass a pointer.");
  *out = buffer->byte_len;
  return VYRE_OK;
}

static int in_bounds(const vyre_resident* r, uint64_t offset, size_t len) {
  return offset <= r->byte_len && len <= r->byte_len - offset;
}

static vyre_status resident_upload(vyre_backend* backend, const vyre_resident_write* writes, size_t count,
                                   vyre_error** error) {
  size_t i;
  if (!backend_ok(backend) || (count && writes == NULL)) return bad_handle(error);
  for (i = 0; i < count; ++i) { /* every check before any write */
    const vyre_resident_write* w = element(writes, i);
    if (!resident_ok(w->dst)) return bad_handle(error);
    if (!in_bounds(w->dst, w->offset, w->byte_len) || (w->byte_len && w->data == NULL))
      return fail(error, VYRE_ERR_INVALID_ARGUMENT, "a write outside its buffer. Fix: write inside the buffer.");
  }
  for (i = 0; i < count; ++i) {
    const vyre_resident_write* w = element(writes, i);
    if (w->byte_len) memcpy((unsigned char*)w->dst->words + w->offset, w->data, w->byte_len);
  }
  return VYRE_OK;
}

static vyre_status resident_download(vyre_backend* backend, const vyre_resident_read* reads, size_t count,
                                     vyre_error** error) {
  size_t i;
  if (!backend_ok(backend) || (count && reads == NULL)) return bad_handle(error);
  for (i = 0; i < count; ++i) {
    const vyre_resident_read* r = element(reads, i);
    if (!resident_ok(r->src)) return bad_handle(error);
    if (!in_bounds(r->src, r->offset, r->byte_len) || (r->byte_len && r->data == NULL))
      return fail(error, VYRE_ERR_INVALID_ARGUMENT, "a read outside its buffer. Fix: read inside the buffer.");
  }
  for (i = 0; i < count; ++i) {
    const vyre_resident_read* r = element(reads, i);
    if (r->byte_len) memcpy(r->data, (const unsigned char*)r->src->words + r->offset, r->byte_len);
  }
  return VYRE_OK;
}

static vyre_status dispatch_resident(vyre_backend* backend, const vyre_resident_dispatch_args* args, vyre_pending** out,
                                     vyre_error** error) {
  const ws_program* p;
  size_t i, count;
  uint32_t** words;
  uint64_t* lengths;
  uint64_t n = 0;
  uint32_t iterations = 1;
  vyre_status status = VYRE_OK;
  if (!backend_ok(backend)) return bad_handle(error);
  if (args == NULL || args->struct_size < SIZE_THROUGH(vyre_resident_dispatch_args, binding_count))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "vyre_resident_dispatch_args is NULL or smaller than ABI 1.0. Fix: set struct_size.");
  if (!program_ok(args->program)) return bad_handle(error);
  p = args->program->program;
  count = ws_buffer_count(p);
  if (args->binding_count != count || (count && args->bindings == NULL))
    return fail(error, VYRE_ERR_INVALID_ARGUMENT, "the binding count does not match the program. Fix: bind every buffer.");
  words = calloc(count + 1, sizeof *words);
  lengths = calloc(count + 1, sizeof *lengths);
  if (words == NULL || lengths == NULL) status = fail(error, VYRE_ERR_OUT_OF_MEMORY, "out of host memory. Fix: free memory.");
  for (i = 0; status == VYRE_OK && i < count; ++i) {
    const vyre_binding* b = element(args->bindings, i);
    const uint32_t declared = ws_buffer_declared(p, i);
    uint64_t bytes;
    if (b->kind == VYRE_BIND_RESIDENT) {
      if (!resident_ok(b->resident)) {
        status = bad_handle(error);
        break;
      }
      bytes = b->resident->byte_len;
      words[i] = b->resident->words;
    } else if (b->kind == VYRE_BIND_HOST && !is_output(ws_buffer_access(p, i))) {
      bytes = b->host_byte_len;
      words[i] = (uint32_t*)(void*)(uintptr_t)b->host_data; /* read-only: the subset never stores to it */
    } else {
      status = fail(error, VYRE_ERR_INVALID_ARGUMENT, "a binding of an unknown kind, or a host binding of a written buffer. Fix: bind it resident.");
      break;
    }
    if (bytes % 4 != 0 || (declared != 0 && bytes != (uint64_t)declared * 4))
      status = fail(error, VYRE_ERR_INVALID_ARGUMENT, "a bound buffer's length does not fit its declaration. Fix: bind one of the declared size.");
    lengths[i] = bytes / 4;
  }
  if (status == VYRE_OK) status = elements(p, args->config, lengths, &n, &iterations, error);
  if (status == VYRE_OK) run(p, n, iterations, words, lengths);
  free(words);
  free(lengths);
  if (status != VYRE_OK || out == NULL) return status;
  *out = NULL;
  return completed(out, error);
}

static vyre_status dispatch_resident_timed(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                           vyre_timing* out, vyre_error** error) {
  (void)backend, (void)args, (void)out;
  return unsupported(error);
}

/* ---- everything else ---------------------------------------------------------------------- */

static vyre_status sequence_run(vyre_backend* backend, const vyre_sequence_args* args, vyre_error** error) {
  (void)backend, (void)args;
  return unsupported(error);
}

static vyre_status pipeline_create(vyre_backend* backend, const vyre_pipeline_args* args, vyre_pipeline** out,
                                   vyre_error** error) {
  (void)backend, (void)args, (void)out;
  return unsupported(error);
}

static vyre_status pipeline_dispatch(vyre_backend* backend, const vyre_pipeline_dispatch_args* args, vyre_error** error) {
  (void)backend, (void)args;
  return unsupported(error);
}

static vyre_status pipeline_release(vyre_backend* backend, vyre_pipeline* pipeline, vyre_error** error) {
  (void)backend, (void)pipeline;
  return unsupported(error);
}

static vyre_status aot_emit(vyre_backend* backend, const vyre_aot_args* args, vyre_aot_output** out, vyre_error** error) {
  (void)backend, (void)args, (void)out;
  return unsupported(error);
}

static void aot_release(vyre_aot_output* output) { (void)output; }

static vyre_status metrics_snapshot(vyre_backend* backend, vyre_metric* out, size_t capacity, size_t* count,
                                    vyre_error** error) {
  (void)out, (void)capacity;
  if (!backend_ok(backend)) return bad_handle(error);
  if (count != NULL) *count = 0;
  return VYRE_OK;
}

static vyre_status metrics_reset(vyre_backend* backend, vyre_error** error) {
  return backend_ok(backend) ? VYRE_OK : bad_handle(error);
}

#if COMPAT_ABI_MINOR >= 1
static vyre_status resident_import(vyre_backend* backend, const vyre_external_memory* memory, vyre_resident** out,
                                   vyre_error** error) {
  (void)backend, (void)memory, (void)out;
  return unsupported(error);
}

static vyre_status resident_export(vyre_backend* backend, vyre_resident* buffer, vyre_memory_export* out,
                                   vyre_error** error) {
  (void)backend, (void)buffer, (void)out;
  return unsupported(error);
}

static vyre_status pending_cancel(vyre_backend* backend, vyre_pending* pending, vyre_error** error) {
  (void)backend, (void)pending;
  return unsupported(error);
}
#endif

#if COMPAT_ABI_MINOR != 1
/* What a host must never call: table members beyond what it knows. */
static void never_called(void) { abort(); }
#endif

#define COMPAT_TABLE_1_0                                                                              \
  error_release, create, destroy, device_profile, program_compile, program_release, dispatch,        \
      dispatch_async, dispatch_timed, pending_poll, pending_wait, pending_release, resident_alloc,   \
      resident_free, resident_byte_len, resident_upload, resident_download, dispatch_resident,       \
      dispatch_resident_timed, sequence_run, pipeline_create, pipeline_dispatch, pipeline_release,   \
      aot_emit, aot_release, metrics_snapshot, metrics_reset

#if COMPAT_ABI_MINOR == 0
/* The 1.0 table, and after it memory a host must not read as table slots. */
static const struct {
  vyre_backend_fns fns;
  void (*poison[8])(void);
} table = {{sizeof(vyre_backend_fns), COMPAT_TABLE_1_0},
           {never_called, never_called, never_called, never_called, never_called, never_called, never_called,
            never_called}};
#define COMPAT_FNS (&table.fns)
#elif COMPAT_ABI_MINOR == 1
static const vyre_backend_fns table = {sizeof(vyre_backend_fns), COMPAT_TABLE_1_0, NULL, resident_import,
                                       resident_export, pending_cancel};
#define COMPAT_FNS (&table)
#else
/* An extension type of the future, larger than any extension struct of 1.1. */
#define COMPAT_FUTURE_EXTENSION 0x7FFFu
static const struct {
  vyre_extension base;
  void (*future_call)(void);
  uint64_t future_value;
} future_extension = {{sizeof future_extension, COMPAT_FUTURE_EXTENSION, 0, NULL}, never_called, 42};

/* The 1.2 table: every 1.1 member, then two slots no host of today knows. */
static const struct {
  vyre_backend_fns fns;
  void (*future_slot_a)(void);
  void (*future_slot_b)(void);
} table = {{sizeof table, COMPAT_TABLE_1_0, &future_extension.base, resident_import, resident_export, pending_cancel},
           never_called, never_called};
#define COMPAT_FNS (&table.fns)
#endif

static const char* const op_ids[] = {
    "load.u32",    "store.u32",   "builtin.invocation_id", "builtin.buf_len", "bin.add.u32", "bin.sub.u32",
    "bin.mul.u32", "bin.shl.u32", "bin.shr.u32",           "bin.and.u32",     "bin.or.u32",  "bin.xor.u32",
    "bin.eq.u32",  "bin.ne.u32",  "bin.lt.u32",            "bin.le.u32",      "bin.gt.u32",  "bin.ge.u32",
    "node.let",    "node.assign", "node.if",               "node.return",     "node.block"};

VYRE_PLUGIN_EXPORT vyre_status vyre_backend_register(const vyre_host_info* host, vyre_backend_info* info) {
  vyre_backend_info mine;
  size_t size;
  (void)host;
  if (info == NULL || info->struct_size < SIZE_THROUGH(vyre_backend_info, failure)) return VYRE_ERR_ABI;
  memset(&mine, 0, sizeof mine);
  mine.abi_major = VYRE_ABI_VERSION_MAJOR;
  mine.abi_minor = COMPAT_ABI_MINOR;
  mine.id = COMPAT_ID;
  mine.version = "0.0.1-compat";
  mine.rank = 700;
  mine.capabilities = VYRE_CAP_DISPATCH | VYRE_CAP_ASYNC | VYRE_CAP_RESIDENT;
  mine.op_ids = op_ids;
  mine.op_count = sizeof op_ids / sizeof op_ids[0];
  mine.fns = COMPAT_FNS;
  size = info->struct_size < sizeof mine ? info->struct_size : sizeof mine;
  memcpy(info, &mine, size);
  info->struct_size = size;
  return VYRE_OK;
}
