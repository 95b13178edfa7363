"""The installed package finds the library installed with it: `cmake --install --component
python` into a temporary prefix writes comply/ with a _paths.py naming PREFIX/LIBDIR's
libcomply.so.0; with the library placed there (as the full install does) and COMPLY_LIBRARY
unset, `import comply` from the prefix loads it and runs a scene. The tree is then moved: the
path is relative, so the moved copy still works."""
import os
import shutil
import subprocess
import sys

import pytest

BUILD = os.environ.get("COMPLY_BINARY_DIR")
LIB = os.environ.get("COMPLY_LIBRARY")

CODE = """
import comply, comply._lib as L
s = comply.Scene('s')
s.add_body('ball', geom='sphere', radius=0.1, refine=1)
d = comply.Data(s.compile()).step(10)
print(comply.__file__)
print(L.library()._name)
"""


def find(prefix, name):
    for root, _, files in os.walk(prefix):
        if name in files:
            return os.path.join(root, name)
    return None


def test_installed_package_loads_its_library(tmp_path):
    if not BUILD or not LIB:
        pytest.fail("COMPLY_BINARY_DIR and COMPLY_LIBRARY must be set "
                    "(tests/python/CMakeLists.txt)")
    prefix = tmp_path / "prefix"
    cmake = os.environ.get("COMPLY_CMAKE", "cmake")
    subprocess.run([cmake, "--install", BUILD, "--prefix", str(prefix), "--component", "python"],
                   check=True, capture_output=True)
    paths = find(prefix, "_paths.py")
    assert paths, "no _paths.py installed"
    pkg = os.path.dirname(paths)
    assert os.path.exists(os.path.join(pkg, "__init__.py"))
    ns = {"__file__": paths}
    exec(open(paths).read(), ns)
    target = ns["LIBRARY"]
    assert target.startswith(str(prefix)) and target.endswith("libcomply.so.0"), target
    os.makedirs(os.path.dirname(target), exist_ok=True)
    shutil.copy(LIB, target)  # what the full install puts there
    for root in (prefix, tmp_path / "moved"):
        if root != prefix:
            shutil.move(str(prefix), str(root))
        env = {k: v for k, v in os.environ.items() if k not in ("COMPLY_LIBRARY", "PYTHONPATH")}
        env["PYTHONPATH"] = os.path.dirname(pkg.replace(str(prefix), str(root)))
        r = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                           cwd=str(tmp_path))
        assert r.returncode == 0, r.stderr
        init, loaded = r.stdout.split()
        assert init.startswith(str(root)) and os.path.realpath(loaded).startswith(str(root))
