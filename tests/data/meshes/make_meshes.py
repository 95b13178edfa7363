#!/usr/bin/env python3
"""Writes the mesh test inputs of tests/unit/test_mesh_io.c and the example meshes of
examples/meshes/. Run from anywhere: python3 tests/data/meshes/make_meshes.py. The shapes are
simple solids whose volume, centre and inertia are known in closed form (see the tests)."""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "..", "examples", "meshes")


def box_quads(lo, size):
    """8 corners (index i + 2j + 4k) and 6 outward CCW quads of an axis-aligned box"""
    v = [(lo[0] + i * size[0], lo[1] + j * size[1], lo[2] + k * size[2])
         for k in (0, 1) for j in (0, 1) for i in (0, 1)]
    idx = lambda i, j, k: i + 2 * j + 4 * k
    q = [
        [idx(0, j, k) for j, k in ((0, 0), (0, 1), (1, 1), (1, 0))],  # -x
        [idx(1, j, k) for j, k in ((0, 0), (1, 0), (1, 1), (0, 1))],  # +x
        [idx(i, 0, k) for i, k in ((0, 0), (1, 0), (1, 1), (0, 1))],  # -y
        [idx(i, 1, k) for i, k in ((0, 0), (0, 1), (1, 1), (1, 0))],  # +y
        [idx(i, j, 0) for i, j in ((0, 0), (0, 1), (1, 1), (1, 0))],  # -z
        [idx(i, j, 1) for i, j in ((0, 0), (1, 0), (1, 1), (0, 1))],  # +z
    ]
    assert volume(v, fan(q)) > 0
    return v, q


def fan(polys):
    return [(p[0], p[i], p[i + 1]) for p in polys for i in range(1, len(p) - 1)]


def volume(v, tris):
    s = 0.0
    for a, b, c in tris:
        a, b, c = v[a], v[b], v[c]
        s += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
              a[2] * (b[0] * c[1] - b[1] * c[0])) / 6
    return s


TETRA_V = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
TETRA_F = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
OCTA_V = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
OCTA_F = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]
assert volume(TETRA_V, TETRA_F) > 0 and abs(volume(OCTA_V, OCTA_F) - 4 / 3) < 1e-15


def write(name, data, where=HERE):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(where, name), mode, newline="" if mode == "w" else None) as f:
        f.write(data)


def stl_ascii(v, f, name):
    out = [f"solid {name}"]
    for t in f:
        out.append("  facet normal 0 0 0")
        out.append("    outer loop")
        out += [f"      vertex {v[i][0]:.17g} {v[i][1]:.17g} {v[i][2]:.17g}" for i in t]
        out += ["    endloop", "  endfacet"]
    out.append(f"endsolid {name}")
    return "\n".join(out) + "\n"


def stl_binary(v, f, header=b"comply test: binary STL"):
    b = header.ljust(80, b" ") + struct.pack("<I", len(f))
    for t in f:
        b += struct.pack("<3f", 0, 0, 0)
        for i in t:
            b += struct.pack("<3f", *v[i])
        b += struct.pack("<H", 0)
    return b


def obj_cube_mixed():
    # box [1,2] x [2,4] x [3,6]: quads, every corner syntax, relative indices, ignored statements
    v, q = box_quads((1, 2, 3), (1, 2, 3))
    out = ["# comply test: a 1 x 2 x 3 box at (1, 2, 3)", "mtllib box.mtl", "o box", ""]
    out += [f"v {x:g} {y:g} {z:g}" for x, y, z in v]
    out += ["vt 0 0", "vt 1 0", "vn 0 0 1", "g sides", "usemtl red", "s off"]
    forms = [lambda i: f"{i}", lambda i: f"{i}/1", lambda i: f"{i}/2/1", lambda i: f"{i}//1"]
    for n, quad in enumerate(q):
        if n == 5:  # negative (relative) indices: -8 is the first vertex
            out.append("f " + " ".join(str(i - 8) for i in quad) + "  # relative")
        else:
            out.append("f " + " ".join(forms[(n + k) % 4](i + 1) for k, i in enumerate(quad)))
    return "\r\n".join(out[:6]) + "\r\n" + "\n".join(out[6:]) + "\n"  # CRLF and LF


def ply_octa_ascii():
    out = ["ply", "format ascii 1.0", "comment octahedron |x|+|y|+|z| <= 1",
           "element vertex 6", "property float x", "property float nx", "property double y",
           "property uchar red", "property float z",
           "element material 2", "property list uchar float coeffs", "property int id",
           "element face 8", "property list uchar int vertex_indices", "property uchar flags",
           "end_header"]
    for x, y, z in OCTA_V:
        out.append(f"{x} 0.5 {y} 255 {z}")
    out += ["3 0.1 0.2 0.3 7", "0 8"]
    out += [f"3 {a} {b} {c} 1" for a, b, c in OCTA_F]
    return "\n".join(out) + "\n"


