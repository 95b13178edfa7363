"""Runs that used to exit 0 with nonsense and say nothing (issue 12): every warning is printed on
stderr when it first occurs (also with --quiet), counted in the final line and in summary.json;
--strict turns warnings into exit 1; initial overlaps are warnings, and beyond what the law can
release gently (a launch speed above 1 m/s) the run is refused with exit 2 unless the scene
allows it."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit, read_bodies, read_summary  # noqa: E402

# a 1 kg box dropped flat at ka 5e10 with step_damping 0.1: the mid-step law restitutes 1.22
# (tests/physics/test_energy_monitor.c derives why): energy created by the numerics
BOUNCY = """\
scene: {timestep: 1.0e-3, duration: 0.6}
bodies:
  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}
  - {name: box, geometry: {box: {size: 0.1, divisions: 2}}, density: 1000, position: [0, 0, 0.3]}
interactions:
  - {pair: ["*", "*"], law: area_compliant, ka: 5.0e10, step_damping: SD}
"""

# a 0.1 m ball whose centre is 0.07 m above the ground: 30 mm inside it
OVERLAP = """\
scene: {timestep: 1.0e-3, duration: 0.2ALLOW}
bodies:
  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}
  - {name: ball, geometry: {sphere: {radius: 0.1, refine: 3}}, density: 1000, position: [0, 0, Z]}
interactions:
  - {pair: ["*", "*"], law: area_compliant, ka: 5.0e10}
