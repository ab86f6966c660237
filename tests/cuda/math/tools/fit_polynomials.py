#!/usr/bin/env python3
"""Minimax polynomial fits for the math library (plugins/shared/math).

Writes plugins/shared/math/polynomials.hpp: the coefficients (hex float literals, exact) of the
polynomial parts of every function, with the relative approximation error of the rounded
coefficients measured on a dense grid. Each fit approximates a "tail" g(z) of a function on an
interval, minimising the maximum relative error |p(z) - g(z)| / |g(z)| (Remez exchange, mpmath at
400 bits). After the fit, coefficients are rounded to the target format one at a time, lowest
degree first, and the remaining ones refitted with the rounded ones fixed, so rounding costs little.

Usage: python3 fit_polynomials.py > plugins/shared/math/polynomials.hpp
"""
import struct
import sys

import mpmath as mp

mp.mp.prec = 400
DEBUG = False


def sqrtz(z):
    return mp.sqrt(z)


# Tails g(z) with their value at z = 0 (the limit), so that the fit interval may start at 0.
def exp_tail(r):  # e^r = 1 + r + r^2 * g(r)
    if r == 0:
        return mp.mpf(1) / 2
    return (mp.exp(r) - 1 - r) / (r * r)


def expm1_quotient(r):  # e^r = 1 + r * g(r)
    if r == 0:
        return mp.mpf(1)
    return (mp.exp(r) - 1) / r


def exp2m1_quotient(f):  # 2^f = 1 + f * g(f)
    if f == 0:
        return mp.log(2)
    return (mp.power(2, f) - 1) / f


def log_tail(z):  # 2 atanh(s) = 2 s + s * z * g(z), z = s^2
    if z == 0:
        return mp.mpf(2) / 3
    s = sqrtz(z)
    return (2 * mp.atanh(s) - 2 * s) / (s * z)


def log1p_tail(f):  # log(1 + f) = f + f^2 * g(f)
    if f == 0:
        return mp.mpf(-1) / 2
    return (mp.log1p(f) - f) / (f * f)


def log2_1p_tail(f):  # log2(1 + f) = f / ln2 + f^2 * g(f)
    return log1p_tail(f) / mp.log(2)


def odd_tail(fn, c3):  # fn(x) = x + x^3 * g(x^2)
    def g(z):
        if z == 0:
            return mp.mpf(c3)
        x = sqrtz(z)
        return (fn(x) - x) / (x * z)
    return g


def cos_tail(z):  # cos(r) = 1 - z/2 + z^2 * g(z)
    if z == 0:
        return mp.mpf(1) / 24
    return (mp.cos(sqrtz(z)) - 1 + z / 2) / (z * z)


def precise(fn):
    """Evaluate a tail with enough extra precision to survive its cancellation near 0."""
    def g(z):
        if z == 0:
            return fn(z)
        extra = max(0, int(-mp.log(abs(z), 2))) * 4 + 64
        with mp.extraprec(extra):
            return +fn(z)
    return g


FITS = {
    # name: (g, lo, hi)
    "exp": (precise(exp_tail), -mp.mpf("0.3467"), mp.mpf("0.3467")),
    "expm1": (precise(expm1_quotient), -mp.mpf("0.3467"), mp.mpf("0.3467")),
    "exp2m1": (precise(exp2m1_quotient), -mp.mpf("0.5"), mp.mpf("0.5")),
    "log": (precise(log_tail), mp.mpf(0), mp.mpf("0.02945")),
    "log1p": (precise(log1p_tail), mp.sqrt(mp.mpf(1) / 2) - 1, mp.sqrt(2) - 1),
    "log2_1p": (precise(log2_1p_tail), mp.sqrt(mp.mpf(1) / 2) - 1, mp.sqrt(2) - 1),
    "sin": (precise(odd_tail(mp.sin, mp.mpf(-1) / 6)), mp.mpf(0), mp.mpf("0.6242")),
    "cos": (precise(cos_tail), mp.mpf(0), mp.mpf("0.6242")),
    "tan": (precise(odd_tail(mp.tan, mp.mpf(1) / 3)), mp.mpf(0), mp.mpf("0.6242")),
    "atan1": (precise(odd_tail(mp.atan, mp.mpf(-1) / 3)), mp.mpf(0), mp.mpf(1)),
    "asin": (precise(odd_tail(mp.asin, mp.mpf(1) / 6)), mp.mpf(0), mp.mpf("0.25")),
    "atan": (precise(odd_tail(mp.atan, mp.mpf(-1) / 3)), mp.mpf(0), mp.mpf("0.1717")),
    "sinh": (precise(odd_tail(mp.sinh, mp.mpf(1) / 6)), mp.mpf(0), mp.mpf("1.0001")),
    "tanh": (precise(odd_tail(mp.tanh, mp.mpf(-1) / 3)), mp.mpf(0), mp.mpf("0.3026")),
    # f64 exp as 1 + r (1 + r T(r)): a fit of e^r itself with c0 = c1 = 1 held (FIXED), so the
    # relative error measured is that of e^r; T's coefficients c2.. are emitted.
    "exp_nested": (mp.exp, -mp.mpf("0.3467"), mp.mpf("0.3467")),
    # f64 log, fdlibm-style (log.hpp): the "log" tail at a lower degree.
    "log_short": (precise(log_tail), mp.mpf(0), mp.mpf("0.02945")),
}

