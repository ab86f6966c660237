"""The test kernels written with the Python builder: twins of reference_programs.cpp."""
import vyre


def xor_program():
    k = vyre.ProgramBuilder(workgroup=64)
    a = k.buffer("a", "read", "u32", 1024)
    b = k.buffer("b", "read", "u32", 1024)
    out = k.buffer("out", "output", "u32", 1024)
    i = k.let("i", k.invocation_id())
    out[i] = a[i] ^ b[i]
    return k.build()


def softmax_program(rows=256, cols=64):
    k = vyre.ProgramBuilder(workgroup=64)
    x = k.buffer("x", "read", "f32", rows * cols)
    out = k.buffer("out", "output", "f32", rows * cols)
    row = k.let("row", k.invocation_id())
    with k.if_(row < rows):
        base = k.let("base", row * cols)
        m = k.let("m", x[base])
        with k.loop("j", 1, cols) as j:
            k.assign(m, vyre.max(m, x[base + j]))
        s = k.let("s", vyre.lit(0.0, "f32"))
        with k.loop("j", 0, cols) as j:
            k.assign(s, s + vyre.exp(x[base + j] - m))
        with k.loop("j", 0, cols) as j:
            out[base + j] = vyre.exp(x[base + j] - m) / s
    return k.build()


def histogram_program():
    k = vyre.ProgramBuilder(workgroup=64)
    values = k.buffer("values", "read", "u32")
    hist = k.buffer("hist", "output", "u32", 16)
    i = k.let("i", k.invocation_id())
    with k.if_(i < values.len()):
        bin_ = k.let("bin", values[i] % 16)
        k.let("old", hist.atomic_add(bin_, 1))
    return k.build()


def branches_program():
    k = vyre.ProgramBuilder(workgroup=64)
    inp = k.buffer("in", "read", "f16", 1024)
    tile = k.buffer("tile", "workgroup", "f32", 64)
    out = k.buffer("out", "output", "i32", 1024)
    k.output_range(out, 16, 4096)
    lid = k.let("lid", k.local_id())
    gid = k.let("gid", k.invocation_id())
    tile[lid] = inp[gid]
    k.barrier()
    with k.if_(tile[lid] > 0.5):
        out[gid] = tile[lid].cast("i32")
    with k.else_():
        out[gid] = -(tile[lid] * -2.0).cast("i32")
    with k.block():
        t = k.let("t", vyre.select(lid == 0, vyre.lit(-7, "i32"), vyre.lit(3, "i32")))
        out[lid] = t
    return k.build()


KERNELS = {"xor": xor_program, "softmax": softmax_program, "histogram": histogram_program,
           "branches": branches_program}
