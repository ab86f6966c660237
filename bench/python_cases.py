"""P8 and P9: vyre from Python (bench/README.md). Run with the Python package on PYTHONPATH
(<build>/python); scripts/bench.sh does.

P8: a host round trip from Python, `backend.run(xor, a=a, b=b)` with two 1024-element uint32 NumPy
    arrays in and the output array back, host clock per call. Target: at most 1.2x C++ P2's median
    in the same run (--vyre: vyre-bench's JSON holding P2).
P9: a resident dispatch on torch CUDA tensors through DLPack, in the resident form the C++ side
    has: the tensors imported once with `backend.from_dlpack` (zero copy; the imports view the
    tensors' memory), then `backend.run_resident(xor, a=ia, b=ib, out=iout)` per call, host clock
    per call. Target: at most 1 us above the C++ resident dispatch of the same run (vyre-bench P9,
    result "P9-cpp", from --vyre), which also runs on buffers made once. Ordering after torch's
    later work is the caller's here, as in C++. Beside it (extra): the same dispatch on
    ResidentBuffers (the binding's own cost) and with the torch tensors bound straight to
    run_resident (`a=ta, ...`: each call checks the tensors' fingerprints against the backend's
    import cache and queues the dispatch after torch's current stream; extra.import_cache counts
    hits), which costs more and has no target of its own.

A case that cannot run here (no torch, no GPU, no cuda backend) is reported unavailable, exit 0.
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "baselines"))
import common  # noqa: E402

import numpy as np  # noqa: E402

ELEMENTS = 1024


def xor_program(vyre):
    k = vyre.ProgramBuilder(workgroup=64)
    a = k.buffer("a", "read", "u32", ELEMENTS)
    b = k.buffer("b", "read", "u32", ELEMENTS)
    out = k.buffer("out", "output", "u32", ELEMENTS)
    i = k.let("i", k.invocation_id())
    out[i] = a[i] ^ b[i]
    return k.build()


def host_times_ns(fn, warmup, reps, after=None):
    for _ in range(warmup):
        fn()
    if after:
        after()
    samples = []
    for _ in range(reps):
        start = time.perf_counter_ns()
        fn()
        samples.append(float(time.perf_counter_ns() - start))
    return samples


def us(samples):
    return common.with_unit(common.scaled(common.summarize(samples), 1e-3), "us")


def cpp_median_us(path, case_id):
    if not path or not os.path.exists(path):
        return None
    import json
    for case in json.load(open(path)).get("cases", []):
        if case.get("id") == case_id and isinstance(case.get("value"), dict):
            return case["value"]["median"]
    return None


def p8(vyre, backend, args):
    name = f"backend.run(xor, a=a, b=b) from Python, 2x{ELEMENTS} u32, {backend.id}"
    program = xor_program(vyre)
    rng = np.random.default_rng(8)
    a = rng.integers(0, 2**32, ELEMENTS, dtype=np.uint32)
    b = rng.integers(0, 2**32, ELEMENTS, dtype=np.uint32)
    verified = bool((backend.run(program, a=a, b=b) == (a ^ b)).all())
    value = us(host_times_ns(lambda: backend.run(program, a=a, b=b), args.warmup, args.reps))
    cpp = cpp_median_us(args.vyre, "P2")
    extra = {"elements_per_input": ELEMENTS, "backend": backend.id, "cpp_p2_median_us": cpp}
    if cpp:
        extra["ratio_to_cpp_p2"] = value["median"] / cpp
        extra["target"] = "ratio_to_cpp_p2 <= 1.2"
        extra["meets_target"] = value["median"] / cpp <= 1.2
    return {"id": "P8", "title": name, "backend": backend.id, "available": True, "unit": "us", "better": "lower", "value": value,
            "clock": "host_wall", "warmup": args.warmup, "verified": verified,
            "verification": ("ok" if verified else "FAILED") + ": equals NumPy's a ^ b", "extra": extra}


def torch_cuda():
    try:
        import torch
    except Exception:  # ImportError, or a broken install
        return None
    return torch if torch.cuda.is_available() else None


def p9(vyre, registry, args):
    name = f"run_resident(xor) on torch CUDA tensors imported through DLPack (from_dlpack), {ELEMENTS} u32"
    torch = None if args.cpu else torch_cuda()
    if torch is None or registry.find("cuda") is None or registry.probe("cuda") is not None:
        return {"id": "P9", "title": name, "available": False,
                "reason": "needs torch with CUDA and the cuda backend"}
    backend = registry.backend("cuda")
    program = xor_program(vyre)
    rng = np.random.default_rng(9)
    a = rng.integers(0, 2**32, ELEMENTS, dtype=np.uint32)
    b = rng.integers(0, 2**32, ELEMENTS, dtype=np.uint32)
    ta = torch.from_numpy(a.view(np.int32)).cuda()
    tb = torch.from_numpy(b.view(np.int32)).cuda()
    tout = torch.zeros(ELEMENTS, dtype=torch.int32, device="cuda")
    backend.run_resident(program, a=ta, b=tb, out=tout)
    verified = bool((tout.cpu().numpy().view(np.uint32) == (a ^ b)).all())

    def bound():
        backend.run_resident(program, a=ta, b=tb, out=tout)

    ra, rb, rout = backend.to_device(a), backend.to_device(b), backend.alloc(ELEMENTS * 4, "uint32")

    def resident():
        backend.run_resident(program, a=ra, b=rb, out=rout)

    ia, ib, iout = backend.from_dlpack(ta), backend.from_dlpack(tb), backend.from_dlpack(tout)

    def imported():
        backend.run_resident(program, a=ia, b=ib, out=iout)

    straight = us(host_times_ns(bound, args.warmup, args.reps))
    cache = backend.dlpack_cache_info() if hasattr(backend, "dlpack_cache_info") else None
    plain = us(host_times_ns(resident, args.warmup, args.reps))
    value = us(host_times_ns(imported, args.warmup, args.reps))
    tout.zero_()
    torch.cuda.synchronize()  # the imports are not ordered after torch's later work: finish it first
    imported()  # synchronous: the output is written when it returns
    verified = verified and bool((tout.cpu().numpy().view(np.uint32) == (a ^ b)).all())
    cpp = cpp_median_us(args.vyre, "P9-cpp")
    above = value["median"] - cpp if cpp else None
    return {"id": "P9", "title": name, "backend": "cuda", "available": True, "unit": "us", "better": "lower", "value": value,
            "clock": "host_wall", "warmup": args.warmup, "verified": verified,
            "verification": ("ok" if verified else "FAILED") + ": the torch output equals NumPy's a ^ b (bound and imported)",
            "extra": {"resident_buffers": plain, "bound_straight": straight, "cpp_p9_median_us": cpp,
                      "above_cpp_us": above, "above_python_resident_us": value["median"] - plain["median"],
                      "bound_straight_above_cpp_us": straight["median"] - cpp if cpp else None,
                      "import_cache": cache,
                      "target": "above_cpp_us <= 1", "meets_target": None if above is None else above <= 1.0,
                      **common.torch_versions(torch)}}


def main():
    p = common.parser(__doc__, reps=2000, warmup=100)
    p.add_argument("--vyre", help="vyre-bench's JSON of the same run (C++ P2 and P9-cpp)")
    p.add_argument("--backend", default="cuda", help="P8's backend (default cuda)")
    p.add_argument("--cpu", action="store_true", help="P8 only, on reference_cpu")
    args = p.parse_args()
    try:
        import vyre
    except ImportError as e:
        common.emit({"schema": "vyre-python-bench/1", "cases": [
            {"id": "P8", "title": "vyre from Python", "available": False, "reason": f"vyre is not importable: {e}"}]},
            args.json)
        return
    registry = vyre.Registry()
    backend_id = "reference_cpu" if args.cpu else args.backend
    reason = registry.probe(backend_id) if registry.find(backend_id) else "not found"
    results = []
    if reason is None:
        results.append(p8(vyre, registry.backend(backend_id), args))
    else:
        results.append({"id": "P8", "title": "vyre from Python", "available": False,
                        "reason": f"backend {backend_id}: {reason}"})
    results.append(p9(vyre, registry, args))
    common.emit({"schema": "vyre-python-bench/1", "cases": results}, args.json)


if __name__ == "__main__":
    main()
