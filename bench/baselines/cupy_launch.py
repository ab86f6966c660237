"""P3 baseline: a CuPy RawKernel of a comparably tiny kernel (xor of 1024 u32, 4 blocks of 256)
launched 10k times back to back. Per sample: the enqueue loop's host time / count (the headline),
the events' span over the loop / count, and the host time until the last launch finished / count."""
import time

import common

CASE = "P3"
NAME = "cupy.RawKernel launch, xor of 1024 u32"
ELEMENTS = 1024
LAUNCHES = 10_000
SOURCE = r'''
extern "C" __global__ void xor_kernel(const unsigned int* a, const unsigned int* b,
                                      unsigned int* out, unsigned int n) {
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = a[i] ^ b[i];
}
'''


def main():
    args = common.parser(__doc__, reps=10, warmup=1).parse_args()
    try:
        import cupy  # noqa: PLC0415
        import numpy  # noqa: PLC0415
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
    except Exception as e:
        common.unavailable(CASE, NAME, f"cupy unusable here: {e}", args.json)

    count = common.scaled_count(LAUNCHES, args.count_scale)
    kernel = cupy.RawKernel(SOURCE, "xor_kernel")
    rng = numpy.random.default_rng(0x5EED)
    a = cupy.asarray(rng.integers(0, 2**32, size=ELEMENTS, dtype=numpy.uint32))
    b = cupy.asarray(rng.integers(0, 2**32, size=ELEMENTS, dtype=numpy.uint32))
    out = cupy.zeros(ELEMENTS, dtype=cupy.uint32)
    grid, block = ((ELEMENTS + 255) // 256,), (256,)
    kernel_args = (a, b, out, numpy.uint32(ELEMENTS))
    start, end = cupy.cuda.Event(), cupy.cuda.Event()

    def loop():
        start.record()
        t0 = time.perf_counter_ns()
        for _ in range(count):
            kernel(grid, block, kernel_args)
        t1 = time.perf_counter_ns()
        end.record()
        end.synchronize()
        t2 = time.perf_counter_ns()
        return ((t1 - t0) / count, cupy.cuda.get_elapsed_time(start, end) * 1e6 / count, (t2 - t0) / count)

    for _ in range(args.warmup):
        loop()
    runs = [loop() for _ in range(args.reps)]
    verified = bool((cupy.asnumpy(out) == (cupy.asnumpy(a) ^ cupy.asnumpy(b))).all())
    enqueue = common.summarize([r[0] for r in runs])
    common.emit({
        "id": CASE, "baseline": NAME, "available": True,
        "unit": "us/dispatch", "better": "lower",
        "value": common.with_unit(common.scaled(enqueue, 1e-3), "us/dispatch"),
        "time_ns": enqueue, "clock": "host_wall", "bytes_moved": 0,
        "warmup": args.warmup, "verified": verified,
        "verification": ("ok" if verified else "FAILED") + ": out equals a ^ b after the loops",
        "extra": {
            "events_per_launch": common.with_unit(common.scaled(common.summarize([r[1] for r in runs]), 1e-3), "us"),
            "total_per_dispatch": common.with_unit(common.scaled(common.summarize([r[2] for r in runs]), 1e-3), "us"),
            "launches_per_sample": count, "elements": ELEMENTS,
            "cupy": cupy.__version__, "device": cupy.cuda.runtime.getDeviceProperties(0)["name"].decode(),
        },
    }, args.json)


if __name__ == "__main__":
    main()
