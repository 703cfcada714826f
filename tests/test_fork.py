"""A forked child never enters Go, and memview's own host work goes on there in C.

A Go runtime does not survive fork(): in a child, anything that hands work to another
thread waits forever. memview marks a forked child (pthread_atfork) and never calls Go
there (pyext/go_fork.c): its own host arrays are made, viewed, copied, imported, exported
and pickled in C, and what needs Go raises RuntimeError at once. In the test build every
forked child also makes the extension's Go code unexecutable right after the fork
(pyext/selftest.c), so an entry into Go kills the child with SIGSEGV instead of hanging:
no test below can miss one. Each case runs in a subprocess with a timeout, and each
child under an alarm: a hang is a failure, not a stuck test run.
"""
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import memview as mv

pytestmark = pytest.mark.skipif(not hasattr(mv._core, "_selftest_go_text"),
                                reason="needs the test build (python3 build.py test): it protects Go's code "
                                       "in forked children")

TIMEOUT = 300

PRELUDE = textwrap.dedent("""
    import gc, os, pickle, signal, sys, threading, time
    import numpy as np
    import memview as mv

    def in_child(fn, seconds=20):
        '''fn's result (pickled through a pipe) in a forked child, or ("died", signal),
        ("exit", code), ("error", type, message), "hang".'''
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            signal.alarm(seconds)
            try:
                out = ("ok", fn())
            except BaseException as e:
                out = ("error", type(e).__name__, str(e))
            os.write(w, pickle.dumps(out))
            os._exit(0)
        os.close(w)
        data = b""
        t0 = time.time()
        while True:
            chunk = os.read(r, 1 << 20)
            if not chunk:
                break
            data += chunk
        os.close(r)
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            return "hang" if sig == signal.SIGALRM else ("died", sig)
        if os.WEXITSTATUS(status) != 0 or not data:
            return ("exit", os.WEXITSTATUS(status))
        out = pickle.loads(data)
        return out[1] if out[0] == "ok" else out
""")


def run(body, env=None, timeout=TIMEOUT):
    r = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body)],
                       env=dict(os.environ, **(env or {})), capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, f"exit {r.returncode}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr[-3000:]}"
    return r.stdout


def test_an_entry_into_go_kills_a_test_build_child():
    """The protection is on: the original of a gated gopy function (its __self__)
    enters Go directly and the child dies by SIGSEGV; the gated one raises."""
    lo, hi = mv._core._selftest_go_text()
    assert 0 < lo < hi
    out = run("""
        raw = mv._ext._pyext.pyext_LiveHandles.__self__     # gopy's own function: enters Go
        assert raw() >= 0                                     # fine in the parent
        print(in_child(lambda: raw()))
        print(in_child(lambda: mv._ext._pyext.pyext_LiveHandles()))
    """)
    died, refused = out.splitlines()
    assert died == f"('died', {int(signal.SIGSEGV)})", out
    assert refused.startswith("('error', 'RuntimeError'") and "spawn" in refused and "forkserver" in refused


