/*
 * proto_dlpack_import.c — memview.from_dlpack of host tensors (kDLCPU) without Go, as
 * ops_import.c does for mv.from_buffer.
 *
 * A keeper, a small C object of its own type, owns the DLPack managed tensor
 * (versioned or legacy) and exports its memory through the buffer protocol
 * with the tensor's layout: the format of its DLPack dtype (the format the Go
 * path gives the array too), byte strides (element strides times the item
 * size, C order when the tensor has none), element 0 at data + byte_offset,
 * read-only when the READ_ONLY flag says so. The array is then made by
 * mv_import_fast over a Py_buffer of the keeper (a KEEPER owner, core_owner.c);
 * Go gets a Py_buffer of its own from the keeper only when Go code is handed
 * the array (mv_array_handle).
 * The tensor's deleter runs exactly once, with the GIL, when the keeper goes:
 * after the array (or its release()), its C-level views and Go's references
 * are all gone. The array's base is the producer, as on the Go path.
 *
 * Anything else — device memory, pinned or managed memory, a dtype, layout or
 * address this file does not take — goes to the Go path (proto_dlpack_*.c), which
 * raises the error for a bad tensor.
 */
#include "proto.h"

#define KEEP_INLINE 8 /* dimensions whose shape and strides fit in the keeper */

typedef struct {
    PyObject_HEAD
    void *tensor;      /* DLManagedTensorVersioned or DLManagedTensor */
    int versioned;
    int owns;          /* the deleter is the keeper's to run (set once an array took it) */
    int readonly;
    int ndim;
    int c_contig;
    int f_contig;
    char *buf;         /* element 0 */
    Py_ssize_t len;
    Py_ssize_t itemsize;
    const char *format; /* a static string */
    Py_ssize_t *shape; /* ndim entries, then ndim byte strides: inline, or PyMem */
    Py_ssize_t *strides;
    Py_ssize_t inline_dims[2 * KEEP_INLINE];
} dl_keeper;

static PyTypeObject *keeper_type;

int
mv_dl_is_keeper(PyObject *o)
{
    return o != NULL && keeper_type != NULL && Py_TYPE(o) == keeper_type;
}

/* run_deleter calls the producer's deleter (which may be Python code) with any
 * pending exception set aside. */
static void
run_deleter(dl_keeper *k)
{
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    if (k->versioned) {
        DLManagedTensorVersioned *t = k->tensor;
        if (t->deleter != NULL)
            t->deleter(t);
    } else {
        DLManagedTensor *t = k->tensor;
        if (t->deleter != NULL)
            t->deleter(t);
    }
    PyErr_Restore(type, value, tb);
}

static void
keeper_dealloc(PyObject *self)
{
    dl_keeper *k = (dl_keeper *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (k->owns) {
        k->owns = 0;
        run_deleter(k);
    }
    if (k->shape != NULL && k->shape != k->inline_dims)
        PyMem_Free(k->shape);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

/* keeper_getbuffer serves the tensor's layout to requests that take strides
 * (memview asks for PyBUF_FULL or PyBUF_FULL_RO); on failure view->obj is NULL. */
static int
keeper_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    dl_keeper *k = (dl_keeper *)self;
    view->obj = NULL;
    if ((flags & PyBUF_WRITABLE) == PyBUF_WRITABLE && k->readonly) {
        PyErr_SetString(PyExc_BufferError, "memview: the DLPack tensor is read-only");
        return -1;
    }
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
        PyErr_SetString(PyExc_BufferError, "memview: a DLPack tensor's buffer is served with strides only");
        return -1;
    }
    if (((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !k->c_contig) ||
        ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !k->f_contig) ||
        ((flags & PyBUF_ANY_CONTIGUOUS) == PyBUF_ANY_CONTIGUOUS && !k->c_contig && !k->f_contig)) {
        PyErr_SetString(PyExc_BufferError, "memview: the DLPack tensor is not contiguous as requested");
        return -1;
    }
    view->buf = k->buf;
    view->len = k->len;
    view->itemsize = k->itemsize;
    view->readonly = k->readonly;
    view->ndim = k->ndim;
    view->format = (flags & PyBUF_FORMAT) == PyBUF_FORMAT ? (char *)k->format : NULL;
    view->shape = k->ndim ? k->shape : NULL;
    view->strides = k->ndim ? k->strides : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    Py_INCREF(self);
    view->obj = self;
    return 0;
}

static PyType_Slot keeper_slots[] = {
    {Py_tp_dealloc, keeper_dealloc},
    {Py_bf_getbuffer, keeper_getbuffer},
    {Py_tp_doc, "The owner of a DLPack tensor memview imported: runs its deleter when it goes."},
    {0, NULL},
};

static PyType_Spec keeper_spec = {
    .name = "memview._core._DLPackTensor",
    .basicsize = sizeof(dl_keeper),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = keeper_slots,
};

/* dl_format is the PEP 3118 format of a DLPack dtype — the one the Go path
 * gives an array of that dtype — or NULL for a dtype left to the Go path. */
static const char *
dl_format(DLDataType t)
{
    const mv_basic *b = t.lanes == 1 && t.bits % 8 == 0 ? mv_basic_of(mv_dl_kind(t.code), t.bits / 8) : NULL;
    return b == NULL ? NULL : b->format;
}

