#!/usr/bin/env python3
"""The Python bindings' overhead per step: Data.step() in a Python loop against cm_step in a C
loop (comply_step_loop, bench/step_loop.c), on the same scene, the same shared library, side by
side in one run (bench/README.md, "Python step overhead").

    COMPLY_LIBRARY=build/libcomply.so python3 bench/python_overhead.py \
        --c-loop build/bench/comply_step_loop [--steps N] [--rounds R] [--quick]

For each scene, R rounds alternate: the C loop (best of 3 repetitions of N steps), the Python loop
`for i in range(N): d.step()`, and `d.step(N)` (the loop inside step()); each after a reset and
one warm-up step, as the C loop does, so all three end on the same state (the hashes are compared).
Printed: ns per step of each, their ratio to C, and the overhead in ns per step; the best round of
each is kept. OMP_NUM_THREADS=1 for both (one body: no parallel work to share), set before the
library is loaded.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

os.environ["OMP_NUM_THREADS"] = "1"
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import comply  # noqa: E402

SCENES = {
    # one free body: the cheapest step there is, so the overhead is the largest fraction of it
    "one_body": """scene: {name: one_body, timestep: 1.0e-3}
bodies:
  - name: ball
    geometry: {sphere: {radius: 0.05, refine: 1}}
    position: [0, 0, 1000]
""",
    # one box resting on a plane (4 contacts, the implicit solve): a small real step
    "box_on_plane": """scene: {name: box_on_plane, timestep: 1.0e-3}
bodies:
  - name: ground
    geometry: {plane: {normal: [0, 0, 1], offset: 0}}
    motion: fixed
  - name: box
    geometry: {box: {size: [0.1, 0.1, 0.05]}}
    position: [0, 0, 0.025]
interactions:
  - pair: ["*", "*"]
    law: area_compliant
""",
}


def python_loop(m, steps, inner):
    d = comply.Data(m)
    d.step()  # warm-up, as the C loop
    t0 = time.perf_counter()
    if inner:
        d.step(steps)
    else:
        step = d.step
        for _ in range(steps):
            step()
    return (time.perf_counter() - t0) / steps * 1e9, d.hash()


def sweep(variants, steps, threads):
    """Wall seconds to step `variants` Data of box_on_plane `steps` steps each, one after another
    and from a pool of `threads` threads (comply.step_parallel); the hashes must agree."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "box_on_plane.yaml")
        with open(path, "w") as f:
            f.write(SCENES["box_on_plane"])
        m = comply.load(path)
    out = []
    for nthreads in (1, threads):
        datas = [comply.Data(m) for _ in range(variants)]
        for i, d in enumerate(datas):
            d.body_cvel[1] = (0.0, 0.0, -1e-4 * i)  # variants of the initial state
        t0, c0 = time.perf_counter(), time.process_time()
        if nthreads == 1:
            for d in datas:
                d.step(steps)
        else:
            comply.step_parallel(datas, steps, threads=nthreads)
        out.append((time.perf_counter() - t0, time.process_time() - c0,
                    [d.hash() for d in datas]))
    (t1, c1, h1), (tn, cn, hn) = out
    print("sweep: %d variants x %d steps: sequential %.2f s (CPU %.2f s), %d threads %.2f s "
          "(CPU %.2f s), speed-up %.2f, same states: %s" % (variants, steps, t1, c1, threads, tn,
                                                            cn, t1 / tn, h1 == hn))
    return h1 == hn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--c-loop", default=os.environ.get("COMPLY_STEP_LOOP"),
                    help="path of comply_step_loop (default $COMPLY_STEP_LOOP)")
    ap.add_argument("--steps", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="200 steps, 1 round (smoke test)")
    ap.add_argument("--sweep", type=int, default=0, metavar="THREADS",
                    help="also time 1000 variants x 100 steps sequentially and in THREADS threads")
    a = ap.parse_args()
    if not a.c_loop:
        ap.error("--c-loop is required (the comply_step_loop program of the build)")
    steps, rounds = (200, 1) if a.quick else (a.steps, a.rounds)
    print("steps %d, rounds %d, library %s" % (steps, rounds, comply.version()))
    print("%-13s %10s %12s %8s %12s %8s %14s" % ("scene", "C ns/step", "py loop ns", "ratio",
                                                   "step(N) ns", "ratio", "overhead ns"))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in SCENES.items():
            path = os.path.join(tmp, name + ".yaml")
            with open(path, "w") as f:
                f.write(text)
            m = comply.load(path)
            best_c = best_py = best_in = float("inf")
            for _ in range(rounds):
                out = subprocess.run([a.c_loop, path, str(steps), "3"], check=True,
                                     capture_output=True, text=True).stdout.split()
                c_ns, c_hash = float(out[0]), int(out[1])
                py_ns, py_hash = python_loop(m, steps, False)
                in_ns, in_hash = python_loop(m, steps, True)
                if not c_hash == py_hash == in_hash:
                    print("%s: the loops ended on different states" % name)
                    ok = False
                best_c, best_py, best_in = min(best_c, c_ns), min(best_py, py_ns), min(best_in,
                                                                                       in_ns)
            print("%-13s %10.0f %12.0f %8.2f %12.0f %8.2f %14.0f" % (
                name, best_c, best_py, best_py / best_c, best_in, best_in / best_c,
                best_py - best_c))
    if a.sweep:
        ok = sweep(50 if a.quick else 1000, 20 if a.quick else 100, a.sweep) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
