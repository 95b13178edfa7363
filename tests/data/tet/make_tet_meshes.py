#!/usr/bin/env python3
"""Writes the tet mesh test inputs of tests/data/tet/ (README.md lists them).

    python3 make_tet_meshes.py --mesh    run gmsh and tetgen (Debian packages gmsh, tetgen) for
                                         the files they write, then derive the others
    python3 make_tet_meshes.py [OUTDIR]  derive the .vtu, 5.1 .vtk and sparse-tag .msh variants
                                         from the committed box_msh22_ascii.msh (standard library
                                         only; the CLI test compares them with the committed ones)

The mesher outputs are the box [-0.5, 0.5] x [-1, 1] x [-1.5, 1.5] (volume 6 exactly: every tet
node of the box's faces lies on them) in the four .msh variants and gmsh's two legacy .vtk ones,
a ball of radius 0.5 from gmsh (.msh 4.1) and one from tetgen (.vtk, the 80-triangle icosphere
of radius 0.5 filled with tets). The derived variants encode the same box from the format
descriptions (VTK XML UnstructuredGrid; legacy VTK 5.1 layout; gmsh 4.1 with sparse, shuffled
node tags), with every other tet's nodes 1 and 2 swapped (negatively oriented: the reader flips
them) and the box's triangles kept as cells of another type (skipped and reported)."""
import base64
import os
import random
import struct
import subprocess
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
BOX_GEO = 'SetFactory("OpenCASCADE");\nBox(1) = {-0.5, -1, -1.5, 1, 2, 3};\n'
BALL_GEO = 'SetFactory("OpenCASCADE");\nSphere(1) = {0, 0, 0, 0.5};\n'


def run_meshers(out):
    """the files written by the real meshers (gmsh 4.8.4, tetgen 1.5.0 as Debian ships them)"""
    tmp = os.path.join(out, "tmp_mesh")
    os.makedirs(tmp, exist_ok=True)
    for name, text in (("box.geo", BOX_GEO), ("ball.geo", BALL_GEO)):
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    box = os.path.join(tmp, "box.geo")
    for fmt in ("msh22", "msh41"):
        for binary in (False, True):
            dst = os.path.join(out, "box_%s_%s.msh" % (fmt, "bin" if binary else "ascii"))
            subprocess.run(["gmsh", "-3", box, "-clscale", "4", "-format", fmt, "-o", dst] +
                           (["-bin"] if binary else []), check=True, capture_output=True)
    for binary in (False, True):
        dst = os.path.join(out, "box_gmsh_%s.vtk" % ("bin" if binary else "ascii"))
        subprocess.run(["gmsh", "-3", box, "-clscale", "4", "-format", "vtk", "-o", dst] +
                       (["-bin"] if binary else []), check=True, capture_output=True)
    subprocess.run(["gmsh", "-3", os.path.join(tmp, "ball.geo"), "-clscale", "1.5", "-format",
                    "msh41", "-o", os.path.join(out, "ball_msh41_ascii.msh")], check=True,
                   capture_output=True)
    # tetgen: the icosphere of 80 triangles, radius 0.5, as OFF; -k writes legacy VTK
    off = os.path.join(tmp, "ico.off")
    v, f = icosphere(1, 0.5)
    with open(off, "w") as o:
        o.write("OFF\n%d %d 0\n" % (len(v), len(f)))
        o.writelines("%r %r %r\n" % tuple(p) for p in v)
        o.writelines("3 %d %d %d\n" % tuple(t) for t in f)
    subprocess.run(["tetgen", "-pq1.414a0.01", "-k", "-Q", off], check=True, capture_output=True)
    os.replace(os.path.join(tmp, "ico.1.vtk"), os.path.join(out, "ball_tetgen.vtk"))
    for name in os.listdir(tmp):
        os.remove(os.path.join(tmp, name))
    os.rmdir(tmp)


