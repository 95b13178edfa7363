"""comply check: a good scene (exit 0, bodies, the rule of every pair, "ok") and bad scenes
(exit 2, the message names the file and the line)."""
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402

GOOD = """\
scene:
  timestep: 0.001
  duration: 0.5
bodies:
  - name: ground
    geometry: {plane: {normal: [0, 0, 1], offset: 0}}
    motion: fixed
  - name: ball
    geometry: {sphere: {radius: 0.05, refine: 2}}
    density: 1000
    position: [0, 0, 0.5]
  - name: cube
    alias: blocks
    geometry: {box: {size: [0.1, 0.1, 0.1]}}
    mass: 2.5
    position: [0.5, 0, 0.5]
  - name: wall
    geometry: {box: {size: [1, 0.1, 1]}}
    motion: fixed
    position: [0, 2, 0.5]
interactions:
  - pair: ["*", "*"]
    law: contact_time
  - pair: [ball, "bl*"]
    law: area_compliant
    ka: 1.0e9
"""


def line_of(text, needle):
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line:
            return i
    raise AssertionError(needle)


def test_good(s):
    path = s.write("good.yaml", GOOD)
    r = s.run("check", path)
    expect_exit(r, 0, "check good.yaml")
    out = r.stdout
    check(out.rstrip("\n").splitlines()[-1] == "ok", "last line is not ok: %r" % out[-200:])
    l1 = line_of(GOOD, '- pair: ["*", "*"]')
    l2 = line_of(GOOD, '- pair: [ball, "bl*"]')
    for want in ("ball <-> cube: rule 2 (area_compliant, line %d)" % l2,
                 "ground <-> ball: rule 1 (contact_time, line %d)" % l1,
                 "ground <-> cube: rule 1 (contact_time, line %d)" % l1,
                 "ball <-> wall: rule 1 (contact_time, line %d)" % l1,
                 "ground <-> wall: none"):  # two fixed bodies never interact
        check(want in out, "missing %r in:\n%s" % (want, out))
    # bodies: name, alias, motion, mass
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("bodies:"))
    check(lines[start] == "bodies: 4", "body count line %r" % lines[start])
    rows = {}
    for line in lines[start + 2:]:  # after the column titles
        if not line.startswith("  "):
            break
        rows[line.split()[0]] = line.split()
    check("cube" in rows and "blocks" in rows["cube"] and "2.5" in rows["cube"],
          "cube row %r" % rows.get("cube"))
    check("fixed" in rows.get("ground", []) and "inf" in rows.get("ground", []),
          "ground row %r" % rows.get("ground"))
    ball = rows.get("ball", [])
    masses = [float(x) for x in ball if re.fullmatch(r"[0-9.]+(e-?\d+)?", x) and "." in x]
    vol = 4 / 3 * 3.141592653589793 * 0.05 ** 3
    check(any(abs(m - 1000 * vol) < 0.05 * 1000 * vol for m in masses),
          "ball mass not about %g kg: %r" % (1000 * vol, ball))
    check("dynamic" in ball, "ball row %r" % ball)


BAD = [
    # (name, text, line of the error)
    ("unknown_key", GOOD.replace("    density: 1000\n", "    densty: 1000\n"), None),
    ("negative_mass", GOOD.replace("    mass: 2.5\n", "    mass: -1\n"), None),
    ("bad_type", GOOD.replace("  timestep: 0.001\n", "  timestep: fast\n"), 2),
    ("yaml_syntax", GOOD.replace("    position: [0, 0, 0.5]\n", "    position: [0, 0, 0.5\n"), None),
    ("missing_mesh", GOOD.replace("{box: {size: [1, 0.1, 1]}}", "{mesh: {file: nosuch.obj}}"), None),
]


def test_bad(s):
    for name, text, line in BAD:
        if line is None:
            for needle in ("densty", "mass: -1", "position: [0, 0, 0.5\n", "nosuch.obj"):
                if needle in text:
                    line = line_of(text, needle.rstrip("\n"))
                    break
        path = s.write(name + ".yaml", text)
        r = s.run("check", path)
        expect_exit(r, 2, "check " + name)
        check(r.stderr.startswith("comply: "), "%s: message %r" % (name, r.stderr))
        if name == "yaml_syntax":  # the parser may report the line where it noticed
            ok = re.search(r"%s\.yaml:\d+" % name, r.stderr)
        else:
            ok = re.search(r"%s\.yaml:%d\b" % (name, line), r.stderr)
        check(ok, "%s: message does not name %s.yaml:%s: %r" % (name, name, line, r.stderr))
        check("ok" not in r.stdout.splitlines(), "%s: printed ok" % name)
    r = s.run("check", s.path("nosuch.yaml"))
    expect_exit(r, 2, "check of a missing file")
    check("nosuch.yaml" in r.stderr, r.stderr)


