"""Errors of the C API raise comply.Error subclasses carrying the library's located text."""
import math

import numpy as np
import pytest

from conftest import box_on_plane

import comply

BAD = """scene:
  timestep: 0.001
bodies:
  - name: ball
    geometry: {sphere: {radius: 0.1}}
    mass: -2
"""


def test_bad_yaml_file_names_file_and_line(tmp_path):
    path = tmp_path / "bad_scene.yaml"
    path.write_text(BAD)
    with pytest.raises(comply.Error) as info:
        comply.load(str(path))
    text = str(info.value)
    assert isinstance(info.value, comply.ArgumentError)  # CM_ERR_ARG: a bad value
    assert str(path) + ":6:" in text  # file:line of `mass: -2`
    assert "mass" in text
    assert info.value.message == text and info.value.status == 1


def test_malformed_yaml_is_a_parse_error(tmp_path):
    path = tmp_path / "broken.yaml"
    path.write_text("scene:\n  timestep: [1, 2\n")
    with pytest.raises(comply.ParseError) as info:
        comply.Scene.load(str(path))
    assert str(path) + ":" in str(info.value)


def test_unknown_key_and_missing_file(tmp_path):
    with pytest.raises(comply.Error, match=r"inline\.yaml:2:3: .*timestepp"):
        comply.Scene.parse("scene:\n  timestepp: 0.001\n", "inline.yaml")
    with pytest.raises(comply.FileError, match="nowhere.yaml"):
        comply.load(str(tmp_path / "nowhere.yaml"))


def test_builder_errors():
    s = comply.Scene("b")
    with pytest.raises(comply.ArgumentError, match="radius"):
        s.add_body("ball", geom="sphere", radius=-1.0)
    with pytest.raises(comply.ArgumentError, match="law must be one of"):
        s.add_rule("*", "*", law="springy")
    with pytest.raises(comply.ArgumentError, match="no field 'colour'"):
        s.add_body("ball", colour=3)
    s.add_body("ball", geom="sphere", radius=0.1)
    with pytest.raises(comply.ArgumentError, match="ball"):
        s.add_body("ball", geom="sphere", radius=0.1)  # duplicate name


def test_failed_step_raises_and_keeps_state():
    m = box_on_plane()
    d = comply.Data(m).step(5)
    good = d.hash()
    d.body_cvel[1, 0] = math.nan
    with pytest.raises(comply.ArgumentError) as info:  # refused before the step: CM_ERR_ARG
        d.step()
    assert info.value.message == d.message
    assert "written non-finite by the caller" in d.message and "'box'" in d.message
    assert d.nstep == 5
    d.body_cvel[1, 0] = 0.0
    assert d.hash() == good
    d.step()
    assert d.nstep == 6 and np.all(np.isfinite(d.body_cpos))


def test_python_layer_refusals(tmp_path):
    # found by an audit of the bindings (2026-12-07); each crashed or misled before
    import copy

    s = comply.Scene("s")
    with pytest.raises(TypeError):
        copy.copy(s)  # shared the C scene: freed twice, a crash
    with pytest.raises(TypeError):
        copy.deepcopy(s)
    # a NUL inside a string passed to C cut it there: 'state\0.ckpt' wrote 'state'
    with pytest.raises(comply.ArgumentError, match="NUL"):
        s.add_body("a\0b", geom="sphere", radius=0.1)
    m = box_on_plane()
    d = m.data()
    with pytest.raises(comply.ArgumentError, match="NUL"):
        d.save_checkpoint(str(tmp_path / "state\0.ckpt"))
    assert not (tmp_path / "state").exists()
    # one Data listed twice: two threads would step it at once (a crash)
    with pytest.raises(comply.ArgumentError, match="listed twice"):
        comply.step_parallel([d, d], 5)
    assert d.nstep == 0


def test_step_parallel_interrupted():
    # Ctrl-C during step_parallel: the KeyboardInterrupt reaches the caller once every thread
    # has stopped after its current step (they went on stepping the caller's Data for the
    # whole n, and the interpreter could not exit)
    import signal
    import threading
    import time

    m = box_on_plane()
    datas = [m.data() for _ in range(2)]
    main = threading.get_ident()
    timer = threading.Timer(0.3, lambda: signal.pthread_kill(main, signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        comply.step_parallel(datas, 10 ** 8, threads=2)
    assert time.monotonic() - t0 < 30
    steps = [d.nstep for d in datas]
    assert all(0 < n < 10 ** 8 for n in steps)
    time.sleep(0.2)
    assert [d.nstep for d in datas] == steps  # nothing steps behind the caller's back
    assert threading.active_count() == 1


def test_read_only_arrays_stay_read_only():
    # a read-only model or derived array cannot be made writable (its flag could be set again,
    # or its base written: a geom_vertadr written that way crashed the next step)
    m = box_on_plane()
    d = m.data()
    for a in (m.geom_vertadr, m.body_mass, d.body_xpos):
        with pytest.raises(ValueError):
            a.flags.writeable = True
        with pytest.raises((TypeError, ValueError)):
            a.base[0] = 1
    assert d.step(3).nstep == 3
    # the state stays writable
    d.body_cvel[1, 0] = 0.5
    assert d.body_cvel[1, 0] == 0.5


def test_views_cannot_be_rebound():
    # assigning to a view or a scalar bound a Python attribute and left the C data as it was
    m = box_on_plane()
    d = m.data()
    with pytest.raises(AttributeError, match="write into it"):
        d.body_cvel = np.zeros((2, 3))
    with pytest.raises(AttributeError, match="cannot be set"):
        d.time = 5.0
    with pytest.raises(AttributeError, match="read-only"):
        m.body_mass = np.ones(2)
    d.body_cvel[:] = 0.0  # writing into the view is the way
    d.user_note = "free attributes are still allowed"
    assert d.step(2).time == pytest.approx(2e-3)


def test_integers_out_of_their_c_range():
    # ctypes wrapped an integer beyond its C field (steps 2**64 + 7 ran 7 steps, motion 2**32 + 1
    # was `fixed`) and truncated a float (2.7 divisions became 2)
    with pytest.raises(comply.ArgumentError, match="steps must be an integer"):
        comply.Scene("s", steps=2 ** 64 + 7)
    with pytest.raises(comply.ArgumentError, match="substeps must be an integer"):
        comply.Scene("s", substeps=2.0)
    s = comply.Scene("s", steps=10, allow_initial_overlap=True)  # a bool is an integer
    with pytest.raises(comply.ArgumentError, match="motion must be one of"):
        s.add_body("b", geom="sphere", radius=0.1, motion=2 ** 32 + 1)
    with pytest.raises(comply.ArgumentError, match="divisions must be an integer"):
        s.add_body("c", geom="box", size=(1, 1, 1), divisions=2.7)
    # deformable cells and mesh face indices the same
    with pytest.raises(comply.ArgumentError, match="cells must be one integer or three"):
        s.add_body("d", geom="box", size=(1, 1, 1), motion="deformable",
                   deformable={"cells": 2.7})
    verts = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    faces = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])
    with pytest.raises(comply.ArgumentError, match="faces must be integer vertex indices"):
        s.add_body("e", geom="mesh", vertices=verts, faces=faces + 2 ** 32)
    with pytest.raises(comply.ArgumentError, match="faces must be integer vertex indices"):
        s.add_body("f", geom="mesh", vertices=verts, faces=faces + 0.9)
    s.add_body("g", geom="mesh", vertices=verts, faces=faces)
