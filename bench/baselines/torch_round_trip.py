"""P2 baseline: a PyTorch host round trip of a 1024-element int32 xor, host clock (perf_counter_ns)
after a synchronize, per call. The headline uploads both inputs, `(x.cuda() ^ y.cuda()).cpu()`, the
same work as vyre's host dispatch; `one_upload` is the brief's literal `(x.cuda() ^ y).cpu()` with y
already on the device."""
import time

import common

CASE = "P2"
NAME = "(x.cuda() ^ y.cuda()).cpu(), int32[1024]"
ELEMENTS = 1024


def host_times_ns(torch, fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start = time.perf_counter_ns()
        fn()
        torch.cuda.synchronize()
        samples.append(float(time.perf_counter_ns() - start))
    return samples


def main():
    args = common.parser(__doc__, reps=2000, warmup=100).parse_args()
    torch = common.import_torch_cuda(CASE, NAME, args.json)
    x = torch.randint(-2**31, 2**31, (ELEMENTS,), dtype=torch.int32)
    y = torch.randint(-2**31, 2**31, (ELEMENTS,), dtype=torch.int32)
    y_device = y.cuda()

    def both():
        return (x.cuda() ^ y.cuda()).cpu()

    def one_upload():
        return (x.cuda() ^ y_device).cpu()

    expected = x ^ y
    verified = bool(torch.equal(both(), expected)) and bool(torch.equal(one_upload(), expected))
    samples = host_times_ns(torch, both, args.warmup, args.reps)
    literal = host_times_ns(torch, one_upload, args.warmup, args.reps)
    time_ns = common.summarize(samples)
    common.emit({
        "id": CASE, "baseline": NAME, "available": True,
        "unit": "us", "better": "lower",
        "value": common.with_unit(common.scaled(time_ns, 1e-3), "us"),
        "time_ns": time_ns, "clock": "host_wall", "bytes_moved": 0,
        "warmup": args.warmup, "verified": verified,
        "verification": ("ok" if verified else "FAILED") + ": both variants equal the CPU's x ^ y",
        "extra": {
            "one_upload": common.with_unit(common.scaled(common.summarize(literal), 1e-3), "us"),
            "elements_per_input": ELEMENTS, **common.torch_versions(torch),
        },
    }, args.json)


if __name__ == "__main__":
    main()