def icosphere(level, r):
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t), (0, -1, -t),
         (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
         (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]

    def unit(p):
        n = sum(c * c for c in p) ** 0.5
        return tuple(c / n for c in p)

    v = [unit(p) for p in v]
    for _ in range(level):
        cache, nf = {}, []

        def mid(a, b):
            k = (min(a, b), max(a, b))
            if k not in cache:
                v.append(unit(tuple(x + y for x, y in zip(v[a], v[b]))))
                cache[k] = len(v) - 1
            return cache[k]
        for a, b, c in f:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            nf += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        f = nf
    return [tuple(r * c for c in p) for p in v], f


def read_msh22(path):
    """nodes (in file order), tets and triangles (0-based) of a gmsh 2.2 ASCII file"""
    lines = open(path).read().split("\n")
    i = lines.index("$Nodes")
    n = int(lines[i + 1])
    index, nodes = {}, []
    for k in range(n):
        s = lines[i + 2 + k].split()
        index[int(s[0])] = k
        nodes.append(tuple(float(c) for c in s[1:4]))
    j = lines.index("$Elements")
    tets, tris = [], []
    for k in range(int(lines[j + 1])):
        s = [int(c) for c in lines[j + 2 + k].split()]
        conn = [index[c] for c in s[3 + s[2]:]]
        if s[1] == 4:
            tets.append(conn)
        elif s[1] == 2:
            tris.append(conn)
    return nodes, tets, tris


def cells(tets, tris):
    """the VTK cells: every other tet with nodes 1 and 2 swapped, then the triangles"""
    out = []
    for k, t in enumerate(tets):
        out.append((10, [t[0], t[2], t[1], t[3]] if k % 2 else list(t)))
    out += [(5, list(t)) for t in tris]
    return out


# ---- VTK XML UnstructuredGrid ----

def raw_block(data, header="<I", compress=False):
    """a binary array's bytes with its header: [nbytes] or [nblocks, bs, last, csizes]"""
    if not compress:
        return struct.pack(header, len(data)) + data
    bs = 256  # small blocks, so that the array spans several
    blocks = [data[i:i + bs] for i in range(0, len(data), bs)] or [b""]
    comp = [zlib.compress(b) for b in blocks]
    last = len(blocks[-1]) if len(blocks[-1]) != bs else 0
    h = struct.pack(header[0] + "%d" % (3 + len(comp)) + header[1],
                    len(blocks), bs, last, *[len(c) for c in comp])
    return h, b"".join(comp)


def vtu(nodes, cl, mode):
    """mode: ascii, base64, appended_raw, appended_base64, zlib"""
    pts = [c for p in nodes for c in p]
    conn = [i for _, c in cl for i in c]
    offs, o = [], 0
    for _, c in cl:
        o += len(c)
        offs.append(o)
    types = [t for t, _ in cl]
    arrays = [("Points", "Float64", 3, "d", pts), ("connectivity", "Int64", 1, "q", conn),
              ("offsets", "Int32", 1, "i", offs), ("types", "UInt8", 1, "B", types)]
    header = "UInt64" if mode == "zlib" else "UInt32"
    comp = ' compressor="vtkZLibDataCompressor"' if mode == "zlib" else ""
    s = ('<?xml version="1.0"?>\n<!-- written by make_tet_meshes.py (%s) -->\n'
         '<VTKFile type="UnstructuredGrid" version="1.0" byte_order="LittleEndian" '
         'header_type="%s"%s>\n  <UnstructuredGrid>\n'
         '    <Piece NumberOfPoints="%d" NumberOfCells="%d">\n' % (mode, header, comp, len(nodes),
                                                                    len(cl)))
    appended, offset = b"", 0
    for name, typ, nc, fmt, vals in arrays:
        sec = "Points" if name == "Points" else "Cells"
        if name in ("Points", "connectivity"):
            s += "      <%s>\n" % sec
        attrs = 'type="%s" Name="%s" NumberOfComponents="%d"' % (typ, name, nc)
        data = struct.pack("<%d%s" % (len(vals), fmt), *vals)
        if mode == "ascii":
            txt = " ".join(repr(v) for v in vals)
            s += '        <DataArray %s format="ascii">\n          %s\n        </DataArray>\n' % (
                attrs, txt)
        elif mode in ("base64", "zlib"):
            if mode == "zlib":
                h, body = raw_block(data, "<Q", True)
                txt = (base64.b64encode(h) + base64.b64encode(body)).decode()
            else:
                txt = base64.b64encode(raw_block(data)).decode()
            s += '        <DataArray %s format="binary">\n          %s\n        </DataArray>\n' % (
                attrs, txt)
        else:
            s += '        <DataArray %s format="appended" offset="%d"/>\n' % (attrs, offset)
            blk = raw_block(data)
            if mode == "appended_base64":
                blk = base64.b64encode(blk)
            appended += blk
            offset += len(blk)
        if name in ("Points", "types"):
            s += "      </%s>\n" % sec
    s += "    </Piece>\n  </UnstructuredGrid>\n"
    out = s.encode()
    if mode.startswith("appended"):
        enc = "raw" if mode == "appended_raw" else "base64"
        out += b'  <AppendedData encoding="%s">\n   _' % enc.encode() + appended
        out += b"\n  </AppendedData>\n"
    return out + b"</VTKFile>\n"


# ---- legacy VTK, 5.1 layout ----

def vtk51(nodes, cl, binary):
    offs, o = [0], 0
    for _, c in cl:
        o += len(c)
        offs.append(o)
    conn = [i for _, c in cl for i in c]
    pts = [c for p in nodes for c in p]
    head = "# vtk DataFile Version 5.1\nbox, written by make_tet_meshes.py\n%s\n" \
           "DATASET UNSTRUCTURED_GRID\n" % ("BINARY" if binary else "ASCII")
    if not binary:
        s = head + "POINTS %d double\n" % len(nodes)
        s += "".join("%r %r %r\n" % p for p in nodes)
        s += "CELLS %d %d\nOFFSETS vtktypeint64\n%s\nCONNECTIVITY vtktypeint64\n%s\n" % (
            len(offs), len(conn), " ".join(map(str, offs)), " ".join(map(str, conn)))
        s += "CELL_TYPES %d\n%s\n" % (len(cl), "\n".join(str(t) for t, _ in cl))
        s += "CELL_DATA %d\nSCALARS id int 1\nLOOKUP_TABLE default\n%s\n" % (
            len(cl), " ".join(str(i) for i in range(len(cl))))
        return s.encode()
    b = head.encode() + b"POINTS %d double\n" % len(nodes)
    b += struct.pack(">%dd" % len(pts), *pts)
    b += b"\nCELLS %d %d\nOFFSETS vtktypeint64\n" % (len(offs), len(conn))
    b += struct.pack(">%dq" % len(offs), *offs)
    b += b"\nCONNECTIVITY vtktypeint64\n" + struct.pack(">%dq" % len(conn), *conn)
    b += b"\nCELL_TYPES %d\n" % len(cl) + struct.pack(">%di" % len(cl), *[t for t, _ in cl])
    return b + b"\n"


# ---- gmsh 4.1 with sparse, shuffled node tags ----

def msh41_sparse(nodes, tets, tris):
    rnd = random.Random(15)
    tag = [7 * k + 3 for k in range(len(nodes))]
    order = list(range(len(nodes)))
    rnd.shuffle(order)
    half = len(order) // 2
    blocks = [order[:half], order[half:]]
    s = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
    s += "$PhysicalNames\n1\n3 1 \"box\"\n$EndPhysicalNames\n"
    s += "$Nodes\n%d %d %d %d\n" % (len(blocks), len(nodes), min(tag), max(tag))
    for bi, blk in enumerate(blocks):
        s += "3 %d 0 %d\n" % (bi + 1, len(blk))
        s += "".join("%d\n" % tag[k] for k in blk)
        s += "".join("%r %r %r\n" % nodes[k] for k in blk)
    s += "$EndNodes\n"
    ne = len(tets) + len(tris)
    s += "$Elements\n2 %d 1 %d\n" % (ne, ne)
    s += "2 1 2 %d\n" % len(tris)
    s += "".join("%d %s\n" % (k + 1, " ".join(str(tag[i]) for i in t)) for k, t in enumerate(tris))
    s += "3 1 4 %d\n" % len(tets)
    for k, t in enumerate(tets):
        t = [t[0], t[2], t[1], t[3]] if k % 2 else t
        s += "%d %s\n" % (len(tris) + k + 1, " ".join(str(tag[i]) for i in t))
    return (s + "$EndElements\n").encode()


def derived(src_dir):
    nodes, tets, tris = read_msh22(os.path.join(src_dir, "box_msh22_ascii.msh"))
    cl = cells(tets, tris)
    files = {}
    for mode in ("ascii", "base64", "appended_raw", "appended_base64", "zlib"):
        files["box_%s.vtu" % mode] = vtu(nodes, cl, mode)
    files["box_51_ascii.vtk"] = vtk51(nodes, cl, False)
    files["box_51_bin.vtk"] = vtk51(nodes, cl, True)
    files["box_msh41_sparse.msh"] = msh41_sparse(nodes, tets, tris)
    return files


def main():
    args = sys.argv[1:]
    if args and args[0] == "--mesh":
        run_meshers(HERE)
        args = args[1:]
    out = args[0] if args else HERE
    for name, data in derived(HERE).items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
