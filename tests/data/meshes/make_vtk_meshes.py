#!/usr/bin/env python3
"""Writes the VTK mesh inputs of tests/unit/test_mesh_vtk.c: a 1 x 2 x 3 box from (1, 2, 3)
(volume 6, centre (1.5, 3, 4.5), inertia V (b^2 + h^2) / 12 ...) in every variant of VTK XML
PolyData (.vtp) and legacy VTK (.vtk) the readers accept, and an icosphere of radius 1 refined
twice, built as cm_mesh_icosphere builds it (its mass properties are compared with the library's
icosphere). The encodings are written here from the format descriptions (docs/meshes.md), not by
VTK. Run from anywhere: python3 tests/data/meshes/make_vtk_meshes.py"""
import base64
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))

# the box: 8 corners (index i + 2j + 4k) and 6 outward counter-clockwise quads
LO, SIZE = (1.0, 2.0, 3.0), (1.0, 2.0, 3.0)
BOX_V = [(LO[0] + i * SIZE[0], LO[1] + j * SIZE[1], LO[2] + k * SIZE[2])
         for k in (0, 1) for j in (0, 1) for i in (0, 1)]
_ix = lambda i, j, k: i + 2 * j + 4 * k
BOX_Q = [
    [_ix(0, j, k) for j, k in ((0, 0), (0, 1), (1, 1), (1, 0))],
    [_ix(1, j, k) for j, k in ((0, 0), (1, 0), (1, 1), (0, 1))],
    [_ix(i, 0, k) for i, k in ((0, 0), (1, 0), (1, 1), (0, 1))],
    [_ix(i, 1, k) for i, k in ((0, 0), (0, 1), (1, 1), (1, 0))],
    [_ix(i, j, 0) for i, j in ((0, 0), (0, 1), (1, 1), (1, 0))],
    [_ix(i, j, 1) for i, j in ((0, 0), (1, 0), (1, 1), (0, 1))],
]


def volume(v, tris):
    s = 0.0
    for a, b, c in tris:
        a, b, c = v[a], v[b], v[c]
        s += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
              a[2] * (b[0] * c[1] - b[1] * c[0])) / 6
    return s


assert abs(volume(BOX_V, [(q[0], q[i], q[i + 1]) for q in BOX_Q for i in (1, 2)]) - 6) < 1e-12