"""


def test_energy_growth_printed(s):
    path = s.write("bouncy.yaml", BOUNCY.replace("SD", "0.1"))
    for quiet in ([], ["--quiet"]):
        out = s.path("bouncy%d" % len(quiet))
        r = s.run("run", path, "-o", out, *quiet)
        expect_exit(r, 0, "bouncy run")
        for needle in ("warning: energy_growth from step", "body 'box'", "step_damping",
                       "the run had 1 warning (energy_growth 1)"):
            check(needle in r.stderr, "%r not on stderr: %r" % (needle, r.stderr))
        if not quiet:
            check("1 warning (energy_growth 1)" in r.stdout, r.stdout)
        summ = read_summary(os.path.join(out, "summary.json"))
        check(summ["warnings"]["energy_growth"] == 1, summ["warnings"])
        check(summ["energy"]["first_growth_body"] == "box", summ["energy"])
        # the premise: the box really rebounds faster than it landed
        vz = [float(row["vz"]) for row in read_bodies(os.path.join(out, "bodies.csv"))
              if row["body"] == "box"]
        check(max(vz) > -min(vz), "no restitution above 1: %g %g" % (max(vz), min(vz)))


def test_strict(s):
    bad = s.write("bouncy_strict.yaml", BOUNCY.replace("SD", "0.1"))
    r = s.run("run", bad, "-o", s.path("strict_bad"), "--strict", "--quiet")
    expect_exit(r, 1, "--strict with a warning")
    check("--strict: 1 warning" in r.stderr, r.stderr)
    check(os.path.exists(s.path("strict_bad", "summary.json")), "no summary with --strict")
    good = s.write("calm.yaml", BOUNCY.replace("SD", "1.0"))
    r = s.run("run", good, "-o", s.path("strict_good"), "--strict")
    expect_exit(r, 0, "--strict without warnings")
    check("0 warnings" in r.stdout and "warning" not in r.stderr, r.stdout + r.stderr)


def test_initial_overlap(s):
    # 0.5 mm inside: a warning with the pair and the depth, and the run goes on
    path = s.write("shallow.yaml", OVERLAP.replace("ALLOW", "").replace("Z", "0.0995"))
    r = s.run("run", path, "-o", s.path("shallow"), "--quiet")
    expect_exit(r, 0, "shallow overlap")
    for needle in ("initial_overlap: 1 body pairs", "ground <-> ball", "max penetration 0.0005 m",
                   "m/s"):
        check(needle in r.stderr, "%r not on stderr: %r" % (needle, r.stderr))
    # 30 mm inside at ka 5e10: the stored energy could launch the ball at hundreds of m/s
    deep = s.write("deep.yaml", OVERLAP.replace("ALLOW", "").replace("Z", "0.07"))
    r = s.run("run", deep, "-o", s.path("deep"), "--quiet")
    expect_exit(r, 2, "deep overlap")
    for needle in ("ground <-> ball", "allow_initial_overlap", "more than 1 m/s"):
        check(needle in r.stderr, "%r not on stderr: %r" % (needle, r.stderr))
    check(not os.path.exists(s.path("deep", "bodies.csv")), "a refused run wrote output")
    # check predicts the refusal: exit 2, not "ok" (it said "ok", exit 0)
    r = s.run("check", deep)
    expect_exit(r, 2, "check of the deep overlap")
    check("initial overlaps: 1" in r.stdout and "refuses" in r.stdout, r.stdout)
    check("ok" not in r.stdout.splitlines() and "allow_initial_overlap: true" in r.stderr,
          r.stdout[-300:] + r.stderr)
    # allowed by the scene: it runs, with the warning
    allowed = s.write("allowed.yaml", OVERLAP.replace("ALLOW", ", allow_initial_overlap: true")
                      .replace("Z", "0.07"))
    r = s.run("run", allowed, "-o", s.path("allowed"), "--quiet")
    expect_exit(r, 0, "allowed deep overlap")
    check("initial_overlap" in r.stderr, r.stderr)
    # a restart does not report them again (the state is the checkpoint's, not t = 0)



def test_touching_is_no_overlap(s):
    # a sphere placed on a plane tilted 30 degrees, its centre at r n as a script computed them
    # (an audit's scene): the pose's rounding puts one vertex 6.9e-18 m inside, which was an
    # initial_overlap warning; an overlap is a depth above 1e-9 of the bodies' size
    # (cli/overlap.c), and 1 um inside (2e-5 of it) still is one
    text = ("scene: {timestep: 1.0e-3, steps: 5}\nbodies:\n"
            "  - {name: ground, geometry: {plane: {normal: [0.4999999999999999, 0, 0.8660254037844386]}}, "
            "motion: fixed}\n"
            "  - {name: ball, geometry: {sphere: {radius: 0.05, refine: 5}}, "
            "position: [POS], euler_deg: [0, 30, 0]}\n"
            "interactions:\n  - {pair: [ball, ground], law: area_compliant, ka: 5.0e10, friction: 0.3}\n")
    path = s.write("tangent.yaml", text.replace("POS", "0.024999999999999994, 0, 0.04330127018922193"))
    r = s.run("check", path)
    expect_exit(r, 0, "check of a tangent sphere")
    check("initial overlaps: 0" in r.stdout, r.stdout)
    r = s.run("run", path, "-o", s.path("tangent"), "--quiet")
    expect_exit(r, 0, "run of a tangent sphere")
    check("initial_overlap" not in r.stderr, r.stderr)
    deeper = s.write("tangent_in.yaml", text.replace("POS", "0.0249995, 0, 0.0433004"))
    r = s.run("check", deeper)
    check("initial overlaps: 1" in r.stdout, r.stdout)


def test_file_size_limit(s):
    """past `ulimit -f` the run ends as a write failure (exit 1) with complete CSV rows and a
    summary, instead of being killed by SIGXFSZ with half a line"""
    import resource
    path = s.write("calm_long.yaml", BOUNCY.replace("SD", "1.0").replace("duration: 0.6",
                                                                         "duration: 5"))
    out = s.path("fsize")
    limit = 64 * 1024

    def cap():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    import subprocess
    r = subprocess.run([s.comply, "run", path, "-o", out, "--quiet"], capture_output=True,
                       text=True, timeout=300, preexec_fn=cap)
    expect_exit(r, 1, "run past the file-size limit")
    check("cannot write the output files" in r.stderr, r.stderr)
    text = open(os.path.join(out, "bodies.csv")).read()
    check(text.endswith("\n") and len(text) <= limit, "bodies.csv: %d bytes, last %r"
          % (len(text), text[-80:]))
    rows = read_bodies(os.path.join(out, "bodies.csv"))
    check(len(rows) > 10 and all(len(row) == 16 for row in rows), "incomplete rows")
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["failed"] is True and "cannot write" in summ["message"], summ)


SOFT = """\
scene: {timestep: 1.0e-3, duration: 0.3}
bodies:
  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}
  - {name: ball, geometry: {sphere: {radius: 0.05, refine: 3}}, density: 7800, position: [0, 0, 0.05]}
