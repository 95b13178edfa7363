#!/usr/bin/env python3
"""Calibrate the area_compliant law's ka for a target resting penetration.

A body resting on a compliant contact sinks until the contact force carries its weight W. For
the area_compliant law every contact point pushes with ka A_k delta_k, so the force is ka times
the overlap volume V(delta):
  - a flat face of area A: V = A delta, hence ka = W / (A delta) exactly (claim P3);
  - a sphere of radius R: V = pi delta^2 (R - delta/3) ~ pi R delta^2, hence
    ka ~ W / (pi R delta^2), a first guess only: the mesh is faceted and sampled by vertices.
The calibration therefore runs the simulation: it settles the body, measures the penetration
(the pair's max_penetration), and corrects ka by the local power law delta ~ ka^-p (p = 1 for a
face, 1/2 for a sphere), with p re-estimated from the last two runs (a secant step in log-log),
until the penetration is within `tol` of the target.

    python3 examples/python/calibrate_ka.py [--quick] [--target 1e-4]
"""
import argparse
import math
import os
import sys

try:
    import comply
except ImportError:  # run from the source tree without PYTHONPATH
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    import comply


def resting_penetration(shape, ka, refine, steps):
    """Settle the body on the plane z = 0 from touching it; the pair's max_penetration, m."""
    s = comply.Scene("calibrate", timestep=1e-3, gravity=(0, 0, -9.81))
    s.add_body("ground", geom="plane", motion="fixed")
    if shape == "sphere":
        s.add_body("body", geom="sphere", radius=0.05, refine=refine, density=1000,
                   position=(0, 0, 0.05))
    else:
        s.add_body("body", geom="box", size=(0.1, 0.1, 0.05), divisions=4, density=1000,
                   position=(0, 0, 0.025))
    s.add_rule("*", "*", law="area_compliant", ka=ka, step_damping=1.0)
    m = s.compile()
    d = comply.Data(m).step(steps)
    return d.pairs["max_penetration"][0] if d.npair else 0.0, m.body_mass[1]


def calibrate(shape, target, refine, steps, tol=0.01, maxit=12):
    W_mass = None
    if shape == "sphere":
        R = 0.05
        W_mass = 1000 * 4 / 3 * math.pi * R ** 3
        ka, p = W_mass * 9.81 / (math.pi * R * target ** 2), 0.5
    else:
        ka, p = 0.5 * 9.81 / (0.01 * target), 1.0
    print("%s: target penetration %.4g m, first guess ka = %.4g N/m^3 (%s)"
          % (shape, target, ka, "W / (pi R delta^2), W of the ideal sphere" if W_mass
             else "W / (A delta), W of 0.5 kg"))
    prev = None
    for it in range(maxit):
        delta, mass = resting_penetration(shape, ka, refine, steps)
        print("  run %d: ka = %.6g N/m^3 -> penetration %.6g m (%.2f %% off)"
              % (it + 1, ka, delta, 100 * (delta / target - 1)))
        if abs(delta / target - 1) < tol:
            return ka, delta, mass
        if prev is not None and prev[1] != delta and prev[0] != ka:
            p = -math.log(delta / prev[1]) / math.log(ka / prev[0])  # delta ~ ka^-p
            p = min(max(p, 0.2), 2.0)
        prev = (ka, delta)
        ka *= (delta / target) ** (1 / p)
    raise SystemExit("%s: no convergence in %d runs" % (shape, maxit))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=float, default=1e-4, help="resting penetration, m")
    ap.add_argument("--quick", action="store_true", help="coarse mesh, short settling")
    a = ap.parse_args()
    quick = a.quick or os.environ.get("COMPLY_EXAMPLE_QUICK") == "1"
    refine, steps = (2, 300) if quick else (4, 1000)
    ka, delta, mass = calibrate("box", a.target, refine, steps)
    exact = mass * 9.81 / (0.01 * a.target)
    print("box: ka = %.6g N/m^3; W / (A delta) = %.6g N/m^3 (%.2f %% apart)\n"
          % (ka, exact, 100 * (ka / exact - 1)))
    ka, delta, mass = calibrate("sphere", a.target, refine, steps)
    guess = mass * 9.81 / (math.pi * 0.05 * a.target ** 2)
    print("sphere (refine %d): ka = %.6g N/m^3; the smooth-cap estimate W / (pi R delta^2) with "
          "the mesh's weight = "
          "%.6g N/m^3 (%.1f %% apart: the faceted, vertex-sampled cap)" % (refine, ka, guess,
                                                                         100 * (ka / guess - 1)))


if __name__ == "__main__":
    main()
