"""comply run: the demo, free fall against the exact symplectic-Euler solution, overrides, output
directory handling, option validation, SIGINT/SIGTERM, a failing simulation.

Free fall with symplectic Euler (v first, then x with the new v), v_0 = 0, step h:
    v_n = -g h n
    z_n = z_0 + h (v_1 + ... + v_n) = z_0 - g h^2 (1 + 2 + ... + n) = z_0 - g h^2 n (n + 1) / 2
which is the exact parabola z_0 - g t^2 / 2 at t = n h shifted by -g h t / 2 (first order in h).
With no contacts the implicit step's velocity is exactly u* = u_n + h g, so both integrators
must give this.
"""
import math
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import (CONTACTS_HEADER, Suite, check, expect_exit, frames,  # noqa: E402
                     no_sanitizer_report, read_bodies, read_csv, read_summary)

G = 9.81


def fall_scene(timestep=0.01, steps=100, every=1, integrator="implicit", z0=10.0, extra=""):
    return f"""# one sphere in free fall, no ground
scene:
  timestep: {timestep}
  steps: {steps}
  gravity: [0, 0, -{G}]
  integrator: {integrator}
output:
  every: {every}
bodies:
  - name: ball
    geometry: {{sphere: {{radius: 0.1, refine: 1}}}}
    density: 1000
    position: [0.5, -0.25, {z0}]
{extra}"""


def run_ok(s, *args):
    r = s.run(*args)
    expect_exit(r, 0, "comply " + " ".join(map(str, args)))
    return r


def test_demo(s):
    out = s.path("demo")
    r = run_ok(s, "run", "-o", out)
    check(out in r.stdout and "steps" in r.stdout, "no completion line: %r" % r.stdout)
    check("\r" not in r.stderr, "progress bar drawn although stderr is not a terminal")
    summ = read_summary(os.path.join(out, "summary.json"))
    check("demo" in summ["scene"], "demo scene name %r" % summ["scene"])
    check(summ["interrupted"] is False and summ["failed"] is False, "summary flags %r" % summ)
    check(summ["message"] is None, "message %r" % summ["message"])
    h = summ["timestep"]
    check(summ["steps"] == round(4.0 / h), "demo steps %r" % summ["steps"])
    check(abs(summ["time"] - summ["steps"] * h) < 1e-9, "summary time %r" % summ["time"])
    check(summ["files"] == ["bodies.csv", "contacts.csv", "summary.json"], "files %r" % summ["files"])
    check(summ["comply_version"] and summ["bodies"] == 4, "summary %r" % summ)
    for k in ("wall_time", "kinetic_energy", "potential_energy"):
        check(isinstance(summ[k], (int, float)), "%s = %r" % (k, summ[k]))
    check(isinstance(summ["warnings"], dict) and isinstance(summ["timers"], dict), "summary dicts")
    sv = summ["solver"]
    check(set(sv) == {"solves", "total_iterations", "mean_iterations", "not_converged",
                      "retried_steps", "soft_rows", "soft_factor", "max_iterations",
                      "max_residual"}, "solver %r" % sv)
    check(sv["not_converged"] == 0 and summ["warnings"]["solver_not_converged"] == 0 and
          sv["retried_steps"] == 0 and sv["soft_rows"] == 0 and sv["soft_factor"] == 0,
          "the demo's implicit solves converge: %r" % sv)
    check(0 < sv["solves"] <= summ["steps"] and
          abs(sv["mean_iterations"] - sv["total_iterations"] / sv["solves"]) < 1e-12 and
          sv["max_iterations"] <= sv["total_iterations"], "solver statistics %r" % sv)

    fr = frames(read_bodies(os.path.join(out, "bodies.csv")))
    check(fr[0][0] == 0, "first frame is step %d" % fr[0][0])
    check(fr[-1][0] == summ["steps"], "last frame %d, summary steps %d" % (fr[-1][0], summ["steps"]))
    first = {r["body"]: r for r in fr[0][1]}
    check(set(first) == {"ground", "ball", "box", "tumbler"}, "demo bodies %r" % sorted(first))
    # the initial state of the demo: thrown up at 9.81 m/s from z = 0.5 m
    for name, x in (("ball", -1.0), ("box", 0.0), ("tumbler", 1.0)):
        b = first[name]
        check((b["x"], b["y"], b["z"], b["vz"]) == (x, 0.0, 0.5, 9.81), "initial %s: %r" % (name, b))
        check((b["qw"], b["qx"], b["qy"], b["qz"]) == (1, 0, 0, 0), "initial %s quat" % name)
    check(first["tumbler"]["wy"] == 20.0, "tumbler spin %r" % first["tumbler"]["wy"])
    for step, rows in fr:
        for r in rows:
            check(abs(r["time"] - step * h) <= 1e-9 * max(1.0, step * h),
                  "step %d time %r != step * h" % (step, r["time"]))
            q = math.sqrt(r["qw"] ** 2 + r["qx"] ** 2 + r["qy"] ** 2 + r["qz"] ** 2)
            check(abs(q - 1) < 1e-9, "step %d %s: |q| = %r" % (step, r["body"], q))
    # 2 s of flight, then landing: at 4 s the ground has not moved, the ball (radius 0.1 m)
    # rolls on it, the tumbler (0.3 x 0.2 x 0.1 m, 700 kg/m^3) rests flat on its largest face
    last = {r["body"]: r for r in fr[-1][1]}
    check(last["ground"]["z"] == 0 and last["ground"]["vz"] == 0, "the ground moved")
    check(abs(last["ball"]["z"] - 0.1) < 0.005, "ball z at 3 s: %r" % last["ball"]["z"])
    t = last["tumbler"]
    check(abs(t["z"] - 0.05) < 1e-6 and abs(t["vx"]) + abs(t["vy"]) + abs(t["vz"]) < 1e-6,
          "tumbler not at rest on its face: %r" % t)
    rows = read_csv(os.path.join(out, "contacts.csv"), CONTACTS_HEADER)
    final = [r for r in rows if int(r[0]) == fr[-1][0] and r[2:4] == ["ground", "tumbler"]]
    check(len(final) == 1, "no ground-tumbler contact at the last step")
    if final:
        # the force on the ground (body_a) is the tumbler's weight, pointing down
        weight = 0.3 * 0.2 * 0.1 * 700 * 9.81
        check(abs(float(final[0][7]) + weight) < 1e-6 * weight, "ground force %r" % final[0][5:8])


