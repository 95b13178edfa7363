#!/usr/bin/env python3
"""Writes the malformed tet mesh inputs of tests/data/bad/tet/ (README.md lists every file and
what it breaks). Run from anywhere: python3 make_bad_tet.py [OUTDIR]. Deterministic.
unit/test_tetmesh_io loads each with cm_tetmesh_load and checks the status and that the message
names the file and the line or byte offset; unit/test_fuzz_regress runs them through the fuzz
entry point cm_fuzz_tetmesh."""
import base64
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {}

# a unit cube cut into 5 tets, positively oriented, 1-based nodes for gmsh
CUBE = [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]
TETS = [(0, 1, 2, 4), (1, 3, 2, 7), (1, 2, 4, 7), (2, 4, 7, 6), (1, 4, 5, 7)]


def put(name, data):
    assert name not in FILES, name
    FILES[name] = data.encode() if isinstance(data, str) else data


def msh22(nodes=CUBE, tets=TETS, fmt="2.2 0 8", node_lines=None, extra_elems=(), node_count=None):
    s = "$MeshFormat\n%s\n$EndMeshFormat\n$Nodes\n%s\n" % (
        fmt, len(nodes) if node_count is None else node_count)
    s += node_lines if node_lines is not None else "".join(
        "%d %s %s %s\n" % ((i + 1,) + tuple(p)) for i, p in enumerate(nodes))
    elems = list(extra_elems)  # whole element lines after the tag: "type ntags tags... nodes..."
    elems += ["4 2 0 1 %s" % " ".join(str(v + 1) for v in t) for t in tets]
    s += "$EndNodes\n$Elements\n%d\n" % len(elems)
    s += "".join("%d %s\n" % (k + 1, e) for k, e in enumerate(elems))
    return s + "$EndElements\n"


def msh22_bin(nodes=CUBE, tets=TETS, one=1, big=False, coord=None):
    e = ">" if big else "<"
    b = b"$MeshFormat\n2.2 1 8\n" + struct.pack(e + "i", one) + b"\n$EndMeshFormat\n"
    b += b"$Nodes\n%d\n" % len(nodes)
    for i, p in enumerate(nodes):
        q = coord if (coord is not None and i == 3) else p
        b += struct.pack(e + "i3d", i + 1, *q)
    b += b"\n$EndNodes\n$Elements\n%d\n" % len(tets)
    b += struct.pack(e + "3i", 4, len(tets), 2)
    for k, t in enumerate(tets):
        b += struct.pack(e + "7i", k + 1, 0, 1, *[v + 1 for v in t])
    return b + b"\n$EndElements\n"


def msh41_bin(nodes=CUBE, tets=TETS):
    b = b"$MeshFormat\n4.1 1 8\n" + struct.pack("<i", 1) + b"\n$EndMeshFormat\n$Nodes\n"
    b += struct.pack("<4Q", 1, len(nodes), 1, len(nodes))
    b += struct.pack("<3iQ", 3, 1, 0, len(nodes))
    b += struct.pack("<%dQ" % len(nodes), *range(1, len(nodes) + 1))
    for p in nodes:
        b += struct.pack("<3d", *p)
    b += b"\n$EndNodes\n$Elements\n" + struct.pack("<4Q", 1, len(tets), 1, len(tets))
    b += struct.pack("<3iQ", 3, 1, 4, len(tets))
    for k, t in enumerate(tets):
        b += struct.pack("<5Q", k + 1, *[v + 1 for v in t])
    return b + b"\n$EndElements\n"