# Exact lowest coefficients a fit keeps (not emitted).
FIXED = {"exp_nested": [mp.mpf(1), mp.mpf(1)]}


def horner(c, z):
    acc = mp.mpf(0)
    for v in reversed(c):
        acc = acc * z + v
    return acc


def remez(g, lo, hi, degree, fixed, iters=40):
    """Fit sum_{i<len(fixed)} fixed[i] z^i + sum_j c_j z^(len(fixed)+j), j = 0..degree-len(fixed),
    minimising max |p - g| / |g| on [lo, hi]. Returns the free coefficients."""
    k = len(fixed)
    n = degree - k  # free coefficients: n + 1
    m = n + 2       # reference points

    def target(z):
        return g(z) - horner(fixed, z)

    def weight(z):
        return 1 / abs(g(z))

    pts = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * i / (m - 1)) for i in range(m)]
    grid = [(lo + hi) / 2 - (hi - lo) / 2 * mp.cos(mp.pi * i / 3000) for i in range(3001)]
    gvals = [(z, target(z), weight(z)) for z in grid]
    coef = None
    for _ in range(iters):
        a = mp.matrix(m, m)
        b = mp.matrix(m, 1)
        for i, z in enumerate(pts):
            for j in range(n + 1):
                a[i, j] = z ** (k + j)
            a[i, n + 1] = (-1) ** i / weight(z)
            b[i] = target(z)
        if DEBUG: print("pts", [mp.nstr(p, 6) for p in pts], file=sys.stderr)
        sol = mp.lu_solve(a, b)
        coef = [sol[j] for j in range(n + 1)]
        err = [(z, (sum(coef[j] * z ** (k + j) for j in range(n + 1)) - t) * w) for z, t, w in gvals]
        # alternating extrema
        ext = []
        for i, (z, e) in enumerate(err):
            left = err[i - 1][1] if i > 0 else None
            right = err[i + 1][1] if i + 1 < len(err) else None
            if (left is None or abs(e) >= abs(left)) and (right is None or abs(e) >= abs(right)):
                ext.append((z, e))
        # merge same-sign neighbours keeping the larger
        alt = []
        for z, e in ext:
            if alt and mp.sign(alt[-1][1]) == mp.sign(e):
                if abs(e) > abs(alt[-1][1]):
                    alt[-1] = (z, e)
            else:
                alt.append((z, e))
        while len(alt) > m:
            # drop the smaller end
            if abs(alt[0][1]) < abs(alt[-1][1]):
                alt.pop(0)
            else:
                alt.pop()
        if len(alt) < m:
            break
        new_pts = [z for z, _ in alt]
        emax = max(abs(e) for _, e in alt)
        emin = min(abs(e) for _, e in alt)
        pts = new_pts
        if emax / emin < 1 + mp.mpf("1e-6"):
            break
    return coef


def round_to(v, fmt):
    if fmt == "f64":
        return mp.mpf(float(v))
    f = struct.unpack("f", struct.pack("f", float(v)))[0]
    # float(v) then to f32 double-rounds; fix by checking neighbours
    best = mp.mpf(f)
    bits = struct.unpack("I", struct.pack("f", f))[0]
    for d in (-1, 1):
        nb = struct.unpack("f", struct.pack("I", (bits + d) & 0xFFFFFFFF))[0]
        if abs(mp.mpf(nb) - v) < abs(best - v):
            best = mp.mpf(nb)
    return best


