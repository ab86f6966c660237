"""P1 baseline: torch.bitwise_xor of two 256M-element int32 tensors into a third (out=), CUDA
events around each call; bandwidth counts 2 reads + 1 write of 4 bytes per element. Also measures
the device's copy ceiling (out.copy_(a), read + write) in the same run: extra.copy_ceiling."""
import common

CASE = "P1"
NAME = "torch.bitwise_xor (int32, out=)"


def main():
    args = common.parser(__doc__, reps=100, warmup=5).parse_args()
    torch = common.import_torch_cuda(CASE, NAME, args.json)
    n = common.scaled_size(common.FULL_ELEMENTS, args.size_scale)
    a = torch.randint(-2**31, 2**31, (n,), dtype=torch.int32, device="cuda")
    b = torch.randint(-2**31, 2**31, (n,), dtype=torch.int32, device="cuda")
    out = torch.full((n,), 0x5A5A5A5A, dtype=torch.int32, device="cuda")  # poisoned

    torch.bitwise_xor(a, b, out=out)
    torch.cuda.synchronize()
    index = torch.randint(0, n, (1 << 20,), device="cuda")
    expected = a[index].cpu() ^ b[index].cpu()  # the CPU's xor on a 1M-element sample
    verified = bool(torch.equal(out[index].cpu(), expected))

    samples = common.cuda_event_times_ns(torch, lambda: torch.bitwise_xor(a, b, out=out), args.warmup, args.reps)
    bytes_moved = 3 * 4 * n
    time_ns = common.summarize(samples)
    # The bandwidth ceiling of this device in this run (METHOD.md): a device-to-device copy of one
    # input, counting bytes read plus bytes written.
    copy_ns = common.summarize(common.cuda_event_times_ns(torch, lambda: out.copy_(a), args.warmup, args.reps))
    copy_ceiling = common.with_unit(common.rate_of(copy_ns, 2 * 4 * n), "GB/s")
    common.emit({
        "id": CASE, "baseline": NAME, "available": True,
        "unit": "GB/s", "better": "higher",
        "value": common.with_unit(common.rate_of(time_ns, bytes_moved), "GB/s"),  # bytes per ns = GB/s
        "time_ns": time_ns, "clock": "cuda_events", "bytes_moved": bytes_moved,
        "warmup": args.warmup, "verified": verified,
        "verification": ("ok" if verified else "FAILED") + ": a 1M-element sample equals the CPU's a ^ b",
        "extra": {"elements": n, "copy_ceiling": copy_ceiling, **common.torch_versions(torch)},
    }, args.json)


if __name__ == "__main__":
    main()
