#!/usr/bin/env python3
"""Writes the malformed-input corpus of tests/data/bad/ (README.md lists every file and what it
breaks). Run from anywhere: python3 tests/data/bad/make_bad.py [OUTDIR]. Deterministic: the "random"
garbage comes from a fixed seed. Every file must make `comply check` (scenes) or `comply
mesh-info` (meshes) exit with status 2 and a located message (tests/cli/test_cli_bad_inputs.py)."""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {}  # name -> bytes


def put(name, data):
    assert name not in FILES, name
    FILES[name] = data.encode() if isinstance(data, str) else data


# ---------------------------------------------------------------- shapes

CUBE_V = [(x, y, z) for z in (-0.5, 0.5) for y in (-0.5, 0.5) for x in (-0.5, 0.5)]
# 12 outward CCW triangles of the cube (0-based; vertex i + 2j + 4k)
CUBE_F = [(0, 4, 6), (0, 6, 2), (1, 3, 7), (1, 7, 5), (0, 1, 5), (0, 5, 4),
          (2, 6, 7), (2, 7, 3), (0, 2, 3), (0, 3, 1), (4, 5, 7), (4, 7, 6)]
TET_V = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
TET_F = [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)]
OCTA_V = [(1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)]
OCTA_F = [(0, 2, 4), (2, 1, 4), (1, 3, 4), (3, 0, 4), (2, 0, 5), (1, 2, 5), (3, 1, 5), (0, 3, 5)]


def obj(verts, faces, head="", one_based=True):
    s = head
    s += "".join("v %s %s %s\n" % tuple(v) for v in verts)
    s += "".join("f %s\n" % " ".join(str(i + (1 if one_based else 0)) for i in f) for f in faces)
    return s


def stl_ascii(tris, name="t"):
    s = "solid %s\n" % name
    for t in tris:
        s += "  facet normal 0 0 0\n    outer loop\n"
        s += "".join("      vertex %s %s %s\n" % tuple(p) for p in t)
        s += "    endloop\n  endfacet\n"
    return s + "endsolid %s\n" % name


def stl_binary(tris, count=None):
    b = b"binary STL written by make_bad.py".ljust(80, b" ")
    b += struct.pack("<I", len(tris) if count is None else count)
    for t in tris:
        b += struct.pack("<3f", 0, 0, 0)
        for p in t:
            b += struct.pack("<3f", *p)
        b += b"\0\0"
    return b


def tris(verts, faces):
    return [[verts[i] for i in f] for f in faces]


def ply_ascii(verts, faces, nv=None, nf=None, body=None, fmt="ascii 1.0",
              vprops="property float x\nproperty float y\nproperty float z\n",
              fprop="property list uchar int vertex_indices\n"):
    h = "ply\nformat %s\nelement vertex %d\n%selement face %d\n%send_header\n" % (
        fmt, len(verts) if nv is None else nv, vprops, len(faces) if nf is None else nf, fprop)
    if body is None:
        body = "".join("%s %s %s\n" % tuple(v) for v in verts)
        body += "".join("%d %s\n" % (len(f), " ".join(map(str, f))) for f in faces)
    return h + body


def ply_binary(verts, faces, nv=None, nf=None):
    h = ("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\n"
         "property float y\nproperty float z\nelement face %d\n"
         "property list uchar int vertex_indices\nend_header\n"
         % (len(verts) if nv is None else nv, len(faces) if nf is None else nf)).encode()
    b = b"".join(struct.pack("<3f", *v) for v in verts)
    b += b"".join(struct.pack("<B", len(f)) + struct.pack("<%di" % len(f), *f) for f in faces)
    return h + b


rng = random.Random(20240601)
GARBAGE = bytes(rng.randrange(256) for _ in range(700))

# ---------------------------------------------------------------- OBJ