def fit_rounded(g, lo, hi, degree, fmt, fixed0=()):
    """The better of: the minimax coefficients rounded, and a lowest-degree-first sequential
    rounding with refits (which can fail to converge when the fixed coefficients dominate).
    `fixed0`: exact lowest coefficients held (FIXED), returned first."""
    plain = list(fixed0) + [round_to(c, fmt) for c in remez(g, lo, hi, degree, list(fixed0))]
    fixed = list(fixed0)
    while len(fixed) <= degree:
        free = remez(g, lo, hi, degree, fixed)
        fixed.append(round_to(free[0], fmt))
    if max_rel_error(g, lo, hi, fixed) < max_rel_error(g, lo, hi, plain):
        return fixed
    return plain


def max_rel_error(g, lo, hi, coef):
    worst = mp.mpf(0)
    for i in range(4001):
        z = lo + (hi - lo) * i / 4000
        e = abs((horner(coef, z) - g(z)) / g(z))
        worst = max(worst, e)
    return worst


def hexf(v, fmt):
    x = float(v)
    if fmt == "f32":
        return x.hex().replace("0x", "0x") + "f"
    return x.hex()


# f32 sin, cos and tan reduce with 2/pi rounded to f32 (trig_reduction.hpp), which lets |r| reach
# pi/4 + 2^17 * 2.57e-8 * pi/2 = 0.79069 below the Payne-Hanek threshold: their fits cover
# r^2 <= 0.6254 (|r| <= 0.79082), the f64 ones (|r| <= pi/4 + 2^-60) the table's 0.6242.
F32_TRIG_HI = mp.mpf("0.6254")

# (name, format, degree[, hi]): hi overrides the upper end of FITS[name]'s interval.
PLAN = [
    ("exp", "f64", 11), ("exp", "f32", 5),
    ("expm1", "f32", 5), ("exp2m1", "f32", 5),
    ("log", "f64", 7), ("log", "f32", 3),
    ("log1p", "f32", 9), ("log2_1p", "f32", 9),
    ("sin", "f64", 6), ("sin", "f32", 2, F32_TRIG_HI),
    ("cos", "f64", 6), ("cos", "f32", 2, F32_TRIG_HI), ("tan", "f32", 6, F32_TRIG_HI),
    ("asin", "f64", 12), ("asin", "f32", 4),
    ("atan", "f64", 11), ("atan", "f32", 5), ("atan1", "f32", 7),
    ("sinh", "f64", 7), ("sinh", "f32", 3),
    ("tanh", "f64", 10), ("tanh", "f32", 4),
    ("exp_nested", "f64", 11), ("log_short", "f64", 6),
]


def main():
    only = sys.argv[1:]
    out = []
    out.append("// Generated by tests/cuda/math/tools/fit_polynomials.py: do not edit by hand.")
    out.append("// Minimax (relative error) polynomial coefficients, lowest degree first, of the tails")
    out.append("// g(z) the math library evaluates; `max_rel_error` is measured with the rounded coefficients")
    out.append("// on a grid of 4001 points, in exact arithmetic.")
    out.append("#pragma once")
    out.append("")
    out.append("namespace vyre::math::poly {")
    for name, fmt, degree, *override in PLAN:
        if only and name not in only:
            continue
        g, lo, hi = FITS[name]
        hi = override[0] if override else hi
        fixed0 = FIXED.get(name, [])
        coef = fit_rounded(g, lo, hi, degree, fmt, fixed0)
        err = max_rel_error(g, lo, hi, coef)
        coef = coef[len(fixed0):]
        ctype = "float" if fmt == "f32" else "double"
        out.append("")
        out.append(f"// {name}, {fmt}: z in [{mp.nstr(lo, 6)}, {mp.nstr(hi, 6)}], degree {degree}, "
                   f"max_rel_error 2^{mp.nstr(mp.log(err, 2), 4)}")
        vals = ", ".join(hexf(c, fmt) for c in coef)
        out.append(f"inline constexpr {ctype} k_{name}_{fmt}[] = {{{vals}}};")
        print(f"{name} {fmt} deg {degree}: 2^{mp.nstr(mp.log(err, 2), 4)}", file=sys.stderr)
    out.append("")
    out.append("}  // namespace vyre::math::poly")
    print("\n".join(out))


if __name__ == "__main__":
    main()
