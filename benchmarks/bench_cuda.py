"""CUDA benchmarks against anchors measured in the same run (needs a GPU and CuPy).

CAI export time; cupy.asarray on a memview array vs on a CuPy array; a CuPy
elementwise kernel's bandwidth over Go-allocated device memory vs CuPy-allocated
memory (target >= 0.98x); host<->device copy bandwidth vs CuPy's.
"""
import sys

import memview as mv
from _timing import interleaved_best as pair


def main():
    if not mv.cuda.is_available():
        print("skip: no CUDA device (memview.cuda.is_available() is False)")
        return 0
    try:
        import cupy as cp
    except ImportError:
        print("skip: CuPy is not installed")
        return 0
    c = cp.zeros((1024, 1024), dtype=cp.float32)
    a = mv.from_cuda_array_interface(c)

    t_cai, _ = pair(lambda: a.__cuda_array_interface__, lambda: None, 100_000)
    print(f"CAI export of a memview device array: {t_cai * 1e9:.1f} ns "
          f"(target <= 2000 ns: {'met' if t_cai <= 2e-6 else 'MISSED'})")

    t_mv, t_cp = pair(lambda: cp.asarray(a), lambda: cp.asarray(c), 20_000)
    print(f"cupy.asarray(memview array) {t_mv * 1e9:.1f} ns vs cupy.asarray(cupy array) "
          f"{t_cp * 1e9:.1f} ns: ratio {t_mv / t_cp:.3g}")

    t_imp, t_anchor = pair(lambda: mv.from_cuda_array_interface(c),
                           lambda: c.__cuda_array_interface__, 20_000)
    print(f"mv.from_cuda_array_interface(cupy array) {t_imp * 1e9:.1f} ns "
          f"(of which CuPy building its dict: {t_anchor * 1e9:.1f} ns)")

    del a
    import numpy as np

    n = 256 << 20  # bytes
    g = mv.zeros(n // 4, "float32", device="cuda")
    gc_ = cp.asarray(g)
    cc = cp.zeros(n // 4, dtype=cp.float32)
    go_out, cp_out = cp.empty_like(cc), cp.empty_like(cc)

    def kern(x, out):
        def run():
            cp.multiply(x, 2, out=out)
            cp.cuda.runtime.deviceSynchronize()
        return run

    t_go, t_cp = pair(kern(gc_, go_out), kern(cc, cp_out), 20, repeat=9)
    bw_go, bw_cp = 2 * n / t_go / 1e9, 2 * n / t_cp / 1e9
    print(f"CuPy kernel over Go-allocated memory {bw_go:.0f} GB/s vs CuPy-allocated {bw_cp:.0f} GB/s: "
          f"ratio {bw_go / bw_cp:.3f} (target >= 0.98: {'met' if bw_go / bw_cp >= 0.98 else 'MISSED'})")

    host = np.ones(n // 4, dtype=np.float32)
    hmv = mv.from_buffer(host)

    def transfer(name, mine, theirs):
        t_mv, t_cp = pair(mine, theirs, 3, repeat=5)
        print(f"{name} 256 MiB (pageable): memview {n / t_mv / 1e9:.1f} GB/s, CuPy {n / t_cp / 1e9:.1f} GB/s: "
              f"ratio (time) {t_mv / t_cp:.3f}")

    def h2d_cp():
        cp.asarray(host)
        cp.cuda.runtime.deviceSynchronize()

    transfer("host->device", lambda: hmv.to("cuda").release(), h2d_cp)
    transfer("device->host", lambda: g.to("cpu").release(), lambda: cp.asnumpy(cc))

    gs = g.reshape(4096, -1)[:, ::2]
    cs = cc.reshape(4096, -1)[:, ::2]

    def d2d_mv():
        gs.copy().release()
        cp.cuda.runtime.deviceSynchronize()

    def d2d_cp():
        cp.ascontiguousarray(cs)
        cp.cuda.runtime.deviceSynchronize()

    t_mv, t_cp = pair(d2d_mv, d2d_cp, 5, repeat=5)
    print(f"strided device copy (4096 rows, every 2nd float32): memview {t_mv * 1e3:.2f} ms "
          f"(2-D copies of one item per row), CuPy kernel {t_cp * 1e3:.2f} ms: ratio {t_mv / t_cp:.2f}")
    del gc_, g, gs, hmv
    return 0


if __name__ == "__main__":
    sys.exit(main())
