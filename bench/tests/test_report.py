"""bench/report.py's kernel suite: per-case ratio vyre/nvcc, goals, and the geometric mean with K13's
functions folded into one entry (registered with ctest as bench_report_pytest)."""
import json
import math
import os
import subprocess
import sys

import pytest

BENCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, BENCH)
import report  # noqa: E402


def kcase(case_id, vyre_ms, nvcc_ms, verified=True):
    fig = lambda m: {"median": m, "p10": m * 0.98, "p90": m * 1.02, "unit": "ms"}  # noqa: E731
    return {"id": case_id, "title": f"{case_id} kernel", "backend": "cuda", "value": fig(vyre_ms),
            "better": "lower", "verified": verified, "verification": "ok: bit-exact" if verified else "FAILED: c[3]",
            "extra": {"vyre_ms": vyre_ms, "nvcc_ms": nvcc_ms, "ratio": vyre_ms / nvcc_ms, "nvcc": fig(nvcc_ms)}}


def evaluate_all(cases):
    return [report.evaluate(c, {}) for c in cases]


def test_ratio_is_vyre_over_nvcc_and_goal_is_1_10():
    rows = evaluate_all([kcase("K1", 1.5, 1.0), kcase("K2", 1.05, 1.0)])
    assert rows[0]["ratio"] == pytest.approx(1.5)
    assert rows[0]["status"] == "miss"
    assert rows[0]["attained"] == pytest.approx(1.10 / 1.5)
    assert rows[1]["status"] == "pass"
    assert rows[1]["baseline"]["name"] == "nvcc -O3 twin"


def test_geomean_folds_k13_into_one_entry():
    cases = [kcase("K1", 2.0, 1.0), kcase("K2", 0.5, 1.0),
             kcase("K13-sin", 4.0, 1.0), kcase("K13-cos", 1.0, 1.0)]
    summary = report.kernel_summary(evaluate_all(cases))
    assert summary["k13_geomean"] == pytest.approx(2.0)
    assert summary["cases"] == ["K1", "K2", "K13"]
    assert summary["geomean"] == pytest.approx(math.exp((math.log(2.0) + math.log(0.5) + math.log(2.0)) / 3))
    assert summary["status"] == "miss"
    assert summary["missing"] == []


def test_geomean_passes_at_or_below_one():
    summary = report.kernel_summary(evaluate_all([kcase("K1", 0.9, 1.0), kcase("K12", 1.1, 1.0)]))
    assert summary["geomean"] == pytest.approx(math.sqrt(0.99))
    assert summary["status"] == "pass"


def test_wrong_and_failed_cases_leave_the_mean_and_are_named():
    cases = [kcase("K1", 1.0, 1.0), kcase("K4", 0.5, 1.0, verified=False),
             {"id": "K10", "title": "sort", "backend": "cuda", "error": "no nvcc twin library. Fix: ..."}]
    rows = evaluate_all(cases)
    assert [r["status"] for r in rows] == ["pass", "wrong", "error"]
    summary = report.kernel_summary(rows)
    assert summary["geomean"] == pytest.approx(1.0)
    assert summary["missing"] == ["K4", "K10"]
    assert summary["status"] == "incomplete"


def test_no_kernel_cases_no_summary():
    assert report.kernel_summary(evaluate_all([{"id": "P7", "title": "sum", "backend": "cuda",
                                                "error": "x"}])) is None


def test_results_md_has_the_k_table_and_the_geomean(tmp_path):
    run = {"schema": "vyre-bench/1", "device": {"name": "Test GPU"},
           "cases": [kcase("K1", 1.2, 1.0), kcase("K13-exp", 1.0, 2.0)]}
    vyre_json = tmp_path / "vyre.json"
    vyre_json.write_text(json.dumps(run))
    subprocess.run([sys.executable, os.path.join(BENCH, "report.py"), "--vyre", str(vyre_json),
                    "--out-dir", str(tmp_path)], check=True)
    md = (tmp_path / "results.md").read_text()
    assert "## Kernel suite" in md
    assert "| K1 |" in md and "| 1.200 |" in md
    assert "Geometric mean over 2 cases: " + f"{math.sqrt(1.2 * 0.5):.3f}" in md
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["kernel_suite"]["geomean"] == pytest.approx(math.sqrt(0.6))


def p3case(vyre_us, floor_us=None):
    fig = lambda m: {"median": m, "p10": m, "p90": m, "unit": "us"}  # noqa: E731
    extra = {} if floor_us is None else {"driver_floor": fig(floor_us)}
    return {"id": "P3", "title": "enqueue", "backend": "cuda", "value": fig(vyre_us), "better": "lower",
            "verified": True, "verification": "ok", "extra": extra}


def test_p3_is_judged_above_the_driver_floor_of_the_same_run():
    met, missed = evaluate_all([p3case(2.0, 1.8), p3case(2.5, 2.0)])
    assert met["above"] == pytest.approx(0.2)
    assert met["status"] == "pass"
    assert missed["above"] == pytest.approx(0.5)
    assert missed["status"] == "miss"
    assert met["baseline"]["name"].startswith("cuLaunchKernel loop")


def test_p3_without_a_driver_floor_has_no_verdict():
    row = evaluate_all([p3case(2.0)])[0]
    assert row["status"] == "n/a"
    assert row["baseline_note"] == "vyre-bench reported no driver_floor"


def test_p3_below_the_driver_floor_passes_without_a_huge_attainment():
    row = evaluate_all([p3case(2.737, 2.974)])[0]  # H200, 2026-11-27: vyre's loop beat the raw one
    assert row["above"] == pytest.approx(-0.237)
    assert row["status"] == "pass"
    assert row["attained"] is None
