"""comply run --checkpoint-every N and --restart FILE: an interrupted run continued from its
checkpoint produces output files byte for byte identical to the run that was never interrupted
(docs/outputs.md, "Checkpoints and restart").

The scene is examples/falling_boxes.yaml with min_period 4 on its area_compliant rule (three
boxes landing on a plane with friction, both contact laws; they land between steps 220 and 300 and bounce and settle after that).
Interruptions: SIGINT (the run writes a final checkpoint at the step it stops, usually not a
frame step, whose extra frame the restart removes), SIGKILL (nothing written at the end: the
restart continues from the last periodic checkpoint and cuts the frames written after it), and a
clean end with a final checkpoint continued to more steps (with the VTK series, whose scene.pvd
and .vtu files must also come out identical). Every interruption and restart falls while the
boxes are still bouncing, sliding and spinning (steps 350-700), and the compared runs go on until
they rest.

The interrupted runs are told to run forever and are stopped once bodies.csv reaches a step; how
far past it they get depends on the machine (fast in the optimised build, slow under the
sanitizers or a busy machine), so the uninterrupted reference runs REF_STEPS, or more when a run
stopped too late for that (ref_steps).
"""
import filecmp
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit, read_bodies, read_summary  # noqa: E402
from test_cli_vtk import read_vtu  # noqa: E402

REF_STEPS = 1200  # the uninterrupted run, at least MARGIN steps past every interruption
MARGIN = 300
LONG = 10 ** 7    # the run that gets interrupted (never finishes)


def scene(s, vtk=False, every=None):
    src = os.path.join(s.src, "examples", "falling_boxes.yaml")
    with open(src) as f:
        text = f.read()
    if every:
        text = text.replace("  every: 10", "  every: %d" % every)
    if vtk:
        text = text.replace("output:\n", "output:\n  vtk: true\n")
    # the boxes on the ground ring faster than 4 steps at ka 5e10: min_period softens
    # them, and its counts (summary.json solver.soft_rows, soft_factor) travel in the checkpoint
    text = text.replace("    ka: 5.0e10\n", "    ka: 5.0e10\n    min_period: 4\n")
    check("min_period: 4" in text, "the scene's area_compliant rule")
    return s.write("boxes%s%s.yaml" % ("_vtk" if vtk else "", "_%d" % every if every else ""), text)


def ref_steps(stopped):
    """the length of the reference run for an interruption at step `stopped`: REF_STEPS, or the
    next multiple of 1000 at least MARGIN steps past it"""
    if stopped + MARGIN <= REF_STEPS:
        return REF_STEPS
    return (stopped + MARGIN + 999) // 1000 * 1000


def reference(s, steps, every=None):
    out = s.path("ref%d_%s" % (steps, every))
    if not os.path.exists(os.path.join(out, "summary.json")):
        r = s.run("run", scene(s, every=every), "-o", out, "--steps", steps, "-q")
        expect_exit(r, 0, "uninterrupted run")
    return out


def last_step(path):
    """the step of the last complete row of bodies.csv, -1 if none"""
    try:
        with open(path, "rb") as f:
            f.seek(0, 2)
            n = f.tell()
            f.seek(max(0, n - 4096))
            lines = f.read().split(b"\n")[:-1]
    except OSError:
        return -1
    for ln in reversed(lines):
        head = ln.split(b",")[0]
        if head.isdigit():
            return int(head)
    return -1


def start_and_stop(s, out, sig, extra=(), at=350, every=None):
    """start a long run, wait until bodies.csv reaches step `at`, send sig; returns the exit code"""
    p = subprocess.Popen([s.comply, "run", scene(s, every=every), "-o", out, "--steps", str(LONG), "-q"] + list(extra),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while last_step(os.path.join(out, "bodies.csv")) < at and p.poll() is None and time.time() < deadline:
        time.sleep(0.005)
    if p.poll() is not None:
        check(False, "the run ended before it could be interrupted: %r" % (p.communicate(),))
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=60)
    return p.returncode, stderr