def test_many_bodies(s):
    # more than 50 bodies: the rules are listed per alias pair
    text = ("bodies:\n  - name: ground\n    geometry: {plane: {}}\n    motion: fixed\n"
            + "".join("  - name: g%d\n    alias: grain\n    geometry: {sphere: {radius: 0.01, "
                      "refine: 0}}\n    position: [%g, 0, 0.1]\n" % (i, 0.05 * i) for i in range(60))
            + "interactions:\n  - pair: [grain, grain]\n    law: linear\n")
    path = s.write("many.yaml", text)
    r = s.run("check", path)
    expect_exit(r, 0, "check many.yaml")
    out = r.stdout
    check("bodies: 61" in out and "pairs by alias" in out, "no alias pair listing:\n" + out[-1500:])
    rule_line = text.count("\n", 0, text.index("- pair: [grain, grain]")) + 1
    check("grain <-> grain: rule 1 (linear, line %d)" % rule_line in out, out[-800:])
    check(re.search(r"(ground <-> grain|grain <-> ground): rule 0 \(contact_time, built-in default\)",
                    out), out[-800:])
    check("ground <-> ground" not in out, "alias of a single body paired with itself")
    check(" g1 <-> g2" not in out, "per body pairs listed for 61 bodies")


def test_initial_overlap(s):
    # a 4x4-subdivided 0.2 x 0.1 box sunk 1 mm into the ground: 25 bottom vertices whose areas
    # add up to the bottom face, 0.02 m^2
    text = ("bodies:\n  - name: ground\n    geometry: {plane: {}}\n    motion: fixed\n"
            "  - name: brick\n    geometry: {box: {size: [0.2, 0.1, 0.05], divisions: 4}}\n"
            "    position: [0, 0, 0.024]\n")
    path = s.write("overlap.yaml", text)
    r = s.run("check", path)
    expect_exit(r, 0, "check overlap.yaml")
    check("initial overlaps: 1" in r.stdout, r.stdout[-600:])
    m = re.search(r"ground <-> brick: (\d+) points, area ([0-9.e+-]+) m\^2, max penetration "
                  r"([0-9.e+-]+) m", r.stdout)
    check(m is not None, r.stdout[-600:])
    if m:
        check(int(m.group(1)) == 25, m.group(0))
        check(abs(float(m.group(2)) - 0.02) < 1e-12, m.group(0))
        check(abs(float(m.group(3)) - 0.001) < 1e-12, m.group(0))


PENDULUM = """\
scene: {timestep: 1.0e-3, duration: 1.0, substeps: SUB}
bodies:
  - name: bob
    geometry: {sphere: {radius: 0.05, refine: 2}}
    position: [0.5, 0, 0]
interactions:
  - pair: [bob, world]
    law: contact_time
    contact_time: 0.1
joints:
  - bodies: [bob, world]
    anchor: [0, 0, 0]
"""


