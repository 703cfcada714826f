/*
 * core_errors.c — a Go error (mv_err) as the Python exception its kind names,
 * and the check every operation on an array starts with.
 */
#include "core.h"

int
mv_check_live(MVArray *a)
{
    /* handle and hold are 0 once released, and in a zeroed object (which Python
     * cannot make: tp_new refuses); every other field is then unused. */
    if (mv_released(a)) {
        PyErr_SetString(PyExc_ValueError, "memview: operation on a released array");
        return -1;
    }
    return 0;
}

PyObject *
mv_set_error(const mv_err *e)
{
    PyObject *exc;
    switch (e->kind) {
    case MV_TYPE_ERROR: exc = PyExc_TypeError; break;
    case MV_INDEX_ERROR: exc = PyExc_IndexError; break;
    case MV_BUFFER_ERROR: exc = PyExc_BufferError; break;
    case MV_MEMORY_ERROR: exc = PyExc_MemoryError; break;
    case MV_SYSTEM_ERROR: exc = PyExc_SystemError; break;
    case MV_CUDA_ERROR: exc = mv_cuda_error ? mv_cuda_error : PyExc_RuntimeError; break;
    case MV_FORKED_ERROR: return mv_raise_forked(e->msg);
    default: exc = PyExc_ValueError; break;
    }
    PyErr_SetString(exc, e->msg);
    return NULL;
}
