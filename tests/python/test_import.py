"""`import comply` needs neither numpy nor the library (the plot module imports the package);
a missing library is reported when a binding is used, naming COMPLY_LIBRARY."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.join(os.environ.get("COMPLY_SOURCE_DIR", os.path.join(HERE, "..", "..")),
                          "python")

CODE = """
import sys
sys.modules['numpy'] = None  # importing numpy now fails
import comply
assert issubclass(comply.ParseError, comply.Error)
try:
    comply.Scene
except ImportError:
    pass
sys.modules.pop('numpy')
try:
    comply.load('x.yaml')
except comply.LibraryNotFoundError as e:
    assert 'COMPLY_LIBRARY' in str(e) and '/nonexistent/libcomply.so' in str(e), e
    print('ok')
"""


def test_import_without_numpy_or_library():
    env = dict(os.environ, COMPLY_LIBRARY="/nonexistent/libcomply.so", PYTHONPATH=PYTHON_DIR)
    r = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_version_matches_header():
    import comply

    header = open(os.path.join(PYTHON_DIR, "..", "include", "comply", "core.h")).read()
    assert '#define CM_VERSION_STRING "%s"' % comply.version() in header