interactions:
  - {pair: ["*", "*"], law: area_compliant, ka: KA}
"""


def test_resting_penetration(s):
    # a 50 mm steel ball (40.0 N) at ka 5e4: Winkler delta = sqrt(W / (pi R ka)) = 71.4 mm
    import math
    import re
    path = s.write("soft.yaml", SOFT.replace("KA", "5.0e4"))
    r = s.run("check", path)
    expect_exit(r, 0, "check of a soft scene")
    check("resting penetration: 1 too deep" in r.stdout, r.stdout)
    m = re.search(r"would sink about ([0-9.e+-]+) m", r.stdout)
    check(m is not None, r.stdout)
    W = 7800 * 4 / 3 * math.pi * 0.05 ** 3 * 9.81
    expected = math.sqrt(W / (math.pi * 0.05 * 5e4))
    check(abs(float(m.group(1)) - expected) < 0.01 * expected, "%s vs %g" % (m.group(1), expected))
    # the ka it advises gives 1 % of the size (0.5 mm): W / (pi R delta^2)
    m = re.search(r"ka >= ([0-9.e+-]+) N/m\^3 gives 1 %", r.stdout)
    check(m is not None and abs(float(m.group(1)) - W / (math.pi * 0.05 * 1e-6)) < 0.02 * float(m.group(1)),
          r.stdout)
    out = s.path("soft")
    r = s.run("run", path, "-o", out, "--quiet")
    expect_exit(r, 0, "soft run")
    for needle in ("resting_penetration: 1 body", "warning: deep_penetration from step",
                   "pair ground <-> ball"):
        check(needle in r.stderr, "%r not on stderr: %r" % (needle, r.stderr))
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["warnings"]["deep_penetration"] > 0 and summ["depth"]["max_ratio"] > 0.2,
          summ["depth"])
    # a 0.5 kg box at ka 5e10 softened by min_period 100 (docs/contact-laws.md): its four corner
    # rows sum to cap / w, cap = (2 pi / (100 h))^2, w = 1/m + 2 * 0.05^2 / Ixx at each corner
    # with Ixx = m (0.1^2 + 0.05^2) / 12: W w / cap = 14.4 mm, 29 % of its 50 mm
    # (physics/test_min_period runs it)
    box = SOFT.replace("{sphere: {radius: 0.05, refine: 3}}, density: 7800",
                       "{box: {size: [0.1, 0.1, 0.05]}}, density: 1000").replace(
        "ka: KA}", "ka: 5.0e10, min_period: 100}")
    path = s.write("softened.yaml", box)
    r = s.run("check", path)
    expect_exit(r, 0, "check of a softened box")
    m = re.search(r"'ball' resting on 'ground' \(rule 1, area_compliant, min_period 100\) would "
                  r"sink about ([0-9.e+-]+) m, .*; min_period <= ([0-9.e+-]+) sub-steps gives 1 %",
                  r.stdout)
    check(m is not None, r.stdout)
    mass, ixx = 0.5, 0.5 * (0.1 ** 2 + 0.05 ** 2) / 12
    wbar = 1 / mass + 2 * 0.05 ** 2 / ixx
    cap = (2 * math.pi / 0.1) ** 2
    expected = mass * 9.81 * wbar / cap
    check(abs(float(m.group(1)) - expected) < 0.01 * expected, "%s vs %g" % (m.group(1), expected))
    beta = 2 * math.pi / 1e-3 * math.sqrt(0.0005 / (mass * 9.81 * wbar))
    check(abs(float(m.group(2)) - beta) < 0.01 * beta, "%s vs %g" % (m.group(2), beta))
    r = s.run("run", path, "-o", s.path("softened"), "--steps", "10", "--quiet")
    check("resting_penetration: 1 body" in r.stderr, r.stderr)
    # the same ball at the default ka 5e10: 0.07 mm, nothing said
    calm = s.write("stiff.yaml", SOFT.replace("KA", "5.0e10"))
    r = s.run("check", calm)
    check("resting penetration: 0 too deep" in r.stdout, r.stdout)
    r = s.run("run", calm, "-o", s.path("stiff"))
    expect_exit(r, 0, "stiff run")
    check("0 warnings" in r.stdout and "warning" not in r.stderr, r.stdout + r.stderr)


NESTED = """\
scene: {timestep: 1.0e-3, duration: 0.05, gravity: [0, 0, 0]ALLOW}
bodies:
  - {name: outer, geometry: {box: {size: SIZE, divisions: 4}}, position: [0, 0, 0]}
  - {name: inner, geometry: {box: {size: 0.1, divisions: 1}}, position: [0, 0, 0]}