def restart_and_compare(s, out, ckpt, steps, every=None):
    ref = reference(s, steps, every)
    r = s.run("run", scene(s, every=every), "-o", out, "--steps", steps, "--restart", ckpt, "-q")
    expect_exit(r, 0, "restarted run")
    for name in ("bodies.csv", "contacts.csv"):
        a, b = os.path.join(ref, name), os.path.join(out, name)
        if not filecmp.cmp(a, b, shallow=False):
            ra, rb = open(a).read().split("\n"), open(b).read().split("\n")
            first = next((i for i, (x, y) in enumerate(zip(ra, rb)) if x != y), min(len(ra), len(rb)))
            raise AssertionError("%s differs from the uninterrupted run at line %d:\n  %r\n  %r (%d vs %d lines)"
                                 % (name, first + 1, ra[first] if first < len(ra) else None,
                                    rb[first] if first < len(rb) else None, len(ra), len(rb)))
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["steps"] == steps and not summ["interrupted"], "summary %r" % summ)
    ref_summ = read_summary(os.path.join(ref, "summary.json"))
    check(ref_summ["solver"]["soft_rows"] > 0, "no row softened: %r" % ref_summ["solver"])
    for k in ("kinetic_energy", "potential_energy", "warnings", "solver"):
        check(summ[k] == ref_summ[k], "summary %s: %r, uninterrupted %r" % (k, summ[k], ref_summ[k]))


def test_sigint_restart(s):
    out = s.path("sigint")
    code, stderr = start_and_stop(s, out, signal.SIGINT)
    check(code == 130, "exit %d after SIGINT: %s" % (code, stderr))
    ckpt = os.path.join(out, "checkpoint.bin")
    check(os.path.exists(ckpt) and not os.path.exists(ckpt + ".tmp"), "no checkpoint after SIGINT: %r" % os.listdir(out))
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["interrupted"] is True, "summary %r" % summ)
    stopped = summ["steps"]
    check(stopped >= 350, "stopped at step %d, before the signal" % stopped)
    check(last_step(os.path.join(out, "bodies.csv")) == stopped, "the last frame is not the stop step")
    read_bodies(os.path.join(out, "bodies.csv"))  # complete and parseable
    restart_and_compare(s, out, ckpt, ref_steps(stopped))


def test_sigkill_restart_from_periodic_checkpoint(s):
    out = s.path("sigkill")
    # a frame every step: the restart keeps more than 256 frames (its step list grows)
    code, _ = start_and_stop(s, out, signal.SIGKILL, ["--checkpoint-every", "170"], at=600, every=1)
    check(code == -signal.SIGKILL, "exit %d" % code)
    ckpt = os.path.join(out, "checkpoint.bin")
    check(os.path.exists(ckpt), "no periodic checkpoint: %r" % os.listdir(out))
    # copy it away: the restarted run writes its own checkpoints into the directory
    saved = s.path("sigkill.ckpt")
    shutil.copy(ckpt, saved)
    last = last_step(os.path.join(out, "bodies.csv"))
    check(last >= 600, "frames written")
    restart_and_compare(s, out, saved, ref_steps(last), every=1)  # the checkpoint is at most at `last`


def test_restart_extends_run_with_vtk(s):
    sc = scene(s, vtk=True, every=50)
    full, part = s.path("vtk_full"), s.path("vtk_part")
    expect_exit(s.run("run", sc, "-o", full, "--steps", 1000, "-q"), 0, "uninterrupted vtk run")
    expect_exit(s.run("run", sc, "-o", part, "--steps", 567, "--checkpoint-every", 200, "-q"), 0, "first part")
    check(os.path.exists(os.path.join(part, "vtk", "box1_567.vtu")), "last frame of the first part")
    # what a second SIGINT can leave: a writer killed between NAME.tmp and its rename
    for leftover in (os.path.join(part, "vtk", "box1_600.vtu.tmp"), os.path.join(part, "scene.pvd.tmp")):
        with open(leftover, "w") as f:
            f.write("<half a file")
    # the user's own .tmp files in the folder are not comply's to remove (they were, until
    # 2026-12-07)
    mine = (os.path.join(part, "notes.tmp"), os.path.join(part, "vtk", "mine.tmp"))
    for f in mine:
        with open(f, "w") as fh:
            fh.write("mine")
    r = s.run("run", sc, "-o", part, "--steps", 1000, "--restart", os.path.join(part, "checkpoint.bin"), "-q")
    expect_exit(r, 0, "restart to 1000 steps")
    for f in mine:
        check(os.path.exists(f), "%s removed by the restart" % f)
        os.remove(f)
    for name in ("bodies.csv", "contacts.csv", "scene.pvd"):
        check(filecmp.cmp(os.path.join(full, name), os.path.join(part, name), shallow=False),
              "%s differs from the uninterrupted run" % name)
    fa, fb = sorted(os.listdir(os.path.join(full, "vtk"))), sorted(os.listdir(os.path.join(part, "vtk")))
    check(fa == fb, "vtk files differ: %r" % sorted(set(fa) ^ set(fb)))
    check(not os.path.exists(os.path.join(part, "scene.pvd.tmp")), "scene.pvd.tmp left")
    for f in fa:
        check(filecmp.cmp(os.path.join(full, "vtk", f), os.path.join(part, "vtk", f), shallow=False), "vtk/%s differs" % f)


