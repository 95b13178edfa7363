"""Input and scene faults of issue 12 ("No silent wrong results"), end to end: each input used to
hang, run with a silently wrong meaning, or fail with a message naming the wrong cause. Now each
is refused (exit 2; exit 1 for the run that fails at its first step) with a message that names
the file, the line (scene files) and the field, and the true cause:

- a FIFO as scene or mesh file (the open waited forever), /dev/zero and /dev/urandom (read up
  to 2 GB): refused before reading;
- YAML tags (`!!str 1.0e-3` was read as the number): refused;
- UTF-8 byte order mark and hexadecimal numbers: accepted and refused alike in scene and mesh
  files (OBJ refused the mark and read 0x1p0 as 1);
- a PLY header with 17 elements (said "more than 2147483647 faces");
- `steps: 0` (ran 1000 steps);
- `box divisions: 1024` (267 s and 3.8 GB, then out of memory without a place);
- `euler_deg: [1e308, 0, 0]` (said orientation[0] ... -nan), mass 1e300 (said the inertia tensor
  is singular), an initial speed above max_speed (blamed an outer force)."""
import json
import os
import stat
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402

TIMEOUT = 20  # s: each refusal takes milliseconds; a hang or a 2 GB read takes longer

BALL = "  - name: ball\n    geometry: {sphere: {radius: 0.05, refine: 1}}\n"


def refused(s, args, want, code=2):
    """comply ARGS exits `code` within TIMEOUT with every string of `want` in stderr"""
    r = s.run(*args, timeout=TIMEOUT)
    what = "comply " + " ".join(str(a) for a in args)
    expect_exit(r, code, what)
    for w in want:
        check(w in r.stderr, "%s: stderr lacks %r:\n%s" % (what, w, r.stderr[-2000:]))
    return r


def test_fifo_and_devices(s):
    fifo = s.path("pipe.yaml")
    os.mkfifo(fifo)
    refused(s, ["check", fifo], [fifo + ": a FIFO (named pipe), not a regular file"])
    refused(s, ["run", fifo, "-o", s.path("out_fifo")],
            [fifo + ": a FIFO (named pipe), not a regular file"])
    mesh = s.path("pipe.obj")
    os.mkfifo(mesh)
    refused(s, ["mesh-info", mesh], [mesh + ": a FIFO (named pipe), not a regular file"])
    # from a scene: the scene's line and the body name the field
    scene = s.write("fifo_mesh.yaml", "bodies:\n  - name: part\n"
                    "    geometry: {mesh: {file: pipe.obj}}\n")
    refused(s, ["check", scene], [scene + ":3:15: body 'part': geometry: ",
                                  "pipe.obj: a FIFO (named pipe), not a regular file"])
    for dev in ("/dev/zero", "/dev/urandom"):
        if not os.path.exists(dev):
            continue
        check(stat.S_ISCHR(os.stat(dev).st_mode), dev)
        refused(s, ["check", dev], [dev + ": a character device, not a regular file"])
        link = s.path(os.path.basename(dev) + ".stl")
        os.symlink(dev, link)
        refused(s, ["mesh-info", link], [link + ": a character device, not a regular file"])


def test_yaml_tags(s):
    p = s.write("tags.yaml", "scene:\n  timestep: !!str 1.0e-3\n  steps: 3\nbodies:\n" + BALL)
    refused(s, ["check", p], [p + ":2:13: scene.timestep: YAML tags such as '!!str' are not "
                              "supported"])
    p = s.write("tags2.yaml", "scene: {steps: 3}\nbodies:\n" + BALL
                + "    velocity: [0, !!float 1, 0]\n")
    refused(s, ["check", p], [p + ":5:19: bodies[0].velocity[1]: YAML tags such as '!!float'"])
    # the same scenes without the tags are fine
    p = s.write("notags.yaml", "scene:\n  timestep: 1.0e-3\n  steps: 3\nbodies:\n" + BALL
                + "    velocity: [0, 1, 0]\n")
    expect_exit(s.run("check", p), 0, "comply check notags.yaml")


TETRA_OBJ = "v 0 0 0\nv %s 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"