def check_fall(fr, h, z0=10.0):
    for step, rows in fr:
        (b,) = rows
        n = step
        z = z0 - G * h * h * n * (n + 1) / 2
        check(abs(b["z"] - z) <= 1e-9 * max(1.0, abs(z)),
              "step %d: z = %.17g, symplectic Euler %.17g (exact parabola %.17g)"
              % (n, b["z"], z, z0 - G * (n * h) ** 2 / 2))
        check(abs(b["vz"] + G * h * n) <= 1e-9 * max(1.0, G * h * n),
              "step %d: vz = %.17g, expected %.17g" % (n, b["vz"], -G * h * n))
        check(abs(b["x"] - 0.5) < 1e-12 and abs(b["y"] + 0.25) < 1e-12, "step %d: x, y moved" % n)
        check(abs(b["vx"]) < 1e-12 and abs(b["vy"]) < 1e-12, "step %d: horizontal velocity" % n)
        check(abs(b["qw"] - 1) < 1e-12 and max(abs(b["wx"]), abs(b["wy"]), abs(b["wz"])) < 1e-12,
              "step %d: rotation" % n)
        check(abs(b["time"] - n * h) <= 1e-12 * max(1.0, n * h), "step %d: time %r" % (n, b["time"]))


def test_free_fall(s):
    for integ in ("implicit", "explicit"):
        scene = s.write("fall_%s.yaml" % integ, fall_scene(integrator=integ))
        out = s.path("fall_" + integ)
        run_ok(s, "run", scene, "-o", out, "--quiet")
        fr = frames(read_bodies(os.path.join(out, "bodies.csv")))
        check([st for st, _ in fr] == list(range(101)), "%s: steps written %r" % (integ, fr[:3]))
        check_fall(fr, 0.01)
        summ = read_summary(os.path.join(out, "summary.json"))
        check(summ["steps"] == 100 and summ["scene"] == "fall_" + integ, "summary %r" % summ)
        check(abs(summ["time"] - 1.0) < 1e-12, "time %r" % summ["time"])
        # energy: E_kin + E_pot (relative to the origin) of the last state
        (b,) = fr[-1][1]
        mass_free = summ["kinetic_energy"] / (0.5 * b["vz"] ** 2)
        check(abs(summ["potential_energy"] - mass_free * G * b["z"]) < 1e-6 * abs(summ["potential_energy"]),
              "potential energy %r" % summ["potential_energy"])


