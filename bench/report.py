"""Merge vyre-bench's JSON and the baselines' JSON into results.json and results.md.

    python3 bench/report.py --vyre vyre.json [--vyre more.json] [--baseline P1.json ...]
                            [--env env.json] --out-dir DIR

Every case gets its vyre figure, its baseline (another tool in the same run, or none), the ratio
vyre/baseline of the medians, the goal (a ratio or an absolute bound), `attained` (measured over
goal, turned so that >= 1 means met) and a status: pass, miss, wrong (the result check failed),
error (the case did not run) or no-baseline (a ratio goal whose baseline is unavailable).
Standard library only.
"""
import argparse
import json
import math
import os

# id -> the goal. "ratio": vyre/baseline of the medians against `target`; "absolute": vyre's
# median in `unit` against `target`. `baseline`: "external" (a baseline JSON with the same id),
# or "vyre:<extra name>" (a figure vyre-bench reports beside the headline).
GOALS = {
    "P1": {"kind": "ratio", "op": ">=", "target": 1.00, "baseline": "external"},
    "P2": {"kind": "ratio", "op": "<=", "target": 0.5, "baseline": "external"},
    # P3: vyre's enqueue over the driver's own cuLaunchKernel loop of the same kernel, same run.
    "P3": {"kind": "above", "op": "<=", "target": 0.3, "unit": "us above", "baseline": "vyre:driver_floor"},
    "P4": {"kind": "absolute", "op": "<=", "target": 1.5, "unit": "us/step", "baseline": "vyre:one_by_one_per_step"},
    "P5-cold": {"kind": "absolute", "op": "<=", "target": 20.0, "unit": "ms", "baseline": None},
    "P5-warm": {"kind": "absolute", "op": "<=", "target": 3.0, "unit": "ms", "baseline": None},
    "P6": {"kind": "absolute", "op": "<=", "target": 60.0, "unit": "s", "baseline": None},
    "P7": {"kind": "ratio", "op": ">=", "target": 0.9, "baseline": "external"},
    # C1: `vyre run` of a tiny program on cuda, whole process, over a raw-driver program (same run).
    "C1": {"kind": "above", "op": "<=", "target": 30.0, "unit": "ms above", "baseline": "vyre:driver_program"},
    # M1: Group::all_reduce's bandwidth over torch.distributed.all_reduce's (baselines/torch_allreduce.py).
    "M1": {"kind": "ratio", "op": ">=", "target": 0.95, "baseline": "external"},
    # M2: the group's bandwidth over one device's, same run (two GPUs: at least 1.8x).
    "M2": {"kind": "ratio", "op": ">=", "target": 1.8, "baseline": "vyre:one_device"},
    "R1": {"kind": "absolute", "op": "<=", "target": 30.0, "unit": "ms", "baseline": None},
    # bench/python_cases.py against the C++ figures of the same run ("above": vyre - baseline).
    "P8": {"kind": "ratio", "op": "<=", "target": 1.2, "baseline": "vyre-case:P2"},
    "P9": {"kind": "above", "op": "<=", "target": 1.0, "unit": "us above", "baseline": "vyre-case:P9-cpp"},
}
BASELINE_NAMES = {"P3": "cuLaunchKernel loop, same kernel (driver floor)",
                  "P4": "the same launches enqueued one by one (vyre)",
                  "C1": "raw-driver program, same work (vyre-bench-driver-run)",
                  "M2": "one device, same kernel and buffers"}

# The kernel suite (K1..K13, bench/kernels/): vyre's device time over its nvcc twin's, measured in the
# same vyre-bench run (extra.nvcc). Every case at most 1.10; the geometric mean at most 1.00, where
# K13's functions count as one case (their own geometric mean) so that K13 weighs like the others.
KERNEL_GOAL = {"kind": "ratio", "op": "<=", "target": 1.10, "baseline": "twin"}
KERNEL_GEOMEAN_TARGET = 1.00


def goal_for(case_id):
    if case_id in GOALS:
        return GOALS[case_id]
    if is_kernel(case_id):
        return KERNEL_GOAL
    return {"kind": "none"}


def is_kernel(case_id):
    return len(case_id) > 1 and case_id[0] == "K" and case_id[1].isdigit()


def geomean(values):
    values = [v for v in values if v is not None and v > 0]
    if not values:
        return None
    return math.exp(sum(math.log(v) for v in values) / len(values))


