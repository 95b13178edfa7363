"""comply sweep (docs/sweeps.md): the sweep file, the variants, sweep.csv, failures, restart,
MPI.

Derivations:
- A box of side a and density rho resting on a fixed plane with the area_compliant law presses
  its bottom face A = a^2 with its weight W = rho a^3 g; the pressure ka delta over A carries it:
  delta = W / (ka A) (docs/contact-laws.md). With step_damping 1 the box, placed touching,
  settles within 200 steps of 1 ms for ka >= 1e7 N/m^3 (the contact's period
  2 pi sqrt(m / (ka A)) is at most 6 ms there).
- The grid's variant order: the first parameter varies slowest, so variant v of a 3 x 2 grid has
  value indices (v // 2, v % 2).
- sweep.csv cannot depend on how the variants were shared out: every variant is one
  deterministic run whose row is written into its own folder, and sweep.csv is read from the
  folders in variant order. So the serial file, the local pool's and those of mpirun -n 2 and -n
  4 (oversubscribed on a 2-core machine) must be the same bytes.

The mpirun runs need Open MPI (openmpi-bin) and a comply built with MPI; without them that test
says so and checks the local runs only. In the sanitizer build the ranks run without
LeakSanitizer (Open MPI's own allocations live until exit); the local runs check for leaks.
"""
import csv
import io
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402

BOX = """\
scene: {timestep: 1.0e-3, steps: 200}
output: {every: 50}
bodies:
  - name: ground
    geometry: {plane: {normal: [0, 0, 1], offset: 0}}
    motion: fixed
  - name: box
    geometry: {box: {size: [0.1, 0.1, 0.1], divisions: 1}}
    density: 1000
    position: [0, 0, 0.05]
interactions:
  - pair: [box, ground]
    law: area_compliant
    ka: 1.0e7
    step_damping: 1
"""

SWEEP = """\
scene: box.yaml
vary:
  - path: interactions[0].ka
    range: {from: 1.0e7, to: 1.0e9, count: 3, scale: log}
  - path: bodies[box].density
    values: [1000, 2000]
collect: [penetration(box), max_pressure, final_pose(box), newton_iterations, warnings, steps]
"""


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def mpi_env(comply):
    env = dict(os.environ)
    if sanitized(comply):
        # Open MPI's own allocations live until exit: LeakSanitizer would report them from
        # every rank. The sweep's code is checked for leaks by the local runs (the same
        # sweep_run_variant, in worker processes that exit normally).
        env["ASAN_OPTIONS"] = "detect_leaks=0"
    # a container without network: shared memory between the ranks only, no CMA
    env["OMPI_MCA_btl"] = "self,vader"
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    return env


