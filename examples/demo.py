"""memview demo: Go-owned memory used in place by NumPy, and NumPy memory used in
place by Go — no copies in either direction. Go packages (examples/sigproc,
examples/rgbimage) are built together with memview by `python3 build.py demo`."""
import numpy as np
import rgbimage
import sigproc

import memview as mv

# 1. Go owns the memory; NumPy writes into it, Go code works on it in place.
a = mv.arange(12, dtype="float64").reshape(3, 4)
n = np.asarray(a)
print("Go-owned array:", a)
print("NumPy sees the same memory (same address):", n.ctypes.data == a.ptr)
n[1, 2] = -1.0
print("after NumPy writes n[1, 2] = -1: a[1, 2] =", a[1, 2])
sigproc.Scale(a, 10.0)  # a bound Go function multiplies every element in place
print("after Go scales by 10, NumPy reads n[1] =", n[1].tolist())

# 2. A Go slice, returned by a Go function, viewed by NumPy without a copy.
ramp = sigproc.Ramp(5)  # Go's []float64, as gopy hands it to Python
r = np.asarray(mv.asarray(ramp))
r[0] = 100.0
print("NumPy view of a Go slice:", r.tolist(), "| Go's sum of it:", sigproc.Sum(ramp))

# 3. NumPy owns the memory; memview and Go work on it in place.
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
print("Go's mean of the strided view:", sigproc.Mean(view), "== NumPy's:", float(view.mean()))
print("Go's sum of a NumPy row, passed where Go takes []float64:", sigproc.Sum(base[0]))

# 4. Records and byte order: a NumPy structured array goes through memview and back.
people = np.array([(1, 1.75), (2, 1.62)], dtype=[("id", "<u4"), ("height", ">f8")])
rec = mv.from_buffer(people)
print("record format:", rec.format, "items:", rec.tolist())
rec[1] = (7, 1.80)
back = np.asarray(rec)
print("after rec[1] = (7, 1.80): people[1] =", people[1].item(), "| same dtype back:", back.dtype == people.dtype)

# 5. A Go type lends its memory (memview.Exporter): NumPy and Go edit the same pixels.
image = rgbimage.New(4, 2)
pixels = np.asarray(mv.asarray(image))
pixels[0, 0] = (10, 20, 30)
image.Invert()  # Go code, in place, on the slice NumPy is viewing
print("after NumPy sets (10, 20, 30) and Go inverts: pixel =", pixels[0, 0].tolist())

del a, n, ramp, r, arr, roundtrip, rec, back, pixels
print("pool bytes still allocated:", mv.default_pool().bytes_allocated,
      "live handles:", mv.live_handles())
