"""comply plot and python3 -m comply.plot (python/comply/plot.py, docs/outputs.md "Plots").

A short real run of the built `comply run` (60 steps, frames every 5, VTK on): a 0.1 m box of
density 1000 (m = 1 kg) starting 0.2 mm above the ground and a 0.05 m sphere 0.1 mm above it,
area_compliant with ka = 5e10 N/m^3. What the plots must show is derived, not taken from a run:

  - the box comes to rest on its bottom face: the pair's contact force is m g = 9.81 N (g is the
    default 9.81 m/s^2), its area the face's 0.01 m^2, its mean pressure m g / A = 981 Pa;
  - the law is p = ka d on every vertex of a flat face that sinks evenly, so all 25 vertices of
    the bottom face (divisions 4: a 5 x 5 grid) carry the same pressure, 981 Pa, and the contact
    plane found from them is the face, normal (0, 0, -1) out of the box;
  - no body moves at the end: |v|^2 / 2 falls to ~0.

Every PNG is checked by its header (signature, IHDR size = figure size x 100 dpi), by reading it
back (matplotlib.image.imread), for content (pixel variance > 0, and the first line colour of
matplotlib's cycle, #1f77b4, present where a series is drawn and absent from the plot of a run
without contact), and the error paths by exit status and one-line message without a traceback.

Environment (tests/python/CMakeLists.txt): COMPLY_SOURCE_DIR, and the comply executable as
COMPLY_CLI or next to COMPLY_LIBRARY (both are in the build's top folder).
"""
import importlib.util
import os
import shutil
import struct
import subprocess
import sys

import numpy as np
import pytest

import matplotlib

matplotlib.use("Agg")
import matplotlib.image  # noqa: E402

SRC = os.environ.get("COMPLY_SOURCE_DIR",
                     os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
PYDIR = os.path.join(SRC, "python")
PLOT_PY = os.path.join(PYDIR, "comply", "plot.py")


def _cli():
    cli = os.environ.get("COMPLY_CLI")
    if not cli and os.environ.get("COMPLY_LIBRARY"):
        cli = os.path.join(os.path.dirname(os.environ["COMPLY_LIBRARY"]), "comply")
    if not cli or not os.access(cli, os.X_OK):
        pytest.fail("the comply executable: set COMPLY_CLI (or COMPLY_LIBRARY, next to which it "
                    "is built); got %r" % cli)
    return cli


SCENE = """\
scene: {name: plot_test, timestep: 1.0e-3, steps: 60}
output: {vtk: %s, every: 5}
bodies:
  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}
  - {name: box, geometry: {box: {size: [0.1, 0.1, 0.1], divisions: 4}}, position: [0, 0, 0.0502]}
  - {name: ball, geometry: {sphere: {radius: 0.05, refine: 2}}, position: [0.3, 0, 0.0501]}
interactions:
  - {pair: ["*", "*"], law: area_compliant, ka: 5.0e10}
"""

# a run with no contact: one ball in free flight
FREE = """\
scene: {name: free, timestep: 1.0e-3, steps: 20}
output: {every: 5}
bodies:
  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}
  - {name: ball, geometry: {sphere: {radius: 0.05, refine: 1}}, position: [0, 0, 1]}
"""

TIME_PLOTS = ["contact_force.png", "penetration.png", "pressure.png", "energy.png"]
BLUE = np.array([0x1f, 0x77, 0xb4]) / 255.0


# the child processes without the sanitizer runtime that tests/python/CMakeLists.txt preloads for
# the bindings: plot.py never loads the instrumented library, and the ASan build's comply is
# linked with the runtime itself; under the preload each interpreter started 3-4 times slower
ENV = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}


def _run_scene(tmp, name, text):
    scene = os.path.join(tmp, name + ".yaml")
    with open(scene, "w") as f:
        f.write(text)
    out = os.path.join(tmp, name)
    r = subprocess.run([_cli(), "run", scene, "-o", out, "--quiet"], capture_output=True,
                       text=True, env=ENV, timeout=60)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = str(tmp_path_factory.mktemp("plot"))
    return {"tmp": tmp, "vtk": _run_scene(tmp, "vtk", SCENE % "true"),
            "novtk": _run_scene(tmp, "novtk", SCENE % "false"),
            "free": _run_scene(tmp, "free", FREE)}


def plot_module(*args, env=None):
    """python3 -m comply.plot ARGS with the source tree's package"""
    e = dict(ENV, PYTHONPATH=PYDIR)
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "comply.plot", *args], capture_output=True,
                          text=True, env=e, timeout=60)


