"""The malformed-input corpus tests/data/bad/ (README.md there lists every file): `comply check`
on every bad scene and `comply mesh-info` on every bad mesh must exit with status 2 within 10 s,
with a message on stderr that names the file and where the problem is, no sanitizer report and
no NaN printed."""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, no_sanitizer_report  # noqa: E402

TIMEOUT = 10  # s, per file
COMMAND = {".yaml": "check", ".obj": "mesh-info", ".stl": "mesh-info", ".ply": "mesh-info",
           ".vtp": "mesh-info", ".vtk": "mesh-info"}

# Files whose run shows a known library bug not fixed yet: the check named here is skipped (the
# others still run). Remove the line with the fix.
KNOWN_OPEN = {}  # inputs with a known open defect, name -> the check it fails (none now)


def bad_dir(s):
    return os.path.join(s.src, "tests", "data", "bad")


def bad_files(s):
    d = bad_dir(s)
    return sorted(f for f in os.listdir(d) if os.path.splitext(f)[1] in COMMAND)


def located(path, stderr):
    """the message names the file and a line, a byte offset, or (for a mesh that parses but
    fails validation) the face, edge or vertex at fault, or the whole-mesh property that fails"""
    p = re.escape(path)
    patterns = [
        p + r":[1-9]\d*",                                # FILE:LINE (scenes FILE:LINE:COL)
        p + r": (byte offset|invalid text at byte) \d+",  # binary files, bad encodings
        p + r": .*\b(face \d+|edge \(\d+, \d+\)|vertex \d+)",  # mesh validation
        p + r": (the mesh has no faces|enclosed volume is|the scene is empty)",
    ]
    return any(re.search(pat, stderr) for pat in patterns)


def has_nan(text, path):
    """a NaN printed as a number (file names and quoted input tokens excluded)"""
    text = text.replace(path, "")
    text = re.sub(r"'[^'\n]*'", "''", text)
    return re.search(r"(?<![\w.])[-+]?nan\b", text, re.IGNORECASE) is not None


def run(s, cmd, path):
    """comply CMD PATH; messages may quote raw bytes of a binary file, so decode leniently"""
    r = subprocess.run([s.comply, cmd, path], capture_output=True, timeout=TIMEOUT, cwd=s.tmp)
    r.stdout = r.stdout.decode("utf-8", "replace")
    r.stderr = r.stderr.decode("utf-8", "replace")
    return r


def test_corpus_size(s):
    files = bad_files(s)
    check(len(files) >= 50, "only %d malformed files" % len(files))
    for kind in COMMAND:
        check(any(f.endswith(kind) for f in files), "no malformed %s file" % kind)


def test_readme_lists_every_file(s):
    with open(os.path.join(bad_dir(s), "README.md")) as f:
        listed = set(re.findall(r"^\| `([^`]+)` \|", f.read(), re.MULTILINE))
    files = set(bad_files(s))
    check(files - listed == set(), "not in README.md: %s" % sorted(files - listed))
    check(listed - files == set(), "listed in README.md but missing: %s" % sorted(listed - files))


def test_generator_matches(s):
    # the files are what make_bad.py writes (edit the generator, not the files)
    out = s.path("regen")
    os.makedirs(out)
    r = subprocess.run([sys.executable, os.path.join(bad_dir(s), "make_bad.py"), out],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "make_bad.py failed: %s" % r.stderr[-2000:])
    for name in sorted(os.listdir(out)):
        with open(os.path.join(out, name), "rb") as a:
            want = a.read()
        with open(os.path.join(bad_dir(s), name), "rb") as b:
            check(b.read() == want, "%s differs from what make_bad.py writes" % name)


def test_every_bad_file(s):
    failures = []
    for name in bad_files(s):
        path = os.path.join(bad_dir(s), name)
        cmd = COMMAND[os.path.splitext(name)[1]]
        what = "comply %s %s" % (cmd, name)
        try:
            r = run(s, cmd, path)
        except subprocess.TimeoutExpired:
            failures.append("%s: took more than %d s" % (what, TIMEOUT))
            continue
        try:
            no_sanitizer_report(r.stderr, what)
            check(r.returncode == 2, "%s: exit %d, expected 2\nstderr: %s"
                  % (what, r.returncode, r.stderr[-1000:]))
            check(r.stderr.startswith("comply: "), "%s: message %r" % (what, r.stderr[-500:]))
            check(located(path, r.stderr) or KNOWN_OPEN.get(name) == "located",
                  "%s: the message does not name the file and where: %r" % (what, r.stderr[-500:]))
            check("ok" not in r.stdout.splitlines(), "%s: printed ok" % what)
            if KNOWN_OPEN.get(name) != "nan":
                check(not has_nan(r.stdout + r.stderr, path), "%s: NaN in the output:\n%s%s"
                      % (what, r.stdout[-1000:], r.stderr[-500:]))
        except AssertionError as e:
            failures.append(str(e))
    check(not failures, "%d of %d files:\n%s" % (len(failures), len(bad_files(s)),
                                                  "\n".join(failures)))


if __name__ == "__main__":
    s = Suite()
    for t in (test_corpus_size, test_readme_lists_every_file, test_generator_matches,
              test_every_bad_file):
        s.test(t)
    s.finish()