def test_rejected_checkpoints(s):
    out = s.path("rej")
    expect_exit(s.run("run", scene(s), "-o", out, "--steps", 100, "--checkpoint-every", 50, "-q"), 0, "run")
    ckpt = os.path.join(out, "checkpoint.bin")
    data = open(ckpt, "rb").read()
    # another scene
    other = s.write("other.yaml", "scene: {timestep: 1.0e-3, steps: 10}\nbodies:\n"
                    "  - name: ball\n    geometry: {sphere: {radius: 0.1, refine: 1}}\n")
    r = s.run("run", other, "-o", s.path("rej2"), "--restart", ckpt)
    expect_exit(r, 2, "restart with another scene")
    check(ckpt in r.stderr and "another scene" in r.stderr, "message %r" % r.stderr)
    # the same scene with another solver tolerance: its solves end elsewhere, so the run would
    # not be the one the checkpoint continues
    text = open(scene(s)).read().replace("scene:\n", "scene:\n  solver_tolerance: 1.0e-12\n", 1)
    check("solver_tolerance" in text, "the tolerance in the scene")
    tight = s.write("boxes_tight.yaml", text)
    r = s.run("run", tight, "-o", s.path("rej3"), "--restart", ckpt)
    expect_exit(r, 2, "restart with another solver tolerance")
    check(ckpt in r.stderr and "another scene" in r.stderr, "message %r" % r.stderr)
    # damaged files
    cases = {"truncated.bin": data[:-5], "flipped.bin": data[:100] + bytes([data[100] ^ 1]) + data[101:],
             "magic.bin": b"XX" + data[2:], "empty.bin": b""}
    words = {"truncated.bin": "truncated", "flipped.bin": "checksum", "magic.bin": "not a comply checkpoint",
             "empty.bin": "not a comply checkpoint"}
    for name, content in cases.items():
        p = s.path(name)
        with open(p, "wb") as f:
            f.write(content)
        r = s.run("run", scene(s), "-o", out, "--steps", 200, "--restart", p)
        expect_exit(r, 2, "restart from " + name)
        check(p in r.stderr and words[name] in r.stderr, "%s: message %r" % (name, r.stderr))
    r = s.run("run", scene(s), "-o", out, "--restart", s.path("missing.bin"))
    expect_exit(r, 2, "restart from a missing file")
    check("missing.bin" in r.stderr, "message %r" % r.stderr)
    # the outputs were not touched by the rejected restarts
    check(read_bodies(os.path.join(out, "bodies.csv"))[-1]["step"] == 100, "bodies.csv changed")
    # a folder whose outputs are not the checkpoint's run: a shorter run (its rows ended at step
    # 30, and the restart appended step 101 on, exit 0), or a run of another scene (its bodies'
    # rows kept, the restarted run's appended after them)
    short = s.path("rej_short")
    expect_exit(s.run("run", scene(s), "-o", short, "--steps", 30, "-q"), 0, "short run")
    # a leftover of comply's own, left as it was by a refused restart (it was removed first)
    with open(os.path.join(short, "summary.json.tmp"), "w") as f:
        f.write("{")
    r = s.run("run", scene(s), "-o", short, "--steps", 200, "--restart", ckpt, "-q")
    expect_exit(r, 2, "restart into a shorter run's folder")
    check("holds frames up to step 30, but the run to continue wrote its frames up to step 100 "
          "(its rows are kept up to step 100)" in r.stderr,
          "message %r" % r.stderr)
    check(read_bodies(os.path.join(short, "bodies.csv"))[-1]["step"] == 30, "bodies.csv changed")
    check(os.path.exists(os.path.join(short, "summary.json.tmp")), "the refused restart removed files")
    alien = s.path("rej_alien")
    expect_exit(s.run("run", other, "-o", alien, "-q"), 0, "another scene's run")
    r = s.run("run", scene(s), "-o", alien, "--steps", 200, "--restart", ckpt, "-q")
    expect_exit(r, 2, "restart into another scene's folder")
    check("step 0 has 1 rows, but this scene has" in r.stderr, "message %r" % r.stderr)
    # usage errors
    for bad in (["--checkpoint-every", "0"], ["--checkpoint-every", "x"], ["--restart"], ["--restart", ""]):
        expect_exit(s.run("run", scene(s), "-o", out, *bad), 2, "comply run " + " ".join(bad))


