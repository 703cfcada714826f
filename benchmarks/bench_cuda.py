"""CUDA benchmarks against anchors measured in the same run (needs a GPU and CuPy).

Each pair does the same work on both sides:
  - CAI export of a memview array (target <= 2 us);
  - cupy.asarray of a memview array vs of a wrapper that has only the CuPy
    array's __cuda_array_interface__ (cupy.asarray of a CuPy array returns it
    unchanged, which is no anchor);
  - a CuPy kernel's bandwidth over Go-allocated vs CuPy-allocated device memory
    (target >= 0.98x);
  - host <-> device transfers into memory allocated beforehand on both sides (no
    allocation or zero-fill in the timed region), pageable host memory;
  - strided device copies into an existing array: memview's kernels vs CuPy's
    elementwise copy (target: bandwidth >= 0.9x CuPy's), and strided fills.
"""
import sys

import memview as mv
from _timing import interleaved_best as pair


class CAIOnly:
    """An object with nothing but another array's __cuda_array_interface__."""

    def __init__(self, a):
        self.__cuda_array_interface__ = a.__cuda_array_interface__


def main():
    if not mv.cuda.is_available():
        print("skip: no CUDA device (memview.cuda.is_available() is False)")
        return 0
    try:
        import cupy as cp
    except ImportError:
        print("skip: CuPy is not installed")
        return 0
    import numpy as np

    def sync():
        cp.cuda.runtime.deviceSynchronize()

    c = cp.zeros((1024, 1024), dtype=cp.float32)
    a = mv.from_cuda_array_interface(c)

    t_cai, _ = pair(lambda: a.__cuda_array_interface__, lambda: None, 100_000)
    print(f"CAI export of a memview device array: {t_cai * 1e9:.1f} ns "
          f"(target <= 2000 ns: {'met' if t_cai <= 2e-6 else 'MISSED'})")

    w = CAIOnly(c)
    t_mv, t_cp = pair(lambda: cp.asarray(a), lambda: cp.asarray(w), 20_000)
    print(f"cupy.asarray(memview array) {t_mv * 1e9:.1f} ns vs cupy.asarray(CAI-only wrapper of a CuPy array) "
          f"{t_cp * 1e9:.1f} ns: ratio {t_mv / t_cp:.3g}")

    t_imp, t_anchor = pair(lambda: mv.from_cuda_array_interface(c),
                           lambda: c.__cuda_array_interface__, 20_000)
    print(f"mv.from_cuda_array_interface(cupy array) {t_imp * 1e9:.1f} ns "
          f"(of which CuPy building its dict: {t_anchor * 1e9:.1f} ns)")
    del a

    n = 256 << 20  # bytes
    g = mv.zeros(n // 4, "float32", device="cuda")
    gc_ = cp.asarray(g)
    cc = cp.zeros(n // 4, dtype=cp.float32)
    go_out, cp_out = cp.empty_like(cc), cp.empty_like(cc)

    def kern(x, out):
        def run():
            cp.multiply(x, 2, out=out)
            sync()
        return run

    t_go, t_cp = pair(kern(gc_, go_out), kern(cc, cp_out), 20, repeat=9)
    bw_go, bw_cp = 2 * n / t_go / 1e9, 2 * n / t_cp / 1e9
    print(f"CuPy kernel over Go-allocated memory {bw_go:.0f} GB/s vs CuPy-allocated {bw_cp:.0f} GB/s: "
          f"ratio {bw_go / bw_cp:.3f} (target >= 0.98: {'met' if bw_go / bw_cp >= 0.98 else 'MISSED'})")
    del go_out, cp_out

    host = np.ones(n // 4, dtype=np.float32)
    hmv = mv.from_buffer(host)
    host_out = np.empty_like(host)
    hout = mv.from_buffer(host_out)

    def transfer(name, mine, theirs):
        t_mv, t_cp = pair(mine, theirs, 3, repeat=5)
        print(f"{name} 256 MiB (pageable host memory, destination allocated beforehand): "
              f"memview {n / t_mv / 1e9:.1f} GB/s, CuPy {n / t_cp / 1e9:.1f} GB/s: ratio (time) {t_mv / t_cp:.3f}")

    def h2d_mv():
        g[...] = hmv

    def h2d_cp():
        cc.set(host)
        sync()

    def d2h_mv():
        hout[...] = g

    def d2h_cp():
        cc.get(out=host_out)
        sync()

    transfer("host->device", h2d_mv, h2d_cp)
    transfer("device->host", d2h_mv, d2h_cp)

    # Strided device copies into existing arrays: memview's kernels vs CuPy's.
    rows = 4096
    g2, c2 = g.reshape(rows, -1), cc.reshape(rows, -1)
    cols = c2.shape[1]
    cases = [
        ("every 2nd float32 of each row", (slice(None), slice(None, None, 2)), (rows, cols // 2)),
        ("rows reversed", (slice(None, None, -1),), (rows, cols)),
        ("both axes reversed", (slice(None, None, -1), slice(None, None, -1)), (rows, cols)),
    ]
    for label, key, shape in cases:
        gs, cs = g2[key], c2[key]
        gdst = mv.zeros(shape, "float32", device="cuda")
        cdst = cp.zeros(shape, dtype=cp.float32)
        moved = 2 * 4 * shape[0] * shape[1]  # bytes read and written

        def mv_copy():
            gdst[...] = gs
            sync()

        def cp_copy():
            cdst[...] = cs
            sync()

        t_mv, t_cp = pair(mv_copy, cp_copy, 5, repeat=7)
        ratio = t_cp / t_mv
        print(f"strided device copy, {label} ({shape[0]}x{shape[1]}): memview kernel {moved / t_mv / 1e9:.0f} GB/s, "
              f"CuPy {moved / t_cp / 1e9:.0f} GB/s: bandwidth ratio {ratio:.2f} "
              f"(target >= 0.9: {'met' if ratio >= 0.9 else 'MISSED'})")
        del gdst, cdst

    gs, cs = g2[:, ::2], c2[:, ::2]

    def mv_fill():
        gs.fill(1.5)
        sync()

    def cp_fill():
        cs.fill(1.5)
        sync()

    t_mv, t_cp = pair(mv_fill, cp_fill, 5, repeat=7)
    print(f"strided fill, every 2nd float32: memview {t_mv * 1e3:.3f} ms, CuPy {t_cp * 1e3:.3f} ms: "
          f"ratio (time) {t_mv / t_cp:.2f}")
    del gc_, g, g2, gs, hmv, hout
    return 0


if __name__ == "__main__":
    sys.exit(main())
