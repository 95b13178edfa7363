"""VTK meshes through the comply command: a scene whose body is a .vtp file, run with the VTK
series; which body of a pair carries the pressure; mesh-info on every .vtp and .vtk of
tests/data/meshes (the OpenSim-style unwelded box diagnosed, then repaired by mesh-repair);
malformed files refused with the file, the line and the cause.

The run: a 0.1 x 0.1 x 0.05 m box centred on its origin, written as an ascii .vtp with its 8
vertices in a scrambled order and its sides as quads, density 1000 (W = 4.905 N), resting on a
fixed plane with the area_compliant law ka = 5e10 N/m^3 (the case of test_cli_vtk.py: at rest
every bottom vertex carries W / A = 490.5 Pa and penetrates W / (ka A) = 9.81e-9 m, the others
0). The model keeps its vertices in its own (Morton) order; the .vtu must give them back in the
file's order: point i is the file's vertex i at the pose of bodies.csv, the cells are the file's
quads fanned (v0, vi, vi+1) on those indices, and the pressure sits on the points that are the
file's bottom vertices (a wrong permutation would put it elsewhere)."""
import base64
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit, frames, read_bodies  # noqa: E402

SX, SY, SZ = 0.1, 0.1, 0.05
W = SX * SY * SZ * 1000 * 9.81
KA = 5e10
PRESSURE = W / (SX * SY)
PENETRATION = W / (KA * SX * SY)

# corners (index i + 2j + 4k), outward counter-clockwise quads
CORNERS = [((i - 0.5) * SX, (j - 0.5) * SY, (k - 0.5) * SZ) for k in (0, 1) for j in (0, 1)
           for i in (0, 1)]
_ix = lambda i, j, k: i + 2 * j + 4 * k
QUADS = [[_ix(0, j, k) for j, k in ((0, 0), (0, 1), (1, 1), (1, 0))],
         [_ix(1, j, k) for j, k in ((0, 0), (1, 0), (1, 1), (0, 1))],
         [_ix(i, 0, k) for i, k in ((0, 0), (1, 0), (1, 1), (0, 1))],
         [_ix(i, 1, k) for i, k in ((0, 0), (0, 1), (1, 1), (1, 0))],
         [_ix(i, j, 0) for i, j in ((0, 0), (0, 1), (1, 1), (1, 0))],
         [_ix(i, j, 1) for i, j in ((0, 0), (1, 0), (1, 1), (0, 1))]]
# file vertex f is corner PERM[f]: an order no spatial sort gives back
PERM = [5, 2, 7, 0, 3, 6, 1, 4]
INV = {c: f for f, c in enumerate(PERM)}
FILE_V = [CORNERS[c] for c in PERM]
FILE_Q = [[INV[c] for c in q] for q in QUADS]


def vtp_text():
    pts = " ".join(repr(x) for p in FILE_V for x in p)
    conn = " ".join(str(i) for q in FILE_Q for i in q)
    offs = " ".join(str(4 * (i + 1)) for i in range(len(FILE_Q)))
    return f"""<?xml version="1.0"?>
<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">
  <PolyData>
    <Piece NumberOfPoints="8" NumberOfVerts="0" NumberOfLines="0" NumberOfStrips="0" NumberOfPolys="6">
      <Points>
        <DataArray type="Float64" NumberOfComponents="3" format="ascii">{pts}</DataArray>
      </Points>
      <Polys>
        <DataArray type="Int32" Name="connectivity" format="ascii">{conn}</DataArray>
        <DataArray type="Int32" Name="offsets" format="ascii">{offs}</DataArray>
      </Polys>
    </Piece>
  </PolyData>
</VTKFile>
"""


SCENE = f"""scene:
  name: vtp-box
  timestep: 0.001
  steps: 300
  gravity: [0, 0, -9.81]
output:
  every: 100
  vtk: true
bodies:
  - name: ground
    geometry: {{plane: {{normal: [0, 0, 1]}}}}
    motion: fixed
  - name: box
    geometry: {{mesh: {{file: meshes/box.vtp}}}}
    density: 1000
    position: [0, 0, {SZ / 2}]
interactions:
  - pair: ["*", "*"]
    law: area_compliant
    ka: {KA}
    step_damping: 1.0
"""


