"""Chart of results.json (bench/report.py): per case, how far the measurement is from its goal.

    python3 bench/plot.py results.json results.png

Each bar is `attained` (measured over goal, turned so that >= 1 meets it) on a log axis, the goal
line at 1; green met, red missed, grey without a figure (error, wrong, no baseline). The label
gives the measured figure and the goal.
"""
import json
import sys


def label(case):
    goal = case.get("goal", {})
    vyre = case.get("vyre") or {}
    if case.get("status") in ("error", "wrong", "no-baseline", "n/a"):
        return f"{case['status']}"
    if goal.get("kind") == "ratio":
        return f"ratio {case['ratio']:.3g} (goal {goal['op']} {goal['target']:g})"
    return f"{vyre.get('median', 0):.3g} {vyre.get('unit', '')} (goal {goal['op']} {goal['target']:g})"


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


if __name__ == "__main__":
    main()
