#!/usr/bin/env python3
"""Writes the graded hemisphere meshes of physics/test_hertz (gmsh, the Debian package).

    python3 make_hertz_meshes.py [OUTDIR]

hertz_hemi_N.msh: the lower half of the unit ball (z <= 0; the test scales it to its radius),
linear tets, gmsh 4.1 ASCII, the volume only. Element size a/N within 1.5 a of the pole
(0, 0, -1), a = 0.05 (the test's Hertz contact radius), growing linearly (slope 0.6) to 1/5.
gmsh 4.8.4 as Debian ships it; another version writes another mesh of the same sizes."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GEO = """SetFactory("OpenCASCADE");
R = 1; a = 0.05; hf = a/%d; hc = R/5;
Sphere(1) = {0, 0, 0, R, -Pi/2, 0, 2*Pi};
Physical Volume(1) = {1};
Point(100) = {0, 0, -R};
Field[1] = Distance; Field[1].PointsList = {100};
Field[2] = Threshold; Field[2].InField = 1; Field[2].SizeMin = hf; Field[2].SizeMax = hc;
Field[2].DistMin = 1.5*a; Field[2].DistMax = 1.5*a + (hc - hf)/0.6;
Background Field = 2;
Mesh.MeshSizeExtendFromBoundary = 0; Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0; Mesh.Optimize = 1;
General.NumThreads = 1; Mesh.RandomSeed = 1;
"""


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    for n in (4, 6, 8):
        geo = os.path.join(out, "hertz_hemi_%d.geo" % n)
        with open(geo, "w") as f:
            f.write(GEO % n)
        dst = os.path.join(out, "hertz_hemi_%d.msh" % n)
        subprocess.run(["gmsh", geo, "-3", "-format", "msh41", "-o", dst], check=True,
                       stdout=subprocess.DEVNULL)
        os.remove(geo)


if __name__ == "__main__":
    main()
