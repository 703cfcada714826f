/*
 * core_array.c — memview's array type: the buffer protocol, the cached
 * attributes, and the one constructor of arrays whose metadata comes from Go.
 *
 * getbuffer follows CPython's reference exporter, _testbuffer.ndarray
 * (Modules/_testbuffer.c, ndarray_getbuf), check for check, and calls no Go: it
 * reads only the metadata copied into the object when it was made.
 */
#include "core.h"

PyObject *mv_array_base_type = NULL;
PyObject *mv_array_type = NULL;

#define REQ(flags, f) (((flags) & (f)) == (f))

static int
array_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    MVArray *a = (MVArray *)self;
    view->obj = NULL; /* the rule: obj is NULL whenever we fail */
    /* A released (or never made) array refuses every operation with ValueError,
     * as a released memoryview does. */
    if (mv_check_live(a) < 0)
        return -1;
    /* Protocols follow the device: the buffer protocol serves host memory only. */
    if (a->device_kind == MV_DEV_CUDA) {
        PyErr_Format(PyExc_BufferError,
                     "memview: the array is on %s: the buffer protocol serves host memory; "
                     "use __cuda_array_interface__", a->device);
        return -1;
    }
    /* PyBUF_WRITABLE: provide a writable buffer or fail. */
    if ((flags & PyBUF_WRITABLE) && a->readonly) {
        PyErr_SetString(PyExc_BufferError, "memview: array is read-only");
        return -1;
    }
    /* Contiguity requests (each includes PyBUF_STRIDES). */
    if (REQ(flags, PyBUF_C_CONTIGUOUS) && !a->c_contig) {
        PyErr_SetString(PyExc_BufferError, "memview: array is not C-contiguous");
        return -1;
    }
    if (REQ(flags, PyBUF_F_CONTIGUOUS) && !a->f_contig) {
        PyErr_SetString(PyExc_BufferError, "memview: array is not Fortran contiguous");
        return -1;
    }
    if (REQ(flags, PyBUF_ANY_CONTIGUOUS) && !a->c_contig && !a->f_contig) {
        PyErr_SetString(PyExc_BufferError, "memview: array is not contiguous");
        return -1;
    }
    /* Without PyBUF_STRIDES the consumer assumes C order: only a C-contiguous
     * array can be described by shape alone. */
    if (!REQ(flags, PyBUF_STRIDES) && !a->c_contig) {
        PyErr_SetString(PyExc_BufferError, "memview: array is not C-contiguous");
        return -1;
    }
    /* format is filled iff PyBUF_FORMAT; itemsize keeps the real item size. */
    const char *format = (flags & PyBUF_FORMAT) ? a->format : NULL;
    int ndim = a->ndim;
    Py_ssize_t *shape = a->shape;
    if (!REQ(flags, PyBUF_ND)) {
        /* PyBUF_SIMPLE / PyBUF_WRITABLE: unsigned bytes; with a format that is
         * a contradiction, as _testbuffer says. */
        if (format != NULL) {
            PyErr_SetString(PyExc_BufferError,
                            "memview: cannot cast to unsigned bytes if the format flag is present");
            return -1;
        }
        ndim = 1;
        shape = NULL;
    }
    view->buf = a->buf;
    view->len = a->len;
    view->readonly = a->readonly;
    view->itemsize = a->itemsize;
    view->format = (char *)format;
    view->ndim = ndim;
    view->shape = shape;
    view->strides = REQ(flags, PyBUF_STRIDES) ? a->strides : NULL;
    view->suboffsets = NULL; /* memview never exports PIL-style buffers */
    view->internal = NULL;
    Py_INCREF(self);
    view->obj = self;
    a->exports++;
    return 0;
}

static void
array_releasebuffer(PyObject *self, Py_buffer *view)
{
    (void)view;
    ((MVArray *)self)->exports--;
}

static void
array_dealloc(PyObject *self)
{
    MVArray *a = (MVArray *)self;
    PyTypeObject *tp = Py_TYPE(self);
    mv_owner_dealloc(a);
    Py_CLEAR(a->base);
    mv_shape_free(a);
    if (a->format != NULL && a->format != a->fmt_inline)
        PyMem_Free(a->format);
    if (a->dtype != NULL && a->dtype != a->dtype_inline)
        PyMem_Free(a->dtype);
    /* the type's tp_free, looked up once per type */
    static PyTypeObject *free_tp;
    static freefunc tp_free;
    if (tp != free_tp) {
        tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
        free_tp = tp;
    }
    tp_free(self);
    Py_DECREF(tp);
}

