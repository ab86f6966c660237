"""The binding's own cost of a resident dispatch (bench/NOTES.md, "P9-binding"), without a GPU: the
same synchronous resident dispatch of the 1024-element u32 xor from the C++ host API
(Backend::dispatch_resident in a C++ loop, `backend._cpp_resident_loop`, as vyre-bench P9 calls it)
and from Python (`backend.run_resident`), in one process, in interleaved batches; the figure of each
variant is the minimum over batches of the mean per call (the machine may be shared and noisy).

  PYTHONPATH=<build>/python python3 bench/python_binding_overhead.py [--fake <libvyre_fake_cuda.so>]

reference_cpu always; cuda over the fake CUDA driver with --fake (the kernel does not run there: the
host side's cost only), or on the GPU with --cuda, where P9's call itself (three torch CUDA tensors
bound straight) and its parts are timed too: the C++ dispatch ordered after torch's stream
(dispatch_resident_after), tensors imported once, torch's fingerprint reads, its raw stream query. Variants: ResidentBuffers by keyword and by position, a prepared call
(backend.prepare_resident, where the package has it), and where torch imports, a torch CPU tensor
bound as `out` (reference_cpu: an import-cache hit each call; torch without Tensor.nbytes (< 2.0)
gets a Python property for it, which costs more than torch's own).
"""
import argparse
import os
import sys
import time

import numpy as np

import vyre

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from python_cases import ELEMENTS, xor_program  # noqa: E402


def measure(variants, batches, calls):
    """{name: minimum over batches of the mean us per call}; variants run in turn within a batch."""
    for _, fn in variants:
        for _ in range(3):
            fn(calls // 10 or 1)
    best = {name: float("inf") for name, _ in variants}
    for _ in range(batches):
        for name, fn in variants:
            best[name] = min(best[name], fn(calls) / calls / 1000)
    return best


def python_loop(call):
    def run(n):
        start = time.perf_counter_ns()
        for _ in range(n):
            call()
        return time.perf_counter_ns() - start
    return run


def torch_module():
    try:
        import torch
    except Exception:  # ImportError, or a broken install
        return None
    if not hasattr(torch.Tensor, "nbytes"):
        torch.Tensor.nbytes = property(lambda t: t.element_size() * t.numel())
    return torch


def variants_for(backend, program, torch=None, cuda=False):
    a = np.arange(ELEMENTS, dtype=np.uint32)
    ra, rb, rout = backend.to_device(a), backend.to_device(a[::-1].copy()), backend.alloc(ELEMENTS * 4, "uint32")
    out = [
        ("py loop floor: a lambda returning None", python_loop(lambda: None)),
        ("C++ dispatch_resident", lambda n: backend._cpp_resident_loop(program, [ra, rb, rout], n)),
        ("py run_resident(a=, b=, out=) ResidentBuffers",
         python_loop(lambda: backend.run_resident(program, a=ra, b=rb, out=rout))),
        ("py run_resident(ra, rb, rout) positional", python_loop(lambda: backend.run_resident(program, ra, rb, rout))),
    ]
    if hasattr(backend, "prepare_resident"):
        call = backend.prepare_resident(program, a=ra, b=rb, out=rout)
        out.append(("py prepare_resident(...)() ResidentBuffers", python_loop(call)))
    if torch is not None and backend.id == "reference_cpu":
        tout = torch.zeros(ELEMENTS, dtype=torch.int32)
        out.append(("py run_resident, out= a torch CPU tensor (cache hit)",
                    python_loop(lambda: backend.run_resident(program, a=ra, b=rb, out=tout))))
    if torch is not None and cuda:  # P9's own call and its parts, on the GPU
        ta, tb, tout = (torch.zeros(ELEMENTS, dtype=torch.int32, device="cuda") for _ in range(3))
        ia, ib, iout = (backend.from_dlpack(t) for t in (ta, tb, tout))
        stream = torch._C._cuda_getCurrentRawStream(0) if hasattr(torch._C, "_cuda_getCurrentRawStream") \
            else torch.cuda.current_stream(0).cuda_stream
        out += [
            ("C++ dispatch_resident_after(torch's stream)",
             lambda n: backend._cpp_resident_loop(program, [ra, rb, rout], n, stream)),
            ("py run_resident on from_dlpack imports", python_loop(lambda: backend.run_resident(program, a=ia, b=ib, out=iout))),
            ("py run_resident on 3 torch tensors (P9)",
             python_loop(lambda: backend.run_resident(program, a=ta, b=tb, out=tout))),
            ("py 3 torch fingerprints (4 reads each)", python_loop(lambda: [
                (t.data_ptr(), t.nbytes, t.dtype, t.is_contiguous()) for t in (ta, tb, tout)])),
            ("py torch raw current stream", python_loop(lambda: torch._C._cuda_getCurrentRawStream(0))),
        ]
    return out


def run_variants_for(backend, program):
    """P8's call (a host round trip with NumPy arrays) against P2's (Backend::dispatch in C++)."""
    a = np.arange(ELEMENTS, dtype=np.uint32)
    b = a[::-1].copy()
    out = backend.run(program, a=a, b=b)
    if backend.id != "cuda" or "fake" not in backend.device["name"].lower():
        assert (out == (a ^ b)).all(), "run's output differs from a ^ b"
    return [
        ("C++ dispatch (P2's call)", lambda n: backend._cpp_run_loop(program, [a, b], n)),
        ("py run(xor, a=a, b=b) (P8's call)", python_loop(lambda: backend.run(program, a=a, b=b))),
        ("py run(xor, a, b) positional", python_loop(lambda: backend.run(program, a, b))),
    ]


def report(title, best):
    cpp = next(value for name, value in best.items() if name.startswith("C++"))
    print(title)
    for name, value in best.items():
        extra = "" if name.startswith(("C++", "py loop floor")) else f"  (+{value - cpp:.2f} over C++)"
        print(f"  {name:55s} {value:7.2f} us{extra}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fake", help="the fake CUDA driver library (tests/cuda/runtime/libvyre_fake_cuda.so)")
    p.add_argument("--cuda", action="store_true", help="the real cuda backend (a GPU), with torch CUDA tensors where torch has CUDA")
    p.add_argument("--batches", type=int, default=40)
    p.add_argument("--calls", type=int, default=1000)
    args = p.parse_args()
    print(f"vyre from {vyre.__file__}; batches {args.batches} x {args.calls} calls, minimum of the means")
    torch = torch_module()
    program = xor_program(vyre)
    registry = vyre.Registry(use_environment=False)
    backend = registry.create("reference_cpu")
    report("reference_cpu", measure(variants_for(backend, program, torch), args.batches, args.calls))
    report("reference_cpu, host round trip", measure(run_variants_for(backend, program), args.batches, args.calls))
    if args.fake:
        os.environ["VYRE_CUDA_DRIVER_LIBRARY"] = args.fake
        backend = vyre.Registry(use_environment=False).create("cuda")
        report("cuda over the fake driver", measure(variants_for(backend, program), args.batches, args.calls))
        report("cuda over the fake driver, host round trip",
               measure(run_variants_for(backend, program), args.batches, args.calls))
    elif args.cuda:
        backend = registry.create("cuda")
        report(f"cuda ({backend.device['name']}), host round trip",
               measure(run_variants_for(backend, program), args.batches, args.calls))
        torch = torch if torch is not None and torch.cuda.is_available() else None
        report(f"cuda ({backend.device['name']})",
               measure(variants_for(backend, program, torch, cuda=True), args.batches, args.calls))
        print(f"  import cache: {backend.dlpack_cache_info()}")


if __name__ == "__main__":
    main()
