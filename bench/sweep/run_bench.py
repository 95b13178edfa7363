#!/usr/bin/env python3
"""The comply sweep benchmark (bench/README.md, "comply sweep").

    python3 bench/sweep/run_bench.py BUILD/comply [ROUNDS]

Runs the 64 variants of sweep64.yaml with mpirun -n 1, 2 and 4 and with the local pool -j 1, 2
and 4, side by side: the six configurations one after the other in each round (ROUNDS, default
2), so that a change in the machine's load hits them alike; the best time of each is kept. Then
the cost of a restart that finds every variant complete (the skip check), the mean run time of a
variant from its wall_time column against the whole time per variant (what the rest costs:
parse, compile, outputs, the process), and the rate of the shared counter (MPI_Fetch_and_op on
rank 0's window, 4 ranks, built with mpicc from counter_rate.c), and the CPU time of parse,
compile and one step (compile_cost.c, built against BUILD/libcomply.a).
"""
import csv
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENV = dict(os.environ, OMPI_MCA_btl="self,vader", OMPI_MCA_btl_vader_single_copy_mechanism="none",
           OMPI_MCA_rmaps_base_oversubscribe="1")
MPIRUN = ["mpirun", "--allow-run-as-root", "--oversubscribe"]


def cpu_children():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime


def timed(cmd, cpu=None):
    """wall time of cmd; its CPU time (every process under it) is appended to cpu"""
    c = cpu_children()
    t = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, env=ENV)
    dt = time.monotonic() - t
    if r.returncode != 0:
        sys.exit("%s: exit %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    if cpu is not None:
        cpu.append(cpu_children() - c)
    return dt


def main():
    comply = os.path.abspath(sys.argv[1])
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    sweep = os.path.join(HERE, "sweep64.yaml")
    tmp = tempfile.mkdtemp(prefix="comply-sweep-bench-")
    configs = [("mpirun -n %d" % n, MPIRUN + ["-n", str(n), comply, "sweep", sweep, "--quiet"])
               for n in (1, 2, 4)]
    configs += [("local -j %d" % n, [comply, "sweep", sweep, "--quiet", "-j", str(n)])
                for n in (1, 2, 4)]
    best = {}
    print("load average before: %s" % open("/proc/loadavg").read().strip())
    for r in range(rounds):
        for name, cmd in configs:
            out = os.path.join(tmp, "out")
            shutil.rmtree(out, ignore_errors=True)
            cpu = []
            dt = timed(cmd + ["-o", out], cpu)
            if name not in best or dt < best[name][0]:
                best[name] = (dt, cpu[0])
            print("round %d  %-12s %7.2f s wall %7.2f s CPU" % (r + 1, name, dt, cpu[0]))
    print("load average after: %s" % open("/proc/loadavg").read().strip())
    print("best of %d rounds (wall s, speed-up against 1, CPU s of that run):" % rounds)
    for kind in ("mpirun -n", "local -j"):
        t1 = best["%s 1" % kind][0]
        print("%-10s " % kind + "   ".join(
            "%d: %.2f s (x%.2f, CPU %.2f s)" % (n, best["%s %d" % (kind, n)][0],
                                               t1 / best["%s %d" % (kind, n)][0],
                                               best["%s %d" % (kind, n)][1]) for n in (1, 2, 4)))
    # one process: the step loop (wall_time) against the whole time per variant
    out = os.path.join(tmp, "out")
    shutil.rmtree(out, ignore_errors=True)
    cpu = []
    dt = timed([comply, "sweep", sweep, "--quiet", "-j", "1", "-o", out], cpu)
    with open(os.path.join(out, "sweep.csv")) as f:
        rows = list(csv.DictReader(f))
    run = sum(float(x["wall_time"]) for x in rows) / len(rows)
    print("one process: %.1f ms wall, %.1f ms CPU per variant; %.1f ms in the step loop "
          "(wall_time)" % (1e3 * dt / len(rows), 1e3 * cpu[0] / len(rows), 1e3 * run))
    # restart with everything complete: the cost of the skip check per variant
    skip = timed([comply, "sweep", sweep, "--quiet", "-j", "1", "-o", out])
    print("restart, all 64 complete: %.3f s (%.2f ms per variant)" % (skip, 1e3 * skip / 64))
    nfiles = sum(len(fs) for _, _, fs in os.walk(out))
    print("files in the output: %d (%.1f per variant)" % (nfiles, nfiles / 64))
    # the fixed cost of a variant: the same 64 variants of one step each
    one = os.path.join(tmp, "one_step.yaml")
    with open(sweep) as f:
        text = f.read().replace("scene: ball.yaml", "scene: %s" % os.path.join(HERE, "ball.yaml"))
    with open(one, "w") as f:
        f.write(text.replace("vary:\n", "vary:\n  - path: scene.steps\n    values: [1]\n"))
    out1 = os.path.join(tmp, "one")
    cpu = []
    t1 = timed([comply, "sweep", one, "--quiet", "-j", "1", "-o", out1], cpu)
    print("one step per variant: %.1f ms wall, %.1f ms CPU per variant (parse, compile, "
          "outputs, process)" % (1e3 * t1 / 64, 1e3 * cpu[0] / 64))
    # parse, compile and a step in one process (compile_cost.c against BUILD/libcomply.a)
    cc = os.path.join(tmp, "compile_cost")
    lib = os.path.join(os.path.dirname(comply), "libcomply.a")
    src = os.path.dirname(os.path.dirname(HERE))
    subprocess.run(["cc", "-O2", "-std=c11", "-I", os.path.join(src, "include"),
                    os.path.join(HERE, "compile_cost.c"), lib, "-lyaml", "-lz", "-lm", "-fopenmp",
                    "-o", cc], check=True)
    r = subprocess.run([cc, os.path.join(HERE, "ball.yaml"), "200"], capture_output=True,
                       text=True, env=dict(ENV, OMP_NUM_THREADS="1"), check=True)
    print("ball.yaml: " + r.stdout.strip())
    # the counter
    exe = os.path.join(tmp, "counter_rate")
    subprocess.run(["mpicc", "-O2", os.path.join(HERE, "counter_rate.c"), "-o", exe], check=True)
    r = subprocess.run(MPIRUN + ["-n", "4", exe, "200000"], capture_output=True, text=True,
                       env=ENV, check=True)
    print(r.stdout.strip())
    shutil.rmtree(tmp, ignore_errors=True)


main()
