"""Long work gives up the GIL: other Python threads run during large copies and fills,
and the arrays involved cannot be released from under the work."""
import threading
import time

import numpy as np
import pytest

import memview as mv

N = 1 << 25  # 256 MiB of float64: each operation below takes tens of milliseconds


class Ticker:
    """A Python thread that counts how often it ran while an operation was in progress."""

    def __init__(self):
        self.running = threading.Event()
        self.stop = threading.Event()
        self.during = 0
        self.thread = threading.Thread(target=self._run)

    def _run(self):
        while not self.stop.is_set():
            if self.running.is_set():
                self.during += 1
            time.sleep(0.0005)

    def measure(self, op):
        self.thread.start()
        time.sleep(0.01)
        self.running.set()
        try:
            op()
        finally:
            self.running.clear()
            self.stop.set()
            self.thread.join()
        return self.during


@pytest.fixture(scope="module")
def big():
    src = mv.arange(N, dtype="float64")
    dst = mv.empty(N)
    yield src, dst
    src.release()
    dst.release()


def _fill_fresh():
    # Fresh pages: a fill of memory already touched runs at memory bandwidth on every
    # core (a few milliseconds for 256 MiB), too short for the ticker to show anything;
    # the first touch of each page makes the same fill long.
    a = mv.empty(N)
    try:
        a.fill(7.0)
    finally:
        a.release()


OPS = {
    "assign": lambda s, d: d.__setitem__(Ellipsis, s),
    "assign reversed": lambda s, d: d.__setitem__(Ellipsis, s[::-1]),
    "fill": lambda s, d: _fill_fresh(),
    "copy": lambda s, d: s.copy().release(),
    "copy F": lambda s, d: s.reshape(1 << 12, 1 << 13).copy("F").release(),
    "frombytes": lambda s, d: d.frombytes(memoryview(s)),
}


@pytest.mark.parametrize("name", OPS)
def test_other_threads_run_during_long_work(big, name):
    src, dst = big
    ticks = Ticker().measure(lambda: OPS[name](src, dst))
    assert ticks >= 3, f"{name}: another thread ran {ticks} times during the operation"


def test_results_are_right_with_threads_copying_at_once():
    a = [mv.arange(1 << 20, dtype="float64") for _ in range(4)]
    b = [mv.empty(1 << 20) for _ in range(4)]
    threads = [threading.Thread(target=lambda i=i: [b[i].__setitem__(Ellipsis, a[i][::-1])
                                                    for _ in range(5)]) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, y in zip(a, b):
        assert np.array_equal(np.asarray(y), np.asarray(x)[::-1])


def test_release_from_another_thread_is_refused_during_work():
    src, dst = mv.zeros(N), mv.empty(N)
    refused = []
    for _ in range(5):
        go = threading.Event()

        def releaser():
            go.wait()
            time.sleep(0.005)
            try:
                src.release()
            except BufferError as e:
                refused.append(str(e))

        t = threading.Thread(target=releaser)
        t.start()
        go.set()
        try:
            dst[...] = src
        except ValueError:  # the release came first: the copy sees a released array
            assert src.released
        t.join()
        if src.released:
            src = mv.zeros(N)
    assert refused and all("another thread" in r for r in refused), refused
    src.release()
    dst.release()


def test_small_work_keeps_the_gil_and_stays_correct():
    a = mv.arange(100, dtype="int32")
    b = mv.empty(100, "int32")
    b[...] = a[::-1]
    assert b.tolist() == list(range(99, -1, -1))