/* tp_new: arrays are made only by memview's functions (mv_new_array, which
 * fills every field). Refusing here also makes object.__new__(cls) refuse
 * ("not safe") for every subclass, so Python can never see a zeroed array. */
static PyObject *
array_new(PyTypeObject *tp, PyObject *args, PyObject *kwds)
{
    (void)args;
    (void)kwds;
    PyObject *name = PyType_GetName(tp);
    if (name != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "cannot create '%U' instances directly; use memview.empty, zeros, full, "
                     "arange, from_buffer or asarray", name);
        Py_DECREF(name);
    }
    return NULL;
}

/* ---- cached attributes (no Go calls) ---- */

static PyObject *
ssize_tuple(const Py_ssize_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    if (t == NULL)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *x = PyLong_FromSsize_t(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, x);
    }
    return t;
}

/* Every getter but `released` refuses a released array with ValueError, as
 * memoryview's do; LIVE returns NULL from the getter when it is released. */
#define A ((MVArray *)self)
#define LIVE if (mv_check_live(A) < 0) return NULL
static PyObject *get_shape(PyObject *self, void *Py_UNUSED(c)) { LIVE; return ssize_tuple(A->shape, A->ndim); }
static PyObject *get_strides(PyObject *self, void *Py_UNUSED(c)) { LIVE; return ssize_tuple(A->strides, A->ndim); }
static PyObject *get_ndim(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyLong_FromLong(A->ndim); }
static PyObject *get_itemsize(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyLong_FromSsize_t(A->itemsize); }
static PyObject *get_nbytes(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyLong_FromSsize_t(A->len); }
static PyObject *get_size(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyLong_FromSsize_t(A->itemsize ? A->len / A->itemsize : 0); }
static PyObject *get_readonly(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyBool_FromLong(A->readonly); }
static PyObject *get_c_contig(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyBool_FromLong(A->c_contig); }
static PyObject *get_f_contig(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyBool_FromLong(A->f_contig); }
static PyObject *get_format(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyUnicode_FromString(A->format); }
static PyObject *get_dtype(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyUnicode_FromString(A->dtype); }
static PyObject *get_typestr(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyUnicode_FromString(A->typestr); }
static PyObject *get_ptr(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyLong_FromVoidPtr(A->buf); }
static PyObject *get_device(PyObject *self, void *Py_UNUSED(c)) { LIVE; return PyUnicode_FromString(A->device); }
static PyObject *get_exports(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromSsize_t(A->exports); }
static PyObject *get_released(PyObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(mv_released(A)); }
static PyObject *get_base(PyObject *self, void *c)
{
    (void)c;
    LIVE;
    PyObject *b = A->base ? A->base : Py_None;
    Py_INCREF(b);
    return b;
}

/* __cuda_array_interface__ (version 3), built from the cached metadata. CPU
 * arrays have none: AttributeError, so hasattr(a, "__cuda_array_interface__") is
 * False for them. */
