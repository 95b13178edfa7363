#!/usr/bin/env python3
"""Restitution sweep of the contact_time law against its analytic curve.

rigidbody-interaction.txt's contact_time law is a spring-dashpot K = m (pi/T)^2,
D = -2 m ln(e_r) / T (m the representative mass), which never pulls: the force is
max(0, K x + D x'). e_r would be the restitution of a dashpot that may pull (the contact then
ending at x = 0); comply's law releases the body earlier, when the force reaches zero, so the
restitution it gives is
  e(e_r) = exp(-2 zeta acos(zeta) / sqrt(1 - zeta^2)),  zeta = -ln(e_r) / pi   (zeta < 1)
(cm_advise_contact_time_restitution; src/tools/advise.c derives it). This script drops a flat
box on a plane at v0 without gravity for a range of e_r, all variants stepped in parallel from
Python threads (comply.step_parallel: each Data on its own thread, the GIL released in cm_step),
and prints the measured restitution next to e(e_r) and e_r. The explicit step adds an error of
order h/T (here h/T = 1/100). With matplotlib, --png FILE draws the three curves.

    python3 examples/python/restitution_sweep.py [--quick] [--png sweep.png]
"""
import argparse
import os
import sys

import numpy as np

try:
    import comply
except ImportError:  # run from the source tree without PYTHONPATH
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                    "python"))
    import comply

T, H, V0 = 0.02, 2e-4, 0.1  # contact time s, step s, impact speed m/s


def drop(er):
    """A 0.1 x 0.1 x 0.05 m box 2.5 steps above the plane, falling at V0, no gravity."""
    s = comply.Scene("sweep", timestep=H, gravity=(0, 0, 0))
    s.add_body("ground", geom="plane", motion="fixed")
    s.add_body("box", geom="box", size=(0.1, 0.1, 0.05), position=(0, 0, 0.025 + 2.5 * V0 * H),
               velocity=(0, 0, -V0))
    s.add_rule("*", "*", law="contact_time", contact_time=T, elastic_repulsion=er)
    return comply.Data(s.compile())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="5 values of e_r instead of 19")
    ap.add_argument("--png", help="write the curves to this PNG (needs matplotlib)")
    a = ap.parse_args()
    quick = a.quick or os.environ.get("COMPLY_EXAMPLE_QUICK") == "1"
    ers = np.linspace(0.1, 1.0, 5 if quick else 19)
    datas = [drop(er) for er in ers]
    # the contact lasts at most T: after 2 T (+ the approach) every box flies off freely
    comply.step_parallel(datas, int(2 * T / H) + 5)
    measured = np.array([d.body_cvel[1, 2] / V0 for d in datas])
    analytic = np.array([comply.contact_time_restitution(er) for er in ers])
    print("   e_r   measured   analytic e(e_r)   rel. error")
    for er, e, ea in zip(ers, measured, analytic):
        print("  %.3f   %.5f    %.5f           %+.2f %%" % (er, e, ea, 100 * (e / ea - 1)))
    worst = np.max(np.abs(measured / analytic - 1))
    print("largest deviation from the analytic curve: %.2f %% (h/T = %.3f)" % (100 * worst, H / T))
    if a.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fine = np.linspace(0.02, 1.0, 200)
        fig, ax = plt.subplots(figsize=(6, 4.5))
        ax.plot(fine, [comply.contact_time_restitution(x) for x in fine], "-",
                label="analytic e(e_r) (force never pulls)")
        ax.plot(fine, fine, ":", color="gray", label="e = e_r (pulling dashpot)")
        ax.plot(ers, measured, "o", label="comply, h/T = %.2f" % (H / T))
        ax.set_xlabel("elastic_repulsion e_r")
        ax.set_ylabel("coefficient of restitution")
        ax.set_title("contact_time law: restitution")
        ax.legend()
        ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(a.png, dpi=100)
        print("wrote", a.png)
    return 0 if worst < 0.02 else 1


if __name__ == "__main__":
    sys.exit(main())
