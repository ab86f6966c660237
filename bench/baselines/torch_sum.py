"""P7 baseline: torch.sum of 256M int32 (accumulating in int64, as torch does for integer sums),
CUDA events around each call; bandwidth counts the bytes read plus the 8 written. Checked against
numpy's int64 sum of the same data on the CPU."""
import common

CASE = "P7"
NAME = "torch.sum (int32 -> int64)"


def main():
    args = common.parser(__doc__, reps=100, warmup=5).parse_args()
    torch = common.import_torch_cuda(CASE, NAME, args.json)
    import numpy  # noqa: PLC0415  (present wherever torch is)

    n = common.scaled_size(common.FULL_ELEMENTS, args.size_scale)
    data = torch.randint(-2**31, 2**31, (n,), dtype=torch.int32, device="cuda")
    expected = int(data.cpu().numpy().sum(dtype=numpy.int64))
    got = int(torch.sum(data).item())
    result_dtype = str(torch.sum(data).dtype)
    verified = got == expected

    samples = common.cuda_event_times_ns(torch, lambda: torch.sum(data), args.warmup, args.reps)
    bytes_moved = 4 * n + 8
    time_ns = common.summarize(samples)
    common.emit({
        "id": CASE, "baseline": NAME, "available": True,
        "unit": "GB/s", "better": "higher",
        "value": common.with_unit(common.rate_of(time_ns, bytes_moved), "GB/s"),
        "time_ns": time_ns, "clock": "cuda_events", "bytes_moved": bytes_moved,
        "warmup": args.warmup, "verified": verified,
        "verification": ("ok" if verified else "FAILED") + f": sum {got} vs numpy int64 sum {expected}",
        "extra": {"elements": n, "result_dtype": result_dtype, **common.torch_versions(torch)},
    }, args.json)


if __name__ == "__main__":
    main()
