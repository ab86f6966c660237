"""M1 baseline: torch.distributed.all_reduce (NCCL backend, sum) of a 1 GiB f32 tensor over every
visible GPU, one process per GPU (as torchrun runs it). Per sample: rank 0's host time of BATCH
all_reduces back to back, then torch.cuda.synchronize(), over BATCH; vyre-bench's M1 times its
group's all_reduce the same way. Bandwidth = bytes of the tensor / time (NCCL's "algbw"); busbw =
algbw * 2(n-1)/n beside it. Checked: every element equals the sum of the ranks' fills."""
import json
import os
import socket
import tempfile
import time

import common

CASE = "M1"
NAME = "torch.distributed.all_reduce (NCCL, sum)"
FULL_ELEMENTS = 256 << 20  # 1 GiB of f32
BATCH = 5


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world, port, n, warmup, reps, out_path):
    import torch  # noqa: PLC0415
    import torch.distributed as dist  # noqa: PLC0415

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    x = torch.full((n,), float(rank + 1), dtype=torch.float32, device="cuda")
    dist.all_reduce(x)
    torch.cuda.synchronize()
    expected = float(world * (world + 1) // 2)
    verified = bool(torch.all(x == expected).item())
    samples = []
    for sample in range(warmup + reps):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        for _ in range(BATCH):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        t1 = time.perf_counter_ns()
        if sample >= warmup:
            samples.append((t1 - t0) / BATCH)
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"samples": samples, "verified": verified, "expected": expected}, f)
    dist.destroy_process_group()


def main():
    args = common.parser(__doc__, reps=10, warmup=2).parse_args()
    torch = common.import_torch_cuda(CASE, NAME, args.json)
    world = torch.cuda.device_count()
    if world < 2:
        common.unavailable(CASE, NAME, f"needs 2 or more GPUs, this machine has {world}", args.json)
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # the lent machines' KINDS.md: NVLS is not usable
    import torch.multiprocessing as mp  # noqa: PLC0415

    n = common.scaled_size(FULL_ELEMENTS, args.size_scale)
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "rank0.txt")
        mp.spawn(worker, args=(world, free_port(), n, args.warmup, args.reps, out_path), nprocs=world, join=True)
        with open(out_path) as f:
            got = json.load(f)
    time_ns = common.summarize(got["samples"])
    bytes_moved = 4 * n
    algbw = common.rate_of(time_ns, bytes_moved)
    common.emit({
        "id": CASE, "baseline": NAME, "available": True, "unit": "GB/s", "better": "higher",
        "value": common.with_unit(algbw, "GB/s"), "time_ns": time_ns, "clock": "host_wall",
        "bytes_moved": bytes_moved, "warmup": args.warmup, "verified": got["verified"],
        "verification": ("ok" if got["verified"] else "FAILED") + f": every element == {got['expected']}",
        "extra": {"elements": n, "ranks": world, "batch": BATCH,
                  "busbw": common.with_unit(common.scaled(algbw, 2 * (world - 1) / world), "GB/s"),
                  **common.torch_versions(torch)},
    }, args.json)


if __name__ == "__main__":
    main()
