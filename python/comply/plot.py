"""Plots of a comply run, drawn from its output files alone (docs/outputs.md, "Plots").

    python3 -m comply.plot OUT_DIR [-o PNG_DIR] [--step N] [--body NAME] [--pair A,B]
    comply plot OUT_DIR ...          (the same, started by the command-line tool)

Reads OUT_DIR/bodies.csv, contacts.csv, summary.json (optional) and, for the pressure map, the
VTK series (scene.pvd and vtk/*.vtu, written with `output: {vtk: true}`), and writes PNG files
into PNG_DIR (default OUT_DIR/plots):

  contact_force.png   |F| per body pair over time, N: the magnitude of the pair's total contact
                      force (normal plus friction; the outputs do not split the two)
  penetration.png     the largest penetration per pair over time, m
  pressure.png        the largest pressure per pair (solid) and the mean pressure |F| / area
                      (dashed; exact without friction, else at most sqrt(1 + mu^2) too high) over
                      time, Pa
  energy.png          the translational kinetic energy per unit mass |v|^2 / 2 of each moving
                      body over time, J/kg, v the velocity of the body's frame origin (the
                      `vx vy vz` of bodies.csv: the centre of mass's for bodies whose frame is
                      there, as for the built-in shapes). The outputs carry no masses, so the
                      energy in J is not recoverable per frame; the final kinetic and potential
                      energy of summary.json, J, are in the legend
  pressure_map_BODY_STEP.png
                      the per-vertex pressure of BODY's vertices in contact at frame STEP
                      (VTK PointData "pressure", Pa), on the body's faces that face the contact,
                      projected on the contact plane (the best-fit plane of the vertices in
                      contact), m

Steps are simulation steps (the `step` column), which must be frames of the run. Without --step
the map is drawn at the frame of the largest pressure (of --pair if given); without --body, for
the body of that pair that has the larger per-vertex pressure. A pair or body filter restricts
the time plots too.

Exit status: 0 done; 2 bad input (a missing or malformed file or column, an unknown body or
pair, a step that is not a frame), with one line on stderr naming the file and what is missing;
1 if numpy or matplotlib cannot be imported. This module uses numpy and matplotlib (Agg backend,
no display) only: never the comply library or its bindings.
"""

import argparse
import base64
import csv
import json
import os
import struct
import sys
import xml.etree.ElementTree as ET

PROG = "comply plot"
# messages start as every other command's: "comply: plot: ..."
MSG = "comply: plot"
BODIES_COLUMNS = ["step", "time", "body", "x", "y", "z", "qw", "qx", "qy", "qz",
                  "vx", "vy", "vz", "wx", "wy", "wz"]
CONTACTS_COLUMNS = ["step", "time", "body_a", "body_b", "points", "fx", "fy", "fz", "area",
                    "max_pressure", "max_penetration"]


class PlotError(Exception):
    """a user error: the message names the file and what is missing or wrong"""


class MissingDependency(Exception):
    pass


def _import_numpy_matplotlib():
    try:
        import numpy
        import matplotlib
    except ImportError as e:
        raise MissingDependency(
            "%s (comply plot needs numpy and matplotlib: on Debian, apt-get install "
            "python3-numpy python3-matplotlib; this is %s)" % (e, sys.executable)) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot
    return numpy, matplotlib.pyplot


np = None
plt = None


# ---------------------------------------------------------------------------------------------
# reading the output files


def _read_csv(path, columns, numeric, what):
    """rows of a comply CSV as a dict column -> list of values; numeric columns as floats.
    The header must start with `columns` (extra trailing columns are ignored)."""
    if not os.path.exists(path):
        raise PlotError("%s: no such file (%s, written by `comply run`)" % (path, what))
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.reader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise PlotError("%s: cannot read: %s" % (path, e)) from None
    if not rows:
        raise PlotError("%s: empty file (expected the header %s)" % (path, ",".join(columns)))
    header = rows[0]
    missing = [c for c in columns if c not in header]
    if missing:
        raise PlotError("%s: the header lacks the column%s %s (expected %s)"
                        % (path, "s" if len(missing) > 1 else "", ", ".join(missing),
                           ",".join(columns)))
    index = {c: header.index(c) for c in columns}
    data = {c: [] for c in columns}
    for lineno, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) < len(header):
            raise PlotError("%s line %d: %d fields, the header has %d (a truncated line?)"
                            % (path, lineno, len(row), len(header)))
        for c in columns:
            v = row[index[c]]
            if c in numeric:
                try:
                    v = float(v)
                except ValueError:
                    raise PlotError("%s line %d: column '%s' is not a number: '%s'"
                                    % (path, lineno, c, v)) from None
            data[c].append(v)
    return data


