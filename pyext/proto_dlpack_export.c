/*
 * proto_dlpack_export.c — DLPack 1.3 export: __dlpack__ and __dlpack_device__
 * on the array type, following the Python specification of DLPack (the array
 * API standard's __dlpack__).
 *
 * Export reads only what the array cached at creation (mv_item_kinds): the
 * tensor's shape and element strides point into the array object, which the
 * tensor keeps alive, so an export is one small malloc and calls no Go — except
 * for CUDA stream ordering and for copies, which Go does.
 */
#include "proto.h"

int
mv_dl_refuse_dtype(const MVArray *a)
{
    const char *why = a->typestr[0] == '>' ? "DLPack describes native byte order only"
                      : (a->typestr[1] == 'V' || a->typestr[1] == 'S')
                          ? "DLPack has numbers and booleans only, no records, strings or sub-arrays"
                          : "a stride is not a whole number of items";
    PyErr_Format(PyExc_BufferError, "memview: an array of dtype %s cannot be exported through DLPack: %s",
                 a->dtype, why);
    return -1;
}

/* ---- export ---- */

void
mv_dl_fill_tensor(const MVArray *a, DLTensor *dl, DLDevice dev)
{
    /* The specification allows NULL for size 0, but NumPy then neither uses nor
     * deletes the tensor: element 0's address, as NumPy and CuPy export it. */
    dl->data = a->buf;
    dl->device = dev;
    dl->ndim = a->ndim;
    dl->dtype = (DLDataType){a->dl_code, a->dl_bits, 1};
    dl->shape = a->ndim ? (int64_t *)a->shape : NULL; /* Py_ssize_t is int64_t here (module.c) */
    dl->strides = a->ndim ? a->dl_strides : NULL;
    dl->byte_offset = 0; /* data is element 0, as NumPy and CuPy export it */
}

/* The deleters run once, on whatever thread the consumer frees the tensor:
 * the struct is malloc'd so it can be freed without the GIL; mv_unlend takes
 * the GIL for the array (or leaks it at interpreter shutdown). */
static void
versioned_deleter(DLManagedTensorVersioned *t)
{
    PyObject *owner = (PyObject *)t->manager_ctx;
    free(t);
    mv_unlend(owner);
}

static void
legacy_deleter(DLManagedTensor *t)
{
    PyObject *owner = (PyObject *)t->manager_ctx;
    free(t);
    mv_unlend(owner);
}

/* A capsule nobody consumed still owns its tensor; a consumer that took the
 * tensor renamed the capsule to "used_...", and then there is nothing to do. */
static void
versioned_capsule_destructor(PyObject *cap)
{
    if (!PyCapsule_IsValid(cap, MV_DLPACK_VERSIONED_CAPSULE))
        return;
    DLManagedTensorVersioned *t = PyCapsule_GetPointer(cap, MV_DLPACK_VERSIONED_CAPSULE);
    if (t->deleter != NULL)
        t->deleter(t);
}

static void
legacy_capsule_destructor(PyObject *cap)
{
    if (!PyCapsule_IsValid(cap, MV_DLPACK_CAPSULE))
        return;
    DLManagedTensor *t = PyCapsule_GetPointer(cap, MV_DLPACK_CAPSULE);
    if (t->deleter != NULL)
        t->deleter(t);
}