cube = obj(CUBE_V, CUBE_F, "# cube\n")
put("obj_empty.obj", "")
put("obj_binary_garbage.obj", GARBAGE)
put("obj_truncated_mid_face.obj", cube[:cube.rindex("f ") + 5])
put("obj_nan_vertex.obj", cube.replace("v 0.5 0.5 0.5", "v 0.5 nan 0.5"))
put("obj_inf_vertex.obj", cube.replace("v 0.5 0.5 0.5", "v inf 0.5 0.5"))
put("obj_overflow_1e400.obj", cube.replace("v 0.5 0.5 0.5", "v 1e400 0.5 0.5"))
put("obj_coords_1e308.obj", obj([tuple(c * 1.5e308 for c in v) for v in CUBE_V], CUBE_F))
put("obj_index_zero.obj", cube + "f 0 1 2\n")
put("obj_index_out_of_range.obj", cube + "f 1 2 99\n")
put("obj_negative_index_out_of_range.obj", cube + "f -1 -2 -9\n")
put("obj_index_overflow.obj", cube + "f 1 2 99999999999999999999\n")
put("obj_face_two_vertices.obj", cube + "f 1 2\n")
put("obj_face_repeated_index.obj", cube + "f 1 1 2\n")
put("obj_vertex_missing_coordinate.obj", cube.replace("v 0.5 0.5 0.5", "v 0.5 0.5"))
put("obj_bad_number.obj", cube.replace("v 0.5 0.5 0.5", "v 0.5 0.5abc 0.5"))
put("obj_nul_byte.obj", cube.replace("v 0.5 0.5 0.5", "v 0.5 0.\x005 0.5"))
put("obj_hex_number.obj", cube.replace("v 0.5 0.5 0.5", "v 0x1p-1 0.5 0.5"))
put("obj_no_faces.obj", obj(CUBE_V, []))
put("obj_open_box.obj", obj(CUBE_V, CUBE_F[:-2]))
put("obj_inverted_cube.obj", obj(CUBE_V, [(a, c, b) for a, b, c in CUBE_F]))
put("obj_one_face_flipped.obj", obj(CUBE_V, [(0, 6, 4)] + CUBE_F[1:]))
# two tetrahedra glued along one edge (0-1): four faces on that edge
put("obj_nonmanifold_edge.obj",
    obj(TET_V + [(0, 0, -1), (0, -1, 0)], TET_F + [(0, 1, 4), (0, 4, 5), (0, 5, 1), (1, 5, 4)]))
# a cube with one extra vertex on an edge midpoint used by a zero-area sliver
put("obj_degenerate_face.obj", obj(CUBE_V + [(0.0, -0.5, -0.5)],
                                   CUBE_F + [(0, 8, 1), (0, 1, 8)]))

# ---------------------------------------------------------------- STL

tet = tris(TET_V, TET_F)
asc = stl_ascii(tet)
binary = stl_binary(tet)
put("stl_empty.stl", "")
put("stl_binary_garbage.stl", GARBAGE)
put("stl_binary_truncated_header.stl", binary[:50])
put("stl_binary_truncated_record.stl", binary[:84 + 50 + 25])
put("stl_binary_huge_count.stl", stl_binary(tet, count=0xFFFFFFFF))
put("stl_binary_count_too_small.stl", stl_binary(tet, count=2))
put("stl_binary_zero_triangles.stl", stl_binary([]))
put("stl_binary_nan.stl", binary[:84 + 12] + struct.pack("<f", float("nan")) + binary[84 + 16:])
put("stl_binary_inf.stl", binary[:84 + 12] + struct.pack("<f", float("inf")) + binary[84 + 16:])
put("stl_binary_degenerate.stl", stl_binary([[(0, 0, 0), (1, 1, 1), (2, 2, 2)]] * 4))
put("stl_binary_open.stl", stl_binary(tet[:3]))
put("stl_solid_header_binary_body.stl", b"solid " + binary[6:84 + 30])
put("stl_ascii_truncated.stl", asc[:asc.index("endloop", 200)])
put("stl_ascii_missing_endloop.stl", asc.replace("    endloop\n", "", 1))
put("stl_ascii_bad_number.stl", asc.replace("vertex 0 1 0", "vertex 0 1.x 0", 1))
put("stl_ascii_nan.stl", asc.replace("vertex 0 1 0", "vertex 0 nan 0", 1))
put("stl_ascii_coords_1e308.stl",
    stl_ascii([[tuple(c * 1e308 for c in p) for p in t] for t in tet]))