def test_restart_strict_counts_the_start(s):
    # a scene that starts overlapping: --strict fails the run whole, and its restart as well
    # (the restart counted no initial_overlap and exited 0)
    text = ("scene: {timestep: 1.0e-3, duration: 0.2}\nbodies:\n"
            "  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}\n"
            "  - {name: ball, geometry: {sphere: {radius: 0.1, refine: 3}}, density: 1000, "
            "position: [0, 0, 0.0995]}\n"
            "interactions:\n  - {pair: [\"*\", \"*\"], law: area_compliant, ka: 5.0e10}\n")
    path = s.write("shallow.yaml", text)
    out = s.path("shallow")
    r = s.run("run", path, "-o", out, "--steps", 100, "--checkpoint-every", 100, "--strict", "-q")
    expect_exit(r, 1, "the first part, --strict")
    r = s.run("run", path, "-o", out, "--restart", os.path.join(out, "checkpoint.bin"), "--strict",
              "-q")
    expect_exit(r, 1, "its restart, --strict")
    check("1 initial_overlap" in r.stderr and "initial_overlap 1" in r.stderr, r.stderr)


def test_restart_into_an_empty_folder(s):
    # a checkpoint between frames (every 10, the checkpoint at step 25) continued into a new
    # folder: its bodies.csv starts with the checkpoint's state, as a run's starts with step 0
    # (it started at the next frame, step 30), then the frames of the uninterrupted run
    first = s.path("part25")
    expect_exit(s.run("run", scene(s, every=10), "-o", first, "--steps", 25, "--checkpoint-every", 25,
                      "-q"), 0, "the first part")
    new = s.path("fresh")
    r = s.run("run", scene(s, every=10), "-o", new, "--steps", 60, "--restart",
              os.path.join(first, "checkpoint.bin"), "-q")
    expect_exit(r, 0, "restart into a new folder")
    rows = open(os.path.join(new, "bodies.csv")).read().splitlines()
    part = open(os.path.join(first, "bodies.csv")).read().splitlines()
    at25 = [x for x in part if x.startswith("25,")]
    check(len(at25) > 0 and [x for x in rows[1:] if x.startswith("25,")] == at25,
          "the checkpoint's frame: %r" % rows[:3])
    ref = open(os.path.join(reference(s, 60, 10), "bodies.csv")).read().splitlines()
    later = lambda lines: [x for x in lines[1:] if int(x.split(",")[0]) > 25]
    check(later(rows) == later(ref) and len(later(ref)) > 0, "frames after the checkpoint differ")
    check(rows[0] == ref[0] and rows[1].startswith("25,"), "first rows %r" % rows[:2])


