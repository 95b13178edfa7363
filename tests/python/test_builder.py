"""The Scene builder maps onto cm_scene_add_* with cm_*_def_default(): options, bodies, rules,
joints and meshes given as arrays reach the compiled model as the C API would put them there."""
import numpy as np
import pytest

import comply

# a unit right tetrahedron: volume 1/6, centroid (1/4, 1/4, 1/4); faces outward
TET_V = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
TET_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def test_options_round_trip():
    s = comply.Scene("opts", timestep=2e-3, gravity=(0, 0, -1.62), substeps="auto", steps=7)
    o = s.options
    assert o["timestep"] == 2e-3 and o["gravity"] == (0, 0, -1.62) and o["substeps"] == "auto"
    s.set_options(integrator="explicit", substeps=3)
    assert s.options["integrator"] == "explicit" and s.options["substeps"] == 3
    assert o["solver_tolerance"] == "auto"
    s.set_options(solver_tolerance=1e-10)
    assert s.options["solver_tolerance"] == 1e-10
    with pytest.raises(comply.ArgumentError, match="solver_tolerance must be auto"):
        comply.Scene("bad", solver_tolerance=1e-2).compile()
    s.add_body("ball", geom="sphere", radius=0.1, refine=1)
    m = s.compile()
    assert m.timestep == 2e-3 and m.steps == 7 and m.gravity == (0, 0, -1.62)


def test_mesh_from_arrays():
    s = comply.Scene("tet", gravity=(0, 0, 0))
    s.add_body("tet", vertices=TET_V, faces=TET_F, density=600, position=(1, 2, 3))
    m = s.compile()
    assert m.body_mass[0] == pytest.approx(600 / 6, rel=1e-12)
    assert np.allclose(m.body_com[0], 0.25, rtol=1e-12, atol=0)
    # the model keeps the mesh (its vertices reordered; mesh_vert_source maps them back)
    src = m.mesh_vert_source
    assert np.array_equal(m.body_vertices(0), TET_V[src])
    d = comply.Data(m)
    assert np.allclose(d.body_xpos[0], (1, 2, 3)) and np.allclose(d.body_cpos[0], (1.25, 2.25,
                                                                                  3.25))
    with pytest.raises(comply.MeshError, match="inverted"):
        s2 = comply.Scene("bad")
        s2.add_body("bad", vertices=TET_V, faces=TET_F[:, ::-1])
        s2.compile()
    with pytest.raises(comply.ArgumentError, match=r"\(n, 3\)"):
        comply.Scene("bad").add_body("bad", vertices=TET_V[:, :2], faces=TET_F)


def test_rules_and_joints():
    s = comply.Scene("rules", gravity=(0, 0, 0))
    s.add_body("ground", geom="plane", motion="fixed")
    s.add_body("a", geom="box", size=(0.1, 0.1, 0.1), alias="grain", position=(0, 0, 1))
    s.add_body("b", geom="sphere", radius=0.05, refine=1, position=(1, 0, 1))
    r = s.add_rule("grain", "ground", law="area_compliant", ka=1e9, friction=0.3,
                   method="two_way")
    j = s.add_joint("a", "b", anchor=(0.5, 0, 1))
    m = s.compile()
    assert m.pair_rule("a", "ground") == r + 1  # rule 0 is the built-in default
    assert m.pair_rule("b", "ground") == 0
    # detection resolved per pair: the box against the plane (its vertices); the default auto
    # between the box (8 vertices on 0.06 m^2) and the smooth ball (42 on 0.031 m^2, 10 times
    # finer): the ball's vertices, and edge-edge contacts since the box has ridges
    assert m.pair_detection("a", "ground") == {"vertex_bodies": ["a"], "half_area": False,
                                               "shared": False, "edges": False, "contour": False}
    assert m.pair_detection("a", "b") == {"vertex_bodies": ["b"], "half_area": False,
                                          "shared": False, "edges": True, "contour": False}
    rule = m.rule(r + 1)
    assert rule["law"] == "area_compliant" and rule["ka"] == 1e9 and rule["friction"] == 0.3
    assert rule["method"] == "two_way" and rule["pair"] == ("grain", "ground")
    assert m.njoint == 1 and j == 0
    assert list(m.joint_body[0]) == [1, 2]
    with pytest.raises(KeyError):
        m.body("nobody")