put("stl_ascii_four_vertices.stl", asc.replace("      vertex 1 0 0\n", "      vertex 1 0 0\n"
                                               "      vertex 1 1 1\n", 1))
put("stl_ascii_open_tetra.stl", stl_ascii(tet[:3]))
put("stl_ascii_inverted_tetra.stl", stl_ascii([[t[0], t[2], t[1]] for t in tet]))
put("stl_ascii_no_endsolid.stl", asc[:asc.index("endsolid")])

# ---------------------------------------------------------------- PLY

octa = ply_ascii(OCTA_V, OCTA_F)
octb = ply_binary(OCTA_V, OCTA_F)
put("ply_empty.ply", "")
put("ply_binary_garbage.ply", b"ply\n" + GARBAGE)
put("ply_no_magic.ply", octa[4:])
put("ply_missing_end_header.ply", octa.replace("end_header\n", ""))
put("ply_unknown_format.ply", octa.replace("format ascii 1.0", "format ascii 2.0"))
put("ply_big_endian.ply", octa.replace("format ascii 1.0", "format binary_big_endian 1.0"))
put("ply_unknown_property_type.ply", octa.replace("property float y", "property quad y"))
put("ply_missing_z_property.ply", octa.replace("property float z\n", ""))
put("ply_huge_vertex_count_ascii.ply", ply_ascii(OCTA_V, OCTA_F, nv=2000000000))
put("ply_huge_vertex_count_binary.ply", ply_binary(OCTA_V, OCTA_F, nv=2000000000))
put("ply_count_overflow.ply", ply_ascii(OCTA_V, OCTA_F, nf=99999999999999999999))
put("ply_negative_count.ply", ply_ascii(OCTA_V, OCTA_F, nf=-8))
put("ply_ascii_truncated.ply", octa[:octa.rindex("3 ")])
put("ply_binary_truncated.ply", octb[:len(octb) - 7])
put("ply_list_count_255.ply", octa.replace("3 0 3 5", "255 0 3 5"))
put("ply_face_index_out_of_range.ply", octa.replace("3 0 3 5", "3 0 3 6"))
put("ply_face_negative_index.ply", octa.replace("3 0 3 5", "3 0 -3 5"))
put("ply_ascii_nan.ply", octa.replace("0 0 -1\n", "0 nan -1\n"))
put("ply_binary_nan.ply", ply_binary([(0, float("nan"), 0)] + OCTA_V[1:], OCTA_F))
put("ply_coords_1e308.ply", ply_ascii([tuple(c * 1.5e308 for c in v) for v in OCTA_V], OCTA_F))
put("ply_open_octahedron.ply", ply_ascii(OCTA_V, OCTA_F[:-1]))
put("ply_inverted_octahedron.ply", ply_ascii(OCTA_V, [(a, c, b) for a, b, c in OCTA_F]))
put("ply_face_two_vertices.ply", octa.replace("3 0 3 5", "2 0 3"))
put("ply_hex_number.ply", octa.replace("0 0 -1\n", "0 0 -0x1p0\n"))
put("ply_seventeen_elements.ply",
    octa.replace("end_header\n", "".join("element extra%d 0\nproperty float a\n" % i
                                         for i in range(15)) + "end_header\n"))

# ---------------------------------------------------------------- scenes