HOST_WORK = """
    import array, ctypes, io, mmap

    def host_work(inherited, small, record):
        out = {}
        # inherited arrays through every protocol, read and written
        n = np.asarray(inherited)
        n[0] = -1.0
        out["inherited"] = (float(inherited[0]), float(n[12345]), inherited.shape, inherited.strides)
        out["array_interface"] = np.asarray(small.T).tolist()
        out["dlpack"] = np.from_dlpack(small[::-1]).tolist()
        out["memoryview"] = memoryview(small).tolist()
        out["record"] = np.asarray(record).tolist()
        # new arrays of every size, dtype and order; the creation cache and beyond
        for dt in ("bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64", "complex64",
                   "complex128"):
            for shape in ((), (0,), (3,), (4, 5), (1 << 17,)):
                a = mv.zeros(shape, dtype=dt, order="F")
                out[f"zeros {dt} {shape}"] = (a.shape, a.strides, a.dtype, bytes(memoryview(a)) == bytes(a.nbytes))
        big = mv.empty(1 << 20)                 # 8 MiB
        big.fill(2.0)
        c = big.copy()
        c[...] = inherited[::-1]
        out["big"] = (float(c[0]), float(c[-1]), float(np.asarray(big).sum()))
        for i in range(20_000):                 # far more than the creation cache holds
            t = mv.empty(8)
            t[0] = i
        out["full"] = mv.full((2, 3), 7, dtype="int16").tolist()
        out["arange"] = mv.arange(10, dtype="float32")[::3].tolist()
        # views, indexing, elements, assignment of any layout, overlap and broadcast
        a = mv.arange(24, dtype="int64").reshape(4, 6)
        out["views"] = (a[1:3, ::-2].tolist(), a[..., 1].tolist(), a[None, 2].shape, a.T[2, 1], len(a))
        a[::2] = a[1::2]                        # from a view of itself
        a[:, 1:] = a[:, :-1]                    # overlapping
        a[3] = 5                                # a fill of a row
        a[0, ::3] = np.array([100, 200])        # from NumPy, strided
        out["assign"] = a.tolist()
        b = mv.zeros((3, 4), dtype="float64")
        b[...] = mv.arange(4, dtype="float64")  # broadcast
        out["broadcast"] = b.tolist()
        out["transpose"] = (a.transpose(1, 0).strides, a.reshape(6, 4).shape, a.copy(order="F").strides,
                            a[:, ::2].copy(order="K").strides)
        try:
            a[7]
        except IndexError as e:
            out["index error"] = "IndexError"
        try:
            a.reshape(5, 5)
        except ValueError:
            out["reshape error"] = "ValueError"
        try:
            b[...] = mv.zeros(3)
        except ValueError:
            out["broadcast error"] = "ValueError"
        # imports of CPU producers
        x = np.arange(12.0).reshape(3, 4)
        v = mv.from_buffer(x)[::-1, ::2]
        v[0, 0] = 100.0
        out["from_buffer"] = (x.tolist(), mv.asarray(bytearray(b"abc")).tolist(),
                              mv.from_buffer(array.array("i", [1, 2, 3])).tolist(),
                              mv.from_buffer(memoryview(b"xyz")).tolist(), mv.from_dlpack(x).tolist(),
                              mv.from_buffer((ctypes.c_double * 3)(1, 2, 3)).tolist(),
                              mv.from_buffer(x, writable=False).readonly)
        try:
            import pyarrow as pa
        except ImportError:
            pa = None
        if pa is not None:
            pa_in = pa.array([1.5, 2.5, 3.5])
            out["arrow"] = (mv.from_arrow(pa_in).tolist(), pa.array(mv.arange(3, dtype="int32")).to_pylist())
        # pickles both ways, in and out of band, and bytes
        for protocol in (2, 5):
            buffers = []
            data = pickle.dumps(a, protocol=protocol, buffer_callback=buffers.append if protocol == 5 else None)
            back = pickle.loads(data, buffers=buffers)
            out[f"pickle {protocol}"] = (back.tolist(), back.dtype, back.strides)
        f = mv.zeros((2, 3), order="F")
        f[1, 2] = 3.5
        out["pickle F"] = pickle.loads(pickle.dumps(f, protocol=5)).tolist()
        out["bytes"] = (a.tobytes() == np.asarray(a).tobytes(), a.tobytes(order="F") == np.asarray(a).tobytes("F"))
        g = mv.empty((2, 2), dtype="int32")
        g.frombytes(np.arange(4, dtype="int32").tobytes())
        out["frombytes"] = g.tolist()
        with mv.zeros(5) as r:
            r[1] = 1
        out["released"] = r.released
        del big, c, t, v, x, back, g, f, b, a
        gc.collect()
        return out
"""