def kernel_summary(rows):
    """The K table's bottom line from evaluated rows: the geometric mean of the ratios (K13-* folded
    into one K13 entry), the cases it covers, and those without a ratio (error, wrong, no twin)."""
    kernel_rows = [r for r in rows if is_kernel(r["id"])]
    if not kernel_rows:
        return None
    measured = {}
    k13 = []
    missing = []
    for r in kernel_rows:
        ratio = r.get("ratio") if r.get("status") in ("pass", "miss") else None
        if ratio is None:
            missing.append(r["id"])
        elif r["id"].startswith("K13-"):
            k13.append(ratio)
        else:
            measured[r["id"]] = ratio
    k13_mean = geomean(k13)
    if k13_mean is not None:
        measured["K13"] = k13_mean
    mean = geomean(list(measured.values()))
    summary = {"geomean": mean, "target": KERNEL_GEOMEAN_TARGET, "cases": sorted(measured, key=kernel_order),
               "k13_geomean": k13_mean, "k13_functions": len(k13), "missing": missing,
               "per_case_target": KERNEL_GOAL["target"],
               "cases_meeting_goal": sum(1 for r in kernel_rows if r.get("status") == "pass"),
               "kernel_rows": len(kernel_rows)}
    summary["attained"] = KERNEL_GEOMEAN_TARGET / mean if mean else None
    if mean is None:
        summary["status"] = "error"
    elif missing:
        summary["status"] = "incomplete"
    else:
        summary["status"] = "pass" if mean <= KERNEL_GEOMEAN_TARGET else "miss"
    return summary


def kernel_order(case_id):
    head, _, tail = case_id[1:].partition("-")
    return (int(head) if head.isdigit() else 999, tail)


def load(path):
    with open(path) as f:
        return json.load(f)


def figure(value):
    """The {median, p10, p90, unit} part of a summary."""
    if not value:
        return None
    return {k: value.get(k) for k in ("median", "p10", "p90", "unit")}


def baseline_for(case, goal, baselines):
    source = goal.get("baseline")
    if source == "twin":
        nvcc = case.get("extra", {}).get("nvcc")
        if nvcc is None:
            return None, "no nvcc twin figure in this run"
        return {"name": "nvcc -O3 twin", "value": figure(nvcc), "verified": case.get("verified")}, None
    if source == "external":
        b = baselines.get(case["id"])
        if b is None:
            return None, "baseline not run"
        if not b.get("available", False):
            return None, b.get("reason", "baseline unavailable")
        return {"name": b.get("baseline"), "value": figure(b.get("value")), "verified": b.get("verified"),
                "verification": b.get("verification"), "extra": b.get("extra", {})}, None
    if source and source.startswith("vyre-case:"):
        other = baselines.get(source)
        if other is None or not other.get("value"):
            return None, f"no {source[10:]} from vyre-bench in this run"
        return {"name": f"C++ {source[10:]} (vyre-bench)", "value": figure(other["value"]),
                "verified": other.get("verified"), "verification": other.get("verification")}, None
    if source and source.startswith("vyre:"):
        extra = case.get("extra", {}).get(source[5:])
        if extra is None:
            return None, f"vyre-bench reported no {source[5:]}"
        return {"name": BASELINE_NAMES.get(case["id"], source), "value": figure(extra), "verified": case.get("verified")}, None
    return None, None


def case_notes(case, ceiling=None):
    """What a reader needs beside the figure; `ceiling`: the copy bandwidth the P1 baseline measured."""
    extra = case.get("extra", {})
    notes = []
    if case["id"] == "R1" and "host_threads" in extra:
        notes.append(f"ran with {extra['host_threads']} host threads (the goal is for the 2-core machine)")
    if case["id"] == "P6":
        notes.append(f"ops: {extra.get('ops_filter', '?')}; exit {extra.get('exit_code', '?')}")
    if case["id"] in ("P1", "P7") and ceiling and ceiling.get("median") and case.get("value"):
        share = case["value"]["median"] / ceiling["median"]
        notes.append(f"{share:.1%} of this run's copy ceiling ({ceiling['median']:.0f} GB/s, torch copy_, read + write)")
    if case["id"] == "P2" and "pipeline_round_trip" in extra:
        notes.append(f"compiled pipeline: {fmt_figure(figure(extra['pipeline_round_trip']))}")
    if case["id"] == "P3" and "total_per_dispatch" in extra:
        notes.append(f"until all finished: {fmt_figure(figure(extra['total_per_dispatch']))} per dispatch")
    if case["id"] == "P3" and "driver_floor_total" in extra:
        notes.append(f"driver floor until all finished: {fmt_figure(figure(extra['driver_floor_total']))}")
    if case["id"] == "P3" and "driver_floor_unavailable" in extra:
        notes.append(f"no driver floor: {extra['driver_floor_unavailable']}")
    if case["id"] == "C1" and "vyre_run_backend_cuda" in extra:
        notes.append(f"vyre run --backend cuda: {fmt_figure(figure(extra['vyre_run_backend_cuda']))}")
    if case["id"] == "P5-cold" and extra.get("runs"):
        cached = [run.get("cold", {}).get("jit_cache_bytes_after") for run in extra["runs"]]
        notes.append(f"JIT disk cache bytes after each cold run: {cached} (0: nothing cached, warm cannot gain)")
    if case["id"].startswith("P5") and "backend_create" in extra:
        notes.append(f"backend create (not counted): {fmt_figure(figure(extra['backend_create']))}")
    return notes