SCENE = """\
scene:
  timestep: 0.001
  duration: 0.1
bodies:
  - name: ground
    geometry: {plane: {normal: [0, 0, 1]}}
    motion: fixed
  - name: ball
    geometry: {sphere: {radius: 0.05, refine: 1}}
    position: [0, 0, 0.2]
interactions:
  - pair: ["*", "*"]
    law: contact_time
"""


def scene(old, new):
    assert old in SCENE, old
    return SCENE.replace(old, new, 1)


def mesh_scene(file):
    return scene("{sphere: {radius: 0.05, refine: 1}}", "{mesh: {file: %s}}" % file)


put("scene_empty.yaml", "")
put("scene_binary_garbage.yaml", GARBAGE)
put("scene_truncated_flow.yaml", SCENE[:SCENE.index("refine")])
put("scene_tab_indent.yaml", scene("    position: [0, 0, 0.2]", "\tposition: [0, 0, 0.2]"))
put("scene_unclosed_quote.yaml", scene('["*", "*"]', '["*, "*"]'))
put("scene_nul_byte.yaml", scene("duration: 0.1", "duration: 0.\x001"))
put("scene_invalid_utf8.yaml", SCENE.encode().replace(b"name: ball", b"name: b\xff\xfell"))
put("scene_root_is_list.yaml", "- 1\n- 2\n")
put("scene_unknown_top_key.yaml", SCENE + "solver: {iterations: 5}\n")
put("scene_unknown_body_key.yaml", scene("    position: [0, 0, 0.2]", "    positon: [0, 0, 0.2]"))
put("scene_unknown_geometry.yaml", scene("{sphere: {radius: 0.05, refine: 1}}",
                                         "{cylinder: {radius: 0.05}}"))
put("scene_duplicate_key.yaml", scene("  duration: 0.1\n", "  duration: 0.1\n  duration: 0.2\n"))
put("scene_duplicate_body_name.yaml", scene("name: ball", "name: ground"))
put("scene_body_without_name.yaml", scene("  - name: ball\n", "  - alias: ball\n"))
put("scene_wrong_type_timestep_string.yaml", scene("timestep: 0.001", "timestep: fast"))
put("scene_wrong_type_timestep_list.yaml", scene("timestep: 0.001", "timestep: [0.001]"))
put("scene_wrong_type_bodies_mapping.yaml",
    "bodies:\n  ball: {geometry: {sphere: {radius: 1}}}\n")
put("scene_wrong_type_position_scalar.yaml", scene("position: [0, 0, 0.2]", "position: 0.2"))
put("scene_wrong_type_refine_float.yaml", scene("refine: 1", "refine: 1.5"))
put("scene_wrong_type_steps_bool.yaml", scene("  duration: 0.1\n", "  steps: true\n"))
put("scene_position_two_elements.yaml", scene("position: [0, 0, 0.2]", "position: [0, 0.2]"))
put("scene_nan_position.yaml", scene("position: [0, 0, 0.2]", "position: [0, .nan, 0.2]"))
put("scene_inf_mass.yaml", scene("    position: [0, 0, 0.2]\n",
                                  "    position: [0, 0, 0.2]\n    mass: .inf\n"))
put("scene_overflow_1e400.yaml", scene("duration: 0.1", "duration: 1e400"))
put("scene_negative_timestep.yaml", scene("timestep: 0.001", "timestep: -0.001"))
put("scene_huge_steps.yaml", scene("  duration: 0.1\n", "  steps: 1e30\n"))
put("scene_negative_radius.yaml", scene("radius: 0.05", "radius: -0.05"))
put("scene_refine_too_large.yaml", scene("refine: 1", "refine: 9"))
put("scene_divisions_1024.yaml", scene("{sphere: {radius: 0.05, refine: 1}}",
                                      "{box: {size: [1, 1, 1], divisions: 1024}}"))