def test_restart_into_an_empty_folder_keeps_the_contacts(s):
    # A box resting on the ground, spinning slowly (contacts with friction at every step), with
    # the VTK series. A checkpoint at a frame step S = 50 continued into an empty folder: its
    # first frame, step S, has the contacts of the run that never stopped (contacts.csv rows and
    # the .vtu files' pressure and penetration, byte for byte), as every frame after it. Until
    # format 12 a checkpoint held no contacts and that frame had none. A checkpoint at S = 55, not
    # a frame step: the first part wrote its last state as a frame at 55 (with its contacts), and
    # the restart's first frame is that one, byte for byte.
    text = ("scene: {timestep: 1.0e-3}\noutput: {every: 10, vtk: true}\nbodies:\n"
            "  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}\n"
            "  - {name: box, geometry: {box: {size: [0.1, 0.1, 0.05], divisions: 3}}, density: 500, "
            "position: [0, 0, 0.02502], angular_velocity: [0, 0, 0.5]}\n"
            "interactions:\n  - {pair: [\"*\", \"*\"], law: area_compliant, ka: 1.0e9, friction: 0.3}\n")
    path = s.write("resting_box.yaml", text)
    whole = s.path("rest_whole")
    expect_exit(s.run("run", path, "-o", whole, "--steps", 100, "-q"), 0, "the uninterrupted run")

    def rows_from(f, first, last=None):
        out = []
        for x in open(f).read().splitlines()[1:]:
            k = int(x.split(",")[0])
            if k >= first and (last is None or k <= last):
                out.append(x)
        return out

    def vtu_from(folder, first, last=None):
        names = {}
        for n in os.listdir(os.path.join(folder, "vtk")):
            k = int(n[:-len(".vtu")].rsplit("_", 1)[1])
            if k >= first and (last is None or k <= last):
                names[n] = open(os.path.join(folder, "vtk", n), "rb").read()
        return names

    for S in (50, 55):
        part, fresh = s.path("rest_part%d" % S), s.path("rest_fresh%d" % S)
        expect_exit(s.run("run", path, "-o", part, "--steps", S, "--checkpoint-every", S, "-q"), 0,
                    "the first part, to step %d" % S)
        r = s.run("run", path, "-o", fresh, "--steps", 100, "--restart",
                  os.path.join(part, "checkpoint.bin"), "-q")
        expect_exit(r, 0, "restart from step %d into an empty folder" % S)
        # the contacts of step S: in the run that wrote the checkpoint, and now in the new folder
        at_s = rows_from(os.path.join(part, "contacts.csv"), S, S)
        check(len(at_s) == 1 and ",ground,box," in at_s[0], "contacts of step %d: %r" % (S, at_s))
        check(rows_from(os.path.join(fresh, "contacts.csv"), S, S) == at_s,
              "contacts.csv at step %d after the restart: %r, the run that wrote the checkpoint: %r"
              % (S, rows_from(os.path.join(fresh, "contacts.csv"), S, S), at_s))
        vs = vtu_from(part, S, S)
        check(len(vs) == 1 and vtu_from(fresh, S, S) == vs,
              "vtk frame of step %d differs from the run that wrote the checkpoint" % S)
        v = read_vtu(os.path.join(fresh, "vtk", list(vs)[0]))
        check(max(v["pressure"]) > 0 and max(v["penetration"]) > 0,
              "vtk frame of step %d: no pressure or penetration" % S)
        # from step S on (S = 50) or after it (S = 55), the run that never stopped, byte for byte
        first = S if S % 10 == 0 else S + 1
        for name in ("bodies.csv", "contacts.csv"):
            a = rows_from(os.path.join(whole, name), first)
            b = rows_from(os.path.join(fresh, name), first)
            check(len(a) > 0 and a == b, "%s from step %d differs from the uninterrupted run" % (name, first))
        a, b = vtu_from(whole, first), vtu_from(fresh, first)
        check(len(a) == 6 - (first > 50) and sorted(a) == sorted(b),
              "vtk frames from step %d: %r and %r" % (first, sorted(a), sorted(b)))
        for n in a:
            check(a[n] == b[n], "vtk/%s differs from the uninterrupted run" % n)


def test_restart_with_a_quoted_name(s):
    # a body name with a quote, a comma and a line break: quoted in the CSV files (RFC 4180), and
    # the restart into the run's folder reads those rows whole (until 2026-12-08 the line break
    # ended a row: refused, "the row does not start with a step number")
    text = ("scene: {timestep: 1.0e-3, duration: 0.3}\nbodies:\n"
            "  - {name: ground, geometry: {plane: {normal: [0, 0, 1], offset: 0}}, motion: fixed}\n"
            "  - {name: \"box \\\"A\\\", 1\\nsecond line\", geometry: {box: {size: 0.1}}, "
            "position: [0, 0, 0.2]}\n")
    path = s.write("quoted.yaml", text)
    part, whole = s.path("quoted_part"), s.path("quoted_whole")
    expect_exit(s.run("run", path, "-o", part, "--steps", 123, "--checkpoint-every", 123, "-q"), 0,
                "the first part")
    expect_exit(s.run("run", path, "-o", part, "--steps", 300, "--restart",
                      os.path.join(part, "checkpoint.bin"), "-q"), 0, "its restart")
    expect_exit(s.run("run", path, "-o", whole, "--steps", 300, "-q"), 0, "the whole run")
    for f in ("bodies.csv", "contacts.csv"):
        check(filecmp.cmp(os.path.join(part, f), os.path.join(whole, f), shallow=False),
              f + " differs from the uninterrupted run's")
    check("\"box \"\"A\"\", 1\nsecond line\"" in open(os.path.join(whole, "bodies.csv")).read(),
          "the name is not quoted as RFC 4180 says")