static PyObject *
get_cai(PyObject *self, void *c)
{
    (void)c;
    MVArray *a = A;
    LIVE;
    if (a->device_kind != MV_DEV_CUDA && a->device_kind != MV_DEV_CUDA_MANAGED) {
        PyErr_SetString(PyExc_AttributeError,
                        "memview: arrays in host memory have no __cuda_array_interface__; "
                        "use the buffer protocol");
        return NULL;
    }
    PyObject *shape = ssize_tuple(a->shape, a->ndim);
    PyObject *strides = NULL;
    if (shape == NULL)
        return NULL;
    /* strides is None exactly when the array is C-contiguous */
    if (a->c_contig) {
        Py_INCREF(Py_None);
        strides = Py_None;
    } else if ((strides = ssize_tuple(a->strides, a->ndim)) == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    /* data: (ptr, readonly), ptr 0 for an empty array */
    void *ptr = a->len == 0 ? NULL : (void *)a->buf;
    /* The stream with work still pending on the memory, wherever it was
     * enqueued (through this view or any other): kept with the memory, in Go. */
    long long pending = a->pending ? (long long)__atomic_load_n(a->pending, __ATOMIC_ACQUIRE) : 0;
    PyObject *stream;
    if (pending != 0)
        stream = PyLong_FromUnsignedLongLong((unsigned long long)pending);
    else {
        Py_INCREF(Py_None);
        stream = Py_None;
    }
    PyObject *d = Py_BuildValue("{s:N,s:s,s:[(s,s)],s:(N,O),s:N,s:i,s:N}",
                                "shape", shape,
                                "typestr", a->typestr,
                                "descr", "", a->typestr,
                                "data", PyLong_FromVoidPtr(ptr), a->readonly ? Py_True : Py_False,
                                "strides", strides,
                                "version", 3,
                                "stream", stream);
    return d;
}
#undef LIVE
#undef A

PyGetSetDef mv_array_core_getset[] = {
    {"shape", get_shape, NULL, "Tuple of array dimensions.", NULL},
    {"strides", get_strides, NULL, "Tuple of signed byte steps, one per dimension.", NULL},
    {"ndim", get_ndim, NULL, "Number of dimensions.", NULL},
    {"itemsize", get_itemsize, NULL, "Bytes per element.", NULL},
    {"nbytes", get_nbytes, NULL, "Bytes of the elements (size * itemsize).", NULL},
    {"size", get_size, NULL, "Number of elements.", NULL},
    {"readonly", get_readonly, NULL, "True if the array cannot be written.", NULL},
    {"c_contiguous", get_c_contig, NULL, "True if the elements are C-contiguous.", NULL},
    {"f_contiguous", get_f_contig, NULL, "True if the elements are Fortran-contiguous.", NULL},
    {"format", get_format, NULL, "PEP 3118 format of one element.", NULL},
    {"dtype", get_dtype, NULL, "NumPy name of the element type.", NULL},
    {"typestr", get_typestr, NULL, "Array-interface type string, e.g. '<f8'.", NULL},
    {"ptr", get_ptr, NULL, "Address of element 0.", NULL},
    {"base", get_base, NULL, "The object that keeps the memory alive, or None for an owner.", NULL},
    {"released", get_released, NULL, "True once release() has been called.", NULL},
    {"device", get_device, NULL, "Where the memory is: 'cpu' or 'cuda:N'.", NULL},
    {"__cuda_array_interface__", get_cai, NULL, "CUDA Array Interface v3 (CUDA arrays only).", NULL},
    {"_exports", get_exports, NULL, "Number of live buffer exports.", NULL},
    {NULL},
};

/* The type's own slots; module.c adds the getset and method tables and the
 * slots of the layers above (indexing, len, iteration). */
PyType_Slot mv_array_core_slots[] = {
    {Py_tp_new, array_new},
    {Py_tp_dealloc, array_dealloc},
    {Py_bf_getbuffer, array_getbuffer},
    {Py_bf_releasebuffer, array_releasebuffer},
    {Py_tp_doc, "Base of memview.Array: a strided view of Go-owned or imported memory."},
    {0, NULL},
};

int
mv_is_array(PyObject *o)
{
    return mv_array_base_type != NULL && PyObject_TypeCheck(o, (PyTypeObject *)mv_array_base_type);
}

/* put_string copies s into dst of n bytes, cut to fit (n > 0). Formats, names
 * and devices are a few characters: a loop beats the library's calls here. */
static inline void
put_string(char *dst, size_t n, const char *s)
{
    size_t k = 0;
    for (; k < n - 1 && s[k] != 0; k++)
        dst[k] = s[k];
    dst[k] = 0;
}

/* keep_string returns s copied into inline_buf (16 bytes) when it fits, else a
 * PyMem copy; NULL when memory ran out. */
static inline char *
keep_string(const char *s, char *inline_buf)
{
    size_t k = 0;
    while (k < 16 && s[k] != 0)
        k++;
    if (k < 16) {
        memcpy(inline_buf, s, k + 1);
        return inline_buf;
    }
    return mv_pymem_strdup(s);
}

MVArray *
mv_array_new(const mv_desc *d)
{
    /* the type's tp_alloc, looked up once per type (set_array_type changes it) */
    static PyTypeObject *alloc_tp;
    static allocfunc alloc;
    PyTypeObject *tp = (PyTypeObject *)(mv_array_type ? mv_array_type : mv_array_base_type);
    if (tp != alloc_tp) {
        alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
        alloc_tp = tp;
    }
    MVArray *a = (MVArray *)alloc(tp, 0);
    if (a == NULL)
        return NULL;
    /* Until its maker gives it memory the object reads as released, and
     * dealloc frees what is set. */
    const MVArray *l = d->like;
    if (l != NULL) {
        /* a view: the items and the device are l's, copied as they are */
        a->format = l->format == l->fmt_inline ? memcpy(a->fmt_inline, l->fmt_inline, sizeof a->fmt_inline)
                                               : mv_pymem_strdup(l->format);
        a->dtype = l->dtype == l->dtype_inline ? memcpy(a->dtype_inline, l->dtype_inline, sizeof a->dtype_inline)
                                               : mv_pymem_strdup(l->dtype);
        memcpy(a->typestr, l->typestr, sizeof a->typestr);
        memcpy(a->device, l->device, sizeof a->device);
        a->itemsize = l->itemsize;
        a->device_kind = l->device_kind;
        a->device_id = l->device_id;
        a->pending = l->pending;
        a->runs = l->runs;
        a->normal = l->normal;
    } else {
        if (d->short16) { /* the usual case: whole copies */
            a->format = memcpy(a->fmt_inline, d->format, sizeof a->fmt_inline);
            a->dtype = memcpy(a->dtype_inline, d->dtype, sizeof a->dtype_inline);
            memcpy(a->typestr, d->typestr, sizeof a->typestr);
        } else {
            a->format = keep_string(d->format, a->fmt_inline);
            a->dtype = keep_string(d->dtype, a->dtype_inline);
            put_string(a->typestr, sizeof a->typestr, d->typestr);
        }
        put_string(a->device, sizeof a->device, d->device);
        a->itemsize = d->itemsize;
        a->device_kind = d->device_kind;
        a->device_id = d->device_id;
        a->pending = d->pending;
        a->runs = d->runs;
        a->normal = d->normal;
    }
    if (a->format == NULL || a->dtype == NULL || (d->ndim > 0 && mv_shape_alloc(a, d->ndim) < 0)) {
        Py_DECREF(a);
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t size = 1;
    for (int k = 0; k < d->ndim; k++) {
        a->shape[k] = d->shape[k];
        a->strides[k] = d->strides[k];
        size *= d->shape[k];
    }
    a->buf = d->buf;
    a->len = size * a->itemsize;
    a->ndim = d->ndim;
    a->readonly = d->readonly;
    mv_contiguity(d->ndim, a->shape, a->strides, a->itemsize, &a->c_contig, &a->f_contig);
    a->dl_strides = a->shape ? (int64_t *)a->shape + 2 * d->ndim : NULL;
    mv_item_kinds(a, l);
    Py_XINCREF(d->base);
    a->base = d->base;
    return a;
}

PyObject *
mv_new_array(const mv_meta *m, PyObject *base)
{
    /* A long format or name is handed over by Go (malloc'd): read, then freed. */
    mv_desc d = {
        .buf = m->buf,
        .ndim = m->ndim,
        .shape = (const Py_ssize_t *)m->shape,
        .strides = (const Py_ssize_t *)m->strides,
        .itemsize = (Py_ssize_t)m->itemsize,
        .format = m->long_format ? m->long_format : m->format,
        .dtype = m->long_dtype ? m->long_dtype : m->dtype,
        .typestr = m->typestr,
        .readonly = m->readonly,
        .device_kind = m->device_kind,
        .device_id = m->device_id,
        .device = m->device,
        .pending = m->pending,
        .runs = m->runs,
        .normal = m->normal,
        .base = base,
    };
    MVArray *a = mv_array_new(&d);
    free(m->long_format);
    free(m->long_dtype);
    if (a == NULL) {
        mv_go_release((uintptr_t)m->handle, NULL);
        return NULL;
    }
    mv_own_go(a, (uintptr_t)m->handle); /* owned from here on */
    return (PyObject *)a;
}


/* A view's base is the owner of its memory: the parent's base, or the parent. */
PyObject *
mv_view_base(MVArray *parent)
{
    return parent->base ? parent->base : (PyObject *)parent;
}


PyObject *
mv_finish_meta(int rc, const mv_meta *m, const mv_err *e, PyObject *base)
{
    if (rc != 0)
        return mv_raise(e);
    return mv_new_array(m, base);
}