def test_every_host_operation_in_a_forked_child_matches_the_parent():
    out = run(textwrap.dedent(HOST_WORK) + textwrap.dedent("""
        inherited = mv.arange(1 << 20, dtype="float64")      # 8 MiB, made before the fork
        small = mv.arange(12, dtype="float32").reshape(3, 4)
        record = mv.zeros(3, dtype=np.dtype([("a", "<i4"), ("b", "<f8")]))

        def child():
            res = host_work(inherited, small, record)
            return res, mv._core.child_memory()

        got, mem = in_child(child, 60)
        want = host_work(mv.arange(1 << 20, dtype="float64"), small, record)
        assert got == want, {k: (got.get(k), want[k]) for k in want if got.get(k) != want[k]} or got
        print("child memory", mem)
        # the parent is untouched by the child's writes and keeps working
        assert inherited[0] == 0.0
        print("parent ok")
    """))
    assert "parent ok" in out
    # what the child mapped for its own arrays went back without Go
    assert "child memory (0, 0)" in out, out


def test_what_needs_go_raises_at_once_in_a_child():
    out = run("""
        import gopkg
        x = np.arange(1000.0)
        assert gopkg.SumParallel(x, 4) == x.sum()   # warm in the parent
        gopkg.Nap(1); gopkg.Collect(); gopkg.ChannelSum(3)
        c = gopkg.NewCounter()
        c.Add(1)
        calls = {
            "goroutines": lambda: gopkg.SumParallel(x, 4),
            "sleep": lambda: gopkg.Nap(5),
            "collector": lambda: gopkg.Collect(),
            "channel": lambda: gopkg.ChannelSum(10),
            "method": lambda: c.Add(1),
            "straight line": lambda: gopkg.Len(x),
            "new Go value": lambda: gopkg.NewCounter(),
            "Buffer": lambda: mv.Buffer(16),
            "Builder": lambda: mv.Builder("float64"),
            "pool statistics": lambda: mv.default_pool().bytes_allocated,
            "live handles": lambda: mv.live_handles(),
            "CUDA": lambda: mv.zeros(4, device="cuda"),
            "Go view of an array": lambda: gopkg.Fill(mv.zeros(4), 1.0),
            "asarray of a Go slice": lambda: mv.asarray(gopkg.Float64s(3)),
            "a named [N]byte": lambda: gopkg.Next(b"abcd"),
            "a named [N]byte on gopy's path": lambda: gopkg.NextVia(b"abcd", lambda n: n),
            "a named [N]byte's method": lambda: gopkg.ID(b"abcd").Number(),
            "a named integer's method": lambda: gopkg.Parity(1).Odd(),
        }
        def child():
            res = {}
            for name, fn in calls.items():
                t0 = time.monotonic()
                try:
                    fn()
                    res[name] = "worked"
                except RuntimeError as e:
                    msg = str(e)
                    res[name] = ("RuntimeError", "spawn" in msg and "forkserver" in msg and "3.14" in msg,
                                 time.monotonic() - t0 < 1.0)
                except Exception as e:
                    res[name] = (type(e).__name__, str(e))
            # gopy's finalizers do nothing in a child: no error, no Go
            global c
            del c
            gc.collect()
            return res
        res = in_child(child)
        bad = {k: v for k, v in res.items() if v != ("RuntimeError", True, True)} if isinstance(res, dict) else res
        print("bad", bad)
        print("parent", c.Add(1), gopkg.SumParallel(x, 4) == x.sum())
    """)
    assert "bad {}" in out, out
    assert "parent 2 True" in out, out


def test_nested_fork():
    out = run("""
        a = mv.arange(6.0)
        def grandchild():
            b = a.copy()
            b[...] = a[::-1]
            return b.tolist()
        def child():
            return in_child(grandchild)
        print(in_child(child))
    """)
    assert out.strip() == "[5.0, 4.0, 3.0, 2.0, 1.0, 0.0]", out


