"""comply tetmesh: a closed surface filled with tets by gmsh (Debian package gmsh).

The output is read here with a reader of its own (gmsh 4.1 ASCII, as the command writes it) and
the tet volumes summed from the nodes. Without --remesh-surface gmsh keeps the surface's
triangles as the boundary of the tets (its nodes are the surface's vertices, written with 17
digits), so the tets fill exactly the polyhedron: their volumes sum to the surface's volume
(divergence theorem, computed here from the triangles) within rounding, 1e-12 relative; the unit
cube gives 1. With --remesh-surface the cube's planar faces are re-triangulated in their planes:
volume 1 again, with more nodes, and more tets for a smaller size. --scale 2 multiplies the
volume by 8. Failures: gmsh missing from the PATH (exit 1, naming the Debian package), gmsh
failing (a fake gmsh printing an error: its message shown; the real gmsh on a surface that
crosses itself: its segment-facet error), and bad options or an open surface (exit 2, before any
mesher runs). The derived files of tests/data/tet and the malformed ones of tests/data/bad/tet are
what make_tet_meshes.py and make_bad_tet.py write."""
import os
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "data", "tet"))
from clitest import Suite, check, expect_exit  # noqa: E402
from make_tet_meshes import icosphere  # noqa: E402

REL = 1e-12  # the tets against the surface's volume, relative


def obj(v, f):
    return "".join("v %r %r %r\n" % p for p in v) + "".join("f %d %d %d\n" % (a + 1, b + 1, c + 1)
                                                              for a, b, c in f)


def det(a, b, c):
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
            a[2] * (b[0] * c[1] - b[1] * c[0]))


def surface_volume(v, f):
    return sum(det(v[a], v[b], v[c]) for a, b, c in f) / 6


def read_msh41(path):
    """nodes {tag: (x, y, z)} and the tets (4 node tags) of a gmsh 4.1 ASCII file"""
    words = open(path).read().split()
    check(words[:3] == ["$MeshFormat", "4.1", "0"], "%s: not gmsh 4.1 ASCII" % path)
    i = words.index("$Nodes") + 1
    nblock = int(words[i])
    i += 4
    nodes = {}
    for _ in range(nblock):
        dim, par, n = int(words[i]), int(words[i + 2]), int(words[i + 3])
        i += 4
        tags = [int(w) for w in words[i:i + n]]
        i += n
        per = 3 + (dim if par else 0)
        for k, t in enumerate(tags):
            nodes[t] = tuple(float(w) for w in words[i + per * k:i + per * k + 3])
        i += per * n
    i = words.index("$Elements") + 1
    nblock = int(words[i])
    i += 4
    tets = []
    for _ in range(nblock):
        typ, n = int(words[i + 2]), int(words[i + 3])
        i += 4
        nn = {4: 4, 2: 3, 1: 2, 15: 1}[typ]
        for k in range(n):
            if typ == 4:
                tets.append([int(w) for w in words[i + 1:i + 5]])
            i += 1 + nn
    return nodes, tets


def tet_volumes(nodes, tets):
    out = []
    for t in tets:
        p = [nodes[k] for k in t]
        d = [tuple(p[j][c] - p[0][c] for c in range(3)) for j in (1, 2, 3)]
        out.append(det(*d) / 6)
    return out


def min_dihedral(nodes, t):
    """the smallest dihedral angle of a tet, degrees, from its face normals"""
    import math
    p = [nodes[k] for k in t]
    normals = []
    for f in range(4):
        a, b, c = [p[k] for k in range(4) if k != f]
        u = [b[i] - a[i] for i in range(3)]
        w = [c[i] - a[i] for i in range(3)]
        n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
        if sum(n[i] * (a[i] - p[f][i]) for i in range(3)) < 0:
            n = [-x for x in n]
        ln = math.sqrt(sum(x * x for x in n))
        normals.append([x / ln for x in n])
    return min(180 - math.degrees(math.acos(max(-1, min(1, sum(x * y for x, y in zip(m, n))))))
               for i, m in enumerate(normals) for n in normals[i + 1:])


def printed(out, key):
    for line in out.splitlines():
        if line.startswith(key + ":"):
            return line
    check(False, "no %r line in:\n%s" % (key, out))


def have_gmsh(s, name):
    if shutil.which("gmsh"):
        return True
    print("skip %s: gmsh is not installed (Debian package gmsh, in the Makefile's DEBS)" % name)
    return False


def mesh(s, surface, out, *args):
    r = s.run("tetmesh", surface, "-o", out, *args)
    expect_exit(r, 0, "tetmesh %s %r" % (surface, args))
    check(r.stdout.splitlines()[-1:] == ["ok"], r.stdout)
    return r, read_msh41(out)