def plot_cli(*args, env=None):
    e = dict(ENV, COMPLY_PYTHON=sys.executable)
    e.update(env or {})
    return subprocess.run([_cli(), "plot", *args], capture_output=True, text=True, env=e,
                          timeout=60)


_PLOT = []


def load_plot():
    """plot.py loaded from its file (not through the package), numpy and pyplot set up"""
    if not _PLOT:
        spec = importlib.util.spec_from_file_location("comply_plot_under_test", PLOT_PY)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        mod.np, mod.plt = mod._import_numpy_matplotlib()
        _PLOT.append(mod)
    return _PLOT[0]


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def plot_main(capsys):
    """plot.py's main(ARGS) in this process (no interpreter start per call): exit status, stdout,
    stderr; an exception other than argparse's exit fails the test (it would be a traceback)"""
    def call(*args):
        capsys.readouterr()
        try:
            rc = load_plot().main(list(args))
        except SystemExit as e:
            rc = e.code
        out = capsys.readouterr()
        return Result(rc, out.out, out.err)
    return call


def check_png(path, width, height):
    """a PNG of that size, read back, not blank; returns its pixels (rows x cols x RGBA)"""
    assert os.path.getsize(path) > 5000, path
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", path
    assert struct.unpack(">II", head[16:24]) == (width, height), path
    img = matplotlib.image.imread(path)
    assert img.shape[:2] == (height, width), path
    assert float(img[..., :3].var()) > 1e-3, "%s is blank" % path
    return img


def blue_pixels(img):
    return int(np.sum(np.all(np.abs(img[..., :3] - BLUE) < 0.03, axis=2)))


def test_plots_written_by_the_cli(runs, tmp_path):
    png = str(tmp_path / "png")
    r = plot_cli(runs["vtk"], "-o", png)
    assert r.returncode == 0, r.stderr
    written = r.stdout.split()
    # the default map: the frame of the largest pressure, the ball's one contact vertex
    assert written == [os.path.join(png, n) for n in TIME_PLOTS] + [
        os.path.join(png, n) for n in os.listdir(png) if n.startswith("pressure_map_ball_")]
    for name in TIME_PLOTS:
        img = check_png(os.path.join(png, name), 800, 450)
        assert blue_pixels(img) > 100, "%s: no series drawn" % name
    check_png(written[-1], 700, 600)


def test_default_output_dir(runs):
    r = plot_module(runs["novtk"])
    assert r.returncode == 0, r.stderr
    png = os.path.join(runs["novtk"], "plots")
    assert sorted(os.listdir(png)) == sorted(TIME_PLOTS)
    # no VTK series: the time plots and a note, no map
    assert "no pressure map" in r.stderr and "vtk: true" in r.stderr
    assert "Traceback" not in r.stderr


def test_pressure_map_at_a_chosen_step(runs, tmp_path):
    png = str(tmp_path / "png")
    r = plot_cli(runs["vtk"], "-o", png, "--step", "40", "--body", "box")
    assert r.returncode == 0, r.stderr
    path = os.path.join(png, "pressure_map_box_40.png")
    assert r.stdout.split()[-1] == path
    img = check_png(path, 700, 600)
    # the uniform pressure colours the face with the top of the colour map (viridis yellow)
    yellow = np.all(np.abs(img[..., :3] - np.array([0.993, 0.906, 0.144])) < 0.06, axis=2)
    assert yellow.sum() > 2000


def test_pressure_map_data(runs):
    """the numbers behind the map: 25 vertices at m g / A, the plane of the bottom face"""
    p = load_plot()
    run = p.Run(runs["vtk"])
    files = p.vtk_files(run)
    points, tri, pres = p.read_vtu(files[("box", 40)])
    pressed = pres > 0
    assert pressed.sum() == 25
    assert np.allclose(pres[pressed], 1.0 * 9.81 / 0.01, rtol=1e-3)
    assert np.allclose(points[pressed, 2], points[pressed, 2].mean(), atol=1e-9)
    n, _ = p._contact_plane(points, tri, pressed)
    assert np.allclose(n, [0, 0, -1], atol=1e-9)
    # the time series: force m g, area 0.01 m^2 at the end; bodies at rest
    box = ("ground", "box")
    assert run.pair_series(box, run.c_force)[-1] == pytest.approx(9.81, rel=1e-6)
    assert run.pair_series(box, run.c_area)[-1] == pytest.approx(0.01, rel=1e-9)
    assert run.pair_series(box, run.c_force)[0] == 0  # frame 0: no contact yet
    assert np.max(0.5 * np.sum(run.vel[-1] ** 2, axis=1)) < 1e-6


