/* See wire_subset.h. */
#include "wire_subset.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_DEPTH = 64, MAX_VARS = 64 };
enum { NODE_LET = 0, NODE_ASSIGN = 1, NODE_STORE = 2, NODE_IF = 3, NODE_RETURN = 5, NODE_BLOCK = 6 };
enum { EXPR_LIT = 0, EXPR_VAR = 1, EXPR_LOAD = 2, EXPR_BUF_LEN = 3, EXPR_INVOCATION_ID = 4, EXPR_BIN = 10 };
enum { TYPE_BOOL = 0, TYPE_U32 = 1 };

typedef struct ws_name {
  const uint8_t* text; /* into the program's copy of the wire bytes */
  uint32_t len;
} ws_name;

typedef struct ws_expr {
  uint8_t kind;
  uint8_t op;       /* bin_op */
  uint32_t value;   /* lit bits (u32), buffer index */
  ws_name name;     /* var */
  struct ws_expr* args[2];
  uint8_t arg_count;
} ws_expr;

typedef struct ws_node {
  uint8_t kind;
  ws_name name;     /* let, assign */
  uint32_t buffer;  /* store */
  ws_expr* exprs[2];
  uint8_t expr_count;
  struct ws_node** body;
  uint32_t body_count;
  struct ws_node** other; /* else */
  uint32_t other_count;
} ws_node;

typedef struct ws_buffer {
  ws_name name;
  uint32_t access;
  uint32_t count;
} ws_buffer;

struct ws_program {
  uint8_t* bytes;
  ws_buffer* buffers;
  uint32_t buffer_count;
  ws_node** body;
  uint32_t body_count;
};

/* ---- decoding ---------------------------------------------------------------------------- */

typedef struct reader {
  const uint8_t* at;
  const uint8_t* end;
  int status;
  const char* why;
  ws_program* program;
} reader;

static int failed(reader* r, int status, const char* why) {
  if (r->status == WS_OK) {
    r->status = status;
    r->why = why;
  }
  return 0;
}

static int take(reader* r, size_t n, const uint8_t** out) {
  if ((size_t)(r->end - r->at) < n) return failed(r, WS_MALFORMED, "the wire bytes end early");
  *out = r->at;
  r->at += n;
  return 1;
}