def decode(arr, fmt):
    raw = base64.b64decode("".join(arr.text.split()), validate=True)
    (n,) = struct.unpack_from("<Q", raw, 0)
    size = struct.calcsize("<" + fmt)
    return list(struct.unpack_from("<%d%s" % (n // size, fmt), raw, 8))


def rotate_inv(q, v):
    w, x, y, z = q
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(R[i][j] * v[i] for i in range(3)) for j in range(3)]


def cyc(t):
    """a triangle up to rotation of its corners (orientation kept)"""
    k = t.index(min(t))
    return tuple(t[k:] + t[:k])


def test_vtp_body_run(s):
    s.write("meshes/box.vtp", vtp_text())
    scene = s.write("vtp.yaml", SCENE)
    out = s.path("out")
    r = s.run("run", scene, "-o", out, "-q")
    expect_exit(r, 0, "comply run of a .vtp body")
    rows = read_bodies(os.path.join(out, "bodies.csv"))
    fr = frames(rows)
    want_tris = sorted(cyc([q[0], q[i], q[i + 1]]) for q in FILE_Q for i in (1, 2))
    bottom = [f for f in range(8) if FILE_V[f][2] < 0]
    seen = 0
    for step, rs in fr:
        b = [r for r in rs if r["body"] == "box"][0]
        x = [b["x"], b["y"], b["z"]]
        q = [b["qw"], b["qx"], b["qy"], b["qz"]]
        path = os.path.join(out, "vtk", "box_%d.vtu" % step)
        piece = ET.parse(path).getroot().find("UnstructuredGrid/Piece")
        pts = decode(piece.find("Points/DataArray"), "d")
        check(len(pts) == 24, "%s: %d coordinates" % (path, len(pts)))
        for i in range(8):
            p = [pts[3 * i + k] - x[k] for k in range(3)]
            pb = rotate_inv(q, p)
            check(all(abs(pb[k] - FILE_V[i][k]) <= 1e-12 for k in range(3)),
                  "%s: point %d is %r in the body frame, the file's vertex %d is %r"
                  % (path, i, pb, i, FILE_V[i]))
        cells = {a.get("Name"): a for a in piece.find("Cells").findall("DataArray")}
        conn = decode(cells["connectivity"], "q")
        tris = sorted(cyc(conn[3 * t:3 * t + 3]) for t in range(len(conn) // 3))
        check(tris == want_tris, "%s: triangles %r, expected %r" % (path, tris, want_tris))
        pd = {a.get("Name"): decode(a, "q" if a.get("Name") == "input_index" else "d")
              for a in piece.find("PointData").findall("DataArray")}
        check(pd["input_index"] == list(range(8)), "%s: input_index %r" % (path, pd["input_index"]))
        for i in range(8):
            pr, pe = pd["pressure"][i], pd["penetration"][i]
            if step == 0 or i not in bottom:
                check(pr == 0 and pe == 0, "%s: point %d pressure %r" % (path, i, pr))
            else:
                check(abs(pr - PRESSURE) <= 0.01 * PRESSURE,
                      "%s: point %d (a bottom vertex) pressure %r, expected %r" % (path, i, pr, PRESSURE))
                check(abs(pe - PENETRATION) <= 0.01 * PENETRATION,
                      "%s: point %d penetration %r, expected %r" % (path, i, pe, PENETRATION))
        seen += 1
    check(seen == 4, "%d frames" % seen)


STACK = """scene:
  name: stack
  timestep: 0.001
  steps: 100
  gravity: [0, 0, -9.81]
output:
  every: 100
  vtk: true
bodies:
  - name: base
    geometry: {box: {size: [0.2, 0.2, 0.1], divisions: 2}}
    motion: fixed
  - name: top
    geometry: {box: {size: [0.1, 0.1, 0.05], divisions: 4}}
    density: 1000
    position: [0, 0, 0.075]
interactions:
  - pair: ["*", "*"]
    law: area_compliant
    ka: 5.0e10
    step_damping: 1.0
    method: %s
"""


def test_repaired_body_order(s):
    """repair: true on a .vtp whose sides have their own points (24, OpenSim-style): the repair
    welds each group of 3 into the one of smallest index, so the .vtu has 8 points, the file's
    vertices F = the first occurrence of each corner, in file order, and input_index = F; the
    repaired box rests on the plane with W / A on its bottom points (its mass is right)"""
    V, n = [], 0
    quads = []
    # sides -x, -y, -z first: corners 7, 3, ... first appear late, so the survivors are not
    # the first 8 points (0, 1, 2, 3, 5, 6, 10, 14)
    for q in [QUADS[k] for k in (0, 2, 4, 1, 3, 5)]:
        quads.append([len(V) + j for j in range(4)])
        V += [CORNERS[c] for c in q]
    first = {}
    for i, p in enumerate(V):
        first.setdefault(p, i)
    keep = sorted(first.values())
    check(keep == [0, 1, 2, 3, 5, 6, 10, 14], "survivors %r" % keep)
    pts = " ".join(repr(x) for p in V for x in p)
    conn = " ".join(str(i) for q in quads for i in q)
    offs = " ".join(str(4 * (i + 1)) for i in range(6))
    s.write("meshes/unwelded.vtp", vtp_text().replace(
        'NumberOfPoints="8"', 'NumberOfPoints="24"').replace(
        " ".join(repr(x) for p in FILE_V for x in p), pts).replace(
        " ".join(str(i) for q in FILE_Q for i in q), conn).replace(
        " ".join(str(4 * (i + 1)) for i in range(len(FILE_Q))), offs))
    scene = s.write("rep.yaml", SCENE.replace("meshes/box.vtp}", "meshes/unwelded.vtp, repair: true}")
                    .replace("steps: 300", "steps: 100"))
    out = s.path("rep")
    r = s.run("run", scene, "-o", out, "-q")
    expect_exit(r, 0, "comply run of a repaired .vtp body")
    for step, rs in frames(read_bodies(os.path.join(out, "bodies.csv"))):
        b = [r for r in rs if r["body"] == "box"][0]
        x = [b["x"], b["y"], b["z"]]
        q = [b["qw"], b["qx"], b["qy"], b["qz"]]
        path = os.path.join(out, "vtk", "box_%d.vtu" % step)
        piece = ET.parse(path).getroot().find("UnstructuredGrid/Piece")
        idx = decode([a for a in piece.find("PointData") if a.get("Name") == "input_index"][0], "q")
        check(idx == keep, "%s: input_index %r, expected %r" % (path, idx, keep))
        pts = decode(piece.find("Points/DataArray"), "d")
        for k, i in enumerate(idx):
            pb = rotate_inv(q, [pts[3 * k + j] - x[j] for j in range(3)])
            check(all(abs(pb[j] - V[i][j]) <= 1e-12 for j in range(3)),
                  "%s: point %d is %r, the file's vertex %d is %r" % (path, k, pb, i, V[i]))
        # the repaired box's mass is right: at rest its bottom points carry W / A
        pr = decode([a for a in piece.find("PointData") if a.get("Name") == "pressure"][0], "d")
        for k, i in enumerate(idx):
            if step > 0 and V[i][2] < 0:
                check(abs(pr[k] - PRESSURE) <= 0.01 * PRESSURE,
                      "%s: point %d pressure %r, expected %r" % (path, k, pr[k], PRESSURE))
            else:
                check(pr[k] == 0, "%s: point %d pressure %r, expected 0" % (path, k, pr[k]))


def face_pressure(path, z, tol=1e-9):
    """the pressures of the points of a .vtu at height z, and of all the others"""
    piece = ET.parse(path).getroot().find("UnstructuredGrid/Piece")
    pts = decode(piece.find("Points/DataArray"), "d")
    pd = {a.get("Name"): decode(a, "d") for a in piece.find("PointData").findall("DataArray")}
    on = [pd["pressure"][i] for i in range(len(pts) // 3) if abs(pts[3 * i + 2] - z) <= tol]
    off = [pd["pressure"][i] for i in range(len(pts) // 3) if abs(pts[3 * i + 2] - z) > tol]
    return on, off


def test_which_body_gets_pressure(s):
    """docs/outputs.md: a vertex contact's pressure is on the body whose vertex it is. A box of 4
    divisions resting on a fixed box of 2 (its top face at z = 0.05): with `vertex` the finer
    mesh's vertices are tested, so only the top box carries pressure (every bottom vertex, W / A =
    490.5 Pa as in the plane case) and the base carries none; with `two_way` both carry it, the
    base on its top-face vertices strictly inside the box's footprint: of its 3 x 3 grid (x, y
    in {-0.1, 0, 0.1}) only the centre; the box is 0.1 m wide, so no other grid vertex is under
    it."""
    for method in ("vertex", "two_way"):
        scene = s.write("stack_%s.yaml" % method, STACK % method)
        out = s.path("stack_" + method)
        expect_exit(s.run("run", scene, "-o", out, "-q"), 0, "comply run, method " + method)
        top_on, top_off = face_pressure(os.path.join(out, "vtk", "top_100.vtu"), 0.05, 1e-6)
        base_on, base_off = face_pressure(os.path.join(out, "vtk", "base_100.vtu"), 0.05)
        check(len(top_on) == 25 and all(p > 0 for p in top_on),
              "%s: top box bottom pressures %r" % (method, top_on))
        check(all(p == 0 for p in top_off), "%s: pressure off the top box's bottom" % method)
        check(all(p == 0 for p in base_off), "%s: pressure off the base's top face" % method)
        under = [p for p in base_on if p > 0]
        if method == "vertex":
            check(not under, "vertex: the base carries pressure %r" % under)
        else:
            check(len(under) == 1, "two_way: base top-face pressures %r" % base_on)


def test_mesh_info_vtk_files(s):
    data = os.path.join(s.src, "tests", "data", "meshes")
    names = sorted(n for n in os.listdir(data) if n.endswith((".vtp", ".vtk")))
    check(len(names) >= 15, "files %r" % names)
    for n in names:
        r = s.run("mesh-info", os.path.join(data, n))
        if n == "box_unwelded.vtp":
            # OpenSim-style, each side with its own points: diagnosed, then repaired
            expect_exit(r, 2, "mesh-info " + n)
            check("unwelded vertices: 16 in 8 groups" in r.stdout + r.stderr, r.stdout + r.stderr)
            fixed = s.path("unwelded_fixed.obj")
            r = s.run("mesh-repair", os.path.join(data, n), fixed)
            expect_exit(r, 0, "mesh-repair " + n)
            check("welded 24 vertices into 8 (tolerance 0 m)" in r.stdout, r.stdout)
            r = s.run("mesh-info", fixed)
        expect_exit(r, 0, "mesh-info " + n)
        m = re.search(r"^volume: (\S+)", r.stdout, re.M)
        check(m, "no volume in %s" % r.stdout)
        v = float(m.group(1))
        want = 6.0 if n.startswith("box") else None
        if want:
            check(abs(v - want) < 1e-12, "%s: volume %r, expected 6" % (n, v))
        else:
            check(4.0 < v < 4.19, "%s: volume %r of the refined icosphere" % (n, v))


def test_malformed(s):
    bad = vtp_text().replace(' 7 ', ' 9 ', 1)
    check(bad != vtp_text(), "no index 7 to break")
    p = s.write("bad.vtp", bad)
    r = s.run("mesh-info", p)
    expect_exit(r, 2, "mesh-info of a .vtp with an index out of range")
    check(re.search(r"bad\.vtp:9: Polys connectivity: polygon \d refers to point 9, outside 0\.\.7",
                    r.stderr), r.stderr)
    p = s.write("bad.vtk", "# vtk DataFile Version 4.2\nt\nASCII\nDATASET POLYDATA\n"
                "POINTS 3 float\n0 0 0 1 0 0 0 1 0\nPOLYGONS 1 4\n3 0 1 5\n")
    r = s.run("mesh-info", p)
    expect_exit(r, 2, "mesh-info of a .vtk with an index out of range")
    check("bad.vtk:8: POLYGONS: polygon 0 refers to point 5, outside 0..2" in r.stderr, r.stderr)
    s.write("meshes/box.vtp", bad)
    scene = s.write("badscene.yaml", SCENE)
    r = s.run("check", scene)
    expect_exit(r, 2, "comply check of a scene with a broken .vtp")
    check("box.vtp:9:" in r.stderr, r.stderr)


if __name__ == "__main__":
    s = Suite()
    s.test(test_vtp_body_run)
    s.test(test_repaired_body_order)
    s.test(test_which_body_gets_pressure)
    s.test(test_mesh_info_vtk_files)
    s.test(test_malformed)
    s.finish()
