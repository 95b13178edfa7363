#!/usr/bin/env python3
"""The installed tree works wherever it is installed (issue 12: `cmake --install build --prefix P`
then `pkg-config` gave /usr/local).

Installs the build into a temporary prefix P, then:
  - pkg-config (PKG_CONFIG_PATH = P's pkgconfig folder) names include and library folders that
    exist inside P, and nothing outside it;
  - a small program compiles with `pkg-config --cflags --libs comply` and runs against the shared
    library, and links statically with `pkg-config --static` (libcomply.a and its private
    dependencies);
  - after the whole tree is moved elsewhere, pkg-config names the new place, and the program
    builds again;
  - a CMake project finds the moved tree with find_package(comply CONFIG) and links both
    comply::comply_shared and comply::comply_static.

Usage: test_install.py BUILD_DIR CC PKG_CONFIG [EXTRA_FLAG...] (extra compile and link flags,
e.g. the sanitizers of the build). Python standard library only."""
import glob
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

BUILD, CC, PKG_CONFIG = sys.argv[1:4]
EXTRA = sys.argv[4:]
failures = 0

PROGRAM = r"""
#include <stdio.h>
#include <string.h>
#include "comply/comply.h"

/* a ball dropped on the ground for 10 steps: the library is really linked and works */
int main(void) {
  char err[256];
  cmScene* s = cm_scene_new("install");
  cmBodyDef g = cm_body_def_default();
  g.name = "ground";
  g.motion = CM_MOTION_FIXED;
  g.geom.type = CM_GEOM_PLANE;
  cmBodyDef b = cm_body_def_default();
  b.name = "ball";
  b.geom.type = CM_GEOM_SPHERE;
  b.geom.radius = 0.05;
  b.position[2] = 0.06;
  if (cm_scene_add_body(s, &g, err, sizeof err) < 0 || cm_scene_add_body(s, &b, err, sizeof err) < 0)
    return 2;
  cmModel* m = NULL;
  if (cm_model_compile(s, &m, err, sizeof err) != CM_OK) return 3;
  cm_scene_free(s);
  cmData* d = cm_data_new(m);
  for (int i = 0; i < 10; i++)
    if (cm_step(m, d) != CM_OK) return 4;
  printf("comply %s, %ld steps\n", cm_version(), d->step);
  int ok = strcmp(cm_version(), CM_VERSION_STRING) == 0 && d->step == 10;
  cm_data_free(d);
  cm_model_free(m);
  return ok ? 0 : 5;
}
"""

CMAKE_PROJECT = """cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(comply 0.1 CONFIG REQUIRED)
add_executable(use_shared main.c)
target_link_libraries(use_shared PRIVATE comply::comply_shared)
add_executable(use_static main.c)
target_link_libraries(use_static PRIVATE comply::comply_static)
"""


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL:", what, file=sys.stderr)
    return cond


def run(cmd, env=None, cwd=None):
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        print("$", " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
        print(r.stdout, r.stderr, file=sys.stderr)
    return r


def inside(path, root):
    path, root = os.path.realpath(path), os.path.realpath(root)
    return os.path.commonpath([path, root]) == root


def pkg(prefix, *args):
    """pkg-config with the prefix's pkgconfig folder first; (ok, flags)"""
    pcs = glob.glob(os.path.join(prefix, "**", "pkgconfig", "comply.pc"), recursive=True)
    if not check(len(pcs) == 1, "one comply.pc under %s (found %s)" % (prefix, pcs)):
        return False, []
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.dirname(pcs[0]))
    env.pop("PKG_CONFIG_LIBDIR", None)
    r = run([PKG_CONFIG, *args, "comply"], env=env)
    return check(r.returncode == 0, "pkg-config %s comply" % " ".join(args)), shlex.split(r.stdout)