def test_cube(s):
    if not have_gmsh(s, "test_cube"):
        return
    cube = os.path.join(s.src, "examples", "meshes", "unit_cube.obj")
    r, (nodes, tets) = mesh(s, cube, s.path("cube.msh"), "--size", "0.5")
    vols = tet_volumes(nodes, tets)
    check(min(vols) > 0, "a tet of volume %g" % min(vols))
    check(abs(sum(vols) - 1) <= REL, "volume %.17g, expected 1" % sum(vols))
    check(len(nodes) == 8, "%d nodes: the cube's 8 corners expected (surface kept)" % len(nodes))
    check("wrote: %s (8 nodes, %d tets)" % (s.path("cube.msh"), len(tets)) in r.stdout, r.stdout)
    # remeshed: planar faces stay planar, finer for a smaller size
    counts = []
    for size in ("0.5", "0.25"):
        r, (nodes, tets) = mesh(s, cube, s.path("cube_%s.msh" % size), "--size", size,
                                "--remesh-surface")
        vols = tet_volumes(nodes, tets)
        check(min(vols) > 0 and abs(sum(vols) - 1) <= 1e-9,
              "remeshed at %s: volume %.17g, min tet %g" % (size, sum(vols), min(vols)))
        check(len(nodes) > 8, "remeshed at %s: %d nodes" % (size, len(nodes)))
        counts.append(len(tets))
    check(counts[1] > 2 * counts[0], "tets at size 0.5 and 0.25: %r" % counts)
    # --scale 2: 8 m^3
    r, (nodes, tets) = mesh(s, cube, s.path("cube2.msh"), "--size", "1", "--scale", "2")
    check(abs(sum(tet_volumes(nodes, tets)) - 8) <= 8 * REL, r.stdout)


def test_icosphere(s):
    if not have_gmsh(s, "test_icosphere"):
        return
    v, f = icosphere(2, 0.5)
    path = s.write("ico.obj", obj(v, f))
    vs = surface_volume(v, f)
    r, (nodes, tets) = mesh(s, path, s.path("ico.msh"), "--size", "0.1")
    vols = tet_volumes(nodes, tets)
    check(min(vols) > 0, "a tet of volume %g" % min(vols))
    check(abs(sum(vols) - vs) <= REL * vs, "volume %.17g, surface %.17g" % (sum(vols), vs))
    check(len(tets) > 200, "%d tets" % len(tets))
    line = printed(r.stdout, "volume")
    check(abs(float(line.split()[1]) - vs) <= REL * vs, line)
    line = printed(r.stdout, "tet volume")
    check("min" in line and "max" in line, line)
    dmin = min(min_dihedral(nodes, t) for t in tets)
    line = printed(r.stdout, "smallest dihedral angle")
    check(abs(float(line.split()[3]) - dmin) <= 0.006 and 5 < dmin < 70.6,
          "%s, computed here %.4f" % (line, dmin))


def env_run(s, env, *args):
    return subprocess.run([s.comply] + list(args), capture_output=True, text=True, timeout=120,
                          cwd=s.tmp, env=env)


def test_missing_program(s):
    cube = os.path.join(s.src, "examples", "meshes", "unit_cube.obj")
    env = dict(os.environ)
    env.pop("COMPLY_GMSH", None)
    env["PATH"] = s.path("empty-bin")
    os.makedirs(env["PATH"], exist_ok=True)
    r = env_run(s, env, "tetmesh", cube, "-o", s.path("x.msh"), "--size", "0.5")
    expect_exit(r, 1, "tetmesh without gmsh on the PATH")
    check("'gmsh' was not found on the PATH" in r.stderr and "Debian package gmsh" in r.stderr,
          r.stderr)
    check(not os.path.exists(s.path("x.msh")), "an output without a mesher")