/* keeper_layout fills k's layout from dl; 0, or -1 (no exception) for a
 * layout left to the Go path: a negative extent, a stride out of range, data
 * NULL, or an extent that reaches below address 0 or past the end of the
 * address space. */
static int
keeper_layout(dl_keeper *k, const DLTensor *dl, Py_ssize_t itemsize)
{
    int nd = k->ndim;
    if (nd > 0) {
        k->shape = nd <= KEEP_INLINE ? k->inline_dims : PyMem_Malloc(2 * (size_t)nd * sizeof(Py_ssize_t));
        if (k->shape == NULL)
            return -1;
        k->strides = k->shape + nd;
    }
    Py_ssize_t sd = itemsize, count = 1, lo = 0, hi = 0;
    for (int i = nd - 1; i >= 0; i--) {
        int64_t n = dl->shape[i], s;
        if (n < 0)
            return -1;
        if (dl->strides != NULL) {
            s = dl->strides[i];
            if (s > INT64_MAX / 16 || s < -(INT64_MAX / 16))
                return -1;
            s *= itemsize; /* elements to bytes, at this one boundary */
        } else {
            s = sd; /* C order (allowed before DLPack 1.2) */
            if (n > 0 && __builtin_mul_overflow(sd, n, &sd))
                return -1;
        }
        k->shape[i] = n;
        k->strides[i] = s;
        if (__builtin_mul_overflow(count, n, &count))
            return -1;
    }
    if (__builtin_mul_overflow(count, itemsize, &k->len))
        return -1;
    if (count > 0) {
        for (int i = 0; i < nd; i++) {
            Py_ssize_t d;
            if (__builtin_mul_overflow(k->strides[i], k->shape[i] - 1, &d) ||
                (d < 0 ? __builtin_add_overflow(lo, d, &lo) : __builtin_add_overflow(hi, d, &hi)))
                return -1;
        }
        uintptr_t p = (uintptr_t)k->buf, below = (uintptr_t)0 - (uintptr_t)lo;
        if (p == 0 || below > p || p > UINTPTR_MAX - (uintptr_t)hi - (uintptr_t)itemsize)
            return -1;
    } else if (k->buf == NULL) {
        return -1; /* an empty tensor without data: the Go path */
    }
    /* contiguity, for requests that ask for it (dims of 0 or 1 items are both) */
    k->c_contig = k->f_contig = 1;
    if (count > 0) {
        Py_ssize_t c = itemsize;
        for (int i = nd - 1; i >= 0; i--) {
            if (k->shape[i] > 1 && k->strides[i] != c)
                k->c_contig = 0;
            c *= k->shape[i];
        }
        c = itemsize;
        for (int i = 0; i < nd; i++) {
            if (k->shape[i] > 1 && k->strides[i] != c)
                k->f_contig = 0;
            c *= k->shape[i];
        }
    }
    return 0;
}

PyObject *
mv_dl_import_host(void *tensor, int versioned, const DLTensor *dl, int readonly, PyObject *base)
{
    if (dl->device.device_type != kDLCPU || dl->ndim < 0 || dl->ndim > MV_MAXDIM ||
        (dl->ndim > 0 && dl->shape == NULL))
        return NULL;
    const char *format = dl_format(dl->dtype);
    if (format == NULL)
        return NULL;
    if (keeper_type == NULL) {
        if ((keeper_type = (PyTypeObject *)PyType_FromSpec(&keeper_spec)) == NULL)
            return NULL;
        mv_import_keeper_type = keeper_type; /* core_owner.c asks keepers for the buffer */
    }
    dl_keeper *k = (dl_keeper *)PyType_GenericAlloc(keeper_type, 0);
    if (k == NULL)
        return NULL;
    /* Until owns is set the keeper does not run the deleter: the tensor stays
     * the caller's. */
    k->tensor = tensor;
    k->versioned = versioned;
    k->readonly = readonly;
    k->ndim = dl->ndim;
    k->itemsize = dl->dtype.bits / 8;
    k->format = format;
    k->buf = (char *)((uintptr_t)dl->data + (uintptr_t)dl->byte_offset);
    if (keeper_layout(k, dl, k->itemsize) < 0) {
        Py_DECREF(k);
        return NULL;
    }
    Py_buffer *view = PyMem_Calloc(1, sizeof(Py_buffer));
    if (view == NULL) {
        Py_DECREF(k);
        return PyErr_NoMemory();
    }
    int flags = readonly ? PyBUF_FULL_RO : PyBUF_FULL;
    if (PyObject_GetBuffer((PyObject *)k, view, flags) < 0) {
        PyMem_Free(view);
        Py_DECREF(k);
        return NULL;
    }
    PyObject *a = mv_import_fast(base, view, readonly, flags);
    if (a == NULL) { /* an exception only for memory; without one, the Go path */
        PyBuffer_Release(view);
        PyMem_Free(view);
        Py_DECREF(k);
        return NULL;
    }
    k->owns = 1; /* the array's Py_buffer holds the keeper now */
    Py_DECREF(k);
    return a;
}
