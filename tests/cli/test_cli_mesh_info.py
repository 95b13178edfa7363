"""comply mesh-info: a closed cube (counts, area, volume, centre, inertia per unit density, with
and without --scale), an open mesh (exit 2), bad arguments."""
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
    for t in (test_cube, test_open, test_bad_args):
        s.test(t)
    s.finish()