def test_no_contact(runs, tmp_path, plot_main):
    png = str(tmp_path / "png")
    r = plot_main(runs["free"], "-o", png)
    assert r.returncode == 0, r.stderr
    img = check_png(os.path.join(png, "contact_force.png"), 800, 450)
    assert blue_pixels(img) == 0  # no series: only the note "no contact in this run"
    assert blue_pixels(check_png(os.path.join(png, "energy.png"), 800, 450)) > 100


def test_pair_and_body_filters(runs, tmp_path, plot_main):
    png = str(tmp_path / "png")
    r = plot_main(runs["vtk"], "-o", png, "--pair", "box,ground")
    assert r.returncode == 0, r.stderr
    # the map of the pair alone: the box, at its frame of largest pressure
    assert os.path.basename(r.stdout.split()[-1]).startswith("pressure_map_box_")


def test_without_the_library(runs, tmp_path):
    """plot.py needs no part of the bindings or the C library"""
    code = ("import sys, comply.plot as p; rc = p.main([%r, '-o', %r]); "
            "bad = [m for m in sys.modules if m in ('comply._lib', 'comply._core')]; "
            "bad += ['libcomply'] * ('libcomply' in open('/proc/self/maps').read()); "
            "print('loaded:', bad); sys.exit(rc or (3 if bad else 0))"
            % (runs["vtk"], str(tmp_path / "png")))
    env = dict(ENV, PYTHONPATH=PYDIR, COMPLY_LIBRARY="/nonexistent/libcomply.so")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr


def _error(r, status, *words):
    assert r.returncode == status, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith("comply: "), r.stderr  # as every other command's messages
    for w in words:
        assert w in r.stderr, (w, r.stderr)


def test_missing_directory(tmp_path):
    missing = str(tmp_path / "nothing")
    _error(plot_module(missing), 2, missing, "no such directory")
    _error(plot_cli(missing), 2, missing, "no such directory")


def test_missing_files(runs, tmp_path, plot_main):
    d = tmp_path / "partial"
    d.mkdir()
    _error(plot_main(str(d)), 2, os.path.join(str(d), "bodies.csv"), "no such file")
    _error(plot_cli(str(d)), 2, os.path.join(str(d), "bodies.csv"), "no such file")
    shutil.copy(os.path.join(runs["vtk"], "bodies.csv"), str(d))
    _error(plot_main(str(d)), 2, os.path.join(str(d), "contacts.csv"), "no such file")
    # a column missing, a field that is not a number
    with open(os.path.join(runs["vtk"], "contacts.csv")) as f:
        lines = f.read().splitlines()
    with open(str(d / "contacts.csv"), "w") as f:
        f.write("\n".join([lines[0].replace(",max_pressure", "")] + lines[1:]) + "\n")
    _error(plot_main(str(d)), 2, "contacts.csv", "max_pressure")
    with open(str(d / "contacts.csv"), "w") as f:
        f.write("\n".join(lines[:2] + [lines[2].replace(",25,", ",x,", 1)]) + "\n")
    _error(plot_main(str(d)), 2, "contacts.csv line 3", "'points'", "'x'")
    # the pressure map asked for, without the VTK series
    _error(plot_main(runs["novtk"], "--step", "40", "-o", str(tmp_path / "png")), 2,
           "scene.pvd", "vtk: true")
    # bodies.csv cut after its first frames, contacts.csv whole: a contact at a step that is no
    # frame (an IndexError traceback, exit 1)
    cut = tmp_path / "cut"
    cut.mkdir()
    shutil.copy(os.path.join(runs["vtk"], "contacts.csv"), str(cut))
    with open(os.path.join(runs["vtk"], "bodies.csv")) as f:
        blines = f.read().splitlines()
    with open(str(cut / "bodies.csv"), "w") as f:
        f.write("\n".join(blines[:3]) + "\n")
    _error(plot_main(str(cut)), 2, "contacts.csv line", "is not a frame of")