def icosphere(refine):
    """cm_mesh_icosphere (src/geom/primitives.c): the icosahedron, faces turned outward,
    each refinement adding the normalised edge midpoints (numbered by sorted edge key)"""
    t = (1 + math.sqrt(5)) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
         (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    norm = lambda p: tuple(x / math.sqrt(sum(y * y for y in p)) for x in p)
    v = [norm(p) for p in v]
    tri = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
           (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
           (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    f = []
    for a, b, c in tri:
        e1 = [v[b][k] - v[a][k] for k in range(3)]
        e2 = [v[c][k] - v[a][k] for k in range(3)]
        n = (e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
             e1[0] * e2[1] - e1[1] * e2[0])
        f.append((a, c, b) if sum(n[k] * v[a][k] for k in range(3)) < 0 else (a, b, c))
    for _ in range(refine):
        keys = sorted({(min(a, b), max(a, b)) for t3 in f for a, b in
                       ((t3[0], t3[1]), (t3[1], t3[2]), (t3[2], t3[0]))})
        mid = {k: len(v) + i for i, k in enumerate(keys)}
        v = v + [norm(tuple(v[a][k] + v[b][k] for k in range(3))) for a, b in keys]
        m = lambda a, b: mid[(min(a, b), max(a, b))]
        nf = []
        for a, b, c in f:
            ab, bc, ca = m(a, b), m(b, c), m(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    return v, f


# ---- VTK XML PolyData ----

TYPES = {"Int32": "i", "Int64": "q", "UInt32": "I", "UInt64": "Q", "Float32": "f",
         "Float64": "d"}


def raw_block(values, vtype, big, htype, zlib_block=None):
    """the bytes of one array: header then data (uncompressed) or the zlib header and blocks;
    returned as (header, body) so that they can be base64-encoded apart or together"""
    e = ">" if big else "<"
    data = struct.pack(e + TYPES[vtype] * len(values), *values)
    h = e + ("Q" if htype == "UInt64" else "I")
    if zlib_block is None:
        return struct.pack(h, len(data)), data
    blocks = [data[i:i + zlib_block] for i in range(0, len(data), zlib_block)]
    comp = [zlib.compress(b, 9) for b in blocks]
    last = len(blocks[-1]) if len(blocks[-1]) < zlib_block else 0
    head = struct.pack(e + h[1] * (3 + len(comp)), len(blocks), zlib_block, last,
                       *[len(c) for c in comp])
    return head, b"".join(comp)


def vtp(points, cells, fmt, *, strips=False, ptype="Float32", itype="Int64", big=False,
        htype=None, zlib_block=None, split_b64=False, appended_enc="raw", extras=True):
    """a .vtp document: points (x, y, z), cells (lists of indices) as Polys or Strips"""
    conn = [i for c in cells for i in c]
    offs = []
    n = 0
    for c in cells:
        n += len(c)
        offs.append(n)
    flat = [x for p in points for x in p]
    arrays = [("Points", ptype, 3, flat), ("connectivity", itype, 1, conn),
              ("offsets", itype, 1, offs)]
    attrs = 'type="PolyData" version="1.0" byte_order="%s"' % ("BigEndian" if big else
                                                               "LittleEndian")
    if htype:
        attrs += ' header_type="%s"' % htype
    if zlib_block:
        attrs += ' compressor="vtkZLibDataCompressor"'
    appended = b""
    elems = []
    for name, vtype, ncomp, vals in arrays:
        nm = "" if name == "Points" else ' Name="%s"' % name
        head = '<DataArray type="%s"%s NumberOfComponents="%d" format="%s"' % (vtype, nm, ncomp,
                                                                               fmt)
        # what VTK 9 writes inside a Points array before its data (read past)
        info = ("\n          <InformationKey name=\"L2_NORM_RANGE\" location=\"vtkDataArray\" "
                "length=\"2\">\n            <Value index=\"0\">\n              1\n            "
                "</Value>\n            <Value index=\"1\">\n              2\n            </Value>\n"
                "          </InformationKey>" if extras and name == "Points" else "")
        if fmt == "ascii":
            if vtype.startswith("Float"):
                txt = " ".join(repr(float(x)) for x in vals)
            else:
                txt = " ".join(str(x) for x in vals)
            elems.append(head + ">" + info + "\n          " + txt + "\n        </DataArray>")
            continue
        h, body = raw_block(vals, vtype, big, htype or "UInt32", zlib_block)
        if fmt == "binary":
            if split_b64 or zlib_block:
                enc = base64.b64encode(h) + base64.b64encode(body)
            else:
                enc = base64.b64encode(h + body)
            elems.append(head + ">" + info + "\n          " + enc.decode() + "\n        </DataArray>")
        else:
            if appended_enc == "base64":
                chunk = (base64.b64encode(h) + base64.b64encode(body) if zlib_block else
                         base64.b64encode(h + body))
            else:
                chunk = h + body
            if info:
                elems.append(head + ' offset="%d">' % len(appended) + info + "\n        </DataArray>")
            else:
                elems.append(head + ' offset="%d"/>' % len(appended))
            appended += chunk
    cell_tag = "Strips" if strips else "Polys"
    out = ['<?xml version="1.0"?>', "<!-- written by make_vtk_meshes.py -->",
           "<VTKFile %s>" % attrs, "  <PolyData>",
           '    <Piece NumberOfPoints="%d" NumberOfVerts="0" NumberOfLines="0" '
           'NumberOfStrips="%d" NumberOfPolys="%d">' % (len(points), len(cells) if strips else 0,
                                                      0 if strips else len(cells))]
    if extras:
        # what OpenSim's files carry besides the geometry: normals as point data (ignored)
        out += ['      <PointData Normals="Normals">',
                '        <DataArray type="Float32" Name="Normals" NumberOfComponents="3" '
                'format="ascii">', "          " + " ".join("0 0 1" for _ in points),
                "        </DataArray>", "      </PointData>", "      <CellData/>"]
    out += ["      <Points>", "        " + elems[0], "      </Points>",
            "      <%s>" % cell_tag, "        " + elems[1], "        " + elems[2],
            "      </%s>" % cell_tag, "    </Piece>", "  </PolyData>"]
    text = "\n".join(out) + "\n"
    if fmt == "appended":
        return (text.encode() + b'  <AppendedData encoding="%s">\n   _' % appended_enc.encode() +
                appended + b"\n  </AppendedData>\n</VTKFile>\n")
    return (text + "</VTKFile>\n").encode()


# ---- legacy VTK ----

def vtk_legacy(points, cells, *, binary=False, ptype="float", v51=False, itype="vtktypeint64",
               version=None):
    version = version or ("5.1" if v51 else "4.2")
    out = [b"# vtk DataFile Version " + version.encode(), b"box from make_vtk_meshes.py",
           b"BINARY" if binary else b"ASCII", b"DATASET POLYDATA"]
    flat = [x for p in points for x in p]
    pk = {"float": "f", "double": "d"}[ptype]
    ik = {"vtktypeint64": "q", "vtktypeint32": "i", "int": "i"}[itype]
    fmtf = (lambda x: repr(float(x))) if ptype == "double" else (lambda x: "%.9g" % x)

    def block(vals, kind, fmt):
        if binary:
            return struct.pack(">" + kind * len(vals), *vals)
        return " ".join(fmt(x) for x in vals).encode()

    out.append(b"POINTS %d %s" % (len(points), ptype.encode()))
    out.append(block(flat, pk, fmtf))
    if v51:
        out.append(b"METADATA")
        out.append(b"INFORMATION 0")
        out.append(b"")
        offs = [0]
        for c in cells:
            offs.append(offs[-1] + len(c))
        conn = [i for c in cells for i in c]
        out.append(b"POLYGONS %d %d" % (len(offs), len(conn)))
        out.append(b"OFFSETS " + itype.encode())
        out.append(block(offs, ik, str))
        out.append(b"CONNECTIVITY " + itype.encode())
        out.append(block(conn, ik, str))
    else:
        vals = [x for c in cells for x in [len(c)] + list(c)]
        out.append(b"POLYGONS %d %d" % (len(cells), len(vals)))
        out.append(block(vals, "i", str))
    out.append(b"POINT_DATA %d" % len(points))
    out.append(b"SCALARS ignored float 1")
    out.append(b"LOOKUP_TABLE default")
    out.append(block([0.5] * len(points), "f", str))
    return b"\n".join(out) + b"\n"


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def main():
    V, Q = BOX_V, BOX_Q
    write("box_ascii.vtp", vtp(V, Q, "ascii"))
    write("box_binary.vtp", vtp(V, Q, "binary", itype="Int32"))
    write("box_binary64.vtp", vtp(V, Q, "binary", ptype="Float64", htype="UInt64",
                                  split_b64=True))
    write("box_appended_raw.vtp", vtp(V, Q, "appended", ptype="Float64", htype="UInt64"))
    write("box_appended_b64_be.vtp", vtp(V, Q, "appended", big=True, appended_enc="base64",
                                         itype="UInt32"))
    write("box_zlib.vtp", vtp(V, Q, "binary", zlib_block=32, itype="Int64"))
    write("box_zlib_appended.vtp", vtp(V, Q, "appended", ptype="Float64", htype="UInt64",
                                       zlib_block=64))
    # the quads as strips (q0, q1, q3, q2): triangles (q0, q1, q3) and (q3, q1, q2)
    write("box_strips.vtp", vtp(V, [[q[0], q[1], q[3], q[2]] for q in Q], "ascii", strips=True,
                                extras=False))
    # as OpenSim's files often are: each side with its own 4 vertices (for per-face normals),
    # 24 points that weld into the 8 corners
    uv = [V[i] for q in Q for i in q]
    uq = [[4 * k + j for j in range(4)] for k in range(6)]
    write("box_unwelded.vtp", vtp(uv, uq, "ascii"))
    sv, sf = icosphere(2)
    write("sphere_ascii.vtp", vtp(sv, sf, "ascii", ptype="Float64", extras=False))
    write("sphere_zlib.vtp", vtp(sv, sf, "binary", ptype="Float64", zlib_block=32768,
                                 extras=False))
    write("box_ascii.vtk", vtk_legacy(V, Q))
    write("box_binary.vtk", vtk_legacy(V, Q, binary=True, version="3.0"))
    write("box51_ascii.vtk", vtk_legacy(V, Q, v51=True, ptype="double"))
    write("box51_binary.vtk", vtk_legacy(V, Q, v51=True, binary=True, ptype="double"))


if __name__ == "__main__":
    main()
