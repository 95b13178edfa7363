"""Shared helpers of the binding tests (tests/python/CMakeLists.txt sets the environment:
PYTHONPATH to python/, COMPLY_LIBRARY to this build's libcomply.so)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("COMPLY_SOURCE_DIR", os.path.normpath(os.path.join(HERE, "..", "..")))
if os.path.join(SOURCE, "python") not in sys.path:
    sys.path.insert(0, os.path.join(SOURCE, "python"))

# fewer repetitions under the sanitizers (as tests/test.h's CM_TEST_SCALE)
SCALE = float(os.environ.get("COMPLY_TEST_SCALE", "1"))


def box_on_plane(divisions=1, h=1e-3, ka=5e10, step_damping=1.0, z0=0.025, vz0=0.0, g=9.81,
                 law="area_compliant", **rule):
    """A 0.1 x 0.1 x 0.05 m box of density 1000 (0.5 kg) over the fixed plane z = 0: ground is
    body 0, the box body 1 (the scene of tests/physics/test_area_compliant.c)."""
    import comply

    s = comply.Scene("box-on-plane", timestep=h, gravity=(0, 0, -g))
    s.add_body("ground", geom="plane", motion="fixed")
    s.add_body("box", geom="box", size=(0.1, 0.1, 0.05), divisions=divisions,
               position=(0, 0, z0), velocity=(0, 0, vz0))
    kw = dict(law=law, **rule)
    if law == "area_compliant":
        kw.update(ka=ka, step_damping=step_damping)
    s.add_rule("*", "*", **kw)
    return s.compile()


@pytest.fixture
def comply_module():
    import comply

    return comply
