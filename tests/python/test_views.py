"""numpy views alias the C memory of a Data or a Model and keep their owner alive.

Free flight without gravity is exact to rounding: the state after one step of h from the com
position x and velocity v is x + v h (both integrators), so a velocity written into the view
before a step shows in the position after it, and in nothing else."""
import gc
import weakref

import numpy as np
import pytest

from conftest import box_on_plane

import comply


def free_body(h=1e-3):
    s = comply.Scene("free", timestep=h, gravity=(0, 0, 0))
    s.add_body("ball", geom="sphere", radius=0.1, refine=1, position=(1, 2, 3))
    return s.compile()


def test_state_views_alias_c_memory():
    m = free_body()
    d = comply.Data(m)
    assert d.body_cpos.shape == (1, 3) and d.body_xquat.shape == (1, 4)
    assert d.body_cvel.shape == (1, 3) and d.body_angvel.shape == (1, 3)
    pos, vel = d.body_cpos, d.body_cvel
    assert np.array_equal(pos[0], [1, 2, 3])
    vel[0] = (0.5, -1.0, 2.0)  # a write into the view is the C state
    d.step()
    assert pos is d.body_cpos  # the same view, updated in place by the step
    assert np.allclose(pos[0], [1 + 0.5e-3, 2 - 1e-3, 3 + 2e-3], rtol=0, atol=1e-15)
    # the C side saw the velocity: the hash of the state changes with it
    d2 = comply.Data(m)
    d2.step()
    assert d2.hash() != d.hash()
    # and the position written into the view is where the next step starts
    pos[0] = (0, 0, 0)
    d.step()
    assert np.allclose(pos[0], [0.5e-3, -1e-3, 2e-3], rtol=0, atol=1e-15)


def test_derived_and_model_views_are_read_only():
    m = free_body()
    d = comply.Data(m)
    with pytest.raises(ValueError):
        d.body_xpos[0, 0] = 1.0
    with pytest.raises(ValueError):
        m.body_mass[0] = 1.0
    assert m.body_inertia.shape == (1, 3, 3)
    # a sphere's inertia from its mesh: diagonal and equal (the icosphere is symmetric)
    I = m.body_inertia[0]
    assert np.allclose(I, np.diag([I[0, 0]] * 3), rtol=1e-9, atol=1e-12 * I[0, 0])


def test_view_keeps_data_alive():
    m = free_body()
    d = comply.Data(m)
    d.body_cvel[0] = (1, 0, 0)
    d.step(10)
    ref, cref = weakref.ref(d), weakref.ref(d._owner)  # the Data and the owner of its cmData
    pos = d.body_cpos
    expected = pos.copy()
    del d
    gc.collect()
    assert ref() is None and cref() is not None  # the view holds the cmData
    garbage = [np.full(1000, 7.0) for _ in range(100)]  # reuse of freed memory would show here
    assert np.array_equal(pos, expected)
    pos[0, 0] = 5.0  # and may still be written
    del garbage, pos
    assert cref() is None  # the last view lets it go (no reference cycle: no gc needed)


def test_model_outlives_its_handle():
    d = comply.Data(free_body())
    mass = d.model.body_mass
    ref = weakref.ref(d.model._owner)
    gc.collect()
    assert ref() is not None  # the Data holds its Model
    d.step(5)
    assert mass[0] > 0
    del d
    assert ref() is not None  # and a view of the model holds it too
    del mass
    assert ref() is None


