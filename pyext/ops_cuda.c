/*
 * ops_cuda.c — memview._core's CUDA functions: the device count, streams, and
 * the statistics of the CUDA pools. Go does the work (package cuda); a forked
 * child refuses each with memview.cuda.CUDAError.
 */
#include "ops.h"

static PyObject *
core_cuda_device_count(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    if (!mv_go_usable())
        return PyLong_FromLong(0); /* a forked child cannot use CUDA (go_fork.c): none here */
    int n;
    NOGIL(1, n = mv_go_cuda_device_count()); /* the first call loads and initialises the driver */
    return PyLong_FromLong(n);
}

/* ---- CUDA streams and pools ---- */

/* cuda_stream_create(device: int, non_blocking: bool) -> handle */
static PyObject *
core_cuda_stream_create(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (!mv_go_usable())
        return mv_raise_forked_cuda("a CUDA stream");
    int ordinal, non_blocking;
    if (!PyArg_ParseTuple(args, "ip", &ordinal, &non_blocking))
        return NULL;
    uintptr_t h = 0;
    mv_err e;
    int rc;
    NOGIL(1, rc = mv_go_stream_create(ordinal, non_blocking, &h, &e));
    if (rc != 0)
        return mv_raise(&e);
    return PyLong_FromUnsignedLongLong(h);
}

/* cuda_stream_destroy(handle): a stream made by cuda_stream_create */
static PyObject *
core_cuda_stream_destroy(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (!mv_go_usable())
        Py_RETURN_NONE; /* a finalizer in a forked child: left to the child's exit */
    unsigned long long h;
    if (!PyArg_ParseTuple(args, "O&", mv_u64_arg, &h))
        return NULL;
    mv_err e;
    int rc;
    NOGIL(1, rc = mv_go_stream_destroy((uintptr_t)h, &e));
    if (rc != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* cuda_stream_sync(device, handle, query: bool) -> bool: wait for the stream's work
 * (query=False), or say whether it is done (query=True) */
static PyObject *
core_cuda_stream_sync(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (!mv_go_usable())
        return mv_raise_forked_cuda("synchronising with a CUDA stream");
    int ordinal, query;
    unsigned long long h;
    if (!PyArg_ParseTuple(args, "iO&p", &ordinal, mv_u64_arg, &h, &query))
        return NULL;
    int done = 0;
    mv_err e;
    int rc;
    NOGIL(!query, rc = mv_go_stream_sync(ordinal, (uintptr_t)h, query, &done, &e));
    if (rc != 0)
        return mv_raise(&e);
    return PyBool_FromLong(done);
}

/* cuda_pool_stats() -> (bytes_allocated, num_live, total_bytes_allocated,
 * num_allocations), summed over every CUDA pool made so far */
static PyObject *
core_cuda_pool_stats(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    if (!mv_go_usable())
        return mv_raise_forked_cuda("CUDA memory statistics");
    int64_t s[4] = {0, 0, 0, 0};
    mv_go_cuda_pool_stats(s);
    return Py_BuildValue("(LLLL)", (long long)s[0], (long long)s[1], (long long)s[2], (long long)s[3]);
}

PyMethodDef mv_cuda_functions[] = {
    {"cuda_device_count", core_cuda_device_count, METH_NOARGS, "number of CUDA devices (0 without a driver)"},
    {"cuda_stream_create", core_cuda_stream_create, METH_VARARGS, "cuda_stream_create(device, non_blocking) -> handle"},
    {"cuda_stream_destroy", core_cuda_stream_destroy, METH_VARARGS, "cuda_stream_destroy(handle)"},
    {"cuda_stream_sync", core_cuda_stream_sync, METH_VARARGS, "cuda_stream_sync(device, handle, query) -> done"},
    {"cuda_pool_stats", core_cuda_pool_stats, METH_NOARGS, "cuda_pool_stats() -> (bytes, live, total, count)"},
    {NULL},
};
