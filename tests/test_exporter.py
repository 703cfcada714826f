"""A Go type lending its memory through memview.Exporter (the producer side of
Ruby's MemoryView): the example RGBImage, owned by Go, used in place by NumPy and
memoryview and mutated from both sides."""
import gc

import numpy as np
import pytest

import memview as mv


def test_image_shared_with_numpy_both_ways():
    with mv.examples.RGBImage(4, 3) as im:
        a = im.pixels()
        assert a.shape == (3, 4, 3) and a.dtype == "uint8" and not a.readonly
        n = np.asarray(a)  # NumPy sees Go's pixels: no copy
        assert n.__array_interface__["data"][0] == a.ptr
        n[1, 2] = (10, 20, 30)  # NumPy writes ...
        im.invert()  # ... Go rewrites every channel in place ...
        assert n[1, 2].tolist() == [245, 235, 225]  # ... and NumPy sees Go's writes
        assert n[0, 0].tolist() == [255, 255, 255]
        im.set_pixel(3, 2, (1, 2, 3))
        assert a[2, 3].tolist() == [1, 2, 3] and n[2, 3].tolist() == [1, 2, 3]
        second = im.pixels(writable=False)  # a second consumer of the same memory
        assert second.ptr == a.ptr and second.readonly
        assert second.tolist() == a.tolist()
        del n


def test_views_outlive_close_and_memory_comes_back():
    pool = mv.default_pool()
    before = pool.num_live
    im = mv.examples.RGBImage(8, 8)
    a = im.pixels()
    v = a[::2, ::-1]
    m = memoryview(v)
    im.close()  # no more lending ...
    with pytest.raises(ValueError, match="closed"):
        im.pixels()
    assert v[0, 0].tolist() == [0, 0, 0]  # ... but what was lent stays valid
    del a, v, m
    gc.collect()
    assert pool.num_live == before  # the pixels went with the last view


def test_bad_exporter_use():
    with pytest.raises(ValueError, match="no Go exporter"):
        mv.from_exporter(10**12)
    with pytest.raises(TypeError):
        mv.from_exporter(1, writable="yes")
    ro = mv.examples.RGBImage(1, 1)
    lent = ro.pixels(writable=False)
    with pytest.raises(ValueError, match="read-only"):
        lent[0, 0] = (1, 1, 1)
    ro.close()
    del lent
    with pytest.raises(ValueError, match="negative"):
        mv.examples.RGBImage(-1, 2)
    im = mv.examples.RGBImage(2, 2)
    with pytest.raises(IndexError):
        im.set_pixel(5, 0, (1, 2, 3))
    assert im.pixels().tolist() == [[[0, 0, 0]] * 2] * 2  # a refused write changed nothing
    im.close()
    im.close()  # closing twice is harmless
    with pytest.raises(ValueError, match="closed"):
        im.invert()