def test_contacts_structured_view():
    m = box_on_plane(divisions=4)
    d = comply.Data(m).step(200)
    c = d.contacts
    assert c.dtype.itemsize == 144 and c.shape == (d.ncontact,) == (25,)
    assert not c.flags.writeable
    pair = d.pairs[0]
    assert sorted(pair["body"]) == [0, 1] and pair["points"] == 25 and pair["first"] == 0
    assert np.all(c["body"] == [1, 0])  # the box's vertices penetrate the plane
    # the pair's force on its body A is the sum of its contacts' forces on their body A (the
    # box: force along n plus friction), with the opposite sign if the pair's A is the ground
    f = (c["force"][:, None] * c["n"]).sum(axis=0) + c["ftan"].sum(axis=0)
    sign = 1 if pair["body"][0] == 1 else -1
    assert np.allclose(pair["force"], sign * f, rtol=1e-9, atol=1e-12)
    assert f[2] == pytest.approx(0.5 * 9.81, rel=0.01)  # at rest: the weight
    assert np.allclose(c["n"], [0, 0, 1])
    assert np.all(c["dist"] < 0)
    # the per-vertex pressure: force/area at the penetrating vertices of the box, 0 elsewhere
    p, pen = d.vertex_pressure("box")
    assert p.shape == (len(m.body_vertices("box")),)
    hit = c["vert"]
    # atol=0: allclose's default atol of 1e-8 exceeds the penetrations (9.81e-9 m): zeros passed
    assert np.allclose(p[hit], c["force"] / c["area"], rtol=1e-12, atol=0)
    assert np.allclose(pen[hit], -c["dist"], rtol=1e-12, atol=0)
    assert np.count_nonzero(p) == 25
    # the penetrating vertices are the bottom face in world coordinates
    w = d.body_vertices("box")
    assert np.allclose(w[hit, 2], c["p0"][:, 2], atol=1e-15)


def test_scalars_energy_and_momentum():
    """Free flight at v from height z0 under g: after n steps the kinetic and potential energies
    (cm_data_energy) and the momentum follow from the state; the scalars of cmData read through."""
    s = comply.Scene("fall", timestep=1e-3, gravity=(0, 0, -9.81))
    s.add_body("ball", geom="sphere", radius=0.1, refine=1, mass=2.0, position=(0, 0, 5),
               velocity=(1, 0, 0))
    m = s.compile()
    d = comply.Data(m).step(100)
    v = d.body_cvel[0]
    kin, pot = d.energies()
    assert kin == pytest.approx(0.5 * 2.0 * v @ v, rel=1e-12)
    assert pot == pytest.approx(2.0 * 9.81 * d.body_cpos[0, 2], rel=1e-12)
    assert d.energy == pytest.approx(kin + pot, rel=1e-9)  # the monitor's total: no contacts
    p, L = d.momentum()
    assert np.allclose(p, 2.0 * v, rtol=1e-12, atol=0)
    assert d.time == pytest.approx(0.1) and d.nstep == 100 and d.solver_iter == 0
    assert set(d.warnings) >= {"solver_not_converged", "energy_growth"}
    assert not any(d.warnings.values()) and d.warning.shape == (len(d.warnings),)


def test_copy_and_reset():
    m = box_on_plane(divisions=2, z0=0.03)
    d = comply.Data(m).step(50)
    e = d.copy()
    assert e.hash() == d.hash() and e.nstep == 50 and e.ncontact == d.ncontact
    d.step(10)
    e.step(10)
    assert e.hash() == d.hash()
    d.reset()
    assert d.nstep == 0 and d.time == 0 and d.hash() == comply.Data(m).hash()


def test_applied_force_view():
    """d.body_xfrc is the C input: a body of mass m held by m g against gravity stays where it
    is (symplectic Euler: v += h (F/m + g) = 0 exactly when F = -m g); a moment M on the
    isotropic ball spins it at w = M t / J; reset() zeroes the input and it falls again."""
    h = 1e-3
    s = comply.Scene("held", timestep=h, gravity=(0, 0, -9.81))
    s.add_body("ball", geom="sphere", radius=0.1, refine=1, position=(0, 0, 1), mass=2.0,
               inertia=np.eye(3) * 0.008)
    m = s.compile()
    d = comply.Data(m)
    assert d.body_xfrc.shape == (1, 6) and np.all(d.body_xfrc == 0)
    d.body_xfrc[0] = (0, 0, 2.0 * 9.81, 0, 0, 0.004)
    p0 = d.body_cpos[0].copy()  # (0, 0, 1) up to the icosphere's centroid rounding
    d.step(100)
    assert np.array_equal(d.body_cpos[0], p0)
    assert np.array_equal(d.body_cvel[0], [0, 0, 0])
    assert d.body_angvel[0, 2] == pytest.approx(0.004 * 100 * h / 0.008, rel=1e-12)
    c = d.copy()
    assert np.array_equal(c.body_xfrc, d.body_xfrc)
    d.reset()
    assert np.all(d.body_xfrc == 0)
    d.step(10)
    assert d.body_cvel[0, 2] == pytest.approx(-9.81 * 10 * h, rel=1e-12)