def test_overrides(s):
    scene = s.write("ovr.yaml", fall_scene(steps=100))
    cases = [(["--steps", "7"], 7), (["--steps=3"], 3), (["--duration", "0.05"], 5),
             (["--duration=0.0149"], 1), (["--duration", "0.016"], 2), (["--steps", "0"], 0),
             (["--duration", "0"], 0)]
    for i, (args, steps) in enumerate(cases):
        out = s.path("ovr%d" % i)
        run_ok(s, "run", scene, "-o", out, "--quiet", *args)
        fr = frames(read_bodies(os.path.join(out, "bodies.csv")))
        check([st for st, _ in fr] == list(range(steps + 1)), "%r: steps written %r"
              % (args, [st for st, _ in fr]))
        check_fall(fr, 0.01)
        check(read_summary(os.path.join(out, "summary.json"))["steps"] == steps, "%r: summary" % args)


def test_output_every_and_dir(s):
    scene = s.write("every.yaml", fall_scene(steps=10, every=3))
    out = s.path("deep", "er", "dir")  # parents are created
    r = run_ok(s, "run", scene, "--output", out)
    check(out in r.stdout, "completion line does not name %s: %r" % (out, r.stdout))
    fr = frames(read_bodies(os.path.join(out, "bodies.csv")))
    check([st for st, _ in fr] == [0, 3, 6, 9, 10], "frames %r" % [st for st, _ in fr])
    check_fall(fr, 0.01)
    # default output directory: out/ in the working directory
    wd = s.path("wd")
    os.makedirs(wd)
    r = s.run("run", scene, "--quiet", cwd=wd)
    expect_exit(r, 0, "run with default output")
    check(r.stdout == "", "--quiet printed %r" % r.stdout)
    for f in ("bodies.csv", "contacts.csv", "summary.json"):
        check(os.path.isfile(os.path.join(wd, "out", f)), "out/%s missing" % f)
    check(not os.path.exists(os.path.join(wd, "out", "summary.json.tmp")), "summary.json.tmp left")


def test_bad_options(s):
    scene = s.write("opts.yaml", fall_scene(steps=5))
    bad = [(["--steps", "-1"], "--steps"), (["--steps", "1.5"], "--steps"),
           (["--steps", "abc"], "--steps"), (["--steps", ""], "--steps"),
           (["--steps", "99999999999999999999999"], "--steps"),
           (["--duration", "-1"], "--duration"), (["--duration", "nan"], "--duration"),
           (["--duration", "inf"], "--duration"), (["--duration", "1s"], "--duration"),
           (["--steps"], "--steps"), (["-o"], "-o"), (["--frobnicate"], "--frobnicate"),
           (["--steps", "5", "--duration", "1"], "--duration"), (["extra.yaml"], "extra.yaml"),
           (["--duration", "1e300"], "--duration"),
           (["--duration", "0.0004"], "shorter than half a step"),
           (["--steps", "9000000000000000"], "more than the limit of 1e+15 steps"),
           (["--duration", "1e14"], "more than the limit of 1e+15"),
           (["--duration", "0x10"], "--duration"), (["--duration", "1e-400"], "--duration")]
    for args, name in bad:
        r = s.run("run", scene, "-o", s.path("bad"), *args)
        expect_exit(r, 2, "run %r" % args)
        check(r.stderr.startswith("comply: ") and name in r.stderr,
              "run %r: message does not name %s: %r" % (args, name, r.stderr))
        check(not os.path.exists(s.path("bad", "summary.json")), "run %r simulated" % args)


