"""The remaining calls of Data: collide() (detection without dynamics: the contacts of the
current pose, forces zero), point_inside, checkpoints (a restart continues bit for bit) and one
body's VTK file."""
import numpy as np
import pytest

from conftest import box_on_plane

import comply


def test_collide_without_dynamics():
    # the box starts 1e-4 m into the plane: detection alone finds the 4 corners at that depth
    m = box_on_plane(z0=0.025 - 1e-4)
    d = comply.Data(m).collide()
    c = d.contacts
    assert d.nstep == 0 and d.ncontact == 4
    assert np.allclose(c["dist"], -1e-4, rtol=1e-9, atol=0)  # (the default atol was 1e-4 of it)
    assert np.all(c["force"] == 0)
    assert c["area"].sum() == pytest.approx(0.01, rel=1e-12)  # the bottom face, m^2
    assert d.point_inside("box", (0, 0, 0.02)) and not d.point_inside("box", (0, 0, 0.1))
    assert d.point_inside("ground", (5, 5, -1)) and not d.point_inside("ground", (0, 0, 1))


def test_checkpoint_restart_is_bit_identical(tmp_path):
    m = box_on_plane(divisions=2, z0=0.03)
    d = comply.Data(m).step(40)
    path = str(tmp_path / "state.ckpt")
    d.save_checkpoint(path)
    d.step(30)
    e = comply.Data(m).load_checkpoint(path)
    assert e.nstep == 40
    e.step(30)
    assert e.hash() == d.hash()
    with pytest.raises(comply.ParseError, match="bad.ckpt"):
        (tmp_path / "bad.ckpt").write_bytes(b"not a checkpoint")
        e.load_checkpoint(str(tmp_path / "bad.ckpt"))


def test_checkpoint_of_another_version_of_the_scene(tmp_path):
    # the header through checkpoint_info; a model with the same bodies and another friction
    # loads the state with a CheckpointWarning and steps on with its own friction; the same
    # model loads it without one
    m = box_on_plane(divisions=2, z0=0.03)
    d = comply.Data(m).step(40)
    path = str(tmp_path / "state.ckpt")
    d.save_checkpoint(path)
    info = comply.checkpoint_info(path)
    assert info["step"] == 40 and info["nbody"] == m.nbody and info["timestep"] == m.timestep
    assert info["time"] == d.time
    assert (info["model_fingerprint"], info["scene_fingerprint"]) == (m.fingerprint,
                                                                      m.scene_fingerprint)
    other = box_on_plane(divisions=2, z0=0.03, friction=0.9)
    assert other.fingerprint == m.fingerprint and other.scene_fingerprint != m.scene_fingerprint
    with pytest.warns(comply.CheckpointWarning, match="another version of this scene"):
        e = comply.Data(other).load_checkpoint(path)
    assert e.nstep == 40 and e.hash() == comply.Data(m).load_checkpoint(path).hash()
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        comply.Data(m).load_checkpoint(path)
    with pytest.raises(comply.ParseError, match="bad.ckpt"):
        (tmp_path / "bad.ckpt").write_bytes(b"not a checkpoint")
        comply.checkpoint_info(str(tmp_path / "bad.ckpt"))


def test_write_vtk(tmp_path):
    m = box_on_plane(divisions=2)
    d = comply.Data(m).step(5)
    path = tmp_path / "box.vtu"
    d.write_vtk("box", str(path))
    text = path.read_text()
    assert text.startswith("<?xml") and "UnstructuredGrid" in text and 'Name="pressure"' in text
    with pytest.raises(comply.ArgumentError):
        d.write_vtk("ground", str(tmp_path / "plane.vtu"))  # a plane has no mesh