class Run:
    """the output files of one run"""

    def __init__(self, outdir):
        self.dir = outdir
        if not os.path.exists(outdir):
            raise PlotError("%s: no such directory (the output directory of `comply run`)"
                            % outdir)
        if not os.path.isdir(outdir):
            raise PlotError("%s: not a directory (give the output directory of `comply run`)"
                            % outdir)
        self._read_bodies()
        self._read_contacts()
        self._read_summary()

    def _read_bodies(self):
        path = os.path.join(self.dir, "bodies.csv")
        numeric = set(BODIES_COLUMNS) - {"body"}
        b = _read_csv(path, BODIES_COLUMNS, numeric, "one row per body and frame")
        if not b["step"]:
            raise PlotError("%s: no rows (the run wrote no frame)" % path)
        steps = np.array(b["step"], dtype=np.int64)
        # frames in file order (steps never go back: docs/outputs.md, restart); body order of
        # the first frame is the body index order (the `part` of scene.pvd)
        self.frames, first = np.unique(steps, return_index=True)
        times = np.array(b["time"])
        self.frame_time = times[first]
        self.bodies = [b["body"][i] for i in range(len(steps)) if steps[i] == self.frames[0]]
        nb, nf = len(self.bodies), len(self.frames)
        self.vel = np.full((nf, nb, 3), np.nan)
        self.pos = np.full((nf, nb, 3), np.nan)
        fi = np.searchsorted(self.frames, steps)
        bi = {name: i for i, name in enumerate(self.bodies)}
        for r in range(len(steps)):
            j = bi.get(b["body"][r])
            if j is None:
                raise PlotError("%s line %d: body '%s' is not in the first frame"
                                % (path, r + 2, b["body"][r]))
            self.vel[fi[r], j] = (b["vx"][r], b["vy"][r], b["vz"][r])
            self.pos[fi[r], j] = (b["x"][r], b["y"][r], b["z"][r])

    def _read_contacts(self):
        path = os.path.join(self.dir, "contacts.csv")
        numeric = set(CONTACTS_COLUMNS) - {"body_a", "body_b"}
        c = _read_csv(path, CONTACTS_COLUMNS, numeric, "one row per pair in contact and frame")
        self.c_step = np.array(c["step"], dtype=np.int64)
        # every contact row belongs to a frame of bodies.csv (the two files are written frame by
        # frame): a cut bodies.csv, or files of two runs, gave an IndexError, or put a contact
        # at the next frame without a word
        at = np.searchsorted(self.frames, self.c_step)
        bad = np.nonzero((at >= len(self.frames)) |
                         (self.frames[np.minimum(at, len(self.frames) - 1)] != self.c_step))[0]
        if len(bad):
            r = int(bad[0])
            raise PlotError("%s line %d: step %d is not a frame of %s (its frames are steps %d "
                            "to %d): the two files are not of one run, or one was cut"
                            % (path, r + 2, self.c_step[r], os.path.join(self.dir, "bodies.csv"),
                               self.frames[0], self.frames[-1]))
        self.c_pair = list(zip(c["body_a"], c["body_b"]))
        self.c_force = np.linalg.norm(np.array([c["fx"], c["fy"], c["fz"]]).reshape(3, -1),
                                      axis=0)
        self.c_area = np.array(c["area"])
        self.c_pmax = np.array(c["max_pressure"])
        self.c_pen = np.array(c["max_penetration"])
        self.pairs = sorted(set(self.c_pair), key=self.c_pair.index)
        known = set(self.bodies)
        for p in self.pairs:
            for name in p:
                if name not in known:
                    raise PlotError("%s: body '%s' is not in bodies.csv" % (path, name))

    def _read_summary(self):
        path = os.path.join(self.dir, "summary.json")
        self.summary = None
        if not os.path.exists(path):
            return
        try:
            with open(path, encoding="utf-8") as f:
                self.summary = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise PlotError("%s: not valid JSON: %s" % (path, e)) from None
        if not isinstance(self.summary, dict):
            raise PlotError("%s: not a JSON object" % path)

    def pair_series(self, pair, values):
        """values of one pair per frame, 0 at frames where the pair is not in contact"""
        out = np.zeros(len(self.frames))
        rows = [i for i, p in enumerate(self.c_pair) if p == pair]
        out[np.searchsorted(self.frames, self.c_step[rows])] = values[rows]
        return out

    def frame_index(self, step):
        i = int(np.searchsorted(self.frames, step))
        if i < len(self.frames) and self.frames[i] == step:
            return i
        path = os.path.join(self.dir, "bodies.csv")
        if step < self.frames[0] or step > self.frames[-1]:
            raise PlotError("step %d is out of range: the frames of %s are steps %d to %d"
                            % (step, path, self.frames[0], self.frames[-1]))
        raise PlotError("step %d is not a frame of %s: the nearest frames are steps %d and %d "
                        "(frames are written every `output: every` steps)"
                        % (step, path, self.frames[i - 1], self.frames[i]))