interactions:
  - {pair: ["*", "*"], law: area_compliant, ka: 1.0e7METHOD}
"""


def test_nested_and_coincident(s):
    # a coarse box inside a finer, larger one with method vertex (the finer one's vertices are
    # tested, none is inside): no contact point, so no force would ever separate them; refused
    # with the pair named, unless the scene allows it
    for name, size, method in (("nested", "0.3", ", method: vertex"),):
        path = s.write(name + ".yaml", NESTED.replace("ALLOW", "").replace("SIZE", size)
                       .replace("METHOD", method))
        r = s.run("check", path)
        expect_exit(r, 2, "check " + name)
        check("nested or coincident" in r.stdout and "outer <-> inner" in r.stdout, r.stdout)
        r = s.run("run", path, "-o", s.path(name), "--quiet")
        expect_exit(r, 2, "run " + name)
        check("outer and inner start inside each other" in r.stderr, r.stderr)
        allowed = s.write(name + "_ok.yaml", NESTED.replace("ALLOW", ", allow_initial_overlap: true")
                          .replace("SIZE", size).replace("METHOD", method))
        r = s.run("run", allowed, "-o", s.path(name + "_ok"), "--quiet")
        expect_exit(r, 0, "allowed " + name)
        check("nested or coincident" in r.stderr, r.stderr)
    # coincident boxes: every vertex lies on the other's surface, which a vertex counts as inside
    # when it is inside a hair into its own body (collide_mesh.c, on_surface_inside: the corners
    # of flush stacked boxes): each corner 0.1 m from the face against it, the least translation
    # that separates the two, so an initial overlap whose energy would launch them (until
    # 2026-12-07 they had no contact at all and were refused as coincident)
    path = s.write("coincident.yaml", NESTED.replace("ALLOW", "").replace("SIZE", "0.1")
                   .replace("METHOD", ""))
    r = s.run("check", path)
    expect_exit(r, 2, "check coincident")
    check("outer <-> inner" in r.stdout and "max penetration 0.1 m" in r.stdout
          and "nested or coincident" not in r.stdout, r.stdout)
    r = s.run("run", path, "-o", s.path("coincident"), "--quiet")
    expect_exit(r, 2, "run coincident")
    check("allow_initial_overlap" in r.stderr, r.stderr)
    # the nested boxes with the default method (auto: both boxes' vertices, their densities
    # being alike): the inner box's 8 corners are inside the outer box, 0.1 m from the faces
    # they point at and 0.2 m from the faces against them (the contact faces: the vertex query
    # pushes a corner against its outward normal, and 0.2 m is the least translation that
    # takes the inner box out), so the pair has contacts and is refused as an initial overlap
    # whose stored energy would launch it (not as nested)
    path = s.write("nested_auto.yaml", NESTED.replace("ALLOW", "").replace("SIZE", "0.3")
                   .replace("METHOD", ""))
    r = s.run("check", path)
    expect_exit(r, 2, "check nested_auto")
    check("outer <-> inner: 8 points" in r.stdout and "max penetration 0.2 m" in r.stdout
          and "nested or coincident" not in r.stdout, r.stdout)
    r = s.run("run", path, "-o", s.path("nested_auto"), "--quiet")
    expect_exit(r, 2, "run nested_auto")
    # apart: nothing said
    apart = s.write("apart.yaml", NESTED.replace("ALLOW", "").replace("SIZE", "0.1")
                    .replace("METHOD", "")
                    .replace("position: [0, 0, 0]}\n  - {name: inner", "position: [1, 0, 0]}\n  - {name: inner"))
    r = s.run("check", apart)
    check("initial overlaps: 0" in r.stdout, r.stdout)
    # a hollow body: a square frame (0.2 m, a 0.1 m hole) whose centre of mass lies in its hole,
    # inside a small box that sits there apart from it. A centre counts only inside its own
    # body (until 2026-12-08 this was refused as nested, and a run warned deep_penetration)
    obj = s.write("frame.obj", frame_obj(0.1, 0.05, 0.02))
    hollow = s.write("hollow.yaml", HOLLOW.replace("FRAME", obj))
    r = s.run("check", hollow)
    expect_exit(r, 0, "check hollow")
    check("initial overlaps: 0" in r.stdout and "nested" not in r.stdout, r.stdout)
    r = s.run("run", hollow, "-o", s.path("hollow"))
    expect_exit(r, 0, "run hollow")
    check("0 warnings" in r.stdout, r.stdout + r.stderr)


HOLLOW = """\
scene: {timestep: 1.0e-3, duration: 0.05}
bodies:
  - {name: frame, geometry: {mesh: {file: FRAME}}, motion: fixed}
  - {name: box, geometry: {box: {size: 0.05, divisions: 2}}, position: [0, 0, 0]}