put("scene_yaml_tag_str.yaml", scene("timestep: 0.001", "timestep: !!str 0.001"))
put("scene_yaml_tag_custom.yaml", scene("position: [0, 0, 0.2]", "position: !vec [0, 0, 0.2]"))
put("scene_hex_number.yaml", scene("timestep: 0.001", "timestep: 0x1p-10"))
put("scene_steps_zero.yaml", scene("  duration: 0.1\n", "  steps: 0\n"))
put("scene_euler_huge.yaml", scene("    position: [0, 0, 0.2]\n",
                                   "    position: [0, 0, 0.2]\n    euler_deg: [1e308, 0, 0]\n"))
put("scene_mass_huge.yaml", scene("    position: [0, 0, 0.2]\n",
                                  "    position: [0, 0, 0.2]\n    mass: 1e300\n"))
put("scene_mass_from_tiny_volume.yaml", scene("radius: 0.05", "radius: 1e-20"))
put("scene_divisions_too_large.yaml", scene("{sphere: {radius: 0.05, refine: 1}}",
                                            "{box: {size: [1, 1, 1], divisions: 100000}}"))
put("scene_unknown_law.yaml", scene("law: contact_time", "law: hertz"))
put("scene_unknown_motion.yaml", scene("motion: fixed", "motion: floating"))
put("scene_plane_dynamic.yaml", scene("    motion: fixed\n", ""))
put("scene_joint_unknown_body.yaml", SCENE + "joints:\n  - bodies: [ball, nobody]\n"
                                             "    anchor: [0, 0, 0]\n")
put("scene_multiple_documents.yaml", SCENE + "---\n" + SCENE)
put("scene_deep_flow_nesting.yaml", scene("position: [0, 0, 0.2]",
                                          "position: " + "[" * 5000 + "]" * 5000))
put("scene_deep_block_nesting.yaml",
    SCENE + "extra:\n" + "".join("  " * (i + 1) + "k%d:\n" % i for i in range(2000))
    + "  " * 2001 + "v\n")
put("scene_billion_laughs.yaml",
    "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    + "".join("a%d: &a%d [%s]\n" % (i, i, ", ".join(["*a%d" % (i - 1)] * 10)) for i in range(1, 9))
    + SCENE)
put("scene_alias_wrong_type.yaml", scene("  - name: ball\n", "  - &b name: ball\n")
    + "  - *b\n")
put("scene_mesh_missing_file.yaml", mesh_scene("no_such_mesh.obj"))
put("scene_mesh_unknown_extension.yaml", mesh_scene("README.md"))
put("scene_mesh_open_box.yaml", mesh_scene("obj_open_box.obj"))
put("scene_mesh_binary_garbage.yaml", mesh_scene("stl_binary_garbage.stl"))
put("scene_mesh_nan_vertex.yaml", mesh_scene("ply_ascii_nan.ply"))
put("scene_mesh_truncated_record.yaml", mesh_scene("stl_binary_truncated_record.stl"))
put("scene_mesh_zero_scale.yaml", scene("{sphere: {radius: 0.05, refine: 1}}",
                                        "{mesh: {file: ../../../examples/meshes/unit_cube.obj, "
                                        "scale: 0}}"))

# found by an audit of every field (2026-12-07): each ran, or ran 0 steps, with exit 0 before
put("scene_substeps_too_many.yaml", scene("  duration: 0.1\n", "  duration: 0.01\n  substeps: 2147483647\n"))
put("scene_duration_below_half_step.yaml", scene("duration: 0.1", "duration: 0.0004"))
put("scene_steps_too_many_from_duration.yaml", scene("timestep: 0.001", "timestep: 1e-300"))
put("scene_gravity_huge.yaml", scene("  duration: 0.1\n", "  duration: 0.1\n  gravity: [0, 0, -1e300]\n"))
put("scene_position_huge.yaml", scene("position: [0, 0, 0.2]", "position: [0, 0, 1e300]"))
put("scene_com_huge.yaml", scene("    position: [0, 0, 0.2]\n",
                                 "    position: [0, 0, 0.2]\n    com: [1e300, 0, 0]\n"))
