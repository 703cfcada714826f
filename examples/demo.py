"""memview demo: Go-owned memory used in place by NumPy, and NumPy memory used in
place by Go — no copies in either direction."""
import numpy as np

import memview as mv

# 1. Go owns the memory; NumPy writes into it.
a = mv.arange(12, dtype="float64").reshape(3, 4)
n = np.asarray(a)
print("Go-owned array:", a)
print("NumPy sees the same memory (same address):", n.ctypes.data == a.ptr)
n[1, 2] = -1.0
print("after NumPy writes n[1, 2] = -1: a[1, 2] =", a[1, 2])
mv.scale_in_go(a, 10.0)  # Go multiplies every element in place
print("after Go scales by 10, NumPy reads n[1] =", n[1].tolist())

# 2. NumPy owns the memory; memview (and Go) work on it in place.
base = np.arange(24, dtype=np.float64).reshape(4, 6)
view = base[::-1, ::2]
arr = mv.from_buffer(view)
print("imported view: shape", arr.shape, "byte strides", arr.strides)
arr[1, 2] = -1
print("after arr[1, 2] = -1: base[2, 4] =", base[2, 4])
roundtrip = np.asarray(arr)
roundtrip[3, 1] = -2
print("after roundtrip[3, 1] = -2: base[0, 2] =", base[0, 2])
print("roundtrip shares memory with base:", np.shares_memory(base, roundtrip))
print("Go's sum of the view:", mv.sum_in_go(arr), "== NumPy's:", float(view.sum()))

# 3. Records and byte order: a NumPy structured array goes through memview and back.
people = np.array([(1, 1.75), (2, 1.62)], dtype=[("id", "<u4"), ("height", ">f8")])
rec = mv.from_buffer(people)
print("record format:", rec.format, "items:", rec.tolist())
rec[1] = (7, 1.80)
back = np.asarray(rec)
print("after rec[1] = (7, 1.80): people[1] =", people[1].item(), "| same dtype back:", back.dtype == people.dtype)

# 4. A Go type lends its memory (memview.Exporter): NumPy and Go edit the same pixels.
with mv.examples.RGBImage(4, 2) as image:
    pixels = np.asarray(image.pixels())
    pixels[0, 0] = (10, 20, 30)
    image.invert()  # Go code, in place, through a typed View[uint8]
    print("after NumPy sets (10, 20, 30) and Go inverts: pixel =", pixels[0, 0].tolist())
    del pixels

del a, n, arr, roundtrip, rec, back
print("pool bytes still allocated:", mv.default_pool().bytes_allocated,
      "live handles:", mv.live_handles())
