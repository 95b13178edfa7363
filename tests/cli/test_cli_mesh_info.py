"""comply mesh-info: a closed cube (counts, area, volume, centre, inertia per unit density, with
and without --scale), an open mesh (exit 2), bad arguments; the diagnosis of each defect of issue
13 (duplicate faces, unwelded vertices, holes, flipped faces, a shared vertex, several and nested
shells, self-intersections) with its counts and first example, every finding of a mesh with
several defects, and a scene load naming the cause and the fix."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402

# cube [0, 2]^3, faces counter-clockwise seen from outside
CUBE_V = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (2, 0, 2), (2, 2, 2), (0, 2, 2)]
CUBE_F = [(1, 4, 3), (1, 3, 2), (5, 6, 7), (5, 7, 8), (1, 2, 6), (1, 6, 5),
          (4, 8, 7), (4, 7, 3), (1, 5, 8), (1, 8, 4), (2, 3, 7), (2, 7, 6)]


def obj(faces):
    return "".join("v %g %g %g\n" % v for v in CUBE_V) + "".join("f %d %d %d\n" % f for f in faces)


def value(out, key):
    m = re.search(r"^%s: (\S+)" % re.escape(key), out, re.M)
    check(m, "no %r line in:\n%s" % (key, out))
    return m.group(1)


def floats_after(out, key, n):
    m = re.search(r"^%s:((?:\s+\S+){%d})" % (re.escape(key), n), out, re.M)
    check(m, "no %r line in:\n%s" % (key, out))
    return [float(x) for x in m.group(1).split()]


def inertia(out):
    lines = out.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("inertia"))
    return [[float(x) for x in lines[i + 1 + r].split()] for r in range(3)]


def test_cube(s):
    path = s.write("cube.obj", obj(CUBE_F))
    for scale, a in ((None, 2.0), ("0.5", 1.0)):
        args = ["mesh-info", path] + (["--scale", scale] if scale else [])
        r = s.run(*args)
        expect_exit(r, 0, " ".join(args))
        out = r.stdout
        check(value(out, "vertices") == "8" and value(out, "faces") == "12"
              and value(out, "edges") == "18", "counts:\n" + out)
        for k in ("closed", "manifold", "oriented"):
            check(value(out, k) == "yes", "%s:\n%s" % (k, out))
        check(abs(float(value(out, "area")) - 6 * a * a) < 1e-12, "area:\n" + out)
        check(abs(float(value(out, "volume")) - a ** 3) < 1e-12, "volume:\n" + out)
        com = floats_after(out, "com", 3)
        check(all(abs(c - a / 2) < 1e-12 for c in com), "com %r" % com)
        I = inertia(out)
        for i in range(3):
            for j in range(3):
                want = a ** 5 / 6 if i == j else 0.0
                check(abs(I[i][j] - want) < 1e-12, "inertia[%d][%d] = %r, expected %r"
                      % (i, j, I[i][j], want))


def test_open(s):
    path = s.write("open.obj", obj(CUBE_F[:-1]))
    r = s.run("mesh-info", path)
    expect_exit(r, 2, "open mesh")
    check(value(r.stdout, "closed") == "no", "open mesh reported closed:\n" + r.stdout)
    check(r.stderr.startswith("comply: ") and "open.obj" in r.stderr, "message %r" % r.stderr)
    flipped = [CUBE_F[0][::-1]] + CUBE_F[1:]
    path = s.write("flipped.obj", obj(flipped))
    r = s.run("mesh-info", path)
    expect_exit(r, 2, "misoriented mesh")
    check(value(r.stdout, "oriented") == "no", "flipped face not reported:\n" + r.stdout)
    # every face reversed: consistently oriented, closed, inside out (negative volume): one
    # finding that says so, and the same refusal (until 2026-12-08 "findings: 0")
    path = s.write("inside_out.obj", obj([f[::-1] for f in CUBE_F]))
    r = s.run("mesh-info", path)
    expect_exit(r, 2, "inside-out mesh")
    check(value(r.stdout, "findings") == "1" and "finding: inside out: enclosed volume -8 m^3"
          in r.stdout and "oriented inward" in r.stderr, r.stdout + r.stderr)


def mesh(verts, faces):
    return "".join("v %g %g %g\n" % v for v in verts) + "".join(
        "f " + " ".join(str(i) for i in f) + "\n" for f in faces)


def moved(d, faces=CUBE_F, n=8):
    """a second cube: vertices moved by d, faces shifted by n"""
    return ([(x + d[0], y + d[1], z + d[2]) for x, y, z in CUBE_V],
            [tuple(i + n for i in f) for f in faces])


def findings(s, name, text, code):
    r = s.run("mesh-info", s.write(name, text))
    expect_exit(r, code, name)
    lines = [l[len("finding: "):] for l in r.stdout.splitlines() if l.startswith("finding: ")]
    n = int(value(r.stdout, "findings"))
    return r, lines, n


def has(lines, prefix):
    check(any(l.startswith(prefix) for l in lines), "no finding %r in %r" % (prefix, lines))


def test_findings(s):
    # every face listed twice (the copies reversed): 12 duplicates, first faces 0 and 12
    r, lines, n = findings(s, "dup.obj", obj(CUBE_F + [f[::-1] for f in CUBE_F]), 2)
    has(lines, "duplicate faces: 12 (every face is listed twice); first: faces 0 and 12")
    check(n == 1, "dup: %d findings %r" % (n, lines))
    check("remove the duplicate faces" in r.stderr and "18 non-manifold edges" in r.stderr,
          r.stderr)
    # each side its own 4 vertices (quads): 24 vertices at 8 corners, 16 welded away
    quads = [(1, 4, 3, 2), (5, 6, 7, 8), (1, 2, 6, 5), (4, 8, 7, 3), (1, 5, 8, 4), (2, 3, 7, 6)]
    verts, faces = [], []
    for q in quads:
        faces.append(tuple(len(verts) + k + 1 for k in range(4)))
        verts += [CUBE_V[i - 1] for i in q]
    r, lines, n = findings(s, "unwelded.obj", mesh(verts, faces), 2)
    has(lines, "unwelded vertices: 16 in 8 groups of coincident vertices; first: vertex 0 and "
        "vertex ")
    check("welding exactly coincident vertices closes the mesh" in r.stderr, r.stderr)
    check(not any(l.startswith("holes") for l in lines), "holes reported: %r" % lines)
    # a side missing (its two triangles): one loop of 4 edges
    r, lines, n = findings(s, "hole.obj", obj(CUBE_F[2:]), 2)
    has(lines, "holes: 1 (boundary loops of 4 edges; 4 boundary edges); first: at vertex ")
    check("close the holes" in r.stderr, r.stderr)
    # one face reversed
    r, lines, n = findings(s, "flip.obj", obj([CUBE_F[0]] + [CUBE_F[1][::-1]] + CUBE_F[2:]), 2)
    has(lines, "flipped faces: 1; first: face 1 (vertices 1, 2, 0)")
    # a second cube sharing the corner (2, 2, 2) (vertex 7, index 6)
    v2, f2 = moved((2, 2, 2), n=7)
    f2 = [tuple(7 if i == 8 else i for i in f) for f in f2]  # its corner (0, 0, 0) + 2
    r, lines, n = findings(s, "share.obj", mesh(CUBE_V + v2[1:], CUBE_F + f2), 2)
    has(lines, "non-manifold vertices: 1; first: vertex 6 (2, 2, 2) where 2 fans of faces meet")
    has(lines, "shells: 2")
    # two disjoint cubes: valid, 2 shells
    v2, f2 = moved((5, 0, 0))
    r, lines, n = findings(s, "two.obj", mesh(CUBE_V + v2, CUBE_F + f2), 0)
    check(lines == ["shells: 2", "self-intersections: 0"] and n == 1, "two: %r" % lines)
    # a half-size cube inside: counted twice
    inner = [(0.5 + x / 2, 0.5 + y / 2, 0.5 + z / 2) for x, y, z in CUBE_V]
    r, lines, n = findings(s, "nest.obj", mesh(CUBE_V + inner, CUBE_F + moved((0, 0, 0))[1]), 2)
    has(lines, "nested shells: 1; first: the shell of face 12 lies inside the shell of face 0")
    # two overlapping cubes: their faces cross
    v2, f2 = moved((1.2, 1.2, 1.2))
    r, lines, n = findings(s, "cross.obj", mesh(CUBE_V + v2, CUBE_F + f2), 0)
    has(lines, "self-intersections: ")
    k = int(next(l for l in lines if l.startswith("self-int")).split()[1].rstrip(";"))
    check(k > 0, "self-intersections: %r" % lines)


def test_several(s):
    # a missing face, a flipped face and, in a second cube, a duplicated face: all listed
    v2, f2 = moved((5, 0, 0))
    faces = [CUBE_F[0][::-1]] + CUBE_F[1:-1] + [f2[0], f2[0]] + f2[2:]
    r, lines, n = findings(s, "several.obj", mesh(CUBE_V + v2, faces), 2)
    has(lines, "duplicate faces: 1; first: faces 11 and 12")
    has(lines, "holes: 2 (boundary loops of 3, 3 edges; 6 boundary edges)")
    has(lines, "flipped faces: 1; first: face 0 ")
    has(lines, "shells: 2")
    check(n == 4, "several: %d findings %r" % (n, lines))


def test_scene_error(s):
    s.write("meshes/dup.obj", obj(CUBE_F + CUBE_F))
    scene = s.write("scene.yaml", """scene:
  timestep: 0.001
  duration: 0.1