def test_deformable_body():
    """a deformable body from the builder (docs/deformable.md): its nodes and tets in the model,
    its nodes' state as views; in free fall every node falls at -g h n (the elements' forces
    sum to zero), and a node attached to a fixed plate never moves"""
    h, g = 1e-3, 9.81
    s = comply.Scene("jelly", timestep=h)
    s.add_body("plate", geom="box", size=(0.2, 0.2, 0.01), motion="fixed", position=(0, 0, 1.1))
    s.add_body("jelly", geom="box", size=(0.1, 0.1, 0.1), motion="deformable", position=(0, 0, 1),
               deformable={"material": "corotated", "young": 1e6, "poisson": 0.3,
                           "cells": (2, 2, 2), "integrator": "midpoint"})
    s.add_body("hanging", geom="box", size=(0.05, 0.05, 0.1), motion="deformable",
               position=(0.5, 0, 1.05),
               deformable={"cells": 1, "attach": ("plate", ((-1, -1, 1.0999), (1, 1, 2)))})
    s.add_rule("*", "*", law="none")
    m = s.compile()
    assert m.nnode == 27 + 8 and m.ntet == 48 + 6
    assert m.body_material[1] == 1 and m.body_fem_scheme[1] == 1  # corotated, midpoint
    assert np.count_nonzero(m.node_attach == 0) == 4
    d = comply.Data(m)
    assert d.node_pos.shape == (35, 3) and np.allclose(d.node_pos, m.node_pos0)
    d.step(100)
    free = m.node_body == 1
    assert np.allclose(d.node_vel[free, 2], -g * h * 100, rtol=0, atol=1e-9)
    held = m.node_attach == 0
    assert np.array_equal(d.node_pos[held], m.node_pos0[held])
    with pytest.raises(comply.ArgumentError, match="unknown key"):
        s.add_body("x", geom="box", size=(0.1, 0.1, 0.1), motion="deformable",
                   deformable={"youngs": 1})
    # fixed and attach also as the scene file writes them, the same model; a malformed box is
    # an ArgumentError naming the key (a bare ValueError or TypeError from unpacking before)
    s2 = comply.Scene("jelly", timestep=h)
    s2.add_body("plate", geom="box", size=(0.2, 0.2, 0.01), motion="fixed", position=(0, 0, 1.1))
    s2.add_body("hanging", geom="box", size=(0.05, 0.05, 0.1), motion="deformable",
                position=(0.5, 0, 1.05),
                deformable={"cells": 1, "attach": {"body": "plate", "min": [-1, -1, 1.0999],
                                                   "max": [1, 1, 2]},
                            "fixed": {"min": [-1, -1, -1], "max": [1, 1, 1.0001]}})
    s2.add_rule("*", "*", law="none")
    m2 = s2.compile()
    assert np.count_nonzero(m2.node_attach == 0) == 4
    for bad in ({"fixed": "m"}, {"fixed": {"min": [0, 0, 0]}}, {"fixed": ((0, 0), (1, 1, 1))},
                {"fixed": ((0, 0, 0), (1, 1, float("nan")))},
                {"attach": ((0, 0, 0), (1, 1, 1))}, {"attach": (3, ((0, 0, 0), (1, 1, 1)))}):
        key = next(iter(bad))
        with pytest.raises(comply.ArgumentError, match="deformable: %s:? (body )?must be" % key):
            s2.add_body("y", geom="box", size=(0.1, 0.1, 0.1), motion="deformable", deformable=bad)
