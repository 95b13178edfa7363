"""comply: --version, help, usage errors (exit 2 with a usage line)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402


def test_version(s):
    r = s.run("--version")
    expect_exit(r, 0, "--version")
    check(re.fullmatch(r"comply \d+\.\d+\.\d+\n", r.stdout), "--version printed %r" % r.stdout)
    expect_exit(s.run("--version", "x"), 2, "--version x")


def test_help(s):
    for args in (["help"], ["--help"], ["-h"]):
        r = s.run(*args)
        expect_exit(r, 0, " ".join(args))
        for cmd in ("run", "check", "mesh-info", "help"):
            check("comply " + cmd in r.stdout, "%s does not list %s" % (args, cmd))
    r = s.run("help", "run")
    expect_exit(r, 0, "help run")
    for opt in ("--steps", "--duration", "--quiet", "-o", "130"):
        check(opt in r.stdout, "help run does not mention %s" % opt)
    r = s.run("run", "--help")
    expect_exit(r, 0, "run --help")
    check(r.stdout.startswith("usage: comply run"), "run --help: %r" % r.stdout[:80])
    for cmd in ("check", "mesh-info"):
        r = s.run("help", cmd)
        expect_exit(r, 0, "help " + cmd)
        check(r.stdout.startswith("usage: comply " + cmd), "help %s: %r" % (cmd, r.stdout[:80]))
    r = s.run("help", "nosuch")
    expect_exit(r, 2, "help nosuch")
    check("nosuch" in r.stderr, "help nosuch: %r" % r.stderr)
    expect_exit(s.run("help", "run", "check"), 2, "help with two commands")


def test_usage_errors(s):
    r = s.run()
    expect_exit(r, 2, "no arguments")
    check("usage" in r.stderr, "no arguments: no usage on stderr")
    check(r.stdout == "", "no arguments: output on stdout")
    r = s.run("frobnicate")
    expect_exit(r, 2, "unknown command")
    check("comply: " in r.stderr and "frobnicate" in r.stderr, "unknown command: %r" % r.stderr)
    r = s.run("--bogus")
    expect_exit(r, 2, "unknown option")
    check("--bogus" in r.stderr, "unknown option: %r" % r.stderr)
    for cmd, extra in (("run", []), ("check", ["x.yaml"]), ("mesh-info", ["x.obj"])):
        r = s.run(cmd, *extra, "--bogus")
        expect_exit(r, 2, cmd + " --bogus")
        check("'--bogus'" in r.stderr, "%s --bogus: %r" % (cmd, r.stderr))
        check("usage: comply " + cmd in r.stderr, "%s --bogus: no usage line" % cmd)
    r = s.run("check")
    expect_exit(r, 2, "check without SCENE")
    r = s.run("mesh-info")
    expect_exit(r, 2, "mesh-info without FILE")
    r = s.run("check", "a.yaml", "b.yaml")
    expect_exit(r, 2, "check with two scenes")


if __name__ == "__main__":
    s = Suite()
    for t in (test_version, test_help, test_usage_errors):
        s.test(t)
    s.finish()
