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
