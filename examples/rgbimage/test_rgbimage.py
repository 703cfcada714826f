"""examples/rgbimage: a Go type that owns its pixels in a Go slice and lends them
through memview.Exporter, used in place by NumPy and memoryview and mutated from
both sides (python3 build.py wheel --with examples/rgbimage)."""
import gc

import numpy as np
import pytest

import memview as mv

if "rgbimage" not in mv.go_packages():  # built in? (not just a directory of that name)
    pytest.skip("rgbimage is not built in: python3 build.py wheel --with examples/rgbimage", allow_module_level=True)
import rgbimage  # noqa: E402


def test_image_shared_with_numpy_both_ways():
    im = rgbimage.New(4, 3)
    a = mv.asarray(im)
    assert a.shape == (3, 4, 3) and a.dtype == "uint8" and not a.readonly
    n = np.asarray(a)  # NumPy sees Go's pixels: no copy
    assert n.__array_interface__["data"][0] == a.ptr
    n[1, 2] = (10, 20, 30)  # NumPy writes ...
    im.Invert()  # ... Go rewrites every channel in place ...
    assert n[1, 2].tolist() == [245, 235, 225]  # ... and NumPy sees Go's writes
    assert n[0, 0].tolist() == [255, 255, 255]
    im.SetPixel(3, 2, 1, 2, 3)
    assert a[2, 3].tolist() == [1, 2, 3] and n[2, 3].tolist() == [1, 2, 3]
    second = mv.from_go(im, writable=False)  # a second consumer of the same memory
    assert second.ptr == a.ptr and second.readonly
    assert second.tolist() == a.tolist()
    m = memoryview(a)
    assert m.shape == (3, 4, 3) and m[2, 3, 0] == 1


def test_views_outlive_the_image():
    im = rgbimage.New(8, 8)
    v = mv.asarray(im)[::2, ::-1]
    m = memoryview(v)
    im.Invert()
    del im  # the gopy object and Go's last reference to the image are gone ...
    for _ in range(20):
        rgbimage.New(1000, 1000)  # ... and Go's collector runs
    gc.collect()
    assert v[0, 0].tolist() == [255, 255, 255]  # what was lent stays valid
    assert m[3, 7, 2] == 255
    del v, m


def test_bad_image_use():
    with pytest.raises(ValueError, match="negative"):
        rgbimage.New(-1, 2)
    im = rgbimage.New(2, 2)
    with pytest.raises(IndexError, match="outside"):
        im.SetPixel(5, 0, 1, 2, 3)
    assert mv.asarray(im).tolist() == [[[0, 0, 0]] * 2] * 2  # a refused write changed nothing
    with pytest.raises(TypeError):
        mv.from_go(im, writable="yes")
    with pytest.raises(TypeError, match="Go value bound by gopy"):
        mv.from_go(np.zeros(3))
