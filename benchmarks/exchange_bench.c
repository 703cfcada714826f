/*
 * exchange_bench.c — times DLPack's C exchange table from C, as a consumer such
 * as PyTorch or tvm-ffi calls it (benchmarks/bench_protocols.py builds and loads
 * it with ctypes.PyDLL, so the GIL is held throughout, as such a consumer holds it).
 */
#include <time.h>

#include "dlpack.h"

static double
now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per exchange over n exchanges of obj: which 0 = managed_tensor_from_py_object_no_sync
 * and the tensor's deleter (an owning exchange), 1 = dltensor_from_py_object_no_sync (a
 * borrowing one). -1 if a call fails (the Python error is left set). */
double
bench_exchange(const DLPackExchangeAPI *api, void *obj, long n, int which)
{
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        if (which == 0) {
            DLManagedTensorVersioned *t;
            if (api->managed_tensor_from_py_object_no_sync(obj, &t) != 0)
                return -1;
            t->deleter(t);
        } else {
            DLTensor t;
            if (api->dltensor_from_py_object_no_sync(obj, &t) != 0)
                return -1;
        }
    }
    return (now_ns() - t0) / n;
}