def test_forked_child_collects_garbage():
    """Python's collector calls no Go: gopy 0.5 hooks Go's collector into it
    (gc.callbacks), which the build takes out (gopyext.patch_generated_py)."""
    out = run("""
        if "gopkg" in mv.go_packages():
            import gopkg  # a package built with memview has a gopy wrapper of its own
        assert not [cb for cb in gc.callbacks if "gopy" in getattr(cb, "__name__", "")], gc.callbacks

        def child():
            junk = [[i] for i in range(100_000)]
            gc.collect()
            del junk
            return mv.arange(4).tolist()

        print(in_child(child, 30))
    """)
    assert out.strip() == "[0, 1, 2, 3]", out


POOL = """
    import multiprocessing as mp

    def make(n):
        a = mv.arange(n, dtype="float64")
        a[...] = a[::-1]
        return a                                 # pickled back to the parent

    def go_sum(n):
        import gopkg
        return gopkg.SumParallel(np.arange(float(n)), 4)
"""


@pytest.mark.parametrize("method", ["fork", "forkserver", "forkserver-preload", "spawn"])
def test_multiprocessing(method, tmp_path):
    mod = tmp_path / "poolwork.py"
    mod.write_text(PRELUDE + textwrap.dedent(POOL))
    out = run(f"""
        import multiprocessing as mp
        sys.path.insert(0, {str(tmp_path)!r})
        import poolwork
        method = {method!r}
        ctx = mp.get_context(method.split("-")[0])
        if method == "forkserver-preload":
            ctx.set_forkserver_preload(["memview", "poolwork"])
        with ctx.Pool(4) as p:
            arrays = p.map(poolwork.make, [3, 5, 1000])
            print("arrays", [a.tolist()[:3] for a in arrays])
            try:
                r = p.map_async(poolwork.go_sum, [10, 20]).get(timeout=60)
                print("go", r)
            except RuntimeError as e:
                print("go refused", "spawn" in str(e))
        print("pool done")
    """)
    assert "arrays [[2.0, 1.0, 0.0], [4.0, 3.0, 2.0], [999.0, 998.0, 997.0]]" in out, out
    # Workers forked from a process running Go (fork, or a forkserver that preloaded
    # memview) refuse Go at once; spawned ones, and a forkserver that did not load
    # memview, run it.
    forked = method in ("fork", "forkserver-preload")
    assert ("go refused True" if forked else "go [45.0, 190.0]") in out, out
    assert "pool done" in out


def test_dataloader_shaped_workers():
    """Forked workers make arrays and send them back through a queue (pickle 5,
    out of band where the transport allows), as a PyTorch DataLoader's do."""
    out = run("""
        import multiprocessing as mp
        ctx = mp.get_context("fork")
        base = mv.arange(64, dtype="float32").reshape(8, 8)

        def worker(q, wid):
            for batch in range(5):
                x = base[wid::4].copy()
                x[...] = x * 0 + (wid * 10 + batch) if False else x
                y = mv.zeros((8, 8), dtype="float32")
                y[wid] = float(wid * 10 + batch)
                q.put((wid, batch, x, y))
            q.put(None)

        q = ctx.Queue()
        procs = [ctx.Process(target=worker, args=(q, w)) for w in range(4)]
        for p in procs:
            p.start()
        got, done = [], 0
        while done < 4:
            item = q.get(timeout=60)
            if item is None:
                done += 1
                continue
            got.append(item)
        for p in procs:
            p.join(60)
        assert all(p.exitcode == 0 for p in procs), [p.exitcode for p in procs]
        ok = all(x.tolist() == base[w::4].tolist() and y[w].tolist() == [float(w * 10 + b)] * 8
                 for w, b, x, y in got)
        print(len(got), ok)
    """)
    assert out.strip() == "20 True", out


