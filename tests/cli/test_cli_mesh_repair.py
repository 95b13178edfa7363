"""comply mesh-repair and the scene key repair: true. The cube [0, 2]^3 (volume 8 m^3, centre
(1, 1, 1), inertia per unit density 2^5 / 6 on the diagonal) written with each side's own four
vertices (24 vertices, unwelded: 8 corners of 3) and one face reversed; mesh-repair welds the 24
into 8 at tolerance 0 and flips the one face, and the output reloads and passes mesh-info with the
cube's mass properties. The same cube with every face listed twice: 12 duplicates dropped. A cube
with one side missing: the planar hole filled, the cube again (volume 8); with two adjacent sides
missing the hole is not planar and remains, exit 2 naming it and the report saying why. In a scene, the unwelded cube fails
without repair: true and runs with it, the compile note naming the file and what changed."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402

CUBE_V = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
CUBE_F = [(1, 4, 3), (1, 3, 2), (5, 6, 7), (5, 7, 8), (1, 2, 6), (1, 6, 5),
          (4, 8, 7), (4, 7, 3), (1, 5, 8), (1, 8, 4), (2, 3, 7), (2, 7, 6)]


def obj(faces):
    return "".join("v %g %g %g\n" % v for v in CUBE_V) + "".join("f %d %d %d\n" % f for f in faces)


def unwelded_obj():
    """each pair of faces (one side) with its own vertices; face 5 (0-based 4) reversed"""
    out, n = [], 0
    faces = []
    for side in range(6):
        own = {}
        for f in CUBE_F[2 * side:2 * side + 2]:
            t = []
            for v in f:
                if v not in own:
                    n += 1
                    own[v] = n
                    out.append("v %g %g %g\n" % CUBE_V[v - 1])
                t.append(own[v])
            faces.append(t)
    faces[4] = [faces[4][0], faces[4][2], faces[4][1]]
    return "".join(out) + "".join("f %d %d %d\n" % tuple(t) for t in faces)


def value(out, key):
    m = re.search(r"^%s: (.*)$" % re.escape(key), out, re.M)
    check(m, "no %r line in:\n%s" % (key, out))
    return m.group(1)


def test_round_trip(s):
    src = s.write("unwelded.obj", unwelded_obj())
    r = s.run("mesh-info", src)
    expect_exit(r, 2, "mesh-info of the unwelded cube")
    out = s.path("fixed.obj")
    r = s.run("mesh-repair", src, out)
    expect_exit(r, 0, "mesh-repair of the unwelded cube")
    check(value(r.stdout, "repaired")
          == "welded 24 vertices into 8 (tolerance 0 m); flipped 1 face", r.stdout)
    check("ok: the mesh now passes every check (volume 8 m^3)" in r.stdout, r.stdout)
    r = s.run("mesh-info", out)
    expect_exit(r, 0, "mesh-info of the repaired cube")
    check(value(r.stdout, "vertices") == "8" and value(r.stdout, "faces") == "12", r.stdout)
    check(abs(float(value(r.stdout, "volume").split()[0]) - 8) < 1e-12, r.stdout)
    com = [float(x) for x in value(r.stdout, "com").split()[:3]]
    check(all(abs(c - 1) < 1e-12 for c in com), "com %r" % com)
    lines = r.stdout.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("inertia"))
    for a in range(3):
        row = [float(x) for x in lines[i + 1 + a].split()]
        for b in range(3):
            want = 2 ** 5 / 6 if a == b else 0.0
            check(abs(row[b] - want) < 1e-12, "inertia %r" % row)

    dup = s.write("dup.obj", obj(CUBE_F + CUBE_F))
    r = s.run("mesh-repair", dup, s.path("dup_fixed.obj"))
    expect_exit(r, 0, "mesh-repair of the doubled cube")
    check(value(r.stdout, "repaired") == "dropped 12 duplicate faces", r.stdout)

    r = s.run("mesh-repair", s.path("dup_fixed.obj"), s.path("again.obj"))
    expect_exit(r, 0, "mesh-repair of a valid cube")
    check(value(r.stdout, "repaired") == "nothing to repair", r.stdout)

    # the side z = 0 missing: a planar hole of 4 edges, filled by 2 triangles: the cube again
    hole = s.write("open.obj", obj(CUBE_F[2:]))
    r = s.run("mesh-repair", hole, s.path("open_out.obj"))
    expect_exit(r, 0, "mesh-repair of a cube with a side missing")
    check("filled 1 planar hole of 4 to 4 edges with 2 triangles" in r.stdout, r.stdout)
    r = s.run("mesh-info", s.path("open_out.obj"))
    expect_exit(r, 0, "mesh-info of the filled cube")
    check(abs(float(value(r.stdout, "volume").split()[0]) - 8) < 1e-12, r.stdout)

    # the sides z = 0 and y = 0 missing: one hole of 6 edges on two perpendicular squares, not
    # planar: left, exit 2, the report saying why
    hole = s.write("open2.obj", obj(CUBE_F[2:4] + CUBE_F[6:]))
    r = s.run("mesh-repair", hole, s.path("open2_out.obj"))
    expect_exit(r, 2, "mesh-repair of a cube with two sides missing")
    check("the repaired mesh still fails" in r.stderr and "open2.obj: holes: 1" in r.stderr,
          r.stderr)
    check("left 1 hole open: not planar (the first, of 6 edges" in r.stdout, r.stdout)


def test_scene_key(s):
    s.write("meshes/unwelded.obj", unwelded_obj())
    text = """scene:
  timestep: 0.001
  duration: 0.01