bodies:
  - name: part
    geometry: {mesh: {file: meshes/dup.obj}}
""")
    r = s.run("check", scene)
    expect_exit(r, 2, "scene with a duplicated mesh")
    check("dup.obj: duplicate faces: 12 (every face is listed twice); first: faces 0 and 12"
          in r.stderr and "remove the duplicate faces (or repair: true, comply mesh-repair)"
          in r.stderr, r.stderr)


def test_bad_args(s):
    path = s.write("cube2.obj", obj(CUBE_F))
    for args in (["--scale", "0"], ["--scale", "-1"], ["--scale", "x"], ["--scale", "inf"],
                 ["--scale"], ["--nope"]):
        r = s.run("mesh-info", path, *args)
        expect_exit(r, 2, "mesh-info %r" % args)
        check(args[0] in r.stderr, "mesh-info %r: %r" % (args, r.stderr))
    r = s.run("mesh-info", s.path("nosuch.obj"))
    expect_exit(r, 2, "missing mesh")
    check("nosuch.obj" in r.stderr, r.stderr)
    r = s.run("mesh-info", s.write("garbage.obj", "v 1 2\nf 1 2 3\n"))
    expect_exit(r, 2, "malformed mesh")


if __name__ == "__main__":
    s = Suite()
    for t in (test_cube, test_open, test_findings, test_several, test_scene_error,
              test_bad_args):
        s.test(t)
    s.finish()
