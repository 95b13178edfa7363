"""Many Data of one Model stepped from Python threads give, bit for bit, the states of stepping
them one after another (cm_step releases the GIL; a Data is touched by one thread only). The
scene has contacts, the implicit solve and sub-steps: boxes dropped at different speeds."""
import ctypes
import threading

from conftest import SCALE, box_on_plane

import comply


def variants(m, n):
    out = []
    for i in range(n):
        d = comply.Data(m)
        d.body_cvel[1] = (0.01 * i, 0.0, -0.1 * i)
        d.body_angvel[1] = (0.0, 0.2 * i, 0.0)
        out.append(d)
    return out


def test_eight_threads_equal_sequential():
    m = box_on_plane(divisions=4, z0=0.03)
    steps = max(40, int(200 * SCALE))
    seq = variants(m, 8)
    for d in seq:
        d.step(steps)
    par = variants(m, 8)
    threads = [threading.Thread(target=d.step, args=(steps,)) for d in par]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [d.nstep for d in par] == [steps] * 8
    assert [d.hash() for d in par] == [d.hash() for d in seq]
    assert len({d.hash() for d in seq}) == 8  # the variants differ
    assert sum(d.ncontact for d in seq) > 0


def test_step_parallel_helper():
    m = box_on_plane(divisions=2, z0=0.03)
    a, b = variants(m, 8), variants(m, 8)
    comply.step_parallel(a, 30, threads=8)
    for d in b:
        d.step(30)
    assert [d.hash() for d in a] == [d.hash() for d in b]
    assert comply.step_parallel([], 10) == []


def test_library_releases_the_gil():
    """ctypes.CDLL calls release the GIL; PyDLL (a subclass) would hold it through cm_step."""
    lib = comply.library()
    assert isinstance(lib, ctypes.CDLL) and not isinstance(lib, ctypes.PyDLL)
