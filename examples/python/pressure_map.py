#!/usr/bin/env python3
"""Pressure map of a femur-like body on a cartilage-like layer.

A femoral condyle is modelled as an ellipsoid of semi-axes a, b, c (a UV mesh made here and
given to the scene as numpy arrays), loaded by a force F onto a thin fixed layer, the cartilage (a box 4 mm thick), with the
area_compliant law: the layer's top vertices penetrate the condyle (direction: first), so
cm_data_vertex_pressure gives the pressure on the layer's grid.

The area_compliant law is a Winkler foundation: the pressure at a point is ka times the local
penetration. Near its lowest point the ellipsoid is the paraboloid
delta(x, y) = delta0 - x^2 / (2 Rx) - y^2 / (2 Ry) with curvature radii Rx = a^2 / c,
Ry = b^2 / c, so the contact patch is an ellipse of semi-axes sqrt(2 Rx delta0),
sqrt(2 Ry delta0) and the force is ka times the paraboloid's volume, ka pi delta0^2 sqrt(Rx Ry).
Equilibrium (F + m g) then gives delta0, the peak pressure p0 = ka delta0 and the patch; the
script prints them next to the simulation's. ka follows "Choosing Ka" of
area-compliant-contact.txt: rho E / L with E = 10 MPa, L = 4 mm and rho = 20 (a thin layer).

    python3 examples/python/pressure_map.py [--quick] [--png map.png]
"""
import argparse
import math
import os
import sys

import numpy as np

try:
    import comply
except ImportError:  # run from the source tree without PYTHONPATH
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    import comply

A, B, C = 0.025, 0.02, 0.015  # condyle semi-axes, m (c the smallest: stable on its pole)
LOAD = 300.0                      # N, pressing the condyle down (besides its weight)
E, L, RHO = 10e6, 0.004, 20.0     # cartilage modulus Pa, thickness m, stiffness ratio
KA = RHO * E / L                  # N/m^3
SX, SY = 0.04, 0.03               # the layer's patch under the condyle, m


def ellipsoid(nlat, nlon):
    """A closed UV ellipsoid (poles on z): vertices (n, 3) and faces (m, 3) wound outward."""
    verts = [(0.0, 0.0, C)]
    for i in range(1, nlat):
        th = math.pi * i / nlat
        for j in range(nlon):
            ph = 2 * math.pi * j / nlon
            verts.append((A * math.sin(th) * math.cos(ph), B * math.sin(th) * math.sin(ph),
                          C * math.cos(th)))
    verts.append((0.0, 0.0, -C))
    ring = lambda i, j: 1 + (i - 1) * nlon + j % nlon  # noqa: E731 (0-based, ring i >= 1)
    bottom = len(verts) - 1
    faces = []
    for j in range(nlon):
        faces.append((0, ring(1, j), ring(1, j + 1)))
        faces.append((bottom, ring(nlat - 1, j + 1), ring(nlat - 1, j)))
    for i in range(1, nlat - 1):
        for j in range(nlon):
            p, q, r, s = ring(i, j), ring(i, j + 1), ring(i + 1, j), ring(i + 1, j + 1)
            faces += [(p, r, s), (p, s, q)]
    return np.array(verts), np.array(faces)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="coarse meshes, short settling")
    ap.add_argument("--png", help="write the pressure map to this PNG (needs matplotlib)")
    a = ap.parse_args()
    quick = a.quick or os.environ.get("COMPLY_EXAMPLE_QUICK") == "1"
    nlat, nlon, div, steps = (24, 48, 24, 150) if quick else (96, 192, 100, 400)

    cv, cf = ellipsoid(nlat, nlon)
    s = comply.Scene("knee", timestep=1e-3, gravity=(0, 0, -9.81))
    s.add_body("cartilage", geom="box", size=(SX, SY, L), divisions=div,
               position=(0, 0, -L / 2), motion="fixed")
    s.add_body("femur", vertices=cv, faces=cf, mass=1.0, position=(0, 0, C),
               force=(0, 0, -LOAD))
    s.add_rule("cartilage", "femur", law="area_compliant", ka=KA, step_damping=1.0,
               direction="first")
    m = s.compile()
    d = comply.Data(m).step(steps)

    # the simulation: pressure on the layer's vertices, patch extent, total force
    verts = d.body_vertices("cartilage")
    p, pen = d.vertex_pressure("cartilage")
    on = p > 0
    W = LOAD + m.body_mass[m.body("femur")] * 9.81
    force = d.pairs["force"][0]
    print("condyle %g x %g x %g mm on a %g mm layer, ka = %.3g N/m^3, load %.1f N; %d contact "
          "points" % (1e3 * A, 1e3 * B, 1e3 * C, 1e3 * L, KA, W, d.ncontact))
    print("  contact force %.2f N (equilibrium: %.2f N)" % (abs(force[2]), W))

    # the Winkler-foundation prediction
    Rx, Ry = A * A / C, B * B / C
    delta0 = math.sqrt(W / (KA * math.pi * math.sqrt(Rx * Ry)))
    ax_x, ax_y = math.sqrt(2 * Rx * delta0), math.sqrt(2 * Ry * delta0)
    print("  peak pressure %.4g MPa (paraboloid: %.4g MPa)" % (p.max() / 1e6, KA * delta0 / 1e6))
    print("  peak penetration %.4g mm (paraboloid: %.4g mm)" % (1e3 * pen.max(), 1e3 * delta0))
    print("  patch half-widths x %.2f mm, y %.2f mm (paraboloid: %.2f, %.2f mm; grid spacing "
          "x %.2f mm, y %.2f mm)" % (1e3 * np.abs(verts[on, 0]).max(),
                                     1e3 * np.abs(verts[on, 1]).max(), 1e3 * ax_x, 1e3 * ax_y,
                                     1e3 * SX / div, 1e3 * SY / div))
    if a.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        top = verts[:, 2] > -1e-9  # the layer's top face
        fig, ax = plt.subplots(figsize=(6.5, 5))
        sc = ax.tricontourf(1e3 * verts[top, 0], 1e3 * verts[top, 1], p[top] / 1e6, levels=20,
                            cmap="viridis")
        t = np.linspace(0, 2 * math.pi, 200)
        ax.plot(1e3 * ax_x * np.cos(t), 1e3 * ax_y * np.sin(t), "w--", lw=1,
                label="paraboloid patch")
        fig.colorbar(sc, ax=ax, label="pressure, MPa")
        ax.set_xlim(-2.5e3 * ax_x, 2.5e3 * ax_x)
        ax.set_ylim(-2.5e3 * ax_y, 2.5e3 * ax_y)
        ax.set_aspect("equal")
        ax.set_xlabel("x, mm")
        ax.set_ylabel("y, mm")
        ax.set_title("condyle on cartilage: %.0f N, peak %.2f MPa" % (W, p.max() / 1e6))
        ax.legend(loc="upper right")
        fig.tight_layout()
        fig.savefig(a.png, dpi=100)
        print("wrote", a.png)
    return 0 if abs(abs(force[2]) / W - 1) < 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())
