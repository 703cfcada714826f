"""CUDA benchmarks against anchors measured in the same run (needs a GPU and CuPy).

Prints what it can measure today and says what it cannot yet: memview does not
allocate device memory itself yet, so the kernel-bandwidth and copy benchmarks
over Go-allocated memory wait for the CUDA allocator.
"""
import sys
import timeit

import memview as mv


def pair(fn, anchor, number, repeat=15):
    t, ta = [], []
    for _ in range(repeat):
        t.append(timeit.timeit(fn, number=number))
        ta.append(timeit.timeit(anchor, number=number))
    return min(t) / number, min(ta) / number


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

    print("not measured yet: kernel bandwidth over Go-allocated device memory and host<->device "
          "copies (memview has no CUDA allocator yet)")
    del a
    return 0


if __name__ == "__main__":
    sys.exit(main())
