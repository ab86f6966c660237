/* A small part of vyre in C11, for the ABI compatibility plugins (compat_plugin.c): a decoder of
 * the wire format (docs/WIRE.md) for a subset of programs, and an interpreter of that subset.
 * The subset: u32 buffers (no workgroup buffers); statements let, assign, store, if, return,
 * block; expressions lit (u32, bool), var, load, buf_len, invocation_id(0), and the binary
 * operators add sub mul and or xor shl shr eq ne lt le gt ge. Loads out of bounds read 0; stores
 * out of bounds are dropped (SPEC §2). Not thread-safe per program; programs are immutable after
 * decoding, so one may run on many threads at once. */
#ifndef COMPAT_WIRE_SUBSET_H
#define COMPAT_WIRE_SUBSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct ws_program ws_program;

#define WS_OK 0
#define WS_MALFORMED 1   /* the bytes are not a well-formed wire program */
#define WS_UNSUPPORTED 2 /* well-formed, but outside the subset */

/* Decode `wire`. On failure returns NULL, sets *status and *why (a static string). */
ws_program* ws_decode(const uint8_t* wire, size_t len, int* status, const char** why);
void ws_free(ws_program* program);

size_t ws_buffer_count(const ws_program* program);
uint32_t ws_buffer_access(const ws_program* program, size_t i); /* wire access value: read 0 ... output 3 */
uint32_t ws_buffer_declared(const ws_program* program, size_t i); /* declared element count; 0: runtime-sized */

/* Run invocations 0 .. n-1 over `buffers` (u32 words; `lengths` in words, one per buffer). */
void ws_run(const ws_program* program, uint64_t n, uint32_t* const* buffers, const uint64_t* lengths);

#endif