def test_restart_with_a_changed_scene(s):
    # the scene edited between the run and its restart (another ka: the same bodies, masses and
    # timestep, which the checkpoint's model fingerprint checks, but other physics): into the
    # run's own folder refused, the folder as it was (its rows would continue another run's as
    # if one); into an empty folder a new run from the checkpoint's state, with a warning, whose
    # rows after the checkpoint differ from those of the scene it was written with
    out = s.path("chg")
    expect_exit(s.run("run", scene(s), "-o", out, "--steps", 300, "--checkpoint-every", 300, "-q"), 0,
                "the run")
    ckpt = os.path.join(out, "checkpoint.bin")
    text = open(scene(s)).read()
    check("    ka: 5.0e10\n" in text, "the scene's ka")
    changed = s.write("boxes_ka.yaml", text.replace("    ka: 5.0e10\n", "    ka: 4.0e10\n"))
    with open(os.path.join(out, "summary.json.tmp"), "w") as f:
        f.write("{")
    before = {n: open(os.path.join(out, n), "rb").read() for n in ("bodies.csv", "contacts.csv", "summary.json")}
    r = s.run("run", changed, "-o", out, "--steps", 400, "--restart", ckpt, "-q")
    expect_exit(r, 2, "restart of a changed scene into the run's folder")
    check(ckpt in r.stderr and "another version of this scene" in r.stderr and "empty folder" in r.stderr,
          "message %r" % r.stderr)
    for n, b in before.items():
        check(open(os.path.join(out, n), "rb").read() == b, n + " changed by the refused restart")
    check(os.path.exists(os.path.join(out, "summary.json.tmp")), "the refused restart removed files")
    # into empty folders: the changed scene warns, the same scene does not
    new, same = s.path("chg_new"), s.path("chg_same")
    r = s.run("run", changed, "-o", new, "--steps", 400, "--restart", ckpt, "-q")
    expect_exit(r, 0, "restart of a changed scene into an empty folder")
    check("warning: scene_changed: checkpoint '%s' was written with another version of this scene"
          % ckpt in r.stderr and "at step 300" in r.stderr and "(scene_changed 1)" in r.stderr,
          "warning %r" % r.stderr)
    # a warning as the others are: --strict fails the run (its output complete)
    r = s.run("run", changed, "-o", s.path("chg_strict"), "--steps", 310, "--restart", ckpt, "-q",
              "--strict")
    expect_exit(r, 1, "restart of a changed scene, --strict")
    r = s.run("run", scene(s), "-o", same, "--steps", 400, "--restart", ckpt, "-q")
    expect_exit(r, 0, "restart of the same scene into an empty folder")
    check("another version" not in r.stderr, "a warning for the same scene: %r" % r.stderr)
    a = read_bodies(os.path.join(new, "bodies.csv"))
    b = read_bodies(os.path.join(same, "bodies.csv"))
    at = lambda rows, k: [x for x in rows if x["step"] == k]
    check(len(at(a, 300)) > 0 and at(a, 300) == at(b, 300), "the checkpoint's frame differs")
    check(len(a) == len(b) and a[-1]["step"] == 400 and at(a, 400) != at(b, 400),
          "the new ka changed nothing after the checkpoint")


if __name__ == "__main__":
    s = Suite()
    s.test(test_sigint_restart)
    s.test(test_sigkill_restart_from_periodic_checkpoint)
    s.test(test_restart_extends_run_with_vtk)
    s.test(test_rejected_checkpoints)
    s.test(test_restart_strict_counts_the_start)
    s.test(test_restart_into_an_empty_folder)
    s.test(test_restart_into_an_empty_folder_keeps_the_contacts)
    s.test(test_restart_with_a_changed_scene)
    s.test(test_restart_with_a_quoted_name)
    s.finish()