static uint64_t le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  int i;
  for (i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

static int u8(reader* r, uint32_t* v) {
  const uint8_t* p;
  if (!take(r, 1, &p)) return 0;
  *v = p[0];
  return 1;
}

static int u32(reader* r, uint32_t* v) {
  const uint8_t* p;
  if (!take(r, 4, &p)) return 0;
  *v = (uint32_t)le(p, 4);
  return 1;
}

static int name(reader* r, ws_name* out) {
  if (!u32(r, &out->len)) return 0;
  return take(r, out->len, &out->text);
}

static int same(ws_name a, ws_name b) { return a.len == b.len && memcmp(a.text, b.text, a.len) == 0; }

static int buffer_index(reader* r, ws_name n, uint32_t* out) {
  uint32_t i;
  for (i = 0; i < r->program->buffer_count; ++i)
    if (same(r->program->buffers[i].name, n)) {
      *out = i;
      return 1;
    }
  return failed(r, WS_MALFORMED, "a statement or expression names no declared buffer");
}

static int supported_bin(uint32_t op) {
  return op <= 2 || op == 5 || op == 6 || (op >= 16 && op <= 24);
}

static ws_expr* expr(reader* r, int depth) {
  uint32_t kind, v = 0, count, i;
  ws_name n;
  ws_expr* e;
  if (depth > MAX_DEPTH) return failed(r, WS_UNSUPPORTED, "expressions nest too deeply"), NULL;
  if (!u8(r, &kind)) return NULL;
  e = calloc(1, sizeof *e);
  if (e == NULL) return failed(r, WS_UNSUPPORTED, "out of memory"), NULL;
  e->kind = (uint8_t)kind;
  switch (kind) {
    case EXPR_LIT: {
      const uint8_t* bits;
      if (!u8(r, &v) || !take(r, 8, &bits)) break;
      if (v != TYPE_U32 && v != TYPE_BOOL) failed(r, WS_UNSUPPORTED, "a literal that is not u32 or bool");
      e->value = (uint32_t)le(bits, 8);
      break;
    }
    case EXPR_VAR: name(r, &e->name); break;
    case EXPR_LOAD:
    case EXPR_BUF_LEN:
      if (name(r, &n)) buffer_index(r, n, &e->value);
      break;
    case EXPR_INVOCATION_ID:
      if (u32(r, &v) && v != 0) failed(r, WS_UNSUPPORTED, "invocation_id of an axis other than x");
      break;
    case EXPR_BIN:
      if (u8(r, &v) && !supported_bin(v)) failed(r, WS_UNSUPPORTED, "a binary operator outside the subset");
      e->op = (uint8_t)v; /* 0 when the byte was missing (then r->status is set) */
      break;
    default: failed(r, WS_UNSUPPORTED, "an expression kind outside the subset");
  }
  if (r->status == WS_OK && u8(r, &count)) {
    if (count > 2) failed(r, WS_UNSUPPORTED, "an expression with more than two operands");
    for (i = 0; r->status == WS_OK && i < count; ++i) e->args[e->arg_count++] = expr(r, depth + 1);
  }
  return e;
}

static ws_node* node(reader* r, int depth);

static ws_node** node_list(reader* r, uint32_t* count, int depth) {
  ws_node** list;
  uint32_t i;
  if (!u32(r, count)) return NULL;
  if (*count > (size_t)(r->end - r->at)) return failed(r, WS_MALFORMED, "a statement count larger than the bytes left"), NULL;
  list = calloc(*count + 1, sizeof *list);
  if (list == NULL) return failed(r, WS_UNSUPPORTED, "out of memory"), NULL;
  for (i = 0; r->status == WS_OK && i < *count; ++i) list[i] = node(r, depth);
  return list;
}

static ws_node* node(reader* r, int depth) {
  uint32_t kind, count, i;
  ws_node* s;
  if (depth > MAX_DEPTH) return failed(r, WS_UNSUPPORTED, "statements nest too deeply"), NULL;
  if (!u8(r, &kind)) return NULL;
  s = calloc(1, sizeof *s);
  if (s == NULL) return failed(r, WS_UNSUPPORTED, "out of memory"), NULL;
  s->kind = (uint8_t)kind;
  if (kind == NODE_LET || kind == NODE_ASSIGN) {
    name(r, &s->name);
  } else if (kind == NODE_STORE) {
    ws_name n;
    if (name(r, &n)) buffer_index(r, n, &s->buffer);
  } else if (kind != NODE_IF && kind != NODE_RETURN && kind != NODE_BLOCK) {
    failed(r, WS_UNSUPPORTED, "a statement kind outside the subset (loop, barrier)");
  }
  if (r->status == WS_OK && u8(r, &count)) {
    if (count > 2) failed(r, WS_UNSUPPORTED, "a statement with more than two expressions");
    for (i = 0; r->status == WS_OK && i < count; ++i) s->exprs[s->expr_count++] = expr(r, depth + 1);
  }
  if (r->status == WS_OK && (kind == NODE_IF || kind == NODE_BLOCK)) s->body = node_list(r, &s->body_count, depth + 1);
  if (r->status == WS_OK && kind == NODE_IF) s->other = node_list(r, &s->other_count, depth + 1);
  return s;
}

static int buffers(reader* r) {
  ws_program* p = r->program;
  uint32_t i, binding, access, element, has_range;
  const uint8_t* range;
  if (!u32(r, &p->buffer_count)) return 0;
  if (p->buffer_count > (size_t)(r->end - r->at)) return failed(r, WS_MALFORMED, "a buffer count larger than the bytes left");
  p->buffers = calloc(p->buffer_count + 1, sizeof *p->buffers);
  if (p->buffers == NULL) return failed(r, WS_UNSUPPORTED, "out of memory");
  for (i = 0; i < p->buffer_count; ++i) {
    ws_buffer* b = &p->buffers[i];
    if (!name(r, &b->name) || !u32(r, &binding) || !u8(r, &access) || !u8(r, &element) || !u32(r, &b->count) ||
        !u8(r, &has_range))
      return 0;
    if (has_range == 1 && !take(r, 16, &range)) return 0;
    if (access > 3) return failed(r, WS_UNSUPPORTED, "a workgroup buffer (or an unknown access)");
    if (element != TYPE_U32) return failed(r, WS_UNSUPPORTED, "a buffer whose element type is not u32");
    if (has_range != 0) return failed(r, WS_UNSUPPORTED, "an output byte range");
    b->access = access;
  }
  return 1;
}

static void free_expr(ws_expr* e) {
  if (e == NULL) return;
  free_expr(e->args[0]);
  free_expr(e->args[1]);
  free(e);
}

static void free_nodes(ws_node** list, uint32_t count);

static void free_node(ws_node* s) {
  if (s == NULL) return;
  free_expr(s->exprs[0]);
  free_expr(s->exprs[1]);
  free_nodes(s->body, s->body_count);
  free_nodes(s->other, s->other_count);
  free(s);
}

static void free_nodes(ws_node** list, uint32_t count) {
  uint32_t i;
  if (list == NULL) return;
  for (i = 0; i < count; ++i) free_node(list[i]);
  free(list);
}

void ws_free(ws_program* p) {
  if (p == NULL) return;
  free_nodes(p->body, p->body_count);
  free(p->buffers);
  free(p->bytes);
  free(p);
}

ws_program* ws_decode(const uint8_t* wire, size_t len, int* status, const char** why) {
  reader r;
  const uint8_t* header;
  const uint8_t* workgroup;
  ws_program* p = calloc(1, sizeof *p);
  *status = WS_UNSUPPORTED;
  *why = "out of memory";
  if (p == NULL || (p->bytes = malloc(len + 1)) == NULL) {
    free(p);
    return NULL;
  }
  if (len != 0) memcpy(p->bytes, wire, len);
  r.at = p->bytes;
  r.end = p->bytes + len;
  r.status = WS_OK;
  r.why = NULL;
  r.program = p;
  if (take(&r, 12, &header)) {
    if (memcmp(header, "VYRE", 4) != 0 || le(header + 4, 2) != 1 || le(header + 6, 2) != 0 || le(header + 8, 4) != len - 12)
      failed(&r, WS_MALFORMED, "not a version 1 wire header");
  }
  if (r.status == WS_OK && take(&r, 12, &workgroup) && buffers(&r)) p->body = node_list(&r, &p->body_count, 1);
  if (r.status == WS_OK && r.at != r.end) failed(&r, WS_MALFORMED, "trailing bytes after the program");
  if (r.status != WS_OK) {
    *status = r.status;
    *why = r.why;
    ws_free(p);
    return NULL;
  }
  *status = WS_OK;
  *why = NULL;
  return p;
}

size_t ws_buffer_count(const ws_program* p) { return p->buffer_count; }
uint32_t ws_buffer_access(const ws_program* p, size_t i) { return p->buffers[i].access; }
uint32_t ws_buffer_declared(const ws_program* p, size_t i) { return p->buffers[i].count; }

/* ---- running ----------------------------------------------------------------------------- */

typedef struct frame {
  uint32_t* const* buffers;
  const uint64_t* lengths;
  uint64_t invocation;
  ws_name names[MAX_VARS];
  uint32_t values[MAX_VARS];
  int vars;
  int returned;
} frame;

static uint32_t eval(frame* f, const ws_expr* e);

static uint32_t bin(uint8_t op, uint32_t a, uint32_t b) {
  switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    case 5: return b >= 32 ? 0u : a << b;
    case 6: return b >= 32 ? 0u : a >> b;
    case 16: return a & b;
    case 17: return a | b;
    case 18: return a ^ b;
    case 19: return a == b;
    case 20: return a != b;
    case 21: return a < b;
    case 22: return a <= b;
    case 23: return a > b;
    default: return a >= b; /* 24 */
  }
}

