"""comply run with `output: vtk: true`: the .vtu files and scene.pvd read back with an independent
parser (xml.etree, base64, struct) and their values checked against the physics.

A 0.1 x 0.1 x 0.05 m box of density 1000 (0.5 kg, weight W = 4.905 N) rests on a fixed plane with
the area_compliant law, ka = 5e10 N/m^3: at rest the pressure is uniform, W / A = 490.5 Pa over the
bottom face (A = 0.01 m^2), and the penetration is W / (ka A) = 9.81e-9 m (SPEC 6, P3; see
tests/physics/test_area_compliant.c). Every bottom vertex must carry those values, every other
vertex 0; the points must be the box's vertices at the pose of bodies.csv.
"""
import base64
import math
import os
import struct
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit, frames, read_bodies, read_summary  # noqa: E402

H = 1e-3
STEPS = 300
EVERY = 50
DIV = 4
SX, SY, SZ = 0.1, 0.1, 0.05
W = SX * SY * SZ * 1000 * 9.81
KA = 5e10
PRESSURE = W / (SX * SY)
PENETRATION = W / (KA * SX * SY)

SCENE = f"""scene:
  name: resting-box
  timestep: {H}
  steps: {STEPS}
  gravity: [0, 0, -9.81]
output:
  every: {EVERY}
  vtk: true
bodies:
  - name: ground
    geometry: {{plane: {{normal: [0, 0, 1]}}}}
    motion: fixed
  - name: box
    geometry: {{box: {{size: [{SX}, {SY}, {SZ}], divisions: {DIV}}}}}
    density: 1000
    position: [0, 0, {SZ / 2}]
interactions:
  - pair: ["*", "*"]
    law: area_compliant
    ka: {KA}
    step_damping: 1.0
"""