put("scene_inertia_huge.yaml", scene("    position: [0, 0, 0.2]\n", "    position: [0, 0, 0.2]\n"
                                     "    mass: 1\n    inertia: [1e300, 1e300, 1e300]\n"))
put("scene_joint_anchor_huge.yaml", SCENE + "joints:\n  - bodies: [ball, world]\n"
                                            "    anchor: [0, 0, 1e300]\n")
put("scene_fixed_body_velocity.yaml", scene("    motion: fixed\n",
                                            "    motion: fixed\n    velocity: [1, 0, 0]\n"))
put("scene_step_damping_huge.yaml", scene("law: contact_time", "law: area_compliant\n"
                                          "    ka: 1.0e9\n    step_damping: 1e300"))
put("scene_friction_huge.yaml", scene("law: contact_time", "law: contact_time\n    friction: 1e300"))
put("scene_play_huge.yaml", scene("law: contact_time", "law: contact_time\n    play: 1e300"))
put("scene_deformable_sphere_cells_list.yaml",
    scene("    position: [0, 0, 0.2]\n", "    position: [0, 0, 0.2]\n    motion: deformable\n"
          "    deformable: {cells: [3, 4, 5]}\n"))
put("scene_steps_too_many.yaml", scene("  duration: 0.1\n", "  steps: 9000000000000000\n"))
put("scene_plane_offset_huge.yaml", scene("{normal: [0, 0, 1]}", "{normal: [0, 0, 1], offset: 1e300}"))
put("scene_alias_world.yaml", scene("    position: [0, 0, 0.2]\n",
                                    "    position: [0, 0, 0.2]\n    alias: world\n"))
put("scene_joint_area_compliant_rule.yaml",
    scene("law: contact_time", "law: area_compliant")
    + "joints:\n  - bodies: [ball, world]\n    anchor: [0, 0, 0.3]\n")


# ---------------------------------------------------------------- VTK XML PolyData, legacy VTK


def vtp(points="0 0 0 1 0 0 0 1 0 0 0 1", conn="0 2 1 0 1 3 0 3 2 1 2 3", offs="3 6 9 12",
        npts=4, npolys=4, root='type="PolyData" version="1.0" byte_order="LittleEndian"',
        pfmt="ascii", tail="</VTKFile>\n"):
    return ('<?xml version="1.0"?>\n<VTKFile %s>\n<PolyData>\n'
            '<Piece NumberOfPoints="%d" NumberOfPolys="%d">\n'
            '<Points><DataArray type="Float32" NumberOfComponents="3" format="%s">\n%s\n'
            '</DataArray></Points>\n<Polys>\n'
            '<DataArray type="Int32" Name="connectivity" format="ascii">\n%s\n</DataArray>\n'
            '<DataArray type="Int32" Name="offsets" format="ascii">\n%s\n</DataArray>\n'
            '</Polys>\n</Piece>\n</PolyData>\n%s'
            % (root, npts, npolys, pfmt, points, conn, offs, tail))


def b64_array(values, fmt, header=None):
    import base64
    data = struct.pack("<%d%s" % (len(values), fmt), *values)
    return base64.b64encode(struct.pack("<I", len(data) if header is None else header) +
                            data).decode()


