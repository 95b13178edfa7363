"""comply check rejects every bad contact-law parameter (issue: the physics core) with exit
status 2 and a message naming the file, the line of the parameter and the rule."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from clitest import Suite, check, expect_exit  # noqa: E402

SCENE = """\
bodies:
  - name: ball
    geometry: {sphere: {radius: 0.05, refine: 1}}
    position: [0, 0, 0.1]
  - name: ground
    geometry: {plane: {}}
    motion: fixed
interactions:
  - pair: ["*", "*"]
    law: contact_time
  - pair: [ball, ground]
    law: %s
    %s
"""

BAD = [
    ("area_compliant", "ka: -5.0e10", "ka"),
    ("area_compliant", "ka: 0", "ka"),
    ("area_compliant", "step_damping: -1", "step_damping"),
    ("area_compliant", "stiffness_damping: -0.001", "stiffness_damping"),
    ("contact_time", "elastic_repulsion: 0", "elastic_repulsion"),
    ("contact_time", "elastic_repulsion: 1.01", "elastic_repulsion"),
    ("contact_time", "elastic_repulsion: -0.5", "elastic_repulsion"),
    ("contact_time", "contact_time: 0", "contact_time"),
    ("contact_time", "contact_time: -0.1", "contact_time"),
    ("contact_time", "friction: -0.2", "friction"),
    ("area_compliant", "friction: -0.2", "friction"),
    ("contact_time", "play: -0.001", "play"),
    ("linear", "stiffness: -1", "stiffness"),
    ("linear", "damping: -1", "damping"),
    ("contact_time", "ka: 5.0e10", "ka"),  # a parameter of another law
    ("area_compliant", "stick_velocity: 0", "stick_velocity"),
    ("contact_time", "stick_velocity: -1.0e-5", "stick_velocity"),
    ("area_compliant", "stick_velocity: 2", "stick_velocity"),
    ("area_compliant", "stick_velocity: .nan", "stick_velocity"),
    ("area_compliant", "min_period: -1", "min_period"),
    ("linear", "min_period: .nan", "min_period"),
    ("area_compliant", "min_period: 2.0e6", "min_period"),
    ("contact_time", "min_period: 4", "min_period"),  # laws area_compliant and linear only
    # beyond what double precision carries: the force was lost (a ball fell through)
    ("area_compliant", "ka: 1.0e300", "ka"),
    ("contact_time", "contact_time: 1.0e-300", "contact_time"),
    ("linear", "stiffness: 1.0e30", "stiffness"),
]


def test_bad_parameters(s):
    for i, (law, line, field) in enumerate(BAD):
        path = s.write("bad%d.yaml" % i, SCENE % (law, line))
        r = s.run("check", path)
        expect_exit(r, 2, "%s / %s" % (law, line))
        # the parameter is on line 13 of the file, in the second rule (interactions[1])
        check(re.search(r"bad%d\.yaml:13:\d+:" % i, r.stderr), "no file:line in %r" % r.stderr)
        check("interactions[1]" in r.stderr, "rule not named in %r" % r.stderr)
        check(field in r.stderr, "field %s not named in %r" % (field, r.stderr))


def test_good_parameters(s):
    for i, line in enumerate(["ka: 1.0e9", "step_damping: 0.5", "friction: 0.3",
                              "stick_velocity: 1.0e-3", "min_period: 4"]):
        path = s.write("good%d.yaml" % i, SCENE % ("area_compliant", line))
        r = s.run("check", path)
        expect_exit(r, 0, line)
        check("ball <-> ground: rule 2 (area_compliant, line 11)" in r.stdout, r.stdout[-500:])


if __name__ == "__main__":
    s = Suite()
    for t in (test_bad_parameters, test_good_parameters):
        s.test(t)
    s.finish()
