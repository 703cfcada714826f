/*
 * core_errors.c — a Go error (mv_err) as the Python exception its kind names,
 * and the check every operation on an array starts with.
 */
#include "core.h"

int
mv_raise_released(void)
{
    PyErr_SetString(PyExc_ValueError, "memview: operation on a released array");
    return -1;
}

PyObject *
mv_exception_type(int kind)
{
    switch (kind) {
    case MV_TYPE_ERROR: return PyExc_TypeError;
    case MV_INDEX_ERROR: return PyExc_IndexError;
    case MV_BUFFER_ERROR: return PyExc_BufferError;
    case MV_MEMORY_ERROR: return PyExc_MemoryError;
    case MV_SYSTEM_ERROR: return PyExc_SystemError;
    case MV_CUDA_ERROR: return mv_cuda_error ? mv_cuda_error : PyExc_RuntimeError;
    case MV_RUNTIME_ERROR:
    case MV_FORKED_ERROR: return PyExc_RuntimeError;
    default: return PyExc_ValueError;
    }
}

PyObject *
mv_set_error(const mv_err *e)
{
    if (e->kind == MV_FORKED_ERROR)
        return mv_raise_forked(e->msg);
    PyErr_SetString(mv_exception_type(e->kind), e->msg);
    return NULL;
}