def ply_box_binary(size=(1, 2, 3)):
    # centred box, quads; mixed property types; an extra element with a list after the faces
    v, q = box_quads(tuple(-s / 2 for s in size), size)
    hdr = ["ply", "format binary_little_endian 1.0", "comment 1 x 2 x 3 box centred",
           "element vertex 8", "property double x", "property short flags", "property double y",
           "property float z", "element face 6", "property uint8 flags",
           "property list uchar int vertex_indices", "element edge 2",
           "property list uint8 uint32 verts", "property int16 w", "end_header"]
    b = ("\n".join(hdr) + "\n").encode()
    for x, y, z in v:
        b += struct.pack("<dhdf", x, -3, y, z)
    for quad in q:
        b += struct.pack("<BB4i", 9, 4, *quad)
    b += struct.pack("<B2Ih", 2, 0, 1, 5) + struct.pack("<B3Ih", 3, 1, 2, 3, -5)
    return b


def main():
    rnd = random.Random(12345)
    write("cube_mixed.obj", obj_cube_mixed())
    write("tetra_ascii.stl", stl_ascii(TETRA_V, TETRA_F, "tetra"))
    bv, bq = box_quads((-0.5, -2.5, 0.0), (2, 3, 4))
    box_stl = stl_binary(bv, fan(bq))
    write("box_binary.stl", box_stl)
    write("octa_ascii.ply", ply_octa_ascii())
    write("box_binary.ply", ply_box_binary())

    # error cases
    write("box_truncated.stl", box_stl[:84 + 50 * 5 + 17])
    nan = bytearray(box_stl)
    nan[84 + 50 * 3 + 12 + 4:84 + 50 * 3 + 12 + 8] = struct.pack("<f", float("nan"))
    write("box_nan.stl", bytes(nan))
    write("garbage.stl", bytes(rnd.randrange(256) for _ in range(300)))
    tetra = stl_ascii(TETRA_V, TETRA_F, "tetra").splitlines()
    write("tetra_truncated.stl", "\n".join(tetra[:-3]) + "\n")
    tetra_bad = list(tetra)
    tetra_bad[10] = "      vertex 0 1.0x 0"
    write("tetra_badnum.stl", "\n".join(tetra_bad) + "\n")
    write("bigendian.ply", "ply\nformat binary_big_endian 1.0\nelement vertex 3\n"
          "property float x\nproperty float y\nproperty float z\nend_header\n")
    write("huge_count.ply", "ply\nformat ascii 1.0\nelement vertex 1000000000000\n"
          "property float x\nproperty float y\nproperty float z\nend_header\n0 0 0\n")
    write("huge_count_bin.ply", b"ply\nformat binary_little_endian 1.0\nelement vertex 1000000\n"
          b"property float x\nproperty float y\nproperty float z\nend_header\n" + bytes(36))
    octa = ply_octa_ascii().splitlines()
    octa[26] = "3 0 3 6 1"  # face 2 (line 27) refers to vertex 6, outside 0..5
    write("bad_index.ply", "\n".join(octa) + "\n")
    write("truncated.ply", ply_box_binary()[:-40])
    write("garbage.ply", bytes(rnd.randrange(256) for _ in range(300)))
    write("bad_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 9\n")
    write("bad_number.obj", "v 0 0 0\nv 1 0 x\n")
    write("bad_corner.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1/1/1/1 2 3\n")
    write("garbage.obj", bytes(rnd.randrange(1, 256) for _ in range(300)))
    write("shape.xyz", "v 0 0 0\n")

    # examples for docs
    cv, cq = box_quads((-0.5, -0.5, -0.5), (1, 1, 1))
    cube = ["# unit cube centred at the origin, 8 vertices, 6 quads (fan-triangulated on load)"]
    cube += [f"v {x:g} {y:g} {z:g}" for x, y, z in cv]
    cube += ["f " + " ".join(str(i + 1) for i in quad) for quad in cq]
    write("unit_cube.obj", "\n".join(cube) + "\n", EXAMPLES)
    write("tetrahedron.stl", stl_ascii(TETRA_V, TETRA_F, "tetrahedron"), EXAMPLES)
    octa_ex = ["ply", "format ascii 1.0", "comment regular octahedron, vertices at distance 1",
               "element vertex 6", "property float x", "property float y", "property float z",
               "element face 8", "property list uchar int vertex_indices", "end_header"]
    octa_ex += [f"{x} {y} {z}" for x, y, z in OCTA_V] + [f"3 {a} {b} {c}" for a, b, c in OCTA_F]
    write("octahedron.ply", "\n".join(octa_ex) + "\n", EXAMPLES)


if __name__ == "__main__":
    main()
