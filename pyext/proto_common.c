/*
 * proto_common.c — the exchange protocols' common ground: lending an array to a
 * foreign consumer and taking it back from any thread, waiting for CUDA work
 * before a host consumer reads, DLPack device numbers, giving back memory
 * memview imported through a protocol, and the Arrow format of each basic
 * dtype.
 */
#include "proto.h"

/* Set by memview._core._interpreter_exiting, which memview registers with
 * atexit: from then on a thread Python does not know must not wait for the GIL. */
static int finalizing = 0;

void
mv_lend(MVArray *a)
{
    Py_INCREF((PyObject *)a);
    a->exports++;
}

void
mv_unlend(PyObject *owner)
{
    /* After finalization there is no interpreter to give the object back to;
     * during it, only threads Python knows may take the GIL. Leak instead. */
    if (!Py_IsInitialized())
        return;
    if (finalizing && PyGILState_GetThisThreadState() == NULL)
        return;
    PyGILState_STATE st = PyGILState_Ensure();
    ((MVArray *)owner)->exports--;
    Py_DECREF(owner);
    PyGILState_Release(st);
}

/* Called from Go when the last reference to memory imported through a protocol
 * goes: the token gives it back (a DLPack deleter, an Arrow release callback). */
void
mv_release_foreign(void *token)
{
    mv_foreign *f = (mv_foreign *)token;
    f->release(f);
}

int
mv_host_wait(MVArray *a)
{
    if (mv_check_go() < 0)
        return -1;
    long long p = mv_pending_stream(a);
    if (p == 0 || a->device_kind == MV_DEV_CUDA)
        return 0;
    int done = 0;
    mv_err e;
    if (mv_go_stream_sync(a->device_id, (uintptr_t)p, 0, &done, &e) != 0) {
        mv_raise(&e);
        return -1;
    }
    return 0;
}

DLDevice
mv_dl_device(const MVArray *a)
{
    switch (a->device_kind) {
    case MV_DEV_CUDA: return (DLDevice){kDLCUDA, a->device_id};
    case MV_DEV_CUDA_HOST: return (DLDevice){kDLCUDAHost, 0};
    case MV_DEV_CUDA_MANAGED: return (DLDevice){kDLCUDAManaged, 0};
    default: return (DLDevice){kDLCPU, 0};
    }
}

int
mv_dl_device_name(DLDevice d, char *out, size_t n)
{
    switch (d.device_type) {
    case kDLCPU: snprintf(out, n, "cpu"); return 0;
    case kDLCUDA: snprintf(out, n, "cuda:%d", (int)d.device_id); return 0;
    case kDLCUDAHost: snprintf(out, n, "cuda_host"); return 0;
    case kDLCUDAManaged: snprintf(out, n, "cuda_managed:%d", (int)d.device_id); return 0;
    }
    PyErr_Format(PyExc_BufferError,
                 "memview: DLPack device type %d is not one memview has memory on "
                 "(CPU 1, CUDA 2, CUDA host 3, CUDA managed 13)", (int)d.device_type);
    return -1;
}

/* _interpreter_exiting(): memview registers it with atexit (see mv_unlend). */
static PyObject *
core_interpreter_exiting(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    finalizing = 1;
    Py_RETURN_NONE;
}

PyMethodDef mv_proto_functions[] = {
    {"_interpreter_exiting", core_interpreter_exiting, METH_NOARGS,
     "Called at exit: foreign threads stop giving arrays back through the GIL."},
    {NULL},
};

/* ---- Arrow's format letters (the C data interface's primitive types) ---- */

/* The basic dtypes Arrow has, by kind and item size: its integers and floats.
 * Its booleans are bit-packed, and it has no complex numbers. */
static const struct {
    char kind;
    Py_ssize_t itemsize;
    const char *format;
} arrow_letters[] = {
    {'i', 1, "c"}, {'u', 1, "C"}, {'i', 2, "s"}, {'u', 2, "S"}, {'i', 4, "i"}, {'u', 4, "I"},
    {'i', 8, "l"}, {'u', 8, "L"}, {'f', 2, "e"}, {'f', 4, "f"}, {'f', 8, "g"},
};

const char *
mv_arrow_format(const char *typestr)
{
    const mv_basic *b = mv_basic_of_typestr(typestr);
    for (size_t k = 0; b != NULL && k < sizeof arrow_letters / sizeof arrow_letters[0]; k++)
        if (arrow_letters[k].kind == b->kind && arrow_letters[k].itemsize == b->itemsize)
            return arrow_letters[k].format;
    return NULL;
}

const mv_basic *
mv_arrow_basic(const char *format)
{
    for (size_t k = 0; k < sizeof arrow_letters / sizeof arrow_letters[0]; k++)
        if (strcmp(arrow_letters[k].format, format) == 0)
            return mv_basic_of(arrow_letters[k].kind, arrow_letters[k].itemsize);
    return NULL;
}