static uint32_t* var(frame* f, ws_name n) {
  int i;
  for (i = f->vars - 1; i >= 0; --i)
    if (same(f->names[i], n)) return &f->values[i];
  return NULL;
}

static uint32_t eval(frame* f, const ws_expr* e) {
  uint32_t* v;
  uint32_t index;
  switch (e->kind) {
    case EXPR_LIT: return e->value;
    case EXPR_VAR: return (v = var(f, e->name)) != NULL ? *v : 0u;
    case EXPR_LOAD:
      index = e->arg_count > 0 ? eval(f, e->args[0]) : 0u;
      return index < f->lengths[e->value] ? f->buffers[e->value][index] : 0u;
    case EXPR_BUF_LEN: return (uint32_t)f->lengths[e->value];
    case EXPR_INVOCATION_ID: return (uint32_t)f->invocation;
    default: return e->arg_count == 2 ? bin(e->op, eval(f, e->args[0]), eval(f, e->args[1])) : 0u;
  }
}

static void run_list(frame* f, ws_node* const* list, uint32_t count);

static void run_node(frame* f, const ws_node* s) {
  uint32_t* v;
  int scope = f->vars;
  switch (s->kind) {
    case NODE_LET:
      if (f->vars < MAX_VARS && s->expr_count > 0) {
        f->names[f->vars] = s->name;
        f->values[f->vars++] = eval(f, s->exprs[0]);
      }
      return;
    case NODE_ASSIGN:
      if (s->expr_count > 0 && (v = var(f, s->name)) != NULL) *v = eval(f, s->exprs[0]);
      return;
    case NODE_STORE:
      if (s->expr_count == 2) {
        uint32_t index = eval(f, s->exprs[0]);
        uint32_t value = eval(f, s->exprs[1]);
        if (index < f->lengths[s->buffer]) f->buffers[s->buffer][index] = value;
      }
      return;
    case NODE_IF:
      if (s->expr_count > 0 && eval(f, s->exprs[0]) != 0)
        run_list(f, s->body, s->body_count);
      else
        run_list(f, s->other, s->other_count);
      f->vars = scope;
      return;
    case NODE_RETURN: f->returned = 1; return;
    default: run_list(f, s->body, s->body_count); f->vars = scope; return; /* block */
  }
}

static void run_list(frame* f, ws_node* const* list, uint32_t count) {
  uint32_t i;
  for (i = 0; i < count && !f->returned; ++i) run_node(f, list[i]);
}

void ws_run(const ws_program* p, uint64_t n, uint32_t* const* buffers, const uint64_t* lengths) {
  frame f;
  for (f.invocation = 0; f.invocation < n; ++f.invocation) {
    f.buffers = buffers;
    f.lengths = lengths;
    f.vars = 0;
    f.returned = 0;
    run_list(&f, p->body, p->body_count);
  }
}