def test_explicit_stability(s):
    # the point-joint pendulum of issue 12: across its 0.5 m arm the bob's effective mass is
    # m / (1 + m L^2 / J); with m_rep = m the joint's w h = (pi h / T) sqrt(m / m_eff) and its
    # damping ratio (ln 2 / pi) sqrt(m / m_eff): unstable at one sub-step
    for sub in ("1", "auto"):
        path = s.write("pendulum_%s.yaml" % sub, PENDULUM.replace("SUB", sub))
        r = s.run("check", path)
        expect_exit(r, 0, "check pendulum_%s.yaml" % sub)
        out = r.stdout
        mass = float(re.search(r"^  bob .* dynamic .* ([0-9.]+) ", out, re.M).group(1))
        m = re.search(r"least stable joint 0 \(bob <-> world, rule 1, along its weakest "
                      r"direction\): effective mass ([0-9.e+-]+) kg, w h = ([0-9.e+-]+), zeta "
                      r"([0-9.e+-]+), limit w h < ([0-9.e+-]+): (.*)$", out, re.M)
        check(m is not None, "no stability line in:\n" + out[-800:])
        if not m:
            continue
        meff, wh, zeta, limit = (float(m.group(i)) for i in range(1, 5))
        verdict = m.group(5)
        ratio = mass / meff
        check(200 < ratio < 300, "m / m_eff = %g" % ratio)
        check(abs(wh - math.pi * 1e-3 / 0.1 * math.sqrt(ratio)) < 1e-3 * wh, m.group(0))
        check(abs(zeta - math.log(2) / math.pi * math.sqrt(ratio)) < 1e-3 * zeta, m.group(0))
        check(abs(limit - 2 * (math.sqrt(1 + zeta * zeta) - zeta)) < 1e-3 * limit, m.group(0))
        n = 1
        while (wh / n) ** 2 + 4 * zeta * wh / n > 1:
            n += 1
        if sub == "1":
            check(verdict == "UNSTABLE", verdict)
            check(re.search(r"^warning: joint 0 .* unstable at substeps 1 .*substeps: auto "
                            r"\(%d sub-steps\)" % n, out, re.M), out[-800:])
        else:
            check(verdict == "unstable without sub-steps", verdict)
            check("  substeps: auto takes %d sub-steps per step while these rows act" % n in out,
                  out[-800:])
        check(out.rstrip("\n").splitlines()[-1] == "ok", out[-200:])
    # the run at one sub-step stops at the joint's first stretched step, naming it
    r = s.run("run", s.path("pendulum_1.yaml"), "-o", s.path("pend_out"), "--quiet")
    expect_exit(r, 1, "run pendulum_1.yaml")
    for needle in ("joint 0 bob <-> world", "explicit row unstable", "w h = ", "substeps: auto"):
        check(needle in r.stderr, "%r not in %r" % (needle, r.stderr))
    check("overlap" not in r.stderr, r.stderr)
    # at substeps: auto it runs
    r = s.run("run", s.path("pendulum_auto.yaml"), "-o", s.path("pend_auto"), "--quiet")
    expect_exit(r, 0, "run pendulum_auto.yaml")


def test_joint_law_none(s):
    # a joint's rule with law none is refused, naming the joint's line and the rule's
    text = PENDULUM.replace("SUB", "auto").replace("    law: contact_time\n    contact_time: 0.1\n",
                                                   "    law: none\n")
    path = s.write("joint_none.yaml", text)
    r = s.run("check", path)
    expect_exit(r, 2, "check joint_none.yaml")
    want = "joint_none.yaml:%d:" % line_of(text, "- bodies: [bob, world]")
    check(want in r.stderr, "%r not in %r" % (want, r.stderr))
    rule_line = line_of(text, "- pair: [bob, world]")
    for needle in ("joints[0] (bob <-> world)", "interactions[0] at line %d" % rule_line,
                   "law none", "contact_time rule"):
        check(needle in r.stderr, "%r not in %r" % (needle, r.stderr))


AUTO = """\
scene: {timestep: 0.001, duration: 0.1}
bodies:
  - {name: box1, geometry: {box: {size: [0.1, 0.1, 0.1], divisions: 2}}, position: [0, 0, 0]}
  - {name: box2, geometry: {box: {size: [0.1, 0.1, 0.1], divisions: 2}}, position: [0, 0, 0.3]}
  - {name: floor, geometry: {box: {size: [2, 2, 0.1]}}, motion: fixed, position: [0, 0, -1]}
  - {name: ball1, geometry: {sphere: {radius: 0.05, refine: 3}}, position: [1, 0, 0]}
  - {name: ball2, geometry: {sphere: {radius: 0.05, refine: 3}}, position: [1, 0, 0.3]}
  - {name: die1, alias: die, geometry: {box: {size: [0.1, 0.1, 0.1]}}, position: [0, 1, 0]}
  - {name: die2, alias: die, geometry: {box: {size: [0.1, 0.1, 0.1]}}, position: [0, 1, 0.3]}
interactions:
  - {pair: ["*", "*"], law: area_compliant}
  - {pair: [die, die], law: area_compliant, method: vertex}
"""


