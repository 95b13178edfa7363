"""Claims P1 and P3 of SPEC 6 and the contact-time restitution, recomputed through the bindings.

P3 (resting penetration). A box of weight W = m g resting on a plane with the area_compliant
law: at rest every contact row carries ka A_k delta, and the rows sum to the weight, so
delta = W / (ka A) whatever the subdivision of the face, with a uniform pressure ka delta
(tests/physics/test_area_compliant.c derives it; within 1 % as SPEC 6 states P3).

P1 (restitution). A light body on a stiff contact (K h^2 >> m): the first contact step sets the
outward velocity to theta v0 / (0.5 + s), theta the fraction of the step by which it first
penetrates; averaged over theta uniform on (0, 1) the restitution is 0.5 / (0.5 + s). With 16
phases at their midpoints the mean is exact for a law linear in theta; SPEC 6 allows 3 %.

Contact time. The contact_time law is a spring-dashpot that never pulls: x'' = -w^2 x - 2 zeta w x'
with w = pi/T, zeta = -ln(e_r)/pi, leaving when the force w^2 x + 2 zeta w x' reaches 0. With
x = (v0/wd) e^(-zeta w t) sin(wd t), wd = w sqrt(1 - zeta^2), the force vanishes at phase
s* = wd t* = pi - atan(2 zeta sqrt(1 - zeta^2) / (1 - 2 zeta^2)) (zeta < 1/sqrt 2), where the
velocity over v0 is -e^(-zeta s*/sqrt(1 - zeta^2)) (cos s* - zeta/sqrt(1 - zeta^2) sin s*). The
test derives that here, checks that the library's cm_advise_contact_time_restitution agrees
with it, and that a dropped flat box rebounds with it (2 % as tests/physics/test_contact_time.c:
the explicit step's error is of order h/T).
"""
import math

import numpy as np
import pytest

from conftest import SCALE, box_on_plane

import comply


def clamped_restitution(er):
    zeta = -math.log(er) / math.pi
    sq = math.sqrt(1 - zeta * zeta)
    s = math.pi - math.atan(2 * zeta * sq / (1 - 2 * zeta * zeta))
    return -math.exp(-zeta * s / sq) * (math.cos(s) - zeta / sq * math.sin(s)), s / sq / math.pi


@pytest.mark.parametrize("divisions", [2, 8, 32])
def test_p3_resting_penetration(divisions):
    ka, m, g, A = 5e10, 0.5, 9.81, 0.01
    W = m * g
    expect = W / (ka * A)  # 9.81e-9 m
    model = box_on_plane(divisions=divisions, ka=ka)
    assert model.body_mass[1] == pytest.approx(0.1 * 0.1 * 0.05 * 1000, rel=1e-12)
    d = comply.Data(model)
    d.step(300)
    c = d.contacts
    assert d.ncontact == (divisions + 1) ** 2
    # exact to 1e-6, as the C test (physics/test_area_compliant; it allowed 1 %)
    assert d.pairs["max_penetration"][0] == pytest.approx(expect, rel=1e-6)
    assert c["force"].sum() == pytest.approx(W, rel=1e-6)
    p = d.contact_pressure
    assert p.max() <= p.min() * (1 + 1e-6)
    assert p.max() == pytest.approx(ka * expect, rel=1e-6)
    assert d.warnings["solver_not_converged"] == 0


@pytest.mark.parametrize("s", [0.5, 1.0, 2.0])
def test_p1_restitution(s):
    h, v0, m, A = 1e-3, 1.0, 0.5, 0.01
    ka = 1000 * m / (A * h * h)  # K h^2 = 1000 m: stiff and light
    N = 16
    e = []
    for k in range(N):
        theta = (k + 0.5) / N
        model = box_on_plane(h=h, ka=ka, step_damping=s, g=0.0,
                             z0=0.025 + (1 - theta) * h * v0 + 1e-15, vz0=-v0)
        d = comply.Data(model).step(20)
        e.append(d.body_xvel[1, 2] / v0)
    expect = 0.5 / (0.5 + s)
    assert comply.area_compliant_restitution(s) == pytest.approx(expect, rel=1e-12)
    assert np.mean(e) == pytest.approx(expect, rel=0.03)


def test_contact_time_analytic_matches_library():
    for er in (0.2, 0.5, 0.8, 0.95):
        e, dur = clamped_restitution(er)
        assert comply.contact_time_restitution(er) == pytest.approx(e, rel=1e-9)
        assert comply.contact_time_duration(er) == pytest.approx(dur, rel=1e-9)
    e, dur = clamped_restitution(0.5)
    assert e == pytest.approx(0.5433, abs=1e-4)  # the documented value
    assert dur == pytest.approx(0.880, abs=1e-3)


@pytest.mark.parametrize("er", [0.3, 0.5, 0.9])
def test_contact_time_drop(er):
    """A flat box dropped at v0 onto the plane with T = 0.1 s, h = 1e-3 s (the scene of
    tests/physics/test_contact_time.c)."""
    T, v0, h = 0.1, 0.1, 1e-3
    s = comply.Scene("drop", timestep=h, gravity=(0, 0, 0))
    s.add_body("ground", geom="plane", motion="fixed")
    s.add_body("box", geom="box", size=(0.1, 0.08, 0.06), divisions=1,
               position=(0, 0, 0.03 + v0 * 2.5 * h), velocity=(0, 0, -v0))
    s.add_rule("*", "*", law="contact_time", contact_time=T, elastic_repulsion=er)
    d = comply.Data(s.compile())
    started, e, steps = False, None, 0
    for _ in range(400):
        d.step()
        pushing = d.npair > 0 and d.pairs["force"][0, 2] < 0  # force on the ground is down
        if pushing:
            started, steps = True, steps + 1
        elif started:
            e = d.body_cvel[1, 2] / v0
            break
    predicted, dur = clamped_restitution(er)
    assert e == pytest.approx(predicted, rel=0.02)
    assert abs(steps * h - dur * T) <= 2 * h  # whole steps: one at each end (it allowed 5 %)


def test_min_period_softened_rest():
    """A rule's min_period through the bindings (docs/contact-laws.md, "Softened contacts:
    min_period"): the 0.5 kg box (divisions 1) on its four corners at ka 5e10 rings far faster
    than 40 steps of 1 ms, so its rows are scaled until sum K w = cap = (2 pi / (40 h))^2, with
    w = 1/m + ry^2/Ixx + rx^2/Iyy the same at the four corners: the rows sum to cap / w, and the
    box rests at m g w / cap (step_damping 20: settled within the 1.5 s)."""
    m, g, h, beta = 0.5, 9.81, 1e-3, 40.0
    ixx = m * (0.1 ** 2 + 0.05 ** 2) / 12
    w = 1 / m + 0.05 ** 2 / ixx + 0.05 ** 2 / ixx
    cap = (2 * math.pi / (beta * h)) ** 2
    model = box_on_plane(z0=0.025 - 1e-9, min_period=beta, step_damping=20.0)
    d = comply.Data(model).step(1500)
    assert 0.025 - d.body_xpos[1, 2] == pytest.approx(m * g * w / cap, rel=1e-6)
    assert d.soft_rows == 4 * 1500 and 0 < d.soft_factor < 1e-4
    unsoft = comply.Data(box_on_plane(z0=0.025 - 1e-9)).step(10)
    assert unsoft.soft_rows == 0 and unsoft.soft_factor == 0
