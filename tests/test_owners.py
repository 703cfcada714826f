"""Random walks over the owners of memory (pyext/core_owner.c): arrays of every
kind of owner — Go's (a large array), a block of the creation cache, an import of
a NumPy array, a DLPack keeper — their C-level views, views of views, release()
in any order, buffer exports and Go handles made on demand (a DLPack export, a copy
through Go, a copy that fails). Every read is checked against a NumPy mirror of
the memory, and at the end every owner has given its memory back: the pool's
bytes, the live handles and the exporters' buffers.

MEMVIEW_OWNER_WALKS sets the number of walks (default 2000), MEMVIEW_OWNER_SEED the
first seed.
"""
import os
import random

import numpy as np
import pytest

import memview as mv

WALKS = int(os.environ.get("MEMVIEW_OWNER_WALKS", "2000"))
SEED = int(os.environ.get("MEMVIEW_OWNER_SEED", "1"))


def _state():
    # arrays go by reference counting alone (tests/test_lifetime.py): no collection
    return mv.default_pool().bytes_allocated, mv.live_handles()


def _make(rng, kind, sources):
    """A new 2-D float64 array of the owner kind, and a NumPy shadow of it: the
    same values in memory of its own, which the walk writes as it writes the array."""
    rows, cols = rng.randint(1, 6), rng.randint(1, 6)
    if kind == "go":  # beyond the creation cache: Go allocates it
        a = mv.zeros((rows, 1 << 14))[:, :cols]
        if rng.random() < 0.5:
            a = a.copy(order="C")
    elif kind == "block":
        a = mv.zeros((rows, cols))
    else:  # an import, or a DLPack keeper, of NumPy over a bytearray
        ba = bytearray(rows * cols * 8)
        sources.append(ba)
        src = np.frombuffer(ba).reshape(rows, cols)
        a = mv.from_buffer(src) if kind == "import" else mv.from_dlpack(src)
        del src
    return a, np.zeros((rows, cols))


def _random_key(rng, ndim):
    return tuple(slice(rng.choice([None, 0, 1]), None, rng.choice([1, 2, -1])) for _ in range(ndim))


def _walk(rng):
    sources = []  # the bytearrays under imports: none may stay exported
    live = []  # (array, shadow)
    held = []  # memoryviews of arrays: exports that pin them
    for _ in range(rng.randint(5, 40)):
        op = rng.random()
        if op < 0.25 or not live:
            live.append(_make(rng, rng.choice(["go", "block", "import", "keeper"]), sources))
            continue
        i = rng.randrange(len(live))
        a, sh = live[i]
        if op < 0.45:  # a C-level view (of a view)
            key = _random_key(rng, a.ndim)
            live.append((a[key], sh[key]) if rng.random() < 0.7 else (a.T, sh.T))
        elif op < 0.55:  # a write, seen by every array over the same memory
            if a.size:
                idx = tuple(rng.randrange(n) for n in a.shape)
                a[idx] = sh[idx] = float(rng.randint(1, 99))
        elif op < 0.65:  # release: the memory stays while another array uses it
            if any(h.obj is a for h in held):
                with pytest.raises(BufferError):
                    a.release()
            else:
                a.release()
                with pytest.raises(ValueError, match="released"):
                    a.tolist()
                live.pop(i)
        elif op < 0.72:  # an export that pins the array for a while
            held.append(memoryview(a))
        elif op < 0.78 and held:
            held.pop(rng.randrange(len(held))).release()
        elif op < 0.86:  # Go is handed the array: its owner's handle, a view's own
            n = np.from_dlpack(a)
            assert n.tolist() == sh.tolist()
            del n
        elif op < 0.92:  # a copy through Go, and one Go refuses: handles come back
            c = mv.zeros(a.shape)
            mv._core.copyto(c, a)
            assert c.tolist() == sh.tolist()
            with pytest.raises(ValueError):
                mv._core.copyto(c, mv.zeros((7, 7, 7)))
        else:  # drop the Python reference: the owner counts the rest
            live.pop(i)
        for b, shb in live:
            assert b.tolist() == shb.tolist()
    for h in held:
        h.release()
    return sources


def test_random_walks_over_owners():
    for walk in range(WALKS):
        seed = SEED * 100003 + walk
        before = _state()
        sources = _walk(random.Random(seed))
        assert _state() == before, f"walk {walk} (seed {seed}) did not give every owner's memory back"
        for ba in sources:  # every buffer taken from NumPy was given back
            ba.append(0)
