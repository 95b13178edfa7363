"""Every example of examples/python runs (at its --quick size) and says what it should: the
calibrated ka of a flat box is W / (A delta) (P3), the contact-time sweep stays within 2 % of the
analytic curve, the pressure map balances the load; the PNGs are written headless (Agg)."""
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.environ.get("COMPLY_SOURCE_DIR", os.path.normpath(os.path.join(HERE, "..", "..")))
EXAMPLES = os.path.join(SOURCE, "examples", "python")


def run(name, *args):
    env = dict(os.environ, MPLBACKEND="Agg")
    env.pop("DISPLAY", None)
    r = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--quick", *args],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def test_every_example_is_tested():
    tested = {"calibrate_ka.py", "restitution_sweep.py", "pressure_map.py"}
    assert {f for f in os.listdir(EXAMPLES) if f.endswith(".py")} == tested


def test_calibrate_ka():
    out = run("calibrate_ka.py", "--target", "2e-4")
    # the box: ka = m g / (A delta) = 0.5 * 9.81 / (0.01 * 2e-4) = 2.4525e6 N/m^3
    box = float(re.search(r"box: ka = (\S+) N/m\^3", out).group(1))
    assert box == pytest.approx(0.5 * 9.81 / (0.01 * 2e-4), rel=0.01)
    assert re.search(r"sphere \(refine \d\): ka = \S+", out)


def test_restitution_sweep(tmp_path):
    png = tmp_path / "sweep.png"
    out = run("restitution_sweep.py", "--png", str(png))
    worst = float(re.search(r"largest deviation from the analytic curve: (\S+) %", out).group(1))
    assert worst < 2.0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000


def test_pressure_map(tmp_path):
    png = tmp_path / "map.png"
    out = run("pressure_map.py", "--png", str(png))
    f, w = map(float, re.search(r"contact force (\S+) N \(equilibrium: (\S+) N\)", out).groups())
    assert f == pytest.approx(w, rel=0.01)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 10000