def test_bad_step_body_pair(runs, tmp_path, plot_main):
    png = str(tmp_path / "png")
    _error(plot_cli(runs["vtk"], "-o", png, "--step", "1000"), 2, "step 1000 is out of range",
           "steps 0 to 60")
    for args, words in [
            (("--step", "42"), ("step 42 is not a frame", "40 and 45")),
            (("--step", "0", "--body", "box"), ("no vertex with pressure", "step 0")),
            (("--body", "ground", "--step", "40"), ("no VTK file of body 'ground'",)),
            (("--body", "nobody"), ("no body 'nobody'", "ground, box, ball")),
            (("--pair", "box,ball"), ("never in contact", "ground,box")),
            (("--pair", "box"), ("two body names",)),
            (("--pair", "box,ground", "--body", "ball"), ("not one of --pair",)),
            (("--step", "x"), ("invalid int value",))]:
        _error(plot_main(runs["vtk"], "-o", png, *args), 2, *words)
    assert not os.path.exists(png)  # nothing written on an error


def test_cli_help_and_interpreter(runs, tmp_path):
    r = subprocess.run([_cli(), "help", "plot"], capture_output=True, text=True, env=ENV,
                       timeout=30)
    assert r.returncode == 0 and r.stdout.startswith("usage: comply plot OUT")
    r = subprocess.run([_cli(), "help"], capture_output=True, text=True, env=ENV, timeout=30)
    assert "comply plot OUT" in r.stdout
    _error(plot_cli(), 2, "missing the output directory")
    # no interpreter: exit 1 and what to install
    _error(plot_cli(runs["vtk"], env={"COMPLY_PYTHON": str(tmp_path / "no-python")}), 1,
           "cannot run", "python3-matplotlib")
    # an interpreter without matplotlib (a package that fails to import, first on PYTHONPATH,
    # which the command keeps after the comply package's folder)
    fake = tmp_path / "fake" / "matplotlib"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'matplotlib'\")\n")
    _error(plot_cli(runs["vtk"], env={"PYTHONPATH": str(tmp_path / "fake")}), 1, "matplotlib",
           "python3-matplotlib")


def test_installed_tree(tmp_path):
    """an installed tree, moved elsewhere, plots with its own copy of the package (found from the
    executable's place: BIN/../lib/python3/dist-packages), not the source tree's"""
    cmake = shutil.which("cmake")
    build = os.path.dirname(_cli())
    if not cmake or not os.path.exists(os.path.join(build, "cmake_install.cmake")):
        pytest.skip("no cmake or no build tree next to the comply executable")
    prefix = str(tmp_path / "prefix")
    r = subprocess.run([cmake, "--install", build, "--prefix", prefix], capture_output=True,
                       text=True, env=ENV, timeout=120)
    assert r.returncode == 0, r.stderr
    moved = str(tmp_path / "moved")
    os.rename(prefix, moved)
    out = _run_scene(str(tmp_path), "free", FREE)
    wrap = tmp_path / "python-wrapper"
    wrap.write_text('#!/bin/sh\necho "PYTHONPATH=$PYTHONPATH" >&2\nexec %s "$@"\n'
                    % sys.executable)
    wrap.chmod(0o755)
    r = subprocess.run([os.path.join(moved, "bin", "comply"), "plot", out],
                       capture_output=True, text=True, timeout=60,
                       env=dict(ENV, COMPLY_PYTHON=str(wrap), PYTHONPATH=""))
    assert r.returncode == 0, r.stderr
    pydir = "lib/python3/dist-packages"  # COMPLY_PYTHON_INSTALL_DIR, from the build's cache
    with open(os.path.join(build, "CMakeCache.txt")) as f:
        for line in f:
            if line.startswith("COMPLY_PYTHON_INSTALL_DIR:"):
                pydir = line.split("=", 1)[1].strip()
    pkg = os.path.join(moved, "bin", "..", pydir)
    assert "PYTHONPATH=%s\n" % pkg in r.stderr, r.stderr
    assert os.path.isfile(os.path.join(pkg, "comply", "plot.py"))
    assert len(r.stdout.split()) == 4  # the time plots (no VTK: no map)


def test_cli_interrupted(runs, tmp_path):
    """Ctrl-C (SIGINT to the process group): the command waits for its child and exits with the
    child's status, 128 + 2 (killed by the signal itself, it would end by the signal: -2 here)"""
    import signal
    import time

    wrap = tmp_path / "slow-python"
    wrap.write_text("#!/bin/sh\nsleep 30\nexec %s \"$@\"\n" % sys.executable)
    wrap.chmod(0o755)
    p = subprocess.Popen([_cli(), "plot", runs["free"]], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True,
                         env=dict(ENV, COMPLY_PYTHON=str(wrap)),
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(0.5)
    os.killpg(p.pid, signal.SIGINT)
    p.communicate(timeout=30)
    assert p.returncode == 130