def _vtk_array(elem, name, path, dtype):
    arr = elem.find("DataArray[@Name='%s']" % name) if name else elem.find("DataArray")
    if arr is None:
        raise PlotError("%s: no DataArray '%s'" % (path, name))
    text = "".join((arr.text or "").split())
    if arr.get("format") == "ascii":
        try:
            return np.array((arr.text or "").split(), dtype=float).astype(dtype)
        except ValueError:
            raise PlotError("%s: DataArray '%s' holds something that is not a number"
                            % (path, name)) from None
    try:
        raw = base64.b64decode(text, validate=True)
        (n,) = struct.unpack_from("<Q", raw, 0)
    except (ValueError, struct.error) as e:
        raise PlotError("%s: DataArray '%s' is not valid base64 data: %s" % (path, name, e)) \
            from None
    if n > len(raw) - 8 or n % np.dtype(dtype).itemsize:
        raise PlotError("%s: DataArray '%s' is truncated (%d bytes announced, %d present)"
                        % (path, name, n, len(raw) - 8))
    return np.frombuffer(raw, dtype=np.dtype(dtype).newbyteorder("<"), count=n //
                         np.dtype(dtype).itemsize, offset=8)


def read_vtu(path):
    """points (n x 3, m), triangles (m x 3), per-vertex pressure (Pa) of one .vtu file"""
    try:
        root = ET.parse(path).getroot()
    except OSError as e:
        raise PlotError("%s: cannot read: %s" % (path, e.strerror or e)) from None
    except ET.ParseError as e:
        raise PlotError("%s: not valid XML: %s" % (path, e)) from None
    piece = root.find("UnstructuredGrid/Piece")
    if root.tag != "VTKFile" or piece is None:
        raise PlotError("%s: not a VTK UnstructuredGrid file" % path)
    pd, pts, cells = piece.find("PointData"), piece.find("Points"), piece.find("Cells")
    if pd is None or pts is None or cells is None:
        raise PlotError("%s: the Piece lacks PointData, Points or Cells" % path)
    pressure = _vtk_array(pd, "pressure", path, "f8")
    points = _vtk_array(pts, None, path, "f8")
    conn = _vtk_array(cells, "connectivity", path, "i8")
    if points.size % 3 or conn.size % 3 or pressure.size * 3 != points.size:
        raise PlotError("%s: %d coordinates, %d connectivity entries and %d pressures do not "
                        "make triangles on points" % (path, points.size, conn.size,
                                                      pressure.size))
    tri = conn.reshape(-1, 3)
    if tri.size and (tri.min() < 0 or tri.max() >= pressure.size):
        raise PlotError("%s: a triangle names a point that does not exist" % path)
    return points.reshape(-1, 3), tri, pressure


