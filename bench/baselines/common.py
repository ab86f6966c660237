"""Shared pieces of the baselines: arguments, statistics, JSON output, graceful unavailability.

Statistics match vyre-bench's (bench/src/stats.cpp): quantiles interpolate linearly between the
closest ranks (numpy's default); a rate's p10 is the rate at the p90 time.
"""
import argparse
import json
import math
import sys

FULL_ELEMENTS = 256 << 20  # P1 and P7: 256M elements
WORKGROUP = 256


def parser(description, reps, warmup):
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--reps", type=int, default=reps, help="timed samples (default %(default)s)")
    p.add_argument("--warmup", type=int, default=warmup, help="untimed runs first (default %(default)s)")
    p.add_argument("--size-scale", type=float, default=1.0, help="scale the element count, in (0, 1]")
    p.add_argument("--count-scale", type=float, default=1.0, help="scale loop counts, in (0, 1]")
    p.add_argument("--json", help="also write the result to this file")
    return p


def scaled_size(full, scale, minimum=1024, multiple=WORKGROUP):
    """The same rounding as vyre-bench's Context::scaled_size."""
    n = max(int(round(full * scale)), minimum)
    return max(multiple, n // multiple * multiple)


def scaled_count(full, scale):
    return max(1, int(round(full * scale)))


def quantile(sorted_samples, q):
    position = q * (len(sorted_samples) - 1)
    lower = int(math.floor(position))
    upper = min(lower + 1, len(sorted_samples) - 1)
    fraction = position - lower
    return sorted_samples[lower] + (sorted_samples[upper] - sorted_samples[lower]) * fraction


def summarize(samples):
    s = sorted(samples)
    return {
        "count": len(s),
        "median": quantile(s, 0.5),
        "p10": quantile(s, 0.1),
        "p90": quantile(s, 0.9),
        "min": s[0],
        "max": s[-1],
        "mean": sum(s) / len(s),
    }


def scaled(summary, factor):
    out = dict(summary)
    for key in ("median", "p10", "p90", "min", "max", "mean"):
        out[key] = summary[key] * factor
    return out


def rate_of(time_summary, amount):
    """amount / time at each statistic; the slow end (p10) is the p90 time."""
    def rate(t):
        return amount / t if t > 0 else 0.0
    return {
        "count": time_summary["count"],
        "median": rate(time_summary["median"]),
        "p10": rate(time_summary["p90"]),
        "p90": rate(time_summary["p10"]),
        "min": rate(time_summary["max"]),
        "max": rate(time_summary["min"]),
        "mean": rate(time_summary["mean"]),
    }


def with_unit(summary, unit):
    out = dict(summary)
    out["unit"] = unit
    return out


def emit(result, path=None):
    text = json.dumps(result, indent=1, sort_keys=False)
    print(text)
    if path:
        with open(path, "w") as f:
            f.write(text + "\n")


def unavailable(case_id, baseline, reason, path=None):
    """Report a baseline that cannot run here (no torch/cupy, no GPU) and exit 0."""
    emit({"id": case_id, "baseline": baseline, "available": False, "reason": reason}, path)
    sys.exit(0)


def import_torch_cuda(case_id, baseline, path):
    try:
        import torch  # noqa: PLC0415
    except Exception as e:  # ImportError, or a broken install
        unavailable(case_id, baseline, f"torch not importable: {e}", path)
    if not torch.cuda.is_available():
        unavailable(case_id, baseline, "torch sees no CUDA device", path)
    return torch


def torch_versions(torch):
    return {"torch": torch.__version__, "torch_cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name(0)}


def cuda_event_times_ns(torch, fn, warmup, reps):
    """Per-call device time (CUDA events around each call, synchronized), in ns."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) * 1e6)  # ms -> ns
    return samples
