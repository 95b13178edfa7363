"""Shared helpers of the end-to-end tests of the comply command (tests/cli/test_*.py).

Each test file is run as `python3 test_x.py <path-to-comply> <source-dir>`, runs its test
functions, prints one line per test and a final "N passed, M failed", and exits non-zero if any
test failed. Standard library only.
"""
import csv
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import traceback

BODIES_HEADER = "step,time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz"
CONTACTS_HEADER = "step,time,body_a,body_b,points,fx,fy,fz,area,max_pressure,max_penetration"


class Failure(AssertionError):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Suite:
    def __init__(self):
        if len(sys.argv) < 3:
            sys.exit("usage: %s COMPLY_BINARY SOURCE_DIR" % sys.argv[0])
        self.comply = os.path.abspath(sys.argv[1])
        self.src = os.path.abspath(sys.argv[2])
        self.passed = 0
        self.failed = 0
        self.tmp = tempfile.mkdtemp(prefix="comply-cli-")

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, name, text):
        p = self.path(name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
        return p

    def run(self, *args, timeout=300, cwd=None):
        """run comply with args; returns CompletedProcess with text stdout/stderr"""
        return subprocess.run([self.comply] + [str(a) for a in args], capture_output=True,
                              text=True, timeout=timeout, cwd=cwd or self.tmp)

    def test(self, fn):
        try:
            fn(self)
            print("ok   %s" % fn.__name__)
            self.passed += 1
        except Failure as e:
            print("FAIL %s: %s" % (fn.__name__, e))
            self.failed += 1
        except Exception:  # a crash of the test itself is a failure too
            print("FAIL %s: exception" % fn.__name__)
            traceback.print_exc(file=sys.stdout)
            self.failed += 1
        sys.stdout.flush()

    def finish(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        print("%d passed, %d failed" % (self.passed, self.failed))
        sys.exit(1 if self.failed else 0)


def no_sanitizer_report(stderr, what):
    """a sanitizer build reports leaks and undefined behaviour on stderr"""
    for mark in ("Sanitizer", "runtime error:"):
        check(mark not in stderr, "%s: sanitizer report:\n%s" % (what, stderr[-4000:]))


def expect_exit(r, code, what):
    check(r.returncode == code, "%s: exit %d, expected %d\nstdout: %s\nstderr: %s"
          % (what, r.returncode, code, r.stdout[-2000:], r.stderr[-2000:]))
    no_sanitizer_report(r.stderr, what)


def number(s, where):
    """parse a CSV number: finite, and written so that it reads back exactly (%.17g)"""
    try:
        x = float(s)
    except ValueError:
        raise Failure("%s: not a number: %r" % (where, s))
    check(math.isfinite(x), "%s: not finite: %r" % (where, s))
    check("%.17g" % x == s, "%s: %r does not round-trip (%.17g)" % (where, s, x))
    return x


def read_csv(path, header):
    """rows of a CSV file written by comply: exact header, complete lines only"""
    with open(path, newline="") as f:
        text = f.read()
    check(text.endswith("\n"), "%s: last line is incomplete" % path)
    lines = text.split("\n")
    check(lines[0] == header, "%s: header %r, expected %r" % (path, lines[0], header))
    rows = list(csv.reader(io.StringIO(text)))[1:]
    ncol = len(header.split(","))
    for i, row in enumerate(rows):
        check(len(row) == ncol, "%s: row %d has %d fields, expected %d: %r"
              % (path, i + 2, len(row), ncol, row))
    return rows


def read_bodies(path):
    """bodies.csv as a list of dicts with numbers parsed (step int, body str)"""
    out = []
    cols = BODIES_HEADER.split(",")
    for i, row in enumerate(read_csv(path, BODIES_HEADER)):
        where = "%s:%d" % (path, i + 2)
        check(row[0].isdigit(), "%s: step %r" % (where, row[0]))
        rec = {"step": int(row[0]), "body": row[2]}
        for c, v in zip(cols, row):
            if c not in ("step", "body"):
                rec[c] = number(v, where + " " + c)
        out.append(rec)
    return out


def read_summary(path):
    with open(path) as f:
        text = f.read()
    check("NaN" not in text and "Infinity" not in text, "%s: non-finite number" % path)
    return json.loads(text)


def frames(rows):
    """group bodies.csv rows by step, checking step order and the same bodies in each frame"""
    out = []
    for r in rows:
        if out and out[-1][0] == r["step"]:
            out[-1][1].append(r)
        else:
            check(not out or r["step"] > out[-1][0],
                  "rows not in step order: step %d after %d" % (r["step"], out[-1][0] if out else -1))
            out.append((r["step"], [r]))
    names = [r["body"] for r in out[0][1]] if out else []
    for step, rs in out:
        check([r["body"] for r in rs] == names, "step %d: bodies %r, expected %r"
              % (step, [r["body"] for r in rs], names))
    return out