def vtk_files(run):
    """{(body, step): path} from OUT/scene.pvd, or None when the run wrote no VTK series"""
    pvd = os.path.join(run.dir, "scene.pvd")
    if not os.path.exists(pvd):
        return None
    try:
        root = ET.parse(pvd).getroot()
    except (OSError, ET.ParseError) as e:
        raise PlotError("%s: cannot read: %s" % (pvd, e)) from None
    files = {}
    times = dict(zip(np.round(run.frame_time, 12), run.frames))
    for ds in root.iter("DataSet"):
        try:
            part, t = int(ds.get("part")), float(ds.get("timestep"))
        except (TypeError, ValueError):
            raise PlotError("%s: a DataSet without a valid part or timestep: %s"
                            % (pvd, ET.tostring(ds, encoding="unicode").strip())) from None
        if not 0 <= part < len(run.bodies):
            raise PlotError("%s: DataSet part %d, but bodies.csv has %d bodies"
                            % (pvd, part, len(run.bodies)))
        step = times.get(round(t, 12))
        if step is not None and ds.get("file"):
            files[(run.bodies[part], int(step))] = os.path.join(run.dir, ds.get("file"))
    return files


# ---------------------------------------------------------------------------------------------
# the plots


def _pairs_shown(run, pair, body):
    pairs = run.pairs
    if pair:
        pairs = [p for p in pairs if set(p) == set(pair)]
    if body:
        pairs = [p for p in pairs if body in p]
    return pairs


def _finish(fig, ax, path, empty_note, written, step_time):
    if step_time is not None:
        ax.axvline(step_time, color="0.5", linestyle=":", linewidth=1, label="map step")
    if empty_note:
        ax.text(0.5, 0.5, empty_note, transform=ax.transAxes, ha="center", va="center")
    elif ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    written.append(path)


def plot_time_series(run, pngdir, pairs, body, step_time, written):
    t = run.frame_time
    no_contact = None if pairs else "no contact in this run"
    label = lambda p: "%s / %s" % p

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in pairs:
        ax.plot(t, run.pair_series(p, run.c_force), label=label(p))
    ax.set(xlabel="time (s)", ylabel="contact force |F| (N)",
           title="Contact force per pair (normal + friction, on the first body)")
    ax.set_xlim(t[0], t[-1] if t[-1] > t[0] else t[0] + 1)
    _finish(fig, ax, os.path.join(pngdir, "contact_force.png"), no_contact, written, step_time)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for p in pairs:
        ax.plot(t, run.pair_series(p, run.c_pen), label=label(p))
    ax.set(xlabel="time (s)", ylabel="largest penetration (m)",
           title="Penetration per pair (largest over the pair's contacts)")
    _finish(fig, ax, os.path.join(pngdir, "penetration.png"), no_contact, written, step_time)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    for k, p in enumerate(pairs):
        color = "C%d" % (k % 10)
        area = run.pair_series(p, run.c_area)
        force = run.pair_series(p, run.c_force)
        mean = np.divide(force, area, out=np.zeros_like(force), where=area > 0)
        ax.plot(t, run.pair_series(p, run.c_pmax), color=color, label=label(p) + " max")
        ax.plot(t, mean, color=color, linestyle="--", label=label(p) + " mean |F| / area")
    ax.set(xlabel="time (s)", ylabel="pressure (Pa)", title="Contact pressure per pair")
    _finish(fig, ax, os.path.join(pngdir, "pressure.png"), no_contact, written, step_time)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    ke = 0.5 * np.sum(run.vel ** 2, axis=2)  # frames x bodies, J/kg
    shown = [j for j, name in enumerate(run.bodies)
             if (body is None or name == body) and np.nanmax(ke[:, j]) > 0]
    for j in shown:
        ax.plot(t, ke[:, j], label=run.bodies[j])
    s = run.summary or {}
    final = [(k, s.get(k + "_energy")) for k in ("kinetic", "potential")]
    final = ["%s %.6g J" % (k, v) for k, v in final if isinstance(v, (int, float))]
    if final:
        ax.plot([], [], " ", label="at the end (summary.json, all bodies):\n" + ", ".join(final))
    ax.set(xlabel="time (s)", ylabel="kinetic energy per unit mass |v|^2 / 2 (J/kg)",
           title="Translational kinetic energy per unit mass of each moving body")
    note = None if shown else "no body moves in this run"
    if note and final:
        ax.legend(fontsize="small")
    _finish(fig, ax, os.path.join(pngdir, "energy.png"), note, written, step_time)