def check_pkg_paths(prefix):
    """every -I and -L of pkg-config names an existing folder inside prefix"""
    ok, flags = pkg(prefix, "--cflags", "--libs")
    if not ok:
        return None
    print("  pkg-config --cflags --libs comply:", " ".join(flags))
    dirs = {f[:2]: f[2:] for f in flags if f[:2] in ("-I", "-L")}
    check(set(dirs) == {"-I", "-L"}, "pkg-config gives -I and -L: %s" % flags)
    for flag, d in dirs.items():
        check(os.path.isdir(d) and inside(d, prefix), "%s%s exists inside %s" % (flag, d, prefix))
    if "-I" in dirs:
        check(os.path.isfile(os.path.join(dirs["-I"], "comply", "comply.h")),
              "comply/comply.h under -I%s" % dirs["-I"])
    return dirs.get("-L")


def build_and_run(prefix, work, tag):
    """the program with pkg-config: linked to the shared library (run with the prefix's libdir
    on LD_LIBRARY_PATH), and statically"""
    libdir = check_pkg_paths(prefix)
    if libdir is None:
        return
    src = os.path.join(work, "main.c")
    with open(src, "w") as f:
        f.write(PROGRAM)
    ok, flags = pkg(prefix, "--cflags", "--libs")
    exe = os.path.join(work, "use_shared_" + tag)
    if ok and check(run([CC, src, "-o", exe, *flags, *EXTRA]).returncode == 0,
                    "%s: compile and link against the shared library" % tag):
        env = dict(os.environ, LD_LIBRARY_PATH=libdir)
        r = run([exe], env=env)
        check(r.returncode == 0 and "10 steps" in r.stdout, "%s: shared program runs" % tag)
        # the library it ran with is the installed one
        r = run(["ldd", exe], env=env)
        line = [l for l in r.stdout.splitlines() if "libcomply" in l]
        check(line and inside(line[0].split("=>")[1].split()[0], prefix),
              "%s: libcomply.so from the prefix: %s" % (tag, line))
    ok, flags = pkg(prefix, "--static", "--cflags", "--libs")
    flags = ["-l:libcomply.a" if f == "-lcomply" else f for f in flags]
    exe = os.path.join(work, "use_static_" + tag)
    if ok and check(run([CC, src, "-o", exe, *flags, *EXTRA]).returncode == 0,
                    "%s: link statically with pkg-config --static" % tag):
        r = run([exe])
        check(r.returncode == 0 and "10 steps" in r.stdout, "%s: static program runs" % tag)


def cmake_package(prefix, work):
    """find_package(comply CONFIG) in a CMake project, both libraries"""
    proj = os.path.join(work, "consumer")
    os.makedirs(proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write(CMAKE_PROJECT)
    with open(os.path.join(proj, "main.c"), "w") as f:
        f.write(PROGRAM)
    bdir = os.path.join(work, "consumer-build")
    flags = " ".join(EXTRA)
    cfg = ["cmake", "-S", proj, "-B", bdir, "-DCMAKE_PREFIX_PATH=" + prefix,
           "-DCMAKE_C_COMPILER=" + CC, "-DCMAKE_C_FLAGS=" + flags,
           "-DCMAKE_EXE_LINKER_FLAGS=" + flags]
    if not check(run(cfg).returncode == 0, "find_package(comply CONFIG) in a CMake project"):
        return
    if not check(run(["cmake", "--build", bdir]).returncode == 0, "the CMake project builds"):
        return
    libdir = os.path.dirname(glob.glob(os.path.join(prefix, "**", "libcomply.so"),
                                       recursive=True)[0])
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    for exe in ("use_shared", "use_static"):
        r = run([os.path.join(bdir, exe)], env=env)
        check(r.returncode == 0 and "10 steps" in r.stdout, "CMake package: %s runs" % exe)


def main():
    with tempfile.TemporaryDirectory(prefix="comply-install-") as tmp:
        prefix = os.path.join(tmp, "P")
        r = run(["cmake", "--install", BUILD, "--prefix", prefix])
        if not check(r.returncode == 0, "cmake --install --prefix"):
            return
        build_and_run(prefix, tmp, "P")
        # the whole tree moved: the pkg-config file follows it
        moved = os.path.join(tmp, "moved", "Q")
        os.makedirs(os.path.dirname(moved))
        shutil.move(prefix, moved)
        build_and_run(moved, tmp, "Q")
        cmake_package(moved, tmp)
    print("%s" % ("ok" if failures == 0 else "%d failures" % failures))


main()
sys.exit(1 if failures else 0)