def test_mesher_fails(s):
    cube = os.path.join(s.src, "examples", "meshes", "unit_cube.obj")
    # a fake gmsh that fails as gmsh does: its error lines are shown
    fake = s.write("fake-gmsh", "#!/bin/sh\necho 'Info    : Reading mesh.geo'\n"
                   "echo 'Error   : Invalid boundary mesh (fake)' >&2\nexit 1\n")
    os.chmod(fake, 0o755)
    env = dict(os.environ, COMPLY_GMSH=fake)
    r = env_run(s, env, "tetmesh", cube, "-o", s.path("x.msh"), "--size", "0.5")
    expect_exit(r, 1, "tetmesh with a failing mesher")
    check("failed (exit status 1)" in r.stderr and "Invalid boundary mesh (fake)" in r.stderr
          and "Info" not in r.stderr, r.stderr)
    # SIGTERM to comply alone while the mesher runs: passed on to it (it was orphaned and went
    # on writing OUT), comply exits 143 saying so, and the incomplete OUT is removed
    slow = s.write("slow-gmsh", "#!/bin/sh\nfor a; do last=$a; done\necho partial > \"$last\"\n"
                   "echo $$ > \"%s\"\nexec sleep 60\n" % s.path("mesher.pid"))
    os.chmod(slow, 0o755)
    env = dict(os.environ, COMPLY_GMSH=slow)
    p = subprocess.Popen([s.comply, "tetmesh", cube, "-o", s.path("t.msh"), "--size", "0.5"],
                         cwd=s.tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    for _ in range(200):
        if os.path.exists(s.path("mesher.pid")) and open(s.path("mesher.pid")).read().strip():
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=30)
    check(p.returncode == 143, "tetmesh after SIGTERM: exit %d, %r" % (p.returncode, err))
    check("interrupted (SIGTERM)" in err and "t.msh not written" in err, err)
    check(not os.path.exists(s.path("t.msh")), "the incomplete OUT is left")
    pid = int(open(s.path("mesher.pid")).read())
    try:
        os.kill(pid, 0)
        gone = False
    except ProcessLookupError:
        gone = True
    check(gone, "the mesher still runs after comply ended")
    if not have_gmsh(s, "test_mesher_fails (real gmsh)"):
        return
    # the real one on an icosphere with a vertex pushed through the far side: a closed, oriented
    # surface that crosses itself
    v, f = icosphere(2, 0.5)
    v[0] = tuple(-1.6 * c for c in v[0])
    path = s.write("spike.obj", obj(v, f))
    r = s.run("tetmesh", path, "-o", s.path("spike.msh"), "--size", "0.1")
    expect_exit(r, 1, "tetmesh of a self-intersecting surface")
    check("gmsh: Error" in r.stderr and "intersect" in r.stderr, r.stderr)


def test_bad_args(s):
    cube = os.path.join(s.src, "examples", "meshes", "unit_cube.obj")
    for args, word in ((["-o", "x.msh"], "--size"), (["--size", "0.1"], "-o"),
                       (["-o", "x.stl", "--size", "0.1"], ".msh or .vtk"),
                       (["-o", "x.msh", "--size", "-1"], "--size"),
                       (["-o", "x.msh", "--size", "0.1", "--scale", "0"], "--scale"),
                       (["-o", "x.msh", "--size", "0.1", "--nope"], "--nope")):
        r = s.run("tetmesh", cube, *args)
        expect_exit(r, 2, "tetmesh %r" % args)
        check(word in r.stderr, "tetmesh %r: %r" % (args, r.stderr))
    # an OUT that cannot be written is refused before gmsh runs (gmsh failed, and the message
    # blamed the surface), and no empty OUT is left
    os.mkdir(s.path("d.msh"))
    for out, word in ((os.path.join(s.path("no_such_dir"), "x.msh"), "cannot be written"),
                      (s.path("d.msh"), "not a regular file")):
        r = s.run("tetmesh", cube, "-o", out, "--size", "0.5")
        expect_exit(r, 2, "tetmesh -o %s" % out)
        check(word in r.stderr and "self" not in r.stderr, r.stderr)
    # an open surface is refused before gmsh runs
    open_box = s.write("open.obj", "".join(open(cube).readlines()[:-2]))
    r = s.run("tetmesh", open_box, "-o", s.path("o.msh"), "--size", "0.5")
    expect_exit(r, 2, "tetmesh of an open box")
    check("open.obj" in r.stderr and "mesh-repair" in r.stderr, r.stderr)
    r = s.run("help", "tetmesh")
    expect_exit(r, 0, "help tetmesh")
    check("gmsh" in r.stdout and "--remesh-surface" in r.stdout, r.stdout)
    r = s.run("--help")
    check("comply tetmesh SURFACE" in r.stdout, r.stdout)


def test_generators_match(s):
    # the derived test meshes and the malformed ones are what their generators write
    for folder, script in (("tet", "make_tet_meshes.py"), (os.path.join("bad", "tet"),
                                                           "make_bad_tet.py")):
        src = os.path.join(s.src, "tests", "data", folder)
        out = s.path("regen", folder)
        os.makedirs(out)
        r = subprocess.run([sys.executable, "-B", os.path.join(src, script), out],
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 0, "%s failed: %s" % (script, r.stderr[-2000:]))
        names = sorted(os.listdir(out))
        check(len(names) >= 8, "%s wrote %d files" % (script, len(names)))
        for name in names:
            with open(os.path.join(out, name), "rb") as a, open(os.path.join(src, name), "rb") as b:
                check(a.read() == b.read(), "%s differs from what %s writes" % (name, script))


if __name__ == "__main__":
    s = Suite()
    for t in (test_cube, test_icosphere, test_missing_program, test_mesher_fails, test_bad_args,
              test_generators_match):
        s.test(t)
    s.finish()