def _contact_plane(points, tri, pressed):
    """unit normal of the contact plane, pointing out of the body: the direction of least
    spread of the vertices in contact (3 or more not on a line), else the area-weighted normal
    of the faces around them; its sign makes those faces' normals point along it"""
    a, b, c = points[tri[:, 0]], points[tri[:, 1]], points[tri[:, 2]]
    fn = np.cross(b - a, c - a)  # face normals times twice the area
    around = np.any(pressed[tri], axis=1)
    outward = fn[around].sum(axis=0)
    p = points[pressed]
    n = None
    if len(p) >= 3:
        _, sv, vt = np.linalg.svd(p - p.mean(axis=0))
        if sv[1] > 1e-9 * max(sv[0], 1e-300):
            n = vt[2]
    if n is None:
        n = outward
    norm = np.linalg.norm(n)
    if not norm > 0:
        n, norm = np.array([0.0, 0.0, 1.0]), 1.0
    n = n / norm
    if np.dot(n, outward) < 0:
        n = -n
    return n, fn


def prepare_pressure_map(run, body, step, pair):
    """choose the body and frame of the map and read its VTK file (every user error of the map
    is raised here, before any file is written); a dict for draw_pressure_map, or a note (str)
    when there is nothing to map"""
    files = vtk_files(run)
    pvd = os.path.join(run.dir, "scene.pvd")
    if files is None:
        raise PlotError("%s: no such file: the pressure map needs the VTK series (run the scene "
                        "with `output: {vtk: true}`)" % pvd)
    pairs = _pairs_shown(run, pair, body)
    if step is None:
        # the frame of the largest pressure among the pairs shown that have a VTK body
        best = None
        for i, p in enumerate(run.c_pair):
            with_file = [b for b in p if (b, int(run.c_step[i])) in files]
            if p in pairs and (body in with_file if body else with_file):
                if best is None or run.c_pmax[i] > run.c_pmax[best]:
                    best = i
        if best is None:
            return "no pressure map: no contact of a mesh body in the VTK series"
        step = int(run.c_step[best])
    fi = run.frame_index(step)
    if body is not None:
        candidates = [body]
    else:
        candidates = []
        for p in pairs:
            rows = [i for i, q in enumerate(run.c_pair) if q == p and run.c_step[i] == step]
            if rows:
                candidates += [b for b in p if b not in candidates]
        if not candidates:
            raise PlotError("no contact%s at step %d in %s" % (
                " of %s / %s" % tuple(pair) if pair else "", step,
                os.path.join(run.dir, "contacts.csv")))
    # the candidate body with per-vertex pressure, the largest first
    best = None
    for b in candidates:
        path = files.get((b, step))
        if path is None:
            if body is not None:
                raise PlotError("%s: no VTK file of body '%s' at step %d (plane bodies have "
                                "none)" % (pvd, b, step))
            continue
        points, tri, pres = read_vtu(path)
        if best is None or pres.max(initial=0) > best[4].max(initial=0):
            best = (b, path, points, tri, pres)
    if best is None or not best[4].max(initial=0) > 0:
        who = "body '%s'" % body if body else "the bodies in contact (%s)" % ", ".join(candidates)
        raise PlotError("%s: %s %s no vertex with pressure > 0 at step %d (the contacts there "
                        "are not at %s vertices)" % (best[1] if best else pvd, who,
                                                    "has" if body else "have", step,
                                                    "its" if body else "their"))
    name, path, points, tri, pres = best
    pressed = pres > 0
    n, fn = _contact_plane(points, tri, pressed)
    # a basis (u, v) of the plane, origin at the pressure-weighted centre of the contact
    u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    v = np.cross(n, u)
    centre = (points[pressed] * pres[pressed, None]).sum(axis=0) / pres[pressed].sum()
    uv = np.stack([(points - centre) @ u, (points - centre) @ v], axis=1)
    # the faces that face the contact, within the contact region and a margin around it
    # (at least two edge lengths of the faces around them: a contact at one vertex or an edge)
    lo, hi = uv[pressed].min(axis=0), uv[pressed].max(axis=0)
    around = tri[np.any(pressed[tri], axis=1)]
    edge = np.linalg.norm(points[around] - points[np.roll(around, 1, axis=1)], axis=2).mean()
    span = max(float((hi - lo).max()), 2 * float(edge), 1e-12)
    mid = 0.5 * (lo + hi)
    lo, hi = np.minimum(lo, mid - 0.5 * span), np.maximum(hi, mid + 0.5 * span)
    lo, hi = lo - 0.25 * span, hi + 0.25 * span
    area2 = np.linalg.norm(fn, axis=1)
    facing = (fn @ n) > 0.3 * area2
    inside = np.all((uv[tri] >= lo) & (uv[tri] <= hi), axis=(1, 2))
    faces = tri[facing & inside]

    return dict(name=name, step=step, fi=fi, points=points, pres=pres, pressed=pressed, n=n,
                uv=uv, lo=lo, hi=hi, faces=faces)