def test_bom_and_hex(s):
    bom = "\ufeff"
    # a byte order mark: accepted in scenes (as before) and meshes (OBJ refused it)
    p = s.write("bom.obj", bom + TETRA_OBJ % "1")
    r = s.run("mesh-info", p)
    expect_exit(r, 0, "comply mesh-info bom.obj")
    check("volume: 0.16666666666666666 m^3" in r.stdout, r.stdout)
    check("bounds: 0 0 0 .. 1 1 1 m\nsize: 1 1 1 m\n" in r.stdout, r.stdout)
    r = s.run("mesh-info", p, "--scale", "0.001")  # a file in millimetres
    check("bounds: 0 0 0 .. 0.001 0.001 0.001 m\n" in r.stdout, r.stdout)
    p = s.write("bom.yaml", bom + "scene: {steps: 2}\nbodies:\n" + BALL)
    expect_exit(s.run("check", p), 0, "comply check bom.yaml")
    # hexadecimal: refused in meshes (OBJ read 0x1p0 as 1) and scenes, saying why
    p = s.write("hex.obj", TETRA_OBJ % "0x1p0")
    refused(s, ["mesh-info", p], [p + ":2: bad number '0x1p0' in vertex (hexadecimal is not "
                                  "accepted"])
    p = s.write("hex.yaml", "scene:\n  timestep: 0x1p-10\n")
    refused(s, ["check", p], [p + ":2:13: scene.timestep: expected a number (s), got the "
                              "string '0x1p-10' (hexadecimal is not accepted)"])


def test_ply_elements(s):
    text = "ply\nformat ascii 1.0\n" + "".join("element e%d 0\nproperty float a\n" % i
                                               for i in range(17)) + "end_header\n"
    p = s.write("many.ply", text)
    r = refused(s, ["mesh-info", p], [p + ":35: element 'e16' is the header's element 17, more "
                                      "than the limit of 16 elements"])
    check("2147483647" not in r.stderr, r.stderr)


def test_steps_zero(s):
    p = s.write("steps0.yaml", "scene:\n  steps: 0\nbodies:\n" + BALL)
    want = [p + ":2:10: scene.steps must be an integer >= 1 (got 0); omit it"]
    refused(s, ["check", p], want)
    refused(s, ["run", p, "-o", s.path("out_steps0")], want)
    check(not os.path.exists(s.path("out_steps0", "summary.json")), "steps: 0 ran")
    # no step at all is written duration: 0
    p = s.write("duration0.yaml", "scene:\n  duration: 0\nbodies:\n" + BALL)
    out = s.path("out_duration0")
    expect_exit(s.run("run", p, "-o", out, "--quiet"), 0, "comply run duration0.yaml")
    with open(os.path.join(out, "summary.json")) as f:
        check(json.load(f)["steps"] == 0, "duration: 0 did not run 0 steps")


def test_box_divisions(s):
    p = s.write("box.yaml", "bodies:\n  - name: brick\n"
                "    geometry: {box: {size: 1, divisions: 1024}}\n")
    refused(s, ["check", p], [p + ":3:42: bodies[0] 'brick': geometry.box.divisions must be an "
                              "integer in 1..330 (got 1024)",
                              "12 d^2 = 12582912 triangles, more than the limit of 1310720"])


def test_wrong_causes(s):
    p = s.write("euler.yaml", "bodies:\n" + BALL + "    euler_deg: [1e308, 0, 0]\n")
    r = refused(s, ["check", p], [p + ":4:16: bodies[0] 'ball': euler_deg[0] must be a finite "
                                  "angle of at most 1e+06 degrees"])
    check("nan" not in r.stderr, r.stderr)
    p = s.write("mass.yaml", "bodies:\n" + BALL + "    mass: 1e300\n")
    r = refused(s, ["check", p], [p + ":4:11: bodies[0] 'ball': mass must be in "
                                  "1e-30..1e+30 kg"])
    check("singular" not in r.stderr, r.stderr)
    p = s.write("volume.yaml", "bodies:\n  - name: speck\n"
                "    geometry: {sphere: {radius: 1e-20}}\n")
    refused(s, ["check", p], [p + ":2:5: body 'speck': mass from density 1000 kg/m^3 x volume",
                              "is outside 1e-30..1e+30 kg"])
    # a body faster than max_speed from the start: the initial velocity is the cause
    p = s.write("fast.yaml", "scene: {steps: 5, max_speed: 10}\nbodies:\n" + BALL
                + "    velocity: [20, 0, 0]\n")
    out = s.path("out_fast")
    r = s.run("run", p, "-o", out, "--quiet", timeout=TIMEOUT)
    expect_exit(r, 1, "comply run fast.yaml")
    with open(os.path.join(out, "summary.json")) as f:
        msg = json.load(f)["message"]
    want = ("initial velocity of body 'ball' is 20 m/s (its centre of mass), above max_speed "
            "10 m/s")
    check(want in msg, "summary message %r lacks %r" % (msg, want))
    check("outer force" not in msg, msg)


if __name__ == "__main__":
    s = Suite()
    for t in (test_fifo_and_devices, test_yaml_tags, test_bom_and_hex, test_ply_elements,
              test_steps_zero, test_box_divisions, test_wrong_causes):
        s.test(t)
    s.finish()