def test_fork_beside_adversarial_go_load():
    """Forks beside a goroutine that never blocks, tickers every 100 us, a collector
    loop and threads copying large arrays: no child hangs, and none refuses
    memview's own host work. MEMVIEW_FORK_STRESS sets the number of forks."""
    forks = int(os.environ.get("MEMVIEW_FORK_STRESS", "120"))
    out = run(f"""
        import gopkg
        gopkg.StartChurn(0)
        gopkg.StartBackground(4, 100, True)
        src, dst = mv.zeros(1 << 22), mv.empty(1 << 22)   # 32 MiB each
        stop = threading.Event()
        def copier():
            while not stop.is_set():
                dst[...] = src
        threads = [threading.Thread(target=copier) for _ in range(2)]
        for t in threads:
            t.start()
        def child():
            a = mv.empty(1 << 16)
            a.fill(3.0)
            b = a.copy()
            b[::2] = a[1::2]
            c = mv.from_buffer(np.asarray(b)[::3])
            return float(np.asarray(c).sum()), pickle.loads(pickle.dumps(b[:4], protocol=5)).tolist()
        results = {{}}
        t0 = time.monotonic()
        for i in range({forks}):
            r = in_child(child, 30)
            key = r if isinstance(r, str) or r[0] in ("died", "exit", "error") else "ok"
            results[str(key)] = results.get(str(key), 0) + 1
            if key != "ok":
                print("child", i, r)
        stop.set()
        for t in threads:
            t.join()
        gopkg.StopBackground()
        gopkg.StopChurn()
        print("results", results, round(time.monotonic() - t0, 1))
    """, timeout=max(TIMEOUT, forks))
    print(out.splitlines()[-1])  # shown with pytest -s: the counts and the seconds they took
    assert f"results {{'ok': {forks}}}" in out, out


def test_copies_in_a_child_match_numpy_over_random_layouts():
    """The C copies a child does (ops_host.c) against NumPy's assignment from a copy
    of the source (memview assigns as if through a temporary; NumPy does not when
    1-D views overlap with strides in one direction): random views of one buffer
    (negative strides, overlap, broadcasting) and of another, several item sizes.
    MEMVIEW_FORK_COPY_CASES sets the count."""
    cases = int(os.environ.get("MEMVIEW_FORK_COPY_CASES", "400"))
    out = run(f"""
        import random
        def view(rng):
            # a random shape of 48 items and a basic-indexing key of it
            shape = rng.choice([(48,), (4, 12), (2, 3, 8)])
            key = []
            for d in shape:
                lo, hi = sorted(rng.sample(range(d + 1), 2))
                step = rng.choice([1, 2, 3, -1, -2])
                key.append(slice(lo, hi, step) if step > 0 else slice(hi - 1, lo - 1 if lo else None, step))
            return shape, tuple(key)

        def child():
            rng = random.Random(7)
            bad, compared = [], 0
            for case in range({cases}):
                dt = rng.choice(["int8", "int16", "float32", "float64", "complex128"])
                n = 48
                base, ref = mv.arange(n, dtype=dt), np.arange(n, dtype=dt)
                other, oref = mv.arange(n, dtype=dt), np.arange(n, dtype=dt)
                dshape, dkey = view(rng)
                d, dr = base.reshape(*dshape)[dkey], ref.reshape(dshape)[dkey]
                src_from_base = rng.random() < 0.7
                sshape, skey = view(rng)
                s = (base if src_from_base else other).reshape(*sshape)[skey]
                sr = (ref if src_from_base else oref).reshape(sshape)[skey]
                try:
                    np.broadcast_to(sr, dr.shape)
                except ValueError:   # not broadcastable: one item of it, broadcast
                    if sr.size == 0:
                        continue
                    one = tuple(slice(0, 1) for _ in range(sr.ndim))
                    s, sr = s[one], sr[one]
                dr[...] = sr.copy()   # as if through a temporary (NumPy itself does not always)
                d[...] = s
                compared += 1
                if np.asarray(base).tolist() != ref.tolist():
                    bad.append((case, dt, dshape, dkey, sshape, skey, src_from_base))
            return bad, compared > {cases} // 2
        print(in_child(child, 120))
    """)
    assert out.strip() == "([], True)", out