def draw_pressure_map(run, pngdir, m, written):
    name, step, fi, pres, pressed = m["name"], m["step"], m["fi"], m["pres"], m["pressed"]
    uv, lo, hi, faces, n = m["uv"], m["lo"], m["hi"], m["faces"], m["n"]
    fig, ax = plt.subplots(figsize=(7, 6))
    if len(faces):
        import matplotlib.tri as mtri
        mesh = mtri.Triangulation(uv[:, 0], uv[:, 1], faces)
        im = ax.tripcolor(mesh, pres, shading="gouraud", cmap="viridis", vmin=0)
        ax.triplot(mesh, color="w", linewidth=0.3, alpha=0.5)
    else:
        im = None
    sc = ax.scatter(uv[pressed, 0], uv[pressed, 1], c=pres[pressed], cmap="viridis", vmin=0,
                    edgecolors="k", linewidths=0.4, s=18, zorder=3)
    fig.colorbar(im if im is not None else sc, ax=ax, label="pressure (Pa)")
    others = sorted({b for i, p in enumerate(run.c_pair)
                     if run.c_step[i] == step and name in p for b in p if b != name})
    ax.set_aspect("equal")
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set(xlabel="u (m), in the contact plane", ylabel="v (m), in the contact plane")
    ax.set_title("Pressure on %s at step %d (t = %.6g s)%s\nmax %.4g Pa, %d vertices in contact,"
                 "\ncontact plane normal (%.3f, %.3f, %.3f), out of the body" % (
                     name, step, run.frame_time[fi],
                     ", against " + ", ".join(others) if others else "",
                     pres.max(), int(pressed.sum()), n[0], n[1], n[2]), fontsize="medium")
    safe = "".join(ch if ch.isalnum() or ch in "._-" else "_" for ch in name)
    out = os.path.join(pngdir, "pressure_map_%s_%d.png" % (safe, step))
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    written.append(out)


# ---------------------------------------------------------------------------------------------
# the command


class _Parser(argparse.ArgumentParser):
    """usage errors as the rest of comply prints them: "comply: plot: WHAT", the usage, exit 2"""

    def error(self, message):
        sys.stderr.write("%s: %s\n" % (MSG, message))
        self.print_usage(sys.stderr)
        sys.exit(2)


