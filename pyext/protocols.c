/*
 * protocols.c — the exchange protocols' common ground: the method table that
 * exporter.c adds to the array type, the functions added to memview._core,
 * lending an array to a foreign consumer and taking it back from any thread,
 * and giving back memory memview imported through a protocol.
 *
 * One file per protocol: dlpack.c (DLPack and its C exchange table), arrow.c
 * (Arrow PyCapsules), array_interface.c (NumPy's __array_interface__),
 * pickle.c (rebuilding arrays from pickled buffers).
 */
#include "protocols.h"
#include "foreign.h"
#include "go_bridge.h"

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

PyObject *
mv_finish_meta(int rc, const mv_meta *m, const mv_err *e, PyObject *base)
{
    if (rc != 0)
        return mv_raise(e);
    return mv_new_array(m, base);
}

int
mv_intern(const char *const *names, int n, PyObject **out)
{
    for (int i = 0; i < n; i++) {
        if (out[i] == NULL && (out[i] = PyUnicode_InternFromString(names[i])) == NULL)
            return -1;
    }
    return 0;
}

/* The keyword-name tuples mv_parse_kwargs resolved last, by identity: a caller
 * passes the same tuple on every call (a code object's, or a C consumer's
 * static one). Held, so that the address cannot be reused. */
#define KW_CACHE 4
#define KW_MAX 8
static struct {
    PyObject *const *names;
    PyObject *kwnames;
    int n;
    int index[KW_MAX];
} kw_cache[KW_CACHE];
static int kw_next;

static void
kw_remember(PyObject *const *names, PyObject *kwnames, const int *index, int n)
{
    int k = kw_next++ % KW_CACHE;
    PyObject *old = kw_cache[k].kwnames;
    Py_INCREF(kwnames);
    kw_cache[k].names = names;
    kw_cache[k].kwnames = kwnames;
    kw_cache[k].n = n;
    memcpy(kw_cache[k].index, index, (size_t)n * sizeof(int));
    Py_XDECREF(old);
}

int
mv_parse_kwargs(const char *who, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                PyObject *const *names, int nnames, int npos, PyObject **values)
{
    for (int i = 0; i < nnames; i++)
        values[i] = NULL;
    if (nargs <= npos && kwnames != NULL) {
        for (int c = 0; c < KW_CACHE; c++) {
            if (kw_cache[c].kwnames != kwnames || kw_cache[c].names != names)
                continue;
            for (Py_ssize_t i = 0; i < nargs; i++)
                values[i] = args[i];
            int k;
            for (k = 0; k < kw_cache[c].n && values[kw_cache[c].index[k]] == NULL; k++)
                values[kw_cache[c].index[k]] = args[nargs + k];
            if (k == kw_cache[c].n)
                return 0;
            for (int i = 0; i < nnames; i++) /* given twice: the full parse says so */
                values[i] = NULL;
            break;
        }
    }
    if (nargs > npos) {
        if (npos == 0)
            PyErr_Format(PyExc_TypeError, "%s takes keyword arguments only (%zd positional given)", who, nargs);
        else
            PyErr_Format(PyExc_TypeError, "%s takes at most %d positional argument(s) (%zd given)", who, npos,
                         nargs);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nargs; i++)
        values[i] = args[i];
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    int index[KW_MAX];
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k);
        int found = -1;
        for (int i = 0; i < nnames && found < 0; i++)
            if (kw == names[i])
                found = i;
        for (int i = 0; i < nnames && found < 0; i++)
            if (PyUnicode_Compare(kw, names[i]) == 0)
                found = i;
        if (found < 0) {
            if (PyErr_Occurred())
                return -1;
            PyErr_Format(PyExc_TypeError, "%s got an unexpected keyword argument %R", who, kw);
            return -1;
        }
        if (values[found] != NULL) {
            PyErr_Format(PyExc_TypeError, "%s got multiple values for argument %R", who, kw);
            return -1;
        }
        values[found] = args[nargs + k];
        if (k < KW_MAX)
            index[k] = found;
    }
    if (nkw > 0 && nkw <= KW_MAX)
        kw_remember(names, kwnames, index, (int)nkw);
    return 0;
}

PyMethodDef mv_protocol_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))mv_array_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule\n\n"
     "Export the array as a DLPack tensor: a versioned capsule (\"dltensor_versioned\") when\n"
     "max_version >= (1, 0), else a legacy one (\"dltensor\"). See memview's docs/guide/interop.md."},
    {"__dlpack_device__", mv_array_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id) as DLPack numbers them."},
    {"__arrow_c_schema__", mv_array_arrow_schema, METH_NOARGS,
     "__arrow_c_schema__() -> PyCapsule \"arrow_schema\": the Arrow type of the array."},
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))mv_array_arrow_array, METH_FASTCALL | METH_KEYWORDS,
     "__arrow_c_array__(requested_schema=None) -> (schema, array) PyCapsules over the array's memory."},
    {"__arrow_c_device_array__", (PyCFunction)(void (*)(void))mv_array_arrow_device_array,
     METH_FASTCALL | METH_KEYWORDS,
     "__arrow_c_device_array__(requested_schema=None, **kwargs) -> (schema, device array) PyCapsules."},
    {NULL},
};

/* _interpreter_exiting(): memview registers it with atexit (see mv_unlend). */
static PyObject *
core_interpreter_exiting(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    finalizing = 1;
    Py_RETURN_NONE;
}

static PyMethodDef common_functions[] = {
    {"_interpreter_exiting", core_interpreter_exiting, METH_NOARGS,
     "Called at exit: foreign threads stop giving arrays back through the GIL."},
    {NULL},
};

int
mv_protocols_init(PyObject *mod)
{
    if (PyModule_AddFunctions(mod, common_functions) < 0 ||
        PyModule_AddFunctions(mod, mv_dlpack_functions) < 0 ||
        PyModule_AddFunctions(mod, mv_arrow_functions) < 0 ||
        PyModule_AddFunctions(mod, mv_pickle_functions) < 0)
        return -1;
    /* DLPack 1.3: the exchange table is an attribute of the type. The facade's
     * Array class names it too, in case this type is ever made immutable. */
    PyObject *api = mv_dlpack_exchange_capsule();
    if (api == NULL)
        return -1;
    if (PyObject_SetAttrString(mv_array_base_type, "__dlpack_c_exchange_api__", api) < 0)
        PyErr_Clear();
    if (PyModule_AddObject(mod, "dlpack_exchange_api", api) < 0) { /* steals on success */
        Py_DECREF(api);
        return -1;
    }
    return 0;
}