def decode(arr, fmt):
    """a DataArray with format="binary", header_type UInt64: base64 of (byte count, data)"""
    check(arr.get("format") == "binary", "array %s: format %r" % (arr.get("Name"), arr.get("format")))
    raw = base64.b64decode("".join(arr.text.split()), validate=True)
    (n,) = struct.unpack_from("<Q", raw, 0)
    check(n == len(raw) - 8, "array %s: header says %d bytes, %d present" % (arr.get("Name"), n, len(raw) - 8))
    size = struct.calcsize("<" + fmt)
    check(n % size == 0, "array %s: %d bytes is not a multiple of %d" % (arr.get("Name"), n, size))
    return list(struct.unpack_from("<%d%s" % (n // size, fmt), raw, 8))


def rotate_inv(q, v):
    """R(q)^T v for a unit quaternion w x y z"""
    w, x, y, z = q
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
         [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
         [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]
    return [sum(R[i][j] * v[i] for i in range(3)) for j in range(3)]


DEFORMED = {"displacement", "von_mises"}


def read_vtu(path, deformable=False):
    root = ET.parse(path).getroot()
    check(root.tag == "VTKFile" and root.get("type") == "UnstructuredGrid", "%s: root %r" % (path, root.attrib))
    check(root.get("header_type") == "UInt64" and root.get("byte_order") == "LittleEndian",
          "%s: %r" % (path, root.attrib))
    piece = root.find("UnstructuredGrid/Piece")
    np_, nc = int(piece.get("NumberOfPoints")), int(piece.get("NumberOfCells"))
    pd = {a.get("Name"): a for a in piece.find("PointData")}
    want = {"pressure", "penetration", "input_index"} | (DEFORMED if deformable else set())
    check(set(pd) == want, "%s: point data %r" % (path, sorted(pd)))
    cells = {a.get("Name"): a for a in piece.find("Cells")}
    tv = root.find("UnstructuredGrid/FieldData/DataArray")
    return {
        "npoints": np_, "ncells": nc,
        "time": float(tv.text) if tv is not None else None,
        "points": decode(piece.find("Points/DataArray"), "d"),
        "pressure": decode(pd["pressure"], "d"),
        "penetration": decode(pd["penetration"], "d"),
        "input_index": decode(pd["input_index"], "q"),
        "connectivity": decode(cells["connectivity"], "q"),
        "offsets": decode(cells["offsets"], "q"),
        "types": decode(cells["types"], "B"),
        "displacement": decode(pd["displacement"], "d") if deformable else None,
        "von_mises": decode(pd["von_mises"], "d") if deformable else None,
    }


def test_vtk_series(s):
    scene = s.write("rest.yaml", SCENE)
    out = s.path("out")
    r = s.run("run", scene, "-o", out, "-q")
    expect_exit(r, 0, "comply run (vtk)")
    summ = read_summary(os.path.join(out, "summary.json"))
    check("scene.pvd" in summ["files"], "summary files %r" % summ["files"])
    fr = frames(read_bodies(os.path.join(out, "bodies.csv")))
    steps = [st for st, _ in fr]
    check(steps == list(range(0, STEPS + 1, EVERY)), "frames %r" % steps)

    # the collection: one DataSet per mesh body and frame, increasing times, every file there
    pvd = ET.parse(os.path.join(out, "scene.pvd")).getroot()
    check(pvd.tag == "VTKFile" and pvd.get("type") == "Collection", "pvd root %r" % pvd.attrib)
    ds = pvd.findall("Collection/DataSet")
    check(len(ds) == len(steps), "pvd has %d datasets for %d frames" % (len(ds), len(steps)))
    times = [float(d.get("timestep")) for d in ds]
    check(all(b > a for a, b in zip(times, times[1:])), "pvd times not increasing: %r" % times)
    listed = [d.get("file") for d in ds]
    check(listed == ["vtk/box_%d.vtu" % st for st in steps], "pvd files %r" % listed)
    check(all(d.get("part") == "1" for d in ds), "parts %r" % [d.get("part") for d in ds])
    on_disk = sorted("vtk/" + f for f in os.listdir(os.path.join(out, "vtk")))
    check(on_disk == sorted(listed), "vtk/ holds %r, the pvd lists %r" % (on_disk, listed))

    nv = 6 * DIV * DIV + 2  # a box with DIV x DIV squares per face
    nf = 12 * DIV * DIV
    for (step, rows), t, f in zip(fr, times, listed):
        where = "%s (step %d)" % (f, step)
        v = read_vtu(os.path.join(out, f))
        check(abs(t - step * H) <= 1e-12 and v["time"] == t, "%s: time %r / %r" % (where, t, v["time"]))
        check(v["npoints"] == nv and v["ncells"] == nf, "%s: %d points %d cells" % (where, v["npoints"], v["ncells"]))
        check(len(v["points"]) == 3 * nv and len(v["pressure"]) == nv and len(v["penetration"]) == nv,
              "%s: array lengths" % where)
        check(v["types"] == [5] * nf, "%s: cell types" % where)
        # a primitive's points in its own order (docs/outputs.md): input_index is 0..nv-1
        check(v["input_index"] == list(range(nv)), "%s: input_index" % where)
        check(v["offsets"] == [3 * (i + 1) for i in range(nf)], "%s: offsets" % where)
        check(len(v["connectivity"]) == 3 * nf and all(0 <= i < nv for i in v["connectivity"]),
              "%s: connectivity" % where)
        check(len(set(v["connectivity"])) == nv, "%s: unused vertices" % where)

        # the points are the box's vertices at the pose of bodies.csv
        b = [r for r in rows if r["body"] == "box"][0]
        x = (b["x"], b["y"], b["z"])
        q = (b["qw"], b["qx"], b["qy"], b["qz"])
        bottom = []
        for i in range(nv):
            p = v["points"][3 * i:3 * i + 3]
            pb = rotate_inv(q, [p[k] - x[k] for k in range(3)])
            half = (SX / 2, SY / 2, SZ / 2)
            check(all(abs(pb[k]) <= half[k] + 1e-12 for k in range(3)), "%s: point %d %r outside the box" % (where, i, pb))
            check(any(abs(abs(pb[k]) - half[k]) <= 1e-12 for k in range(3)), "%s: point %d %r not on the surface" % (where, i, pb))
            for k in range(3):  # on the grid of the divisions
                g = (pb[k] + half[k]) / (2 * half[k]) * DIV
                check(abs(g - round(g)) <= 1e-9, "%s: point %d %r off the grid" % (where, i, pb))
            if abs(pb[2] + SZ / 2) <= 1e-12:
                bottom.append(i)
        check(len(bottom) == (DIV + 1) ** 2, "%s: %d bottom vertices" % (where, len(bottom)))

        # values: zero before the first step (no contacts yet), then the resting solution
        for i in range(nv):
            pr, pe = v["pressure"][i], v["penetration"][i]
            check(math.isfinite(pr) and math.isfinite(pe), "%s: vertex %d not finite" % (where, i))
            if step == 0 or i not in bottom:
                check(pr == 0 and pe == 0, "%s: vertex %d pressure %r penetration %r, expected 0" % (where, i, pr, pe))
            else:
                check(abs(pr - PRESSURE) <= 0.01 * PRESSURE, "%s: vertex %d pressure %r, expected %r" % (where, i, pr, PRESSURE))
                check(abs(pe - PENETRATION) <= 0.01 * PENETRATION,
                      "%s: vertex %d penetration %r, expected %r" % (where, i, pe, PENETRATION))


def test_no_vtk_by_default(s):
    scene = s.write("novtk.yaml", SCENE.replace("vtk: true", "vtk: false"))
    out = s.path("novtk")
    expect_exit(s.run("run", scene, "-o", out, "-q"), 0, "comply run (no vtk)")
    check(not os.path.exists(os.path.join(out, "vtk")) and not os.path.exists(os.path.join(out, "scene.pvd")),
          "VTK files written without vtk: true: %r" % os.listdir(out))


# A deformable column (docs/deformable.md): 0.05 x 0.05 x 0.1 m, linear material, nu = 0 (uniaxial
# stress, exact), E = 1e6 Pa, density 1000, 1 x 1 x 8 cells, resting on a frictionless plane. Under
# its own weight the stress at height z is rho g (L - z): the top face sinks rho g L^2 / (2 E) by
# compression (plus the contact's W / (ka A)), the bottom carries rho g L.
COL_L, COL_A, COL_E, RHO, G = 0.1, 0.05, 1e6, 1000.0, 9.81
COL_KA = 1e10
COLUMN = f"""scene: {{name: column, timestep: 1e-3, steps: 600, gravity: [0, 0, -{G}]}}
output: {{every: 600, vtk: true}}
bodies:
  - name: ground
    geometry: {{plane: {{}}}}
    motion: fixed
  - name: column
    geometry: {{box: {{size: [{COL_A}, {COL_A}, {COL_L}]}}}}
    position: [0, 0, {COL_L / 2}]
    density: {RHO}
    motion: deformable
    deformable: {{material: linear, young: {COL_E}, poisson: 0, cells: [1, 1, 8]}}
interactions:
  - pair: ["*", "*"]
    law: area_compliant
    ka: {COL_KA}
"""


def test_vtk_deformable(s):
    scene = s.write("column.yaml", COLUMN)
    out = s.path("col")
    r = s.run("run", scene, "-o", out, "-q")
    expect_exit(r, 0, "comply run (deformable column)")
    warned = {k: v for k, v in read_summary(os.path.join(out, "summary.json"))["warnings"].items() if v}
    check(not warned, "a settling column counts warnings: %r" % warned)
    v = read_vtu(os.path.join(out, "vtk", "column_600.vtu"), deformable=True)
    n = v["npoints"]
    check(n == 2 * 2 * 9, "surface nodes %d" % n)  # every node of a 1 x 1 x 8 grid
    pen = RHO * COL_A * COL_A * COL_L * G / (COL_KA * COL_A * COL_A)
    h = COL_L / 8
    top_dz, bottom_vm, top_vm = [], [], []
    SCALE = RHO * G * COL_L ** 2 / (2 * COL_E)
    for i in range(n):
        p = v["points"][3 * i:3 * i + 3]
        u = v["displacement"][3 * i:3 * i + 3]
        rest = [p[k] - u[k] for k in range(3)]
        # the rest position is a node of the 1 x 1 x 8 grid
        for k, step in ((0, COL_A), (1, COL_A), (2, h)):
            c = rest[k] + (COL_A / 2 if k < 2 else 0)
            check(abs(c / step - round(c / step)) < 1e-9, "point %d: rest %r off the grid" % (i, rest))
        # nu = 0: no lateral strain in the continuum; the Kuhn tets are not symmetric, so the
        # discrete column bulges by a few % of the vertical scale (the mean stays 0 below)
        check(abs(u[0]) < 0.05 * SCALE and abs(u[1]) < 0.05 * SCALE, "lateral displacement %r" % u)
        if abs(rest[2] - COL_L) < 1e-9:
            top_dz.append(u[2])
            top_vm.append(v["von_mises"][i])
        if abs(rest[2]) < 1e-9:
            bottom_vm.append(v["von_mises"][i])
    check(len(top_dz) == 4 and len(bottom_vm) == 4, "faces %d %d" % (len(top_dz), len(bottom_vm)))
    # no lateral force (frictionless plane, vertical gravity): the centre of mass does not drift,
    # but for the solve's tolerance (1e-10 of the elements' force scale per step; 1e-11 m seen)
    last = [r for r in frames(read_bodies(os.path.join(out, "bodies.csv")))[-1][1]
            if r["body"] == "column"][0]
    check(abs(last["x"]) < 1e-4 * SCALE and abs(last["y"]) < 1e-4 * SCALE, "com drifted: %r" % last)
    expect = -(RHO * G * COL_L ** 2 / (2 * COL_E) + pen)
    # the top face sinks by that on average (0.02 % at these cells); its nodes differ by up to
    # 7 % of it, the warp of the Kuhn tets' asymmetric stiffness (the same at 2x2 and 4x4 cells)
    mean = sum(top_dz) / len(top_dz)
    check(abs(mean - expect) < 0.005 * abs(expect), "top displacement %g, expected %g" % (mean, expect))
    for dz in top_dz:
        check(abs(dz - expect) < 0.1 * abs(expect), "top node displacement %g, expected %g" % (dz, expect))
    # the stress of the tets at the bottom cell: rho g (L - z) over 0 < z < h, mean rho g (L - h/2)
    for vm in bottom_vm:
        check(abs(vm - RHO * G * (COL_L - h / 2)) < 0.05 * RHO * G * COL_L,
              "bottom von Mises %g Pa, expected %g" % (vm, RHO * G * (COL_L - h / 2)))
    for vm in top_vm:
        check(vm < RHO * G * h, "top von Mises %g Pa above rho g h = %g" % (vm, RHO * G * h))

    # the tetrahedra (column_volume_600.vtu, listed in the pvd as part nbody + 1 = 3): every node,
    # 6 tets per cell, and each layer of tets carries rho g (L - z) at its middle height
    pvd = ET.parse(os.path.join(out, "scene.pvd")).getroot()
    files = {(d.get("part"), d.get("file")) for d in pvd.findall("Collection/DataSet")}
    check(("3", "vtk/column_volume_600.vtu") in files, "pvd: %r" % sorted(files))
    root = ET.parse(os.path.join(out, "vtk", "column_volume_600.vtu")).getroot()
    piece = root.find("UnstructuredGrid/Piece")
    npt, ncell = int(piece.get("NumberOfPoints")), int(piece.get("NumberOfCells"))
    check(npt == 2 * 2 * 9 and ncell == 6 * 8, "volume: %d points %d cells" % (npt, ncell))
    pts = decode(piece.find("Points/DataArray"), "d")
    disp = decode(piece.find("PointData/DataArray"), "d")
    cells = {a.get("Name"): a for a in piece.find("Cells")}
    conn, types = decode(cells["connectivity"], "q"), decode(cells["types"], "B")
    vm = decode(piece.find("CellData/DataArray"), "d")
    check(set(types) == {10} and len(conn) == 4 * ncell, "tets %r" % sorted(set(types)))
    layers = {}
    for c in range(ncell):
        zc = sum(pts[3 * conn[4 * c + k] + 2] - disp[3 * conn[4 * c + k] + 2] for k in range(4)) / 4
        layers.setdefault(int(zc / h), []).append(vm[c])
    check(len(layers) == 8, "layers %r" % sorted(layers))
    for k, v in layers.items():
        want = RHO * G * (COL_L - (k + 0.5) * h)
        mean = sum(v) / len(v)
        check(abs(mean - want) < 0.03 * RHO * G * COL_L,
              "layer %d: von Mises %g Pa, expected %g" % (k, mean, want))


def series_files(out):
    """the files of comply's VTK series in OUT/vtk (NAME_STEP.vtu) and those scene.pvd lists"""
    vdir = os.path.join(out, "vtk")
    have = sorted(n for n in os.listdir(vdir) if n.endswith(".vtu") and os.path.isfile(os.path.join(vdir, n)))
    pvd = os.path.join(out, "scene.pvd")
    listed = sorted(d.get("file")[len("vtk/"):] for d in ET.parse(pvd).getroot().iter("DataSet")) \
        if os.path.exists(pvd) else None
    return have, listed


def test_vtk_reused_folder(s):
    # A run into a folder that holds an earlier run's series (more frames, another body name)
    # replaces it: the earlier NAME_STEP.vtu files and scene.pvd go, so that the folder's series
    # is the new run's only (until 2026-12-08 they stayed, and ParaView, opening vtk/ as a file
    # series, mixed the two runs). Files of other names in vtk/ are the user's and stay. A
    # restart into the run's folder keeps the frames it continues.
    out = s.path("reused")
    scene = s.write("reused.yaml", SCENE)
    expect_exit(s.run("run", scene, "-o", out, "-q"), 0, "the first run")
    first = ["box_%d.vtu" % k for k in range(0, STEPS + 1, EVERY)]
    check(series_files(out) == (sorted(first), sorted(first)), "the first run's series %r" % (series_files(out),))
    vdir = os.path.join(out, "vtk")
    user = ["notes.txt", "box_final.vtu", "box_050.vtu", "box_12.vtu.bak", "box 5.vtu", "_7.vtu"]
    for n in user + ["box_351.vtu.tmp"]:  # the last one a leftover of a killed run: comply's
        with open(os.path.join(vdir, n), "w") as f:
            f.write("x")
    os.mkdir(os.path.join(vdir, "box_99.vtu"))  # a directory: never removed
    # the same folder, a shorter run (100 steps) and the body renamed
    renamed = s.write("reused_brick.yaml", SCENE.replace("name: box", "name: brick"))
    expect_exit(s.run("run", renamed, "-o", out, "--steps", 100, "-q"), 0, "the second run")
    second = sorted("brick_%d.vtu" % k for k in (0, 50, 100))
    have, listed = series_files(out)
    check(listed == second, "scene.pvd lists %r, expected %r" % (listed, second))
    check(sorted(set(have) - set(user)) == second,
          "vtk/ holds %r beside the second run's %r" % (sorted(set(have) - set(user)), second))
    left = sorted(os.listdir(vdir))
    check(sorted(user + ["box_99.vtu"] + second) == left, "vtk/ holds %r" % left)
    # without vtk: true the earlier series goes too (a scene.pvd would show the earlier run
    # beside this run's CSV files)
    novtk = s.write("reused_novtk.yaml", SCENE.replace("vtk: true", "vtk: false"))
    expect_exit(s.run("run", novtk, "-o", out, "--steps", 100, "-q"), 0, "the run without vtk")
    check(not os.path.exists(os.path.join(out, "scene.pvd")), "scene.pvd of an earlier run left")
    check(sorted(os.listdir(vdir)) == sorted(user + ["box_99.vtu"]), "vtk/ holds %r" % os.listdir(vdir))
    # a run with a checkpoint at step 150, continued to 300 in its folder: the frames up to 150
    # are kept (the same bytes), those after are the continuation's
    expect_exit(s.run("run", scene, "-o", out, "--steps", 150, "--checkpoint-every", 150, "-q"), 0,
                "the checkpointed run")
    kept = {n: open(os.path.join(vdir, n), "rb").read() for n in ("box_0.vtu", "box_100.vtu", "box_150.vtu")}
    expect_exit(s.run("run", scene, "-o", out, "--restart", os.path.join(out, "checkpoint.bin"), "-q"), 0,
                "the restart")
    for n, b in kept.items():
        check(open(os.path.join(vdir, n), "rb").read() == b, n + " changed by the restart")
    have, listed = series_files(out)
    check(listed == sorted(first) and sorted(set(have) - set(user)) == sorted(first),
          "after the restart: vtk/ %r, scene.pvd %r" % (have, listed))
    # a restart (from the checkpoint at step 150) into a folder without frames (bodies.csv gone)
    # that holds an earlier series: nothing there is the restarted run's, so it goes as for a
    # new run, and the series starts at the checkpoint's step
    os.remove(os.path.join(out, "bodies.csv"))
    os.rename(os.path.join(out, "checkpoint.bin"), s.path("reused.ckpt"))
    expect_exit(s.run("run", scene, "-o", out, "--steps", STEPS + 50, "--restart", s.path("reused.ckpt"), "-q"),
                0, "the restart into the folder without frames")
    want = sorted("box_%d.vtu" % k for k in range(150, STEPS + EVERY + 1, EVERY))  # from the checkpoint's step
    have, listed = series_files(out)
    check(listed == want and sorted(set(have) - set(user)) == want,
          "restart into a folder without frames: vtk/ %r, scene.pvd %r" % (have, listed))


if __name__ == "__main__":
    s = Suite()
    s.test(test_vtk_series)
    s.test(test_vtk_deformable)
    s.test(test_no_vtk_by_default)
    s.test(test_vtk_reused_folder)
    s.finish()