def test_auto_per_pair(s):
    # the default method auto, resolved per pair (docs/contact-laws.md, "Contact methods"):
    # where a mesh has ridges, both meshes' vertices (areas shared by depth) and edge-edge
    # contacts, unless the finer is smooth and 4 times finer (a ball on a coarse box: its own
    # vertices and edge-edge); two smooth balls one way, no edges; a rule naming vertex keeps it
    r = s.run("check", s.write("auto.yaml", AUTO))
    expect_exit(r, 0, "check auto")
    out = r.stdout
    for want in ("box1 <-> box2: rule 1 (area_compliant, line 11); auto: vertices of both, areas "
                 "shared by depth, edge-edge\n",
                 "floor <-> ball1: rule 1 (area_compliant, line 11); auto: vertices of ball1, "
                 "edge-edge\n",
                 "ball1 <-> ball2: rule 1 (area_compliant, line 11); auto: vertices of ball1\n",
                 "die1 <-> die2: rule 2 (area_compliant, line 12); vertex: vertices of die1\n"):
        check(want in out, want + " not in:\n" + out[-1500:])


def test_deformable(s):
    # the deformable example: its elements, material and attachment listed; a deformable body
    # against a contact_time rule refused with both bodies named and the rule's reason
    r = s.run("check", os.path.join(s.src, "examples", "cartilage_pad.yaml"))
    expect_exit(r, 0, "check cartilage_pad.yaml")
    want = ("cartilage: 507 nodes (0 fixed, 169 attached to tibia), 1728 tetrahedra, "
            "neo_hookean E 5e+06 Pa nu 0.45, backward_euler")
    check(want in r.stdout, "%r not in %r" % (want, r.stdout))
    text = ("bodies:\n  - name: ground\n    geometry: {plane: {}}\n    motion: fixed\n"
            "  - name: jelly\n    geometry: {box: {size: 0.1}}\n    motion: deformable\n")
    path = s.write("jelly.yaml", text)
    r = s.run("check", path)
    expect_exit(r, 2, "check jelly.yaml")
    for needle in ("jelly.yaml:5:", "'jelly' and 'ground'", "area_compliant or linear"):
        check(needle in r.stderr, "%r not in %r" % (needle, r.stderr))


# boxes of 1 kg (0.1 m, density 1000) thrown onto the ground between four walls: a pile (the
# peer kit's S2 pile of 27 boxes, with its own deterministic velocities)
STACK = """\
scene: {timestep: 1.0e-3, duration: 0.8, integrator: implicit}
bodies:
  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}
  - {name: wall0, geometry: {box: {size: [0.1, 1.8, 1.2]}}, motion: fixed, position: [0.85, 0, 0.6]}
  - {name: wall1, geometry: {box: {size: [0.1, 1.8, 1.2]}}, motion: fixed, position: [-0.85, 0, 0.6]}
  - {name: wall2, geometry: {box: {size: [1.8, 0.1, 1.2]}}, motion: fixed, position: [0, 0.85, 0.6]}
  - {name: wall3, geometry: {box: {size: [1.8, 0.1, 1.2]}}, motion: fixed, position: [0, -0.85, 0.6]}
BOXES
interactions:
  - {pair: ["*", "*"], law: area_compliant, ka: KA, friction: 1}
"""


