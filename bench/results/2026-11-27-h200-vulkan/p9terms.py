# P9 per-term costs on the device: what each piece of a tensor-bound resident dispatch costs.
import sys, time, timeit
import numpy as np, torch, vyre
def us(stmt, n=20000, g=None):
    t = timeit.Timer(stmt, globals=g).repeat(5, n); return min(t) / n * 1e6
reg = vyre.Registry(); be = reg.backend("cuda")
k = vyre.ProgramBuilder(workgroup=64)
a = k.buffer("a", "read", "u32", 1024); b = k.buffer("b", "read", "u32", 1024); o = k.buffer("out", "output", "u32", 1024)
i = k.let("i", k.invocation_id()); o[i] = a[i] ^ b[i]; prog = k.build()
ta = torch.zeros(1024, dtype=torch.int32, device="cuda"); tb = ta.clone(); to = ta.clone()
s = torch.cuda.current_stream(0); raw = torch._C._cuda_getCurrentRawStream
ra, rb, ro = be.to_device(np.zeros(1024, np.uint32)), be.to_device(np.zeros(1024, np.uint32)), be.alloc(4096, "uint32")
g = dict(globals())
for name, stmt in [("raw_stream(0)", "raw(0)"), ("Stream.synchronize", "s.synchronize()"),
                   ("torch.cuda.synchronize", "torch.cuda.synchronize()"),
                   ("data_ptr()", "ta.data_ptr()"), ("nbytes", "ta.nbytes"), ("dtype", "ta.dtype"),
                   ("is_contiguous()", "ta.is_contiguous()"), ("_version", "ta._version"),
                   ("run_resident buffers", "be.run_resident(prog, a=ra, b=rb, out=ro)"),
                   ("run_resident tensors", "be.run_resident(prog, a=ta, b=tb, out=to)")]:
    try: print(f"{name:28s} {us(stmt, 2000 if 'run' in name else 20000, g):8.3f} us")
    except Exception as e: print(name, "error", e)
# does _version move on set_/resize_/in-place metadata ops?
t = torch.zeros(16, device="cuda"); v0 = t._version
t.resize_(8); v1 = t._version; t.set_(torch.zeros(4, device="cuda")); v2 = t._version
t.t_() if t.dim() == 2 else None; t.unsqueeze_(0); v3 = t._version; t.data = torch.zeros(3, device="cuda"); v4 = t._version
print("versions (start, resize_, set_, unsqueeze_, .data=):", v0, v1, v2, v3, v4)
print(be.dlpack_cache_info())