def _parser():
    # the usage line of `comply help plot`; no abbreviations (the C wrapper, which finds OUT
    # among the arguments, knows the options by their full names)
    ap = _Parser(
        prog=PROG, usage="%(prog)s OUT [-o PNG_DIR] [--step N] [--body NAME] [--pair A,B]",
        allow_abbrev=False, description="Plot contact force, penetration, pressure and energy over "
        "time, and a pressure map of a contact face, from the output directory of `comply run` "
        "(PNG files; docs/outputs.md, \"Plots\").")
    ap.add_argument("outdir", metavar="OUT_DIR", help="output directory of `comply run`")
    ap.add_argument("-o", "--output", metavar="PNG_DIR",
                    help="where to write the PNG files (default OUT_DIR/plots)")
    ap.add_argument("--step", metavar="N", type=int,
                    help="frame (simulation step) of the pressure map (default: the frame of the "
                    "largest pressure)")
    ap.add_argument("--body", metavar="NAME", help="body of the pressure map; also restricts "
                    "the time plots to its pairs and its energy")
    ap.add_argument("--pair", metavar="A,B", help="restrict the plots to the pair of bodies A "
                    "and B (either order)")
    return ap


def main(argv=None):
    """the command: its exit status"""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("%s: interrupted" % MSG, file=sys.stderr)
        return 130


def _main(argv):
    global np, plt
    ap = _parser()
    # usage errors: argparse prints the usage and exits 2, as the rest of comply does
    args = ap.parse_args(argv)
    try:
        np, plt = _import_numpy_matplotlib()
    except MissingDependency as e:
        print("%s: %s" % (MSG, e), file=sys.stderr)
        return 1
    try:
        written, notes = run_plots(args)
    except PlotError as e:
        print("%s: %s" % (MSG, e), file=sys.stderr)
        return 2
    for note in notes:
        print("%s: note: %s" % (MSG, note), file=sys.stderr)
    for path in written:
        print(path)
    return 0


def run_plots(args):
    run = Run(args.outdir)
    pair = None
    if args.pair is not None:
        pair = tuple(s.strip() for s in args.pair.split(","))
        if len(pair) != 2 or not all(pair):
            raise PlotError("--pair '%s': expected two body names A,B" % args.pair)
        for name in pair:
            if name not in run.bodies:
                raise PlotError("--pair: no body '%s' in %s (bodies: %s)" % (
                    name, os.path.join(run.dir, "bodies.csv"), ", ".join(run.bodies)))
        if not _pairs_shown(run, pair, None):
            raise PlotError("--pair %s,%s: the pair is never in contact in %s (pairs in contact:"
                            " %s)" % (pair[0], pair[1], os.path.join(run.dir, "contacts.csv"),
                                      "; ".join("%s,%s" % p for p in run.pairs) or "none"))
    if args.body is not None and args.body not in run.bodies:
        raise PlotError("--body: no body '%s' in %s (bodies: %s)" % (
            args.body, os.path.join(run.dir, "bodies.csv"), ", ".join(run.bodies)))
    if args.body is not None and pair is not None and args.body not in pair:
        raise PlotError("--body %s is not one of --pair %s,%s" % (args.body, pair[0], pair[1]))
    step_time = None
    if args.step is not None:
        step_time = float(run.frame_time[run.frame_index(args.step)])
    written, notes = [], []
    pairs = _pairs_shown(run, pair, args.body)
    if vtk_files(run) is None and args.step is None:
        notes.append("no pressure map: %s has no VTK series (run the scene with "
                     "`output: {vtk: true}`)" % run.dir)
        pmap = None
    else:
        pmap = prepare_pressure_map(run, args.body, args.step, pair)
        if isinstance(pmap, str):
            notes.append(pmap)
            pmap = None
    # all checked: the files
    pngdir = args.output or os.path.join(args.outdir, "plots")
    try:
        os.makedirs(pngdir, exist_ok=True)
    except OSError as e:
        raise PlotError("%s: cannot create the directory: %s" % (pngdir, e.strerror or e)) \
            from None
    if not os.access(pngdir, os.W_OK):
        raise PlotError("%s: the directory is not writable" % pngdir)
    try:
        plot_time_series(run, pngdir, pairs, args.body, step_time, written)
        if pmap is not None:
            draw_pressure_map(run, pngdir, pmap, written)
    except OSError as e:
        raise PlotError("%s: cannot write: %s" % (e.filename or pngdir, e.strerror or e)) \
            from None
    return written, notes


if __name__ == "__main__":
    sys.exit(main())