def sanitized(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()


def mpirun(t, n, *args):
    exe = shutil.which("mpirun")
    return subprocess.run([exe, "--allow-run-as-root", "--oversubscribe", "-n", str(n),
                           t.comply] + [str(a) for a in args], capture_output=True, text=True,
                          timeout=120, cwd=t.tmp, env=mpi_env(t.comply))


def setup(t, sweep=SWEEP, base=BOX, name="sweep.yaml"):
    t.write("box.yaml", base)
    return t.write(name, sweep)


def test_grid_and_analytic_penetration(t):
    setup(t)
    r = t.run("sweep", "sweep.yaml", "-o", "grid", "-j", "2")
    expect_exit(r, 0, "sweep")
    rows = rows_of(t.path("grid", "sweep.csv"))
    check(len(rows) == 6, "6 variants, got %d" % len(rows))
    kas = [1e7, 1e8, 1e9]
    rhos = [1000, 2000]
    for v, row in enumerate(rows):
        check(row["variant"] == str(v), "row %d: variant %r" % (v, row["variant"]))
        ka, rho = kas[v // 2], rhos[v % 2]
        check(float(row["interactions[0].ka"]) == ka, "row %d: ka %r" % (v, row))
        check(float(row["bodies[box].density"]) == rho, "row %d: density %r" % (v, row))
        check(row["status"] == "ok" and row["error"] == "", "row %d: %r" % (v, row))
        W = rho * 0.1 ** 3 * 9.81
        delta = W / (ka * 0.1 ** 2)
        pen = float(row["penetration(box)"])
        check(abs(pen - delta) < 0.01 * delta,
              "variant %d: resting penetration %.6g m, W/(ka A) = %.6g m" % (v, pen, delta))
        # it rests at its half size minus the penetration, upright
        check(abs(float(row["final_pose(box).z"]) - (0.05 - delta)) < 0.01 * delta + 1e-12,
              "variant %d: z %r" % (v, row["final_pose(box).z"]))
        check(abs(float(row["final_pose(box).qw"]) - 1) < 1e-9, "variant %d: tilted" % v)
        check(row["steps"] == "200" and row["warnings"] == "0", "variant %d: %r" % (v, row))
        # every variant has its folder with the outputs of comply run and its scene
        d = t.path("grid", "variant_%04d" % v)
        for f in ("scene.yaml", "bodies.csv", "contacts.csv", "summary.json", "result.csv"):
            check(os.path.isfile(os.path.join(d, f)), "%s/%s missing" % (d, f))
        with open(os.path.join(d, "scene.yaml")) as f:
            scene = f.read()
        check("density: %d" % rho in scene, "variant %d scene: %s" % (v, scene))
        # the variant's scene is a scene comply check accepts
        expect_exit(t.run("check", os.path.join(d, "scene.yaml")), 0, "check variant %d" % v)


def test_serial_pool_and_mpi_identical(t):
    setup(t)
    expect_exit(t.run("sweep", "sweep.yaml", "-o", "j1", "-j", "1", "--quiet"), 0, "-j 1")
    r = t.run("sweep", "-o", "j3", "-j", "3", "-q", "--", "sweep.yaml")  # -q as run's, and --
    expect_exit(r, 0, "-j 3 -q")
    check(r.stdout + r.stderr == "", "-q printed %r" % (r.stdout + r.stderr))
    with open(t.path("j1", "sweep.csv"), "rb") as f:
        ref = f.read()
    with open(t.path("j3", "sweep.csv"), "rb") as f:
        check(f.read() == ref, "-j 3 sweep.csv differs from -j 1")
    if not shutil.which("mpirun"):
        print("     (mpirun not found: the MPI runs are not tested)")
        return
    for n in (1, 2, 4):
        r = mpirun(t, n, "sweep", "sweep.yaml", "-o", "mpi%d" % n)
        if n == 1 and "built without MPI" in r.stderr:
            print("     (comply built without MPI: the MPI runs are not tested)")
            return
        expect_exit(r, 0, "mpirun -n %d" % n)
        check("on %d MPI rank" % n in r.stderr, "mpirun -n %d: %s" % (n, r.stderr))
        with open(t.path("mpi%d" % n, "sweep.csv"), "rb") as f:
            check(f.read() == ref, "mpirun -n %d: sweep.csv differs from the serial one" % n)


def test_failed_variant_is_a_row(t):
    setup(t, SWEEP.replace("range: {from: 1.0e7, to: 1.0e9, count: 3, scale: log}",
                           "values: [1.0e7, -1, 1.0e8]"))
    r = t.run("sweep", "sweep.yaml", "-o", "bad", "--quiet")
    expect_exit(r, 1, "sweep with a negative ka")
    rows = rows_of(t.path("bad", "sweep.csv"))
    check(len(rows) == 6, "6 rows, got %d" % len(rows))
    for v, row in enumerate(rows):
        if v in (2, 3):  # ka = -1
            check(row["status"] == "invalid", "row %d: %r" % (v, row))
            err = row["error"]
            # the variant, its scene file and line, and the field
            check(("variant %d" % v) in err and ("variant_%04d/scene.yaml:" % v) in err
                  and "ka" in err and "-1" in err, "row %d error: %r" % (v, err))
            check(row["penetration(box)"] == "", "row %d: a value for a failed variant" % v)
        else:
            check(row["status"] == "ok" and float(row["penetration(box)"]) > 0,
                  "row %d: %r" % (v, row))
    # strict: warnings fail a variant. ka 1e4 lets the box sink 9.8 cm: deep_penetration
    setup(t, SWEEP.replace("range: {from: 1.0e7, to: 1.0e9, count: 3, scale: log}",
                           "values: [1.0e4, 1.0e8]"), name="strict.yaml")
    r = t.run("sweep", "strict.yaml", "-o", "strict", "--strict", "--quiet")
    expect_exit(r, 1, "sweep --strict")
    rows = rows_of(t.path("strict", "sweep.csv"))
    check([x["status"] for x in rows] == ["warnings", "warnings", "ok", "ok"],
          "strict statuses: %r" % [(x["status"], x["error"]) for x in rows])
    # W/(ka A) = 9.8 cm for a 10-cm box: the estimate before the run and the depth monitor
    for row in rows[:2]:
        check("--strict" in row["error"] and "resting_penetration 1" in row["error"]
              and "deep_penetration" in row["error"], "strict error: %r" % row["error"])
    # the same folder again without --strict, then with it: the variants run again in each mode
    # (a variant done in the other mode kept its row: "ok" under --strict, exit 0)
    r = t.run("sweep", "strict.yaml", "-o", "strict", "--quiet")
    expect_exit(r, 0, "sweep without --strict over a --strict folder")
    check([x["status"] for x in rows_of(t.path("strict", "sweep.csv"))] == ["ok"] * 4,
          "statuses without --strict")
    r = t.run("sweep", "strict.yaml", "-o", "strict", "--strict", "--quiet")
    expect_exit(r, 1, "sweep --strict over a folder run without it")
    check([x["status"] for x in rows_of(t.path("strict", "sweep.csv"))] ==
          ["warnings", "warnings", "ok", "ok"], "statuses with --strict again")


def test_restart_skips_finished(t):
    setup(t)
    expect_exit(t.run("sweep", "sweep.yaml", "-o", "rs", "--quiet"), 0, "first run")
    with open(t.path("rs", "sweep.csv"), "rb") as f:
        ref = f.read()
    # an interrupted sweep: variant 2 has no result yet, variant 3 no folder, sweep.csv is gone
    os.remove(t.path("rs", "variant_0002", "result.csv"))
    shutil.rmtree(t.path("rs", "variant_0003"))
    os.remove(t.path("rs", "sweep.csv"))
    stamp = {v: os.stat(t.path("rs", "variant_%04d" % v, "result.csv")).st_mtime_ns
             for v in (0, 1, 4, 5)}
    bodies = {v: os.stat(t.path("rs", "variant_%04d" % v, "bodies.csv")).st_mtime_ns
              for v in (0, 1, 4, 5)}
    r = t.run("sweep", "sweep.yaml", "-o", "rs")
    expect_exit(r, 0, "restart")
    check("(2 run, 4 already complete)" in r.stderr, "restart: %s" % r.stderr)
    for v in stamp:
        check(os.stat(t.path("rs", "variant_%04d" % v, "result.csv")).st_mtime_ns == stamp[v]
              and os.stat(t.path("rs", "variant_%04d" % v, "bodies.csv")).st_mtime_ns
              == bodies[v], "variant %d was run again" % v)
    with open(t.path("rs", "sweep.csv"), "rb") as f:
        check(f.read() == ref, "the restarted sweep.csv differs")
    # a changed sweep (another value) runs the changed variants again, not the others
    setup(t, SWEEP.replace("values: [1000, 2000]", "values: [1000, 3000]"))
    r = t.run("sweep", "sweep.yaml", "-o", "rs")
    expect_exit(r, 0, "changed sweep")
    check("(3 run, 3 already complete)" in r.stderr, "changed sweep: %s" % r.stderr)
    rows = rows_of(t.path("rs", "sweep.csv"))
    check(rows[1]["bodies[box].density"] == "3000", "changed row: %r" % rows[1])


def test_bad_sweep_files(t):
    t.write("box.yaml", BOX)
    cases = [
        # (sweep file, what the message must hold)
        (SWEEP.replace("interactions[0].ka", "interactions[3].ka"),
         "sweep.yaml:3:11: vary[0].path: 'interactions[3].ka': interactions has 1 item"),
        (SWEEP.replace("interactions[0].ka", "interactions[0].kaa"),
         "sweep.yaml:3:11: vary[0].path: 'interactions[0].kaa': no key 'kaa'"),
        (SWEEP.replace("bodies[box]", "bodies[crate]"),
         "sweep.yaml:5:11: vary[1].path: 'bodies[crate].density': no item of bodies has name "
         "'crate'"),
        (SWEEP.replace("count: 3", "count: 0"),
         "sweep.yaml:4:44: vary[0].range.count: expected an integer from 1 to 1000000"),
        (SWEEP.replace("from: 1.0e7", "from: -1.0e7"),
         "sweep.yaml:4:12: vary[0].range: a log range needs from and to of the same sign"),
        (SWEEP.replace("to: 1.0e9", "to: big"),
         "sweep.yaml:4:30: vary[0].range.to: expected a finite number (got 'big')"),
        (SWEEP.replace("box.yaml", "nosuch.yaml"),
         "sweep.yaml:1:8: scene: cannot read 'nosuch.yaml': No such file or directory"),
        (SWEEP.replace("penetration(box)", "penetration(crate)"),
         "sweep.yaml:7:11: collect[0]: no body named 'crate'"),
        (SWEEP.replace("max_pressure", "max_presure"),
         "sweep.yaml:7:29: collect[1]: unknown quantity 'max_presure'"),
        (SWEEP + "combine: zip\n", "sweep.yaml:8:10: combine: zip needs the same number"),
        (SWEEP + "colect: [steps]\n", "sweep.yaml:8:1: colect: unknown key"),
        (SWEEP.replace("values: [1000, 2000]", "values: [1000, 2000]\n    range: {from: 1, "
                       "to: 2, count: 2}"), "sweep.yaml:5:5: vary[1]: expected either values"),
        (SWEEP.replace("[1000, 2000]", "[]"), "sweep.yaml:6:13: vary[1].values: the list is empty"),
        # a key given twice (the first was taken, the second dropped without a word)
        (SWEEP.replace("count: 3", "count: 3, count: 5"),
         "vary[0].range.count: duplicate key (given at line 4 too)"),
        (SWEEP + "scene: other.yaml\n", "scene: duplicate key (given at line 1 too)"),
        (SWEEP.replace("box.yaml", "."), "sweep.yaml:1:8: scene: '.' is a directory, not a regular file"),
        # a quoted number (the scene files refuse them too), a count of 1 that dropped `to`
        (SWEEP.replace("from: 1.0e7", "from: '1.0e7'"),
         "sweep.yaml:4:19: vary[0].range.from: expected a number, not a quoted string"),
        (SWEEP.replace("count: 3", "count: 1"),
         "vary[0].range.count: 1 would take from alone and drop to (got 1.0e7 to 1.0e9)"),
    ]
    for i, (text, want) in enumerate(cases):
        t.write("sweep.yaml", text)
        r = t.run("sweep", "sweep.yaml", "-o", "badfile%d" % i)
        expect_exit(r, 2, "bad sweep file %d" % i)
        check(want in r.stderr, "bad sweep file %d: %r\nexpected %r" % (i, r.stderr, want))
        check(not os.path.exists(t.path("badfile%d" % i)), "case %d: output created" % i)
    # a range wider than the largest double: finite values (it wrote -nan and inf), the two out
    # of the rule's range rows of status invalid
    t.write("sweep.yaml", "scene: box.yaml\nvary:\n  - path: interactions[0].step_damping\n"
            "    range: {from: -1e308, to: 1e308, count: 3}\n")
    r = t.run("sweep", "sweep.yaml", "-o", "wide", "-j", "1")
    expect_exit(r, 1, "a range of -1e308 to 1e308")
    rows = rows_of(t.path("wide", "sweep.csv"))
    got = [row["interactions[0].step_damping"] for row in rows]
    check(got == ["-1e+308", "0", "1e+308"], "values %r" % got)
    check([row["status"] for row in rows] == ["invalid", "ok", "invalid"], "rows %r" % rows)
    # a FIFO, as the sweep file or as its scene, is refused at once (it blocked forever)
    os.mkfifo(t.path("fifo.yaml"))
    r = t.run("sweep", "fifo.yaml", "-o", "fifo_out")
    expect_exit(r, 2, "sweep file a FIFO")
    check("fifo.yaml: the sweep file is a FIFO (named pipe), not a regular file" in r.stderr,
          r.stderr)
    t.write("sweep.yaml", SWEEP.replace("box.yaml", "fifo.yaml"))
    r = t.run("sweep", "sweep.yaml", "-o", "fifo_out2")
    expect_exit(r, 2, "scene a FIFO")
    check("sweep.yaml:1:8: scene: 'fifo.yaml' is a FIFO (named pipe), not a regular file"
          in r.stderr, r.stderr)
    # usage
    expect_exit(t.run("sweep"), 2, "no sweep file")
    expect_exit(t.run("sweep", "sweep.yaml", "-j", "0"), 2, "-j 0")
    expect_exit(t.run("sweep", "sweep.yaml", "--bogus"), 2, "unknown option")
    r = t.run("help", "sweep")
    expect_exit(r, 0, "help sweep")
    check("mpirun" in r.stdout and "sweep.csv" in r.stdout, "help: %s" % r.stdout)


def test_meshes_and_zip(t):
    # a base scene in another folder with a relative mesh path: the variants find the mesh;
    # zip pairs the i-th values
    shutil.copy(os.path.join(t.src, "examples", "meshes", "unit_cube.obj"), t.path("cube.obj"))
    os.makedirs(t.path("sub"), exist_ok=True)
    base = BOX.replace("{box: {size: [0.1, 0.1, 0.1], divisions: 1}}",
                       "{mesh: {file: ../cube.obj, scale: 0.1}}")
    t.write("sub/base.yaml", base)
    sweep = ("scene: sub/base.yaml\ncombine: zip\nvary:\n"
             "  - {path: 'interactions[0].ka', values: [1.0e7, 1.0e8]}\n"
             "  - {path: 'bodies[box].position[2]', values: [0.05, 0.05]}\n"
             "collect: [penetration(box)]\n")
    t.write("zip.yaml", sweep)
    r = t.run("sweep", "zip.yaml", "-o", "zip", "--quiet")
    expect_exit(r, 0, "zip sweep with a mesh")
    rows = rows_of(t.path("zip", "sweep.csv"))
    check(len(rows) == 2, "zip: %d rows" % len(rows))
    for row, ka in zip(rows, (1e7, 1e8)):
        delta = 1000 * 0.1 ** 3 * 9.81 / (ka * 0.01)
        check(abs(float(row["penetration(box)"]) - delta) < 0.01 * delta, "zip row %r" % row)


def test_impact_speed(t):
    # a box dropped with its bottom face h = 0.05 and 0.2 m above the ground reaches it at
    # sqrt(2 g h); the speed collected is the one at the end of the last step without contact,
    # so within g dt (plus the O(dt) error of the integrator's fall) of it. It bounces back
    # slower than it came (the law dissipates): 0 < restitution < 1.
    t.write("box.yaml", BOX.replace("steps: 200", "steps: 400"))
    t.write("drop.yaml", "scene: box.yaml\nvary:\n  - path: bodies[box].position[2]\n"
            "    values: [0.1, 0.25]\ncollect: [impact_speed(box), rebound_speed(box), "
            "restitution(box)]\n")
    r = t.run("sweep", "drop.yaml", "-o", "drop", "--quiet")
    expect_exit(r, 0, "drop sweep")
    for row, h in zip(rows_of(t.path("drop", "sweep.csv")), (0.05, 0.2)):
        v = (2 * 9.81 * h) ** 0.5
        vin = float(row["impact_speed(box)"])
        check(abs(vin - v) < 2 * 9.81 * 1e-3, "drop %g m: impact %.6g m/s, sqrt(2 g h) = %.6g"
              % (h, vin, v))
        e = float(row["restitution(box)"])
        check(0 < e < 1 and abs(e * vin - float(row["rebound_speed(box)"])) < 1e-12,
              "drop %g m: restitution %r" % (h, row))


def test_reused_model_same_as_run(t):
    # every parameter a rule's number: the model is compiled once and its rule patched per
    # variant (locally in the parent before the fork, per rank under MPI). Each variant's
    # outputs must be those of `comply run` of its scene, which compiles it afresh, byte for
    # byte; and the resting penetration must follow each variant's ka
    # (the box's initial height too: a body's initial state is patched the same way)
    setup(t, "scene: box.yaml\nvary:\n  - path: interactions[0].ka\n    values: [1.0e7, "
          "1.0e8]\n  - path: interactions[0].step_damping\n    values: [1, 3]\n"
          "  - path: bodies[box].position[2]\n    values: [0.05, 0.07]\n"
          "collect: [penetration(box)]\n", name="rules.yaml")
    expect_exit(t.run("sweep", "rules.yaml", "-o", "rules", "-j", "2", "--quiet"), 0, "sweep")
    rows = rows_of(t.path("rules", "sweep.csv"))
    check(len(rows) == 8, "8 variants, got %d" % len(rows))
    for v, row in enumerate(rows):
        ka = float(row["interactions[0].ka"])
        delta = 9.81 / (ka * 0.01)
        if row["bodies[box].position[2]"] == "0.05":  # placed resting: settled by the end
            check(abs(float(row["penetration(box)"]) - delta) < 0.01 * delta, "row %r" % row)
        d = t.path("rules", "variant_%04d" % v)
        expect_exit(t.run("run", os.path.join(d, "scene.yaml"), "-o", "rules_run%d" % v,
                          "--quiet"), 0, "run variant %d" % v)
        for f in ("bodies.csv", "contacts.csv"):
            with open(os.path.join(d, f), "rb") as a, open(t.path("rules_run%d" % v, f), "rb") as b:
                check(a.read() == b.read(), "variant %d: %s differs from comply run's" % (v, f))


JELLY = """\
scene: {timestep: 1.0e-3, duration: 0.05}
bodies:
  - name: ground
    geometry: {plane: {normal: [0, 0, 1], offset: 0}}
    motion: fixed
  - name: jelly
    geometry: {box: {size: [0.05, 0.05, 0.02]}}
    position: [0, 0, 0.1]
    density: 1000
    motion: deformable
    deformable: {young: 1.0e6, cells: [3, 3, 1]}
interactions:
  - pair: ["*", "*"]
    law: area_compliant
    ka: 1.0e9
"""


def test_deformable_position_varied(t):
    # a deformable body's nodes are compiled from its position: a variant that moves it must
    # not run from the first variant's nodes (until 2026-12-08 variant 1, dropped from 0.5 m,
    # ended at variant 0's height, reported ok). Each equals comply run of its scene.
    setup(t, "scene: box.yaml\nvary:\n  - path: bodies[jelly].position[2]\n    values: [0.1, 0.5]\n"
          "collect: [final_position(jelly)]\n", base=JELLY, name="jelly.yaml")
    expect_exit(t.run("sweep", "jelly.yaml", "-o", "jelly", "--quiet"), 0, "sweep")
    rows = rows_of(t.path("jelly", "sweep.csv"))
    check(len(rows) == 2, "2 variants, got %d" % len(rows))
    for v, row in enumerate(rows):
        d = t.path("jelly", "variant_%04d" % v)
        expect_exit(t.run("run", os.path.join(d, "scene.yaml"), "-o", "jelly_run%d" % v,
                          "--quiet"), 0, "run variant %d" % v)
        with open(os.path.join(d, "bodies.csv"), "rb") as a, \
                open(t.path("jelly_run%d" % v, "bodies.csv"), "rb") as b:
            check(a.read() == b.read(), "variant %d: bodies.csv differs from comply run's" % v)
    first = [r for r in rows_of(os.path.join(t.path("jelly", "variant_0001"), "bodies.csv"))
             if r["body"] == "jelly"][0]
    check(abs(float(first["z"]) - 0.5) < 1e-9, "variant 1 starts at z %r, not 0.5" % first["z"])


SLOW = """\
scene: {timestep: 1.0e-3, steps: 1500}
output: {every: 100}
bodies:
  - name: ground
    geometry: {plane: {normal: [0, 0, 1], offset: 0}}
    motion: fixed
  - name: ball
    geometry: {sphere: {radius: 0.05, refine: 4}}
    density: 1000
    position: [0, 0, 0.1]
interactions:
  - pair: [ball, ground]
    law: area_compliant
    ka: 1.0e9
"""


def test_interrupted_and_restarted(t):
    # SIGTERM to a sweep after two variants: exit 143, sweep.csv with the finished rows and the
    # others "missing"; run again, it runs only the rest, the finished ones untouched
    t.write("slow.yaml", SLOW)
    t.write("slowsweep.yaml", "scene: slow.yaml\nvary:\n  - path: interactions[0].ka\n"
            "    range: {from: 1.0e8, to: 1.0e9, count: 6, scale: log}\n"
            "collect: [penetration(ball)]\n")
    out = t.path("slow")
    p = subprocess.Popen([t.comply, "sweep", "slowsweep.yaml", "-o", out, "-j", "1"],
                         cwd=t.tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = lambda: [v for v in range(6)
                    if os.path.exists(os.path.join(out, "variant_%04d" % v, "result.csv"))]
    deadline = time.monotonic() + 60
    while len(done()) < 2 and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    p.send_signal(signal.SIGTERM)
    stdout, stderr = p.communicate(timeout=60)
    finished = done()
    check(p.returncode == 143 and "interrupted by SIGTERM" in stderr,
          "exit %d: %s" % (p.returncode, stderr))
    check(2 <= len(finished) < 6, "finished before the signal: %r" % finished)
    rows = rows_of(os.path.join(out, "sweep.csv"))
    check([r["status"] for r in rows] == ["ok" if v in finished else "missing" for v in range(6)],
          "statuses after the signal: %r" % [r["status"] for r in rows])
    stamp = {v: os.stat(os.path.join(out, "variant_%04d" % v, "result.csv")).st_mtime_ns
             for v in finished}
    r = t.run("sweep", "slowsweep.yaml", "-o", out, "-j", "1")
    expect_exit(r, 0, "restart")
    check("(%d run, %d already complete)" % (6 - len(finished), len(finished)) in r.stderr,
          "restart: %s" % r.stderr)
    for v in finished:
        check(os.stat(os.path.join(out, "variant_%04d" % v, "result.csv")).st_mtime_ns
              == stamp[v], "variant %d was run again" % v)
    after = rows_of(os.path.join(out, "sweep.csv"))
    check(all(r["status"] == "ok" for r in after), "after the restart: %r" % after)
    check([after[v] for v in finished] == [rows[v] for v in finished], "finished rows changed")


t = Suite()
for fn in (test_grid_and_analytic_penetration, test_serial_pool_and_mpi_identical,
           test_failed_variant_is_a_row, test_restart_skips_finished, test_bad_sweep_files,
           test_meshes_and_zip, test_impact_speed, test_reused_model_same_as_run,
           test_deformable_position_varied,
           test_interrupted_and_restarted):
    t.test(fn)
t.finish()
