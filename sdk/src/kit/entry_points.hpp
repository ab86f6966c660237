// The kit's implementations of every slot of vyre_backend_fns (installed by register_backend).
#pragma once

#include "vyre/backend_abi.h"

namespace vyre::kit::detail {

void error_release(vyre_error* error);
vyre_status create(const vyre_create_options* options, vyre_backend** out, vyre_error** error);
void destroy(vyre_backend* backend);
vyre_status device_profile(vyre_backend* backend, vyre_device_profile* out, vyre_error** error);
vyre_status program_compile(vyre_backend* backend, const uint8_t* wire, size_t wire_len,
                            vyre_program** out, vyre_error** error);
vyre_status program_release(vyre_backend* backend, vyre_program* program, vyre_error** error);

vyre_status dispatch(vyre_backend* backend, const vyre_dispatch_args* args, vyre_error** error);
vyre_status dispatch_async(vyre_backend* backend, const vyre_dispatch_args* args,
                           vyre_pending** out, vyre_error** error);
vyre_status dispatch_timed(vyre_backend* backend, const vyre_dispatch_args* args, vyre_timing* out,
                           vyre_error** error);
vyre_status pending_poll(vyre_backend* backend, vyre_pending* pending, int32_t* done,
                         vyre_error** error);
vyre_status pending_wait(vyre_backend* backend, vyre_pending* pending, uint64_t timeout_ns,
                         vyre_error** error);
vyre_status pending_release(vyre_backend* backend, vyre_pending* pending, vyre_error** error);

vyre_status resident_alloc(vyre_backend* backend, uint64_t byte_len, vyre_resident** out,
                           vyre_error** error);
vyre_status resident_free(vyre_backend* backend, vyre_resident* buffer, vyre_error** error);
vyre_status resident_byte_len(vyre_backend* backend, vyre_resident* buffer, uint64_t* out,
                              vyre_error** error);
vyre_status resident_upload(vyre_backend* backend, const vyre_resident_write* writes, size_t count,
                            vyre_error** error);
vyre_status resident_download(vyre_backend* backend, const vyre_resident_read* reads, size_t count,
                              vyre_error** error);
vyre_status dispatch_resident(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                              vyre_pending** out, vyre_error** error);
vyre_status dispatch_resident_timed(vyre_backend* backend, const vyre_resident_dispatch_args* args,
                                    vyre_timing* out, vyre_error** error);
vyre_status sequence_run(vyre_backend* backend, const vyre_sequence_args* args, vyre_error** error);

vyre_status pipeline_create(vyre_backend* backend, const vyre_pipeline_args* args,
                            vyre_pipeline** out, vyre_error** error);
vyre_status pipeline_dispatch(vyre_backend* backend, const vyre_pipeline_dispatch_args* args,
                              vyre_error** error);
vyre_status pipeline_release(vyre_backend* backend, vyre_pipeline* pipeline, vyre_error** error);

vyre_status aot_emit(vyre_backend* backend, const vyre_aot_args* args, vyre_aot_output** out,
                     vyre_error** error);
void aot_release(vyre_aot_output* output);

vyre_status metrics_snapshot(vyre_backend* backend, vyre_metric* out, size_t capacity,
                             size_t* count, vyre_error** error);
vyre_status metrics_reset(vyre_backend* backend, vyre_error** error);

}  // namespace vyre::kit::detail