def msh41(nodes=CUBE, tets=TETS, tags=None, block_count=None):
    tags = tags or list(range(1, len(nodes) + 1))
    s = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 %d %d %d\n" % (len(nodes), min(tags),
                                                                          max(tags))
    s += "3 1 0 %d\n" % (len(nodes) if block_count is None else block_count)
    s += "".join("%d\n" % t for t in tags)
    s += "".join("%s %s %s\n" % tuple(p) for p in nodes)
    s += "$EndNodes\n$Elements\n1 %d 1 %d\n3 1 4 %d\n" % (len(tets), len(tets), len(tets))
    s += "".join("%d %s\n" % (k + 1, " ".join(str(tags[v]) for v in t)) for k, t in enumerate(tets))
    return s + "$EndElements\n"


def vtu(points=None, conn=None, offs=None, types=None, dtype="UnstructuredGrid", zlib_bad=False,
        skip_types=False):
    points = points if points is not None else " ".join("%s %s %s" % p for p in CUBE)
    conn = conn if conn is not None else " ".join(str(v) for t in TETS for v in t)
    offs = offs if offs is not None else " ".join(str(4 * (k + 1)) for k in range(len(TETS)))
    types = types if types is not None else " ".join("10" for _ in TETS)
    comp = ' compressor="vtkZLibDataCompressor"' if zlib_bad else ""
    s = ('<?xml version="1.0"?>\n<VTKFile type="%s" version="1.0" byte_order="LittleEndian"%s>\n'
         '  <UnstructuredGrid>\n    <Piece NumberOfPoints="8" NumberOfCells="%d">\n'
         '      <Points>\n' % (dtype, comp, len(TETS)))
    if zlib_bad:
        data = struct.pack("<24d", *[c for p in CUBE for c in p])
        z = bytearray(zlib.compress(data))
        z[len(z) // 2] ^= 0xff
        h = struct.pack("<4I", 1, len(data), 0, len(z))
        s += ('        <DataArray type="Float64" NumberOfComponents="3" format="binary">\n'
              '          %s%s\n        </DataArray>\n' % (base64.b64encode(h).decode(),
                                                       base64.b64encode(bytes(z)).decode()))
    else:
        s += ('        <DataArray type="Float64" NumberOfComponents="3" format="ascii">\n'
              '          %s\n        </DataArray>\n' % points)
    s += '      </Points>\n      <Cells>\n'
    s += ('        <DataArray type="Int64" Name="connectivity" format="ascii">\n          %s\n'
          '        </DataArray>\n' % conn)
    s += ('        <DataArray type="Int64" Name="offsets" format="ascii">\n          %s\n'
          '        </DataArray>\n' % offs)
    if not skip_types:
        s += ('        <DataArray type="UInt8" Name="types" format="ascii">\n          %s\n'
              '        </DataArray>\n' % types)
    return s + '      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n'


def vtk(dataset="UNSTRUCTURED_GRID", points=None, cells=None, types=None, order=("P", "C", "T")):
    head = "# vtk DataFile Version 4.2\nbad\nASCII\nDATASET %s\n" % dataset
    parts = {
        "P": "POINTS 8 double\n" + (points or "".join("%s %s %s\n" % p for p in CUBE)),
        "C": cells or ("CELLS %d %d\n" % (len(TETS), 5 * len(TETS)) +
                       "".join("4 %d %d %d %d\n" % t for t in TETS)),
        "T": types or ("CELL_TYPES %d\n" % len(TETS) + "10\n" * len(TETS)),
    }
    return head + "".join(parts[k] for k in order)


def vtk_bin(bad_index=False):
    b = b"# vtk DataFile Version 4.2\nbad\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 8 double\n"
    b += struct.pack(">24d", *[c for p in CUBE for c in p])
    vals = []
    for k, t in enumerate(TETS):
        vals += [4] + [99 if (bad_index and k == 2 and j == 1) else v for j, v in enumerate(t)]
    b += b"\nCELLS %d %d\n" % (len(TETS), len(vals)) + struct.pack(">%di" % len(vals), *vals)
    b += b"\nCELL_TYPES %d\n" % len(TETS) + struct.pack(">%di" % len(TETS), *[10] * len(TETS))
    return b + b"\n"


def main():
    # gmsh
    put("msh_no_format.msh", msh22().replace("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n", ""))
    put("msh_version_3.msh", msh22(fmt="3.0 0 8"))
    put("msh_data_size_4.msh", msh22(fmt="2.2 0 4"))
    put("msh_hex_number.msh", msh22(node_lines="".join(
        "%d %s %s %s\n" % ((i + 1,) + (("0x1p-1",) if i == 5 else (p[0],)) + p[1:])
        for i, p in enumerate(CUBE))))
    put("msh22_node_nan.msh", msh22(node_lines="".join(
        "%d %s %s %s\n" % ((i + 1,) + (("nan",) if i == 6 else (p[0],)) + p[1:])
        for i, p in enumerate(CUBE))))
    put("msh22_tet_bad_tag.msh", msh22(tets=TETS[:3] + [(1, 2, 98, 3)] + TETS[4:]))
    put("msh22_truncated.msh", msh22()[:-40])
    put("msh22_count_huge.msh", msh22(node_count=2147483648))
    put("msh22_count_vs_bytes.msh", msh22(node_count=1000000))
    put("msh22_unknown_type.msh", msh22(extra_elems=["99 2 0 1 1 2"]))
    put("msh22_missing_end.msh", msh22().replace("$EndNodes\n", ""))
    put("msh_no_tets.msh", msh22(tets=[], extra_elems=["2 2 0 1 1 2 3", "2 2 0 1 1 3 4"]))
    put("msh22_bin_big_endian.msh", msh22_bin(big=True))
    put("msh22_bin_byte_order_2.msh", msh22_bin(one=2))
    put("msh22_bin_node_inf.msh", msh22_bin(coord=(float("inf"), 0.0, 0.0)))
    put("msh41_bin_truncated.msh", msh41_bin()[:-100])
    put("msh41_duplicate_tag.msh", msh41(tags=[1, 2, 3, 4, 5, 6, 7, 3]))
    put("msh41_block_too_big.msh", msh41(block_count=9))
    # VTK XML
    put("vtu_polydata.vtu", vtu(dtype="PolyData"))
    put("vtu_tet_3_points.vtu", vtu(conn=" ".join(str(v) for t in TETS for v in t)[:-2],
                                    offs="4 8 12 16 19"))
    put("vtu_index_out_of_range.vtu", vtu(conn="0 1 2 4 1 3 2 7 1 2 4 8 2 4 7 6 1 4 5 7"))
    put("vtu_bad_type.vtu", vtu(types="10 10 300 10 10"))
    put("vtu_points_nan.vtu", vtu(points=" ".join("%s %s %s" % p for p in CUBE[:7]) + " 1 nan 1"))
    put("vtu_missing_types.vtu", vtu(skip_types=True))
    put("vtu_zlib_corrupt.vtu", vtu(zlib_bad=True))
    # legacy VTK
    put("vtk_polydata.vtk", vtk(dataset="POLYDATA"))
    put("vtk_cell_types_count.vtk", vtk(types="CELL_TYPES 4\n10\n10\n10\n10\n"))
    put("vtk_types_before_cells.vtk", vtk(order=("P", "T", "C")))
    put("vtk_points_inf.vtk", vtk(points="".join("%s %s %s\n" % p for p in CUBE[:7]) + "1 1 inf\n"))
    put("vtk_51_offsets_decreasing.vtk", vtk(cells="CELLS 6 20\nOFFSETS vtktypeint64\n"
                                             "0 4 8 6 16 20\nCONNECTIVITY vtktypeint64\n" +
                                             " ".join(str(v) for t in TETS for v in t) + "\n"))
    put("vtk_bin_index_out_of_range.vtk", vtk_bin(bad_index=True))
    put("vtk_cells_count_huge.vtk", vtk(cells="CELLS 2000000000 5\n4 0 1 2 3\n"))
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    for name, data in FILES.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
