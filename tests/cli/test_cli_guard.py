"""comply run on a deliberately unstable scene: exit status 1, a diagnosis naming the body, the
pair and the cause, complete output files with the last good state and no NaN."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit, read_bodies, read_summary  # noqa: E402

UNSTABLE = """\
scene: {timestep: 1.0e-3, duration: 1.0, substeps: 1}
bodies:
  - name: ground
    geometry: {plane: {}}
    motion: fixed
  - name: ball
    geometry: {sphere: {radius: 0.05, refine: 2}}
    position: [0, 0, 0.06]
interactions:
  - pair: [ball, ground]
    law: linear
    stiffness: 1.0e9
    integration: explicit
"""


def test_unstable(s):
    path = s.write("unstable.yaml", UNSTABLE)
    out = s.path("out")
    r = s.run("run", path, "-o", out, "--quiet")
    expect_exit(r, 1, "unstable run")
    for needle in ("'ball'", "ball <-> ground", "w h = ", "integration: implicit"):
        check(needle in r.stderr, "%r not in the message %r" % (needle, r.stderr))
    summ = read_summary(os.path.join(out, "summary.json"))
    check(summ["failed"] is True, "summary not failed")
    check("w h = " in summ["message"], summ["message"])
    for name in ("bodies.csv", "contacts.csv"):
        text = open(os.path.join(out, name)).read()
        check("nan" not in text.lower() and "inf" not in text.lower(), "%s has NaN/inf" % name)
    rows = read_bodies(os.path.join(out, "bodies.csv"))
    check(len(rows) > 0, "no rows")
    for row in rows:
        for k, v in row.items():
            if isinstance(v, float):
                check(math.isfinite(v), "non-finite %s in %r" % (k, row))
    last = max(int(row["step"]) for row in rows)
    check(last == summ["steps"], "last written step %d != summary steps %d" % (last, summ["steps"]))


def test_contact_limit(s):
    # a box with 5 x 5 bottom vertices landing flat: 25 contact points > 3
    text = UNSTABLE.replace("timestep: 1.0e-3", "timestep: 1.0e-3, max_contacts: 3").replace(
        "    integration: explicit\n", "").replace(
        "{sphere: {radius: 0.05, refine: 2}}", "{box: {size: [0.1, 0.1, 0.1], divisions: 4}}")
    path = s.write("limit.yaml", text.replace("substeps: 1}", "substeps: 1}\noutput: {every: 100}"))
    out = s.path("out2")
    r = s.run("run", path, "-o", out, "--quiet")
    expect_exit(r, 1, "contact limit")
    check("max_contacts = 3" in r.stderr, r.stderr)
    # not the out-of-memory warning of the contact buffer (it was printed as well)
    check("contact_limit" not in r.stderr and "out of memory" not in r.stderr, r.stderr)
    # the frame of the last good state (between the regular frames) has no contact rows: the
    # failed step's contacts, cut short at max_contacts and without forces, were written under
    # it (the contacts of the state restored are not kept)
    last = max(int(row["step"]) for row in read_bodies(os.path.join(out, "bodies.csv")))
    check(last % 100 != 0, "the failure frame at step %d" % last)
    rows = open(os.path.join(out, "contacts.csv")).read().splitlines()[1:]
    check(all(int(x.split(",")[0]) != last for x in rows), "contact rows at step %d" % last)


if __name__ == "__main__":
    s = Suite()
    for t in (test_unstable, test_contact_limit):
        s.test(t)
    s.finish()