TET_PTS = [float(x) for p in TET_V for x in p]
put("vtp_empty.vtp", "")
put("vtp_not_xml.vtp", stl_ascii(tris(TET_V, TET_F)))
put("vtp_unstructured_grid.vtp", vtp(root='type="UnstructuredGrid" version="1.0"'))
put("vtp_index_out_of_range.vtp", vtp(conn="0 2 1 0 1 3 0 3 2 1 2 4"))
put("vtp_points_too_few.vtp", vtp(points="0 0 0 1 0 0 0 1 0 0 0"))
put("vtp_nan.vtp", vtp(points="0 0 0 1 0 0 0 1 0 0 0 nan"))
put("vtp_offsets_decreasing.vtp", vtp(offs="3 6 5 12"))
put("vtp_polygon_two_points.vtp", vtp(offs="3 6 9 11"))
put("vtp_end_tag_mismatch.vtp", vtp(tail="</VTKFile>\n").replace("</Piece>\n</PolyData>", "</PolyData>"))
put("vtp_unclosed.vtp", vtp(tail=""))
put("vtp_lz4.vtp", vtp(root='type="PolyData" compressor="vtkLZ4DataCompressor"'))
put("vtp_huge_count.vtp", vtp(npts=99999999999))
put("vtp_bad_base64.vtp", vtp(pfmt="binary", points=b64_array(TET_PTS, "f")[:8] + "*" +
                               b64_array(TET_PTS, "f")[9:]))
put("vtp_header_too_long.vtp", vtp(pfmt="binary", points=b64_array(TET_PTS, "f", header=4800)))
put("vtp_appended_past_end.vtp",
    vtp(pfmt='appended" offset="500', points="",
        tail='<AppendedData encoding="raw">\n_abc\n</AppendedData>\n</VTKFile>\n'))
put("vtp_open_tetra.vtp", vtp(conn="0 2 1 0 1 3 0 3 2", offs="3 6 9", npolys=3))


def vtk(body, head="# vtk DataFile Version 4.2\ntitle\nASCII\nDATASET POLYDATA\n"):
    return head + body


VTK_TET = "POINTS 4 float\n0 0 0 1 0 0\n0 1 0 0 0 1\n"
put("vtk_empty.vtk", "")
put("vtk_unstructured_grid.vtk",
    vtk("", head="# vtk DataFile Version 3.0\nt\nASCII\nDATASET UNSTRUCTURED_GRID\n"))
put("vtk_index_out_of_range.vtk",
    vtk(VTK_TET + "POLYGONS 4 16\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 7\n"))
put("vtk_size_mismatch.vtk", vtk(VTK_TET + "POLYGONS 4 15\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2\n"))
put("vtk_bad_number.vtk", vtk("POINTS 4 float\n0 0 0 1 0 0\n0 1 0 0 0 1.x\n"))
put("vtk_huge_count.vtk", vtk("POINTS 1000000 float\n0 0 0\n"))
put("vtk_no_polygons.vtk", vtk(VTK_TET))
put("vtk_polygons_first.vtk", vtk("POLYGONS 1 4\n3 0 1 2\n" + VTK_TET))
put("vtk_v51_offsets_past_end.vtk",
    vtk(VTK_TET + "POLYGONS 5 12\nOFFSETS vtktypeint64\n0 3 6 9 13\n"
        "CONNECTIVITY vtktypeint64\n0 2 1 0 1 3 0 3 2 1 2 3\n"))
put("vtk_binary_truncated.vtk",
    b"# vtk DataFile Version 4.2\nt\nBINARY\nDATASET POLYDATA\nPOINTS 4 float\n" +
    struct.pack(">10f", *TET_PTS[:10]))
put("vtk_binary_index_out_of_range.vtk",
    b"# vtk DataFile Version 4.2\nt\nBINARY\nDATASET POLYDATA\nPOINTS 4 float\n" +
    struct.pack(">12f", *TET_PTS) + b"\nPOLYGONS 1 4\n" + struct.pack(">4i", 3, 0, 1, 9))


if __name__ == "__main__":
    import sys
    out = sys.argv[1] if len(sys.argv) > 1 else HERE  # another folder: to compare (the CLI test)
    for name in sorted(FILES):
        with open(os.path.join(out, name), "wb") as f:
            f.write(FILES[name])
    print("%d files written to %s" % (len(FILES), out))
