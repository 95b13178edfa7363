#!/usr/bin/env python3
"""Fit ka and step_damping from the sweep.csv of examples/sweep_ka.yaml (docs/sweeps.md).

    python3 examples/sweep/fit.py out/sweep_ka/sweep.csv --penetration 1e-4 --restitution 0.5

1. ka. The box's resting penetration does not depend on step_damping once it has settled; per
   ka the mean over the step dampings is taken, and ka is interpolated linearly in
   (log ka, log penetration) between the two grid values that bracket the target. The slope
   printed is d log(penetration) / d log(ka): -1 for the law delta = W / (ka A).
2. step_damping. At that ka, the ball's restitution for each step_damping is interpolated in
   log ka between the grid's ka values, then step_damping is interpolated linearly between the
   two that bracket the target restitution (restitution falls as step_damping grows).
Standard library only.
"""
import argparse
import csv
import math
import sys


def interp(x, xs, ys):
    """linear interpolation of y at x on increasing xs; None outside"""
    for i in range(len(xs) - 1):
        if xs[i] <= x <= xs[i + 1]:
            t = (x - xs[i]) / (xs[i + 1] - xs[i]) if xs[i + 1] != xs[i] else 0
            return ys[i] + t * (ys[i + 1] - ys[i])
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--penetration", type=float, required=True, help="target, m")
    ap.add_argument("--restitution", type=float, required=True, help="target, 0..1")
    a = ap.parse_args()
    with open(a.csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    KA, S = "interactions[0].ka", "interactions[0].step_damping"
    kas = sorted({float(r[KA]) for r in rows})
    ss = sorted({float(r[S]) for r in rows})
    pen = {k: [float(r["penetration(box)"]) for r in rows if float(r[KA]) == k] for k in kas}
    logk = [math.log(k) for k in kas]
    logp = [math.log(sum(pen[k]) / len(pen[k])) for k in kas]
    # penetration falls with ka: interpolate log ka on increasing log penetration
    lk = interp(math.log(a.penetration), logp[::-1], logk[::-1])
    if lk is None:
        sys.exit("the target penetration %g m is outside the sweep's %g .. %g m: widen the ka range"
                 % (a.penetration, math.exp(min(logp)), math.exp(max(logp))))
    ka = math.exp(lk)
    slope = (logp[-1] - logp[0]) / (logk[-1] - logk[0])
    print("ka = %.4g N/m^3 gives a resting penetration of %g m (d log delta / d log ka = %.3f; "
          "the law says -1)" % (ka, a.penetration, slope))
    # restitution at that ka for each step_damping
    e_at = []
    for s in ss:
        es = {float(r[KA]): float(r["restitution(ball)"]) for r in rows
              if float(r[S]) == s and r["restitution(ball)"]}
        ks = sorted(es)
        e = interp(lk, [math.log(k) for k in ks], [es[k] for k in ks])
        e_at.append(e)
        print("  step_damping %-5g restitution %s" % (s, "%.4f" % e if e is not None else "-"))
    pts = [(e, s) for e, s in zip(e_at, ss) if e is not None]
    pts.sort()
    s_fit = interp(a.restitution, [p[0] for p in pts], [p[1] for p in pts])
    if s_fit is None:
        sys.exit("the target restitution %g is outside %g .. %g at this ka: widen the "
                 "step_damping range" % (a.restitution, pts[0][0], pts[-1][0]))
    print("step_damping = %.4g gives a restitution of %g at that ka" % (s_fit, a.restitution))
    print("refine with a second sweep around them, e.g. ka range {from: %.3g, to: %.3g, count: 5,"
          " scale: log} and step_damping range {from: %.3g, to: %.3g, count: 5}"
          % (ka / 1.5, ka * 1.5, max(0.5, s_fit - 0.25), s_fit + 0.25))


main()