/* mv_dl_new_versioned lends a to a new versioned tensor. */
DLManagedTensorVersioned *
mv_dl_new_versioned(MVArray *a, DLDevice dev, uint32_t minor, int copied)
{
    DLManagedTensorVersioned *t = malloc(sizeof *t);
    if (t == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    t->version = (DLPackVersion){DLPACK_MAJOR_VERSION, minor};
    t->manager_ctx = a;
    t->deleter = versioned_deleter;
    t->flags = (a->readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) | (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
    mv_dl_fill_tensor(a, &t->dl_tensor, dev);
    mv_lend(a);
    return t;
}

static PyObject *
export_capsule(MVArray *a, DLDevice dev, int versioned, uint32_t minor, int copied)
{
    if (versioned) {
        DLManagedTensorVersioned *t = mv_dl_new_versioned(a, dev, minor, copied);
        if (t == NULL)
            return NULL;
        PyObject *cap = PyCapsule_New(t, MV_DLPACK_VERSIONED_CAPSULE, versioned_capsule_destructor);
        if (cap == NULL)
            versioned_deleter(t);
        return cap;
    }
    DLManagedTensor *t = malloc(sizeof *t);
    if (t == NULL)
        return PyErr_NoMemory();
    t->manager_ctx = a;
    t->deleter = legacy_deleter;
    mv_dl_fill_tensor(a, &t->dl_tensor, dev);
    mv_lend(a);
    PyObject *cap = PyCapsule_New(t, MV_DLPACK_CAPSULE, legacy_capsule_destructor);
    if (cap == NULL)
        legacy_deleter(t);
    return cap;
}

/* The last tuples int_pair read, by identity (a tuple never changes; consumers
 * such as NumPy pass the same max_version tuple on every call): held, so that
 * the address cannot be reused by another object. */
static struct {
    PyObject *tuple;
    long x, y;
} pairs[2];
static int pair_next;

/* int_pair reads a tuple of two ints (max_version, dl_device). */
static int
int_pair(PyObject *o, const char *what, long *x, long *y)
{
    for (int k = 0; k < 2; k++)
        if (pairs[k].tuple == o) {
            *x = pairs[k].x;
            *y = pairs[k].y;
            return 0;
        }
    if (!PyTuple_Check(o) || PyTuple_Size(o) != 2) {
        PyErr_Format(PyExc_TypeError, "memview.__dlpack__: %s must be None or a tuple of two ints, not %R", what, o);
        return -1;
    }
    PyObject *a = PyTuple_GetItem(o, 0), *b = PyTuple_GetItem(o, 1);
    if (PyBool_Check(a) || PyBool_Check(b) || !PyIndex_Check(a) || !PyIndex_Check(b)) {
        PyErr_Format(PyExc_TypeError, "memview.__dlpack__: %s must be a tuple of two ints, not %R", what, o);
        return -1;
    }
    *x = PyLong_AsLong(a);
    if (*x == -1 && PyErr_Occurred())
        return -1;
    *y = PyLong_AsLong(b);
    if (*y == -1 && PyErr_Occurred())
        return -1;
    if (PyTuple_CheckExact(o)) { /* a subclass could be mutable in what it reports */
        int k = pair_next++ & 1;
        PyObject *old = pairs[k].tuple;
        Py_INCREF(o);
        pairs[k].tuple = o;
        pairs[k].x = *x;
        pairs[k].y = *y;
        Py_XDECREF(old);
    }
    return 0;
}

/* copy_to makes a Go-owned copy of a on the device named, ordered after the
 * work pending on a. */
static MVArray *
copy_to(MVArray *a, const char *device)
{
    if (mv_check_go() < 0)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc;
    uintptr_t h = mv_array_handle(a);
    if (h == 0)
        return NULL;
    a->busy++;
    NOGIL(1, rc = mv_go_copy_to_device(h, (char *)device, 'K', (uintptr_t)mv_pending_stream(a), 0, &m, &e));
    a->busy--;
    return (MVArray *)mv_finish_meta(rc, &m, &e, NULL);
}

/* stream_order makes the consumer's stream wait, on the device, for the work
 * pending on a (the specification's rule for CUDA; -1 means the consumer
 * orders the work itself). */
static int
stream_order(MVArray *a, long long consumer)
{
    if (mv_check_go() < 0)
        return -1;
    long long p = mv_pending_stream(a);
    /* Nothing pending (an imported array's producer stream counts as pending),
     * or the consumer's stream is the one the work is on. */
    if (consumer == -1 || p == 0 || p == consumer)
        return 0;
    mv_err e;
    uintptr_t h = mv_array_handle(a);
    if (h == 0)
        return -1;
    if (mv_go_stream_wait(h, (uintptr_t)p, (uintptr_t)consumer, &e) != 0) {
        mv_raise(&e);
        return -1;
    }
    return 0;
}

static const char *const dlpack_kw[] = {"stream", "max_version", "dl_device", "copy"};
static PyObject *dlpack_kwnames[4];

PyObject *
mv_array_dlpack(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    PyObject *v[4];
    if (mv_parse_kwargs("__dlpack__()", args, nargs, kwnames, dlpack_kwnames, 4, 0, v) < 0)
        return NULL;
    /* max_version: a versioned capsule for consumers of DLPack >= 1.0, at the
     * consumer's minor version if it is older than ours (the layout is the same). */
    int versioned = 0;
    uint32_t minor = DLPACK_MINOR_VERSION;
    if (v[1] != NULL && v[1] != Py_None) {
        long major, mn;
        if (int_pair(v[1], "max_version", &major, &mn) < 0)
            return NULL;
        if (major >= 1) {
            versioned = 1;
            if (major == 1 && mn >= 0 && mn < (long)minor)
                minor = (uint32_t)mn;
        }
    }
    int copy = -1; /* None: copy only if the request needs it */
    if (v[3] != NULL && v[3] != Py_None) {
        if (!PyBool_Check(v[3])) {
            PyErr_Format(PyExc_TypeError, "memview.__dlpack__: copy must be None, True or False, not %R", v[3]);
            return NULL;
        }
        copy = v[3] == Py_True;
    }
    int has_stream = v[0] != NULL && v[0] != Py_None;
    long long stream = 0;
    if (has_stream) {
        if (PyBool_Check(v[0]) || !PyLong_Check(v[0])) {
            PyErr_Format(PyExc_TypeError, "memview.__dlpack__: stream must be None or an int, not %R", v[0]);
            return NULL;
        }
        stream = PyLong_AsLongLong(v[0]);
        if (stream == -1 && PyErr_Occurred())
            return NULL;
    }
    if (mv_check_live(a) < 0)
        return NULL;
    if (!a->dl_ok)
        return mv_dl_refuse_dtype(a), NULL;
    DLDevice own = mv_dl_device(a), dev = own;
    if (v[2] != NULL && v[2] != Py_None) {
        long t, id;
        if (int_pair(v[2], "dl_device", &t, &id) < 0)
            return NULL;
        dev = (DLDevice){(DLDeviceType)t, (int32_t)id};
    }
    int same = dev.device_type == own.device_type && dev.device_id == own.device_id;
    int host_view = !same && copy != 1 && dev.device_type == kDLCPU && dev.device_id == 0 &&
                    a->device_kind != MV_DEV_CUDA; /* pinned or managed memory: the CPU reads it in place */
    int cuda = dev.device_type == kDLCUDA || dev.device_type == kDLCUDAManaged;
    /* stream: CUDA only. None is the legacy default stream; 0 is ambiguous and
     * disallowed; -1 asks for no ordering. Devices without streams take None. */
    if (cuda && has_stream && (stream == 0 || stream < -1)) {
        PyErr_Format(PyExc_ValueError,
                     "memview.__dlpack__: stream %lld is not allowed for CUDA (None or 1: the legacy default "
                     "stream, 2: per-thread default, -1: no synchronisation, or a CUstream)", stream);
        return NULL;
    }
    if (!cuda && dev.device_type != kDLCUDAHost && has_stream && stream != -1) {
        PyErr_Format(PyExc_ValueError, "memview.__dlpack__: stream must be None for memory on the CPU, not %lld",
                     stream);
        return NULL;
    }
    MVArray *src = a, *copied = NULL;
    if (host_view) {
        if (mv_host_wait(a) < 0)
            return NULL;
    } else if (!same || copy == 1) {
        char name[32];
        if (mv_dl_device_name(dev, name, sizeof name) < 0)
            return NULL;
        if (copy == 0) {
            PyErr_Format(PyExc_BufferError,
                         "memview.__dlpack__: the array is on %s; exporting it to %s needs a copy, and "
                         "copy=False forbids one", a->device, name);
            return NULL;
        }
        if ((copied = copy_to(a, name)) == NULL)
            return NULL;
        src = copied;
        dev = mv_dl_device(src);
    }
    PyObject *cap = NULL;
    if (cuda && stream_order(src, has_stream ? stream : 1) < 0)
        goto out;
    if (!versioned && src->readonly && copied == NULL) {
        PyErr_SetString(PyExc_BufferError,
                        "memview.__dlpack__: the array is read-only, and a legacy (unversioned) DLPack "
                        "capsule cannot say so: pass max_version=(1, 0) or higher, or copy=True");
        goto out;
    }
    cap = export_capsule(src, dev, versioned, minor, copied != NULL);
out:
    Py_XDECREF((PyObject *)copied);
    return cap;
}

PyObject *
mv_array_dlpack_device(PyObject *self, PyObject *unused)
{
    (void)unused;
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    DLDevice d = mv_dl_device(a);
    return Py_BuildValue("(ii)", (int)d.device_type, (int)d.device_id);
}

/* The array type's DLPack methods (module.c puts them on the type). */
int
mv_dlpack_export_init(void)
{
    return mv_intern(dlpack_kw, 4, dlpack_kwnames);
}

PyMethodDef mv_dlpack_methods[] = {
    {"__dlpack__", (PyCFunction)(void (*)(void))mv_array_dlpack, METH_FASTCALL | METH_KEYWORDS,
     "__dlpack__(*, stream=None, max_version=None, dl_device=None, copy=None) -> PyCapsule\n\n"
     "Export the array as a DLPack tensor: a versioned capsule (\"dltensor_versioned\") when\n"
     "max_version >= (1, 0), else a legacy one (\"dltensor\"). See memview's docs/guide/interop.md."},
    {"__dlpack_device__", mv_array_dlpack_device, METH_NOARGS,
     "__dlpack_device__() -> (device_type, device_id) as DLPack numbers them."},
    {NULL},
};