def copy_ceiling(baselines):
    p1 = baselines.get("P1") or {}
    return (p1.get("extra") or {}).get("copy_ceiling") if p1.get("available") else None


def attainment(op, measured, target):
    if measured is None or measured <= 0:
        return None
    return measured / target if op == ">=" else target / measured


def evaluate(case, baselines):
    goal = goal_for(case["id"])
    row = {"id": case["id"], "title": case.get("title"), "backend": case.get("backend"),
           "goal": {k: v for k, v in goal.items() if k != "baseline"}}
    if case.get("error"):
        row.update(status="error", error=case["error"])
        return row
    if case.get("available") is False:
        row.update(status="unavailable", error=case.get("reason", ""))
        return row
    vyre = figure(case.get("value"))
    row.update(vyre=vyre, verified=case.get("verified"), verification=case.get("verification"),
               clock=case.get("clock"), bytes_moved=case.get("bytes_moved"))
    base, why_not = baseline_for(case, goal, baselines)
    row["baseline"] = base
    if why_not:
        row["baseline_note"] = why_not
    ratio = None
    if base and base["value"] and base["value"]["median"]:
        ratio = vyre["median"] / base["value"]["median"]
    row["ratio"] = ratio
    measured = ratio if goal.get("kind") == "ratio" else vyre["median"]
    if goal.get("kind") == "above":
        measured = vyre["median"] - base["value"]["median"] if base and base["value"] else None
        row["above"] = measured
    at_or_below = goal.get("kind") == "above" and measured is not None and measured <= 0
    # At or below the baseline meets an "above" goal outright; a ratio against ~0 would print as a
    # meaningless huge attainment, so none is given.
    row["attained"] = None if at_or_below or "target" not in goal else attainment(goal.get("op"), measured, goal["target"])
    notes = case_notes(case, copy_ceiling(baselines))
    if notes:
        row["notes"] = notes
    if not case.get("verified"):
        row["status"] = "wrong"
    elif case["id"] == "P6" and not str(case.get("extra", {}).get("ops_filter", "all")).startswith("all"):
        row["status"] = "partial"
    elif goal.get("kind") == "ratio" and ratio is None:
        row["status"] = "no-baseline"
    elif at_or_below:
        row["status"] = "pass"
    elif row["attained"] is None:
        row["status"] = "n/a"
    else:
        row["status"] = "pass" if row["attained"] >= 1.0 else "miss"
    return row


def fmt_figure(f):
    if not f or f.get("median") is None:
        return "-"
    return f"{f['median']:.4g} [{f['p10']:.4g}, {f['p90']:.4g}] {f.get('unit') or ''}".strip()


def fmt_goal(goal):
    if "target" not in goal:
        return "-"
    if goal["kind"] == "ratio":
        return f"ratio {goal['op']} {goal['target']:g}"
    return f"{goal['op']} {goal['target']:g} {goal.get('unit', '')}".strip()