interactions:
  - {pair: ["*", "*"], law: area_compliant}
"""


def frame_obj(a, b, t):
    """a square frame (outer half-width a, hole half-width b, thickness t) as OBJ text, its
    faces counter-clockwise seen from outside (tests/scenes.h, scene_frame_mesh)"""
    sx, sy = (1, -1, -1, 1), (1, 1, -1, -1)
    v = []
    for r in range(2):
        for lv in range(2):
            for c in range(4):
                w = b if r else a
                v.append("v %g %g %g" % (sx[c] * w, sy[c] * w, t / 2 if lv else -t / 2))
    f = []
    for c in range(4):
        d = (c + 1) % 4
        oB, oB1, oT, oT1 = c, d, 4 + c, 4 + d
        iB, iB1, iT, iT1 = 8 + c, 8 + d, 12 + c, 12 + d
        for tri in ((oT, oT1, iT1), (oT, iT1, iT), (oB, iB1, oB1), (oB, iB, iB1),
                    (oB, oB1, oT1), (oB, oT1, oT), (iB, iT1, iB1), (iB, iT, iT1)):
            f.append("f %d %d %d" % tuple(i + 1 for i in tri))
    return "\n".join(v + f) + "\n"


if __name__ == "__main__":
    s = Suite()
    for t in (test_energy_growth_printed, test_strict, test_initial_overlap,
              test_touching_is_no_overlap, test_file_size_limit, test_resting_penetration,
              test_nested_and_coincident):
        s.test(t)
    s.finish()
