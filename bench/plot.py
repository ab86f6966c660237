"""Chart of results.json (bench/report.py): per case, how far the measurement is from its goal.

    python3 bench/plot.py results.json results.png

Each bar is `attained` (measured over goal, turned so that >= 1 meets it) on a log axis, the goal
line at 1; green met, red missed, grey without a figure (error, wrong, no baseline). The label
gives the measured figure and the goal. With kernel cases (K1..K13) a second chart,
<name>-kernels.png, shows each ratio vyre/nvcc against the per-case goal line (1.10) and the
geometric mean against its goal line (1.00).
"""
import json
import os
import sys


def label(case):
    goal = case.get("goal", {})
    vyre = case.get("vyre") or {}
    if case.get("status") in ("error", "wrong", "no-baseline", "n/a"):
        return f"{case['status']}"
    if goal.get("kind") == "ratio":
        return f"ratio {case['ratio']:.3g} (goal {goal['op']} {goal['target']:g})"
    return f"{vyre.get('median', 0):.3g} {vyre.get('unit', '')} (goal {goal['op']} {goal['target']:g})"


def kernel_chart(plt, results, path):
    """Each K ratio vyre/nvcc as a bar, the per-case goal (1.10) dashed, the geometric mean (its own
    bar) against the 1.00 line."""
    summary = results.get("kernel_suite")
    rows = [c for c in results["cases"] if c["id"].startswith("K") and c["id"][1:2].isdigit()]
    if not summary or not rows:
        return
    names = [c["id"] for c in rows] + ["geomean"]
    ratios = [c.get("ratio") if c.get("status") in ("pass", "miss") else None for c in rows]
    ratios.append(summary.get("geomean"))
    goals = [summary["per_case_target"]] * len(rows) + [summary["target"]]
    shown = [r if r else 0.0 for r in ratios]
    colors = ["tab:gray" if r is None else "tab:green" if r <= g else "tab:red" for r, g in zip(ratios, goals)]
    fig, ax = plt.subplots(figsize=(9, 0.4 * len(names) + 1.5))
    ax.barh(names, shown, color=colors)
    ax.axvline(summary["per_case_target"], color="black", linestyle="--", linewidth=1, label="per case <= 1.10")
    ax.axvline(summary["target"], color="tab:blue", linestyle="-", linewidth=1, label="geomean <= 1.00")
    ax.invert_yaxis()
    ax.set_xlabel("device time vyre / nvcc (same run, same geometry; lower is better)")
    env = results.get("environment", {})
    ax.set_title(f"kernel suite vs nvcc -O3: {env.get('device', '?')}, {env.get('date', '')}")
    ax.set_xlim(0, max([r for r in shown] + [1.5]) * 1.25)
    for y, r in enumerate(ratios):
        ax.text((r or 0) + 0.02, y, f"{r:.3f}" if r else "no ratio", va="center", fontsize=8)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot.py: wrote {path}")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    try:
        import matplotlib  # noqa: PLC0415
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except Exception as e:
        print(f"plot.py: matplotlib unavailable ({e}); no chart written")
        return
    with open(sys.argv[1]) as f:
        results = json.load(f)
    cases = results["cases"]
    names = [c["id"] for c in cases]
    values = [c.get("attained") or 0.0 for c in cases]
    colors = ["tab:green" if c["status"] == "pass" else "tab:red" if c["status"] == "miss" else "tab:gray"
              for c in cases]
    shown = [v if v > 0 else 1e-2 for v in values]

    fig, ax = plt.subplots(figsize=(9, 0.55 * len(cases) + 1.5))
    ax.barh(names, shown, color=colors)
    ax.axvline(1.0, color="black", linestyle="--", linewidth=1)
    ax.set_xscale("log")
    ax.invert_yaxis()
    ax.set_xlabel("attained (measured vs goal; >= 1 meets it)")
    env = results.get("environment", {})
    ax.set_title(f"vyre-bench: {env.get('device', '?')}, {env.get('date', '')}")
    lo = min(shown + [0.1]) / 2
    hi = max(shown + [10]) * 4
    ax.set_xlim(lo, hi)
    for y, (c, v) in enumerate(zip(cases, shown)):
        ax.text(v * 1.08, y, label(c), va="center", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"plot.py: wrote {sys.argv[2]}")
    stem, ext = os.path.splitext(sys.argv[2])
    kernel_chart(plt, results, f"{stem}-kernels{ext or '.png'}")


if __name__ == "__main__":
    main()
