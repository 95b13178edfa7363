"""comply: --version, help, usage errors (exit 2 with a usage line), the OpenMP wait policy."""
import os
import re
import shutil
import subprocess
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
    # `comply --help CMD` as `comply help CMD` (it printed the overview and ignored CMD), `help -h`
    # and `help -- CMD` as every command's (they were unknown commands), `help --version`
    for args, start in ((("--help", "run"), "usage: comply run"), (("-h", "check"), "usage: comply check"),
                        (("help", "-h"), "comply "), (("help", "--", "run"), "usage: comply run"),
                        (("help", "--version"), "comply --version")):
        r = s.run(*args)
        expect_exit(r, 0, " ".join(args))
        check(r.stdout.startswith(start), "%s: %r" % (" ".join(args), r.stdout[:80]))
    expect_exit(s.run("--help", "nosuch"), 2, "--help nosuch")
    # every command's help lists -h
    for cmd in ("run", "check", "mesh-info", "mesh-repair", "tetmesh", "advise", "plot", "sweep"):
        r = s.run("help", cmd)
        check("-h, --help" in r.stdout, "help %s does not list -h" % cmd)


def test_usage_errors(s):
    r = s.run()
    expect_exit(r, 2, "no arguments")
    check("usage" in r.stderr, "no arguments: no usage on stderr")
    check(r.stdout == "", "no arguments: output on stdout")
    # a usage error as any other: what is missing, then the usage line (it was the overview)
    check(r.stderr.startswith("comply: missing COMMAND"), "no arguments: %r" % r.stderr[:80])
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
        # the command named, as plot's, advise's and sweep's messages name theirs
        check(r.stderr.startswith("comply: %s: unknown option" % cmd), "%s --bogus: %r" % (cmd, r.stderr))
        check("usage: comply " + cmd in r.stderr, "%s --bogus: no usage line" % cmd)
    r = s.run("check")
    expect_exit(r, 2, "check without SCENE")
    r = s.run("mesh-info")
    expect_exit(r, 2, "mesh-info without FILE")
    r = s.run("check", "a.yaml", "b.yaml")
    expect_exit(r, 2, "check with two scenes")


def spin_counts(s, env, prefix=()):
    """run `comply --version` with env; the GOMP_SPINCOUNT of every OpenMP start (libgomp prints
    its settings with OMP_DISPLAY_ENV=verbose), and the result"""
    r = subprocess.run(list(prefix) + [s.comply, "--version"], capture_output=True, text=True,
                       env=env, timeout=300, cwd=s.tmp)
    return re.findall(r"GOMP_SPINCOUNT = '(\d+)'", r.stderr), r


def test_openmp_wait_policy(s):
    """waiting OpenMP threads sleep (cli/comply.c starts itself again with
    OMP_WAIT_POLICY=passive); a policy the user set is kept; under valgrind no second start"""
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    env["OMP_DISPLAY_ENV"] = "verbose"
    counts, r = spin_counts(s, env)
    if not counts:
        print("     (not built with libgomp: nothing to check)")
        return
    expect_exit(r, 0, "--version with the policy unset")
    check(counts == ["300000", "0"], "unset: libgomp's spinning default, then a start without "
          "spinning expected, got spin counts %r" % counts)
    check(re.fullmatch(r"comply \d+\.\d+\.\d+\n", r.stdout), "printed %r" % r.stdout)
    counts, r = spin_counts(s, dict(env, OMP_WAIT_POLICY="active"))
    check(len(counts) == 1 and counts[0] != "0", "the user's policy is kept: %r" % counts)
    vg = shutil.which("valgrind")
    with open(s.comply, "rb") as f:
        asan = b"__asan_init" in f.read()  # ASan and valgrind exclude each other
    if vg and not asan:
        counts, r = spin_counts(s, env, (vg, "--quiet", "--error-exitcode=3"))
        expect_exit(r, 0, "--version under valgrind with the policy unset")
        check(len(counts) == 1 and "comply " in r.stdout,
              "under valgrind one start, in valgrind: %r %r" % (counts, r.stdout))


if __name__ == "__main__":
    s = Suite()
    for t in (test_version, test_help, test_usage_errors, test_openmp_wait_policy):
        s.test(t)
    s.finish()