def markdown(results):
    env = results["environment"]
    lines = [
        f"# vyre-bench results: {env.get('device', '?')}",
        "",
        f"date {env.get('date', '?')}; driver {env.get('driver', '?')}; CUDA {env.get('cuda', '?')}; "
        f"commit {env.get('commit', '?')}; mode {env.get('mode', '?')}",
        "",
        "Medians with [p10, p90]. ratio = vyre / baseline (medians); attained >= 1 meets the goal.",
    ]
    scales = {(run.get("size_scale", 1), run.get("count_scale", 1)) for run in results["vyre_runs"]}
    if any(s != (1, 1) and s != (1.0, 1.0) for s in scales):
        lines += ["", f"**SCALED RUN** (size/count scales {sorted(scales)}): not comparable with the goals."]
    lines += [
        "",
        "| case | what | vyre | baseline | ratio | goal | attained | status |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results["cases"]:
        base = r.get("baseline")
        base_text = f"{base['name']}: {fmt_figure(base['value'])}" if base else r.get("baseline_note", "-")
        ratio = f"{r['ratio']:.3f}" if r.get("ratio") is not None else "-"
        attained = f"{r['attained']:.2f}" if r.get("attained") is not None else "-"
        vyre = fmt_figure(r.get("vyre"))
        if r["status"] in ("error", "unavailable"):
            vyre = r["status"].upper() + ": " + r.get("error", "")[:120]
        lines.append(f"| {r['id']} | {r.get('title') or ''} | {vyre} | {base_text} | {ratio} | "
                     f"{fmt_goal(r['goal'])} | {attained} | {r['status']} |")
    lines += kernel_markdown(results)
    lines.append("")
    for r in results["cases"]:
        if r["status"] == "wrong":
            lines.append(f"- {r['id']}: the result check failed: {r.get('verification')}")
        for note in r.get("notes", []):
            lines.append(f"- {r['id']}: {note}")
        base = r.get("baseline") or {}
        if base.get("verified") is False:
            lines.append(f"- {r['id']}: the baseline's own check failed: {base.get('verification')}")
    return "\n".join(lines) + "\n"


def kernel_markdown(results):
    """The kernel suite's own table: each K ratio vyre/nvcc and the geometric mean."""
    summary = results.get("kernel_suite")
    if not summary:
        return []
    lines = ["", "## Kernel suite: vyre / nvcc device time (same run, same geometry)", "",
             f"Goal: every case <= {summary['per_case_target']:.2f}, geometric mean <= {summary['target']:.2f} "
             "(K13's functions folded into one K13 entry).", "",
             "| case | what | vyre ms | nvcc ms | ratio | status | check |", "|---|---|---|---|---|---|---|"]
    for r in results["cases"]:
        if not is_kernel(r["id"]):
            continue
        base = (r.get("baseline") or {}).get("value")
        ratio = f"{r['ratio']:.3f}" if r.get("ratio") is not None else "-"
        check = (r.get("verification") or r.get("error") or "")[:160].replace("|", "/")
        lines.append(f"| {r['id']} | {r.get('title') or ''} | {fmt_figure(r.get('vyre'))} | {fmt_figure(base)} | "
                     f"{ratio} | {r['status']} | {check} |")
    mean = summary["geomean"]
    lines.append("")
    if summary.get("k13_geomean") is not None:
        lines.append(f"K13 ({summary['k13_functions']} functions): geometric mean {summary['k13_geomean']:.3f}")
    mean_text = f"{mean:.3f}" if mean is not None else "-"
    lines.append(f"**Geometric mean over {len(summary['cases'])} cases: {mean_text}** (goal <= {summary['target']:.2f}; "
                 f"{summary['status']}); {summary['cases_meeting_goal']} of {summary['kernel_rows']} rows within "
                 f"{summary['per_case_target']:.2f}.")
    if summary["missing"]:
        lines.append(f"Not in the mean (no ratio: error, wrong result or no twin): {', '.join(summary['missing'])}.")
    return lines


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--vyre", action="append", default=[], help="vyre-bench --json output (repeatable)")
    p.add_argument("--baseline", action="append", default=[], help="a baseline's JSON (repeatable)")
    p.add_argument("--env", help="JSON with device, driver, cuda, date, commit, mode")
    p.add_argument("--out-dir", required=True)
    args = p.parse_args()

    env = load(args.env) if args.env and os.path.exists(args.env) else {}
    vyre_runs = [load(path) for path in args.vyre if os.path.exists(path)]
    baselines = {}
    for path in args.baseline:
        if os.path.exists(path):
            b = load(path)
            baselines[b["id"]] = b
    for run in vyre_runs:  # C++ figures that other cases compare with (GOALS "vyre-case:")
        for c in run.get("cases", []):
            baselines.setdefault("vyre-case:" + c["id"], c)
    cases = [evaluate(c, baselines) for run in vyre_runs for c in run.get("cases", [])]
    if "device" not in env and vyre_runs and vyre_runs[0].get("device"):
        env["device"] = vyre_runs[0]["device"].get("name")
    results = {"schema": "vyre-bench-results/1", "environment": env, "cases": cases,
               "vyre_runs": vyre_runs, "baselines": baselines}
    summary = kernel_summary(cases)
    if summary:
        results["kernel_suite"] = summary
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
        f.write("\n")
    with open(os.path.join(args.out_dir, "results.md"), "w") as f:
        f.write(markdown(results))


if __name__ == "__main__":
    main()