def stack(n, ka):
    rows = []
    for i in range(n):
        x, y, z = 0.15 * (i % 3 - 1), 0.15 * (i // 3 % 3 - 1), 0.15 + 0.15 * (i // 9)
        vx, vy = 0.5 * math.sin(1.7 * i + 0.3), 0.5 * math.cos(2.3 * i)
        w = [4 * math.sin(0.9 * i + k) for k in range(3)]
        rows.append("  - {name: b%d, alias: box, geometry: {box: {size: 0.1, divisions: 2}}, "
                    "density: 1000, position: [%g, %g, %g], velocity: [%.6g, %.6g, 0], "
                    "angular_velocity: [%.6g, %.6g, %.6g]}" % (i, x, y, z, vx, vy, w[0], w[1], w[2]))
    return STACK.replace("BOXES", "\n".join(rows)).replace("KA", ka)


def test_contact_period(s):
    """The period of a resting implicit contact against the sub-step (issue 10): two 1 kg boxes
    on each other ring on the reduced mass m / 2 on ka A: T = 2 pi sqrt(0.5 / (ka 0.01));
    below 5 sub-steps per period `check` says what resolves it (the ka or the step that give 5),
    and `run` explains a solve that averaged more than 8 Newton iterations."""
    for ka, resolved in ((1e7, True), (5e10, False)):
        path = s.write("stack_%g.yaml" % ka, stack(27, repr(ka)))
        r = s.run("check", path)
        expect_exit(r, 0, "check stack at ka %g" % ka)
        m = re.search(r"contact period: ([0-9.e+-]+) s, ([0-9.e+-]+) sub-steps of 0.001 s: 'b0' on "
                      r"a body like it \(rule \d+, area_compliant\)", r.stdout)
        check(m is not None, r.stdout)
        T = 2 * math.pi * math.sqrt(0.5 / (ka * 0.01))
        check(abs(float(m.group(1)) - T) < 2e-3 * T, "%s vs %g" % (m.group(1), T))
        check(abs(float(m.group(2)) - T / 1e-3) < 2e-3 * T / 1e-3, m.group(2))
        check(("resolved" in r.stdout) == resolved and ("fewer than 5" in r.stdout) != resolved,
              r.stdout)
        if not resolved:
            # 5 sub-steps per period: ka = 0.5 (2 pi / 5e-3)^2 / 0.01, h = T / 5
            m = re.search(r"ka <= ([0-9.e+-]+) N/m\^3 or a sub-step of at most ([0-9.e+-]+) s", r.stdout)
            check(m is not None, r.stdout)
            ka_fix = 0.5 * (2 * math.pi / 5e-3) ** 2 / 0.01
            check(abs(float(m.group(1)) - ka_fix) < 2e-3 * ka_fix, "%s vs %g" % (m.group(1), ka_fix))
            check(abs(float(m.group(2)) - T / 5) < 2e-3 * T / 5, m.group(2))
            check("or min_period: 4 in the rule softens only the rows of the bodies" in r.stdout, r.stdout)
        out = s.path("stack_%g" % ka)
        r = s.run("run", path, "-o", out)
        expect_exit(r, 0, "run stack at ka %g" % ka)
        import json
        with open(os.path.join(out, "summary.json")) as f:
            mean = json.load(f)["solver"]["mean_iterations"]
        # the note follows the measured mean, and only an unresolved period explains it
        said = "Newton iterations per solve on average" in r.stderr
        check(said == (mean > 8 and not resolved), "mean %g, stderr %r" % (mean, r.stderr))
        if not resolved:
            # measured 12.1 (2.8 at ka 1e7): the note's path must run. Should the solver ever
            # take this unresolved pile in 8 or fewer, issue 10's target is met here, and this
            # test needs a stiffer case to reach the note
            check(mean > 8, "the stiff stack should need more than 8 iterations per solve: %g" % mean)
            check("comply:   the contact period is" in r.stderr and "warning" not in r.stderr,
                  r.stderr)
    # the stiff stack with min_period 4 (docs/contact-laws.md, "Softened contacts: min_period"):
    # check names it, and the run softens the rows of the bodies that ring faster than 4
    # sub-steps, says so on
    # stdout, and its solves average at most 8 iterations (4.5 when written), so no note
    path = s.write("stack_soft.yaml", stack(27, "5.0e10, min_period: 4"))
    r = s.run("check", path)
    expect_exit(r, 0, "check the softened stack")
    check("fewer than 5" in r.stdout and "the rule's min_period 4 softens its rows on each body" in
          r.stdout, r.stdout)
    out = s.path("stack_soft")
    r = s.run("run", path, "-o", out)
    expect_exit(r, 0, "run the softened stack")
    import json
    with open(os.path.join(out, "summary.json")) as f:
        sv = json.load(f)["solver"]
    check(sv["soft_rows"] > 0 and 0 < sv["soft_factor"] < 1e-2 and sv["not_converged"] == 0 and
          sv["mean_iterations"] <= 8, sv)
    check(re.search(r"; min_period softened %d contact rows over the sub-steps, the most to "
                    r"[0-9.e+-]+ times its law's stiffness" % sv["soft_rows"], r.stdout), r.stdout)
    check("Newton iterations per solve on average" not in r.stderr, r.stderr)
    # the example of it: examples/stiff_pile.yaml
    r = s.run("check", os.path.join(s.src, "examples", "stiff_pile.yaml"))
    expect_exit(r, 0, "check examples/stiff_pile.yaml")
    check("the rule's min_period 4 softens its rows on each body" in r.stdout, r.stdout)
    # one box alone: on the ground, with its whole mass
    path = s.write("one.yaml", stack(1, "5.0e10"))
    r = s.run("check", path)
    T = 2 * math.pi * math.sqrt(1.0 / (5e10 * 0.01))
    m = re.search(r"contact period: ([0-9.e+-]+) s, [0-9.e+-]+ sub-steps of 0.001 s: 'b0' on 'ground'",
                  r.stdout)
    check(m is not None and abs(float(m.group(1)) - T) < 2e-3 * T, r.stdout)


def test_rule_matching_nothing(s):
    # a rule whose glob matches no alias (a typo) applies to no pair: check and run say so, with
    # its line, instead of letting those pairs take another rule without a word
    text = GOOD.replace('  - pair: [ball, "bl*"]', '  - pair: [balll, "bl*"]')
    path = s.write("typo.yaml", text)
    line = line_of(text, "- pair: [balll")
    want = ("typo.yaml:%d:5: rule 2 (balll, bl*): 'balll' matches no body's alias" % line)
    r = s.run("check", path)
    expect_exit(r, 0, "check typo.yaml")
    check(want in r.stdout and "notes: 1" in r.stdout, r.stdout)
    check("the aliases are: ground, ball, blocks, wall" in r.stdout, r.stdout)
    r = s.run("run", path, "-o", s.path("typo_out"), "--steps", "2")
    expect_exit(r, 0, "run typo.yaml")
    check("comply: note: " in r.stderr and want in r.stderr, r.stderr)
    # the good scene's rules all match something: no note
    r = s.run("check", s.write("good2.yaml", GOOD))
    check("notes: 0" in r.stdout, r.stdout)
    # a glob that matches only `world` (a joint's other side) is not a typo
    text = GOOD + "  - pair: [ball, world]\n    law: contact_time\n"
    r = s.run("check", s.write("world.yaml", text))
    check("notes: 0" in r.stdout, r.stdout)


def test_resting_patch(s):
    # a 0.5 kg sphere of r 0.05 m at ka 5e10 (the default) rests 25 um deep on a cap of radius
    # sqrt(2 r d) = 1.6 mm; at refine 3 (the default) its edges are 7.5 mm: it rests on single
    # vertices, 4 pi r^2 / 642 = 4.9e-5 m^2 each, so about W / (ka A_v) = 2 um deep, its pressure
    # 0.08 times the sphere's (an audit measured 2.0 um). A note, in check and at the start of
    # run; 2 more refine levels halve the edges twice (1.9 mm <= 2 a): no note
    text = ("scene: {timestep: 1.0e-3, steps: 5}\nbodies:\n"
            "  - {name: ground, geometry: {plane: {normal: [0, 0, 1]}}, motion: fixed}\n"
            "  - {name: ball, geometry: {sphere: {radius: 0.05REFINE}}, mass: 0.5, position: [0, 0, 0.05001]}\n"
            "interactions:\n  - {pair: [\"*\", \"*\"], law: area_compliant}\n")
    coarse = s.write("patch.yaml", text.replace("REFINE", ""))
    r = s.run("check", coarse)
    expect_exit(r, 0, "check of the default sphere")
    check("resting patch: 1 sphere meshed coarser" in r.stdout and "'ball' on 'ground'" in r.stdout
          and "about 2e-06 m deep" in r.stdout and "pressure 0.08 times" in r.stdout
          and "2 more refine levels" in r.stdout, r.stdout)
    r = s.run("run", coarse, "-o", s.path("patch"))
    expect_exit(r, 0, "run of the default sphere")
    check("comply: note: 'ball' on 'ground'" in r.stderr, r.stderr)
    fine = s.write("patch5.yaml", text.replace("REFINE", ", refine: 5"))
    r = s.run("check", fine)
    check("resting patch: 0 spheres" in r.stdout, r.stdout)


if __name__ == "__main__":
    s = Suite()
    for t in (test_good, test_bad, test_many_bodies, test_initial_overlap, test_explicit_stability,
              test_joint_law_none, test_deformable, test_auto_per_pair, test_contact_period,
              test_rule_matching_nothing, test_resting_patch):
        s.test(t)
    s.finish()