bodies:
  - name: part
    geometry: {mesh: {file: meshes/unwelded.obj%s}}
    density: 1000
"""
    bad = s.write("bad.yaml", text % "")
    r = s.run("check", bad)
    expect_exit(r, 2, "scene with an unwelded mesh")
    check("unwelded.obj: unwelded vertices: 16" in r.stderr, r.stderr)
    good = s.write("good.yaml", text % ", repair: true")
    note = ("body 'part': meshes/unwelded.obj: repaired (repair: true): welded 24 vertices into 8 "
            "(tolerance 0 m); flipped 1 face")
    r = s.run("check", good)
    expect_exit(r, 0, "scene with repair: true")
    check(note in r.stdout + r.stderr, r.stdout + r.stderr)
    check("8000" in r.stdout, "mass 8000 kg:\n" + r.stdout)
    r = s.run("run", good, "-o", s.path("out"))
    expect_exit(r, 0, "run with repair: true")
    check(note in r.stdout + r.stderr, r.stdout + r.stderr)
    bad = s.write("bad_key.yaml", text % ", repair: maybe")
    r = s.run("check", bad)
    expect_exit(r, 2, "repair: maybe")
    check("geometry.mesh.repair" in r.stderr, r.stderr)


def test_bad_args(s):
    path = s.write("cube.obj", obj(CUBE_F))
    for args in (["--weld", "-1"], ["--weld", "x"], ["--scale", "0"], ["--nope"]):
        r = s.run("mesh-repair", path, s.path("o.obj"), *args)
        expect_exit(r, 2, "mesh-repair %r" % args)
        check(args[0] in r.stderr, "mesh-repair %r: %r" % (args, r.stderr))
    r = s.run("mesh-repair", path)
    expect_exit(r, 2, "missing OUT")
    check("missing OUT" in r.stderr, r.stderr)
    # OUT is OBJ: a .stl or .ply name (OBJ text there could not be read back, and OUT = IN
    # destroyed the input) is refused, nothing written
    for name in ("o.stl", "o.ply", "o"):
        r = s.run("mesh-repair", path, s.path(name))
        expect_exit(r, 2, "mesh-repair to %s" % name)
        check("must end in .obj" in r.stderr and not os.path.exists(s.path(name)), r.stderr)
    # OUT = IN: repaired in place, the result readable
    expect_exit(s.run("mesh-repair", path, path), 0, "mesh-repair in place")
    expect_exit(s.run("mesh-info", path), 0, "mesh-info of the mesh repaired in place")
    check(not os.path.exists(path + ".tmp"), "the temporary file is left")


if __name__ == "__main__":
    s = Suite()
    for t in (test_round_trip, test_scene_key, test_bad_args):
        s.test(t)
    s.finish()