def test_bad_scene_and_output(s):
    r = s.run("run", s.path("missing.yaml"))
    expect_exit(r, 2, "missing scene")
    check("missing.yaml" in r.stderr and r.stderr.startswith("comply: "), r.stderr)
    scene = s.write("unw.yaml", fall_scene(steps=5))
    r = s.run("run", scene, "-o", "/proc/comply-x")
    expect_exit(r, 2, "unwritable output")
    check("/proc/comply-x" in r.stderr, "message does not name the path: %r" % r.stderr)
    afile = s.write("plainfile", "x")
    r = s.run("run", scene, "-o", os.path.join(afile, "sub"))
    expect_exit(r, 2, "output under a regular file")
    check(afile in r.stderr, "message does not name the path: %r" % r.stderr)


def interrupt(s, sig, code):
    scene = s.write("long%d.yaml" % sig, fall_scene(timestep=1e-4, steps=10 ** 9, every=2000,
                                                   z0=0.0))
    out = s.path("long%d" % sig)
    p = subprocess.Popen([s.comply, "run", scene, "-o", out], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    # wait until the run has started writing, then a little more
    t0 = time.time()
    while not os.path.exists(os.path.join(out, "bodies.csv")) and time.time() - t0 < 30:
        time.sleep(0.02)
    time.sleep(0.5)
    p.send_signal(sig)
    try:
        stdout, stderr = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("the run did not stop within 60 s of the signal")
    no_sanitizer_report(stderr, "run interrupted by signal %d" % sig)
    check(p.returncode == code, "exit %d after signal %d, expected %d; stderr %r"
          % (p.returncode, sig, code, stderr))
    check("interrupted" in stderr, "no interruption message: %r" % stderr)
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["interrupted"] is True and summ["failed"] is False, "summary flags %r" % summ)
    fr = frames(read_bodies(os.path.join(out, "bodies.csv")))
    check(fr[0][0] == 0, "first frame %d" % fr[0][0])
    check(fr[-1][0] == summ["steps"], "last frame %d != summary steps %d" % (fr[-1][0], summ["steps"]))
    check(0 < summ["steps"] < 10 ** 9, "steps %r" % summ["steps"])
    check_fall(fr, 1e-4, z0=0.0)
    read_csv(os.path.join(out, "contacts.csv"), CONTACTS_HEADER)


def test_sigint(s):
    interrupt(s, signal.SIGINT, 130)


def test_sigterm(s):
    interrupt(s, signal.SIGTERM, 128 + signal.SIGTERM)


def test_numeric_failure(s):
    # a velocity so large that the position overflows in the first step
    scene = s.write("blowup.yaml", fall_scene(timestep=10.0, steps=5).replace(
        "position: [0.5, -0.25, 10.0]", "position: [0.5, -0.25, 10.0]\n    velocity: [1.0e308, 0, 0]"))
    out = s.path("blowup")
    r = s.run("run", scene, "-o", out)
    expect_exit(r, 1, "simulation that overflows")
    check(r.stderr.startswith("comply: "), "no message: %r" % r.stderr)
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["failed"] is True and isinstance(summ["message"], str), "summary %r" % summ)
    fr = frames(read_bodies(os.path.join(out, "bodies.csv")))  # every number finite
    check(fr[-1][0] == summ["steps"], "last frame %d != steps %d" % (fr[-1][0], summ["steps"]))


if __name__ == "__main__":
    s = Suite()
    for t in (test_demo, test_free_fall, test_overrides, test_output_every_and_dir,
              test_bad_options, test_bad_scene_and_output, test_sigint, test_sigterm,
              test_numeric_failure):
        s.test(t)
    s.finish()
