/*
 * mem_buffer.c — memview's Buffer type (memview._core.BufferBase; the facade's
 * memview.Buffer subclasses it): raw bytes after Apache Arrow's Buffer, with a
 * size, a capacity, a mutable flag, a device and a parent.
 *
 * A Buffer exports the buffer protocol as one dimension of unsigned bytes
 * ("B"). getbuffer calls no Go: it reads the fields cached in the object.
 * Instances are made only by the functions below (the facade's constructor
 * calls them); the type itself cannot be instantiated.
 */
#include "mem.h"

PyObject *mv_buffer_base_type = NULL;
static PyObject *mv_buffer_type = NULL; /* the facade's subclass */

#define REQ(flags, f) (((flags) & (f)) == (f))
#define B ((MVBuffer *)self)

int
mv_is_buffer(PyObject *o)
{
    return mv_buffer_base_type != NULL && PyObject_TypeCheck(o, (PyTypeObject *)mv_buffer_base_type);
}

static int
buffer_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    MVBuffer *b = B;
    view->obj = NULL; /* the rule: obj is NULL whenever we fail */
    if (b->handle == 0) {
        PyErr_SetString(PyExc_BufferError, "memview: operation on a released buffer");
        return -1;
    }
    /* Protocols follow the device: the buffer protocol serves host memory only. */
    if (b->device_kind == MV_DEV_CUDA) {
        PyErr_Format(PyExc_BufferError,
                     "memview: the buffer is on %s: the buffer protocol serves host memory", b->device);
        return -1;
    }
    /* PyBUF_WRITABLE: provide a writable buffer or fail. */
    if ((flags & PyBUF_WRITABLE) && !b->mutable_) {
        PyErr_SetString(PyExc_BufferError, "memview: buffer is not mutable");
        return -1;
    }
    /* Without PyBUF_ND the consumer gets unsigned bytes: with a format that
     * is a contradiction, as _testbuffer says. */
    if (!REQ(flags, PyBUF_ND) && (flags & PyBUF_FORMAT)) {
        PyErr_SetString(PyExc_BufferError,
                        "memview: cannot cast to unsigned bytes if the format flag is present");
        return -1;
    }
    /* One dimension of bytes is C- and F-contiguous: every contiguity request
     * is met. format is filled iff PyBUF_FORMAT; shape iff PyBUF_ND; strides
     * iff PyBUF_STRIDES, as CPython's reference exporter does. */
    view->buf = b->data;
    view->len = b->size;
    view->readonly = !b->mutable_;
    view->itemsize = 1;
    view->format = (flags & PyBUF_FORMAT) ? "B" : NULL;
    view->ndim = 1;
    view->shape = REQ(flags, PyBUF_ND) ? &b->size : NULL;
    view->strides = REQ(flags, PyBUF_STRIDES) ? &b->one : NULL;
    view->suboffsets = NULL;
    view->internal = NULL;
    Py_INCREF(self);
    view->obj = self;
    b->exports++;
    return 0;
}

static void
buffer_releasebuffer(PyObject *self, Py_buffer *view)
{
    (void)view;
    B->exports--;
}

/* drop_handle gives the Go reference back (when Go may be entered). */
static void
drop_handle(MVBuffer *b)
{
    if (b->handle != 0) {
        uintptr_t h = b->handle;
        b->handle = 0;
        if (mv_go_usable())
            mv_go_buffer_release(h, NULL);
    }
    b->data = NULL;
    b->size = b->capacity = 0;
}

static void
buffer_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    drop_handle(B);
    Py_CLEAR(B->parent);
    freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    tp_free(self);
    Py_DECREF(tp);
}

static Py_ssize_t
buffer_length(PyObject *self)
{
    return B->size;
}

static PyObject *get_size(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromSsize_t(B->size); }
static PyObject *get_capacity(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromSsize_t(B->capacity); }
static PyObject *get_mutable(PyObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(B->mutable_); }
static PyObject *get_resizable(PyObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(B->resizable); }
static PyObject *get_device(PyObject *self, void *Py_UNUSED(c)) { return PyUnicode_FromString(B->device); }
static PyObject *get_address(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromVoidPtr(B->data); }
static PyObject *get_released(PyObject *self, void *Py_UNUSED(c)) { return PyBool_FromLong(B->handle == 0); }
static PyObject *get_exports(PyObject *self, void *Py_UNUSED(c)) { return PyLong_FromSsize_t(B->exports); }
static PyObject *get_parent(PyObject *self, void *c)
{
    (void)c;
    PyObject *p = B->parent ? B->parent : Py_None;
    Py_INCREF(p);
    return p;
}

static PyGetSetDef buffer_getset[] = {
    {"size", get_size, NULL, "Bytes in the buffer.", NULL},
    {"capacity", get_capacity, NULL, "Bytes the buffer owns: size rounded up to 64 for pool memory.", NULL},
    {"is_mutable", get_mutable, NULL, "True if the bytes may be written.", NULL},
    {"is_resizable", get_resizable, NULL, "True if resize() and reserve() may change the buffer.", NULL},
    {"device", get_device, NULL, "Where the memory is: 'cpu', 'cuda:N', 'cuda_host', 'cuda_managed:N'.", NULL},
    {"address", get_address, NULL, "Address of the first byte.", NULL},
    {"parent", get_parent, NULL, "The buffer this one is a slice or view of (kept alive), or None.", NULL},
    {"released", get_released, NULL, "True once release() has been called.", NULL},
    {"_exports", get_exports, NULL, "Number of live buffer exports.", NULL},
    {NULL},
};

static PyType_Slot buffer_slots[] = {
    {Py_tp_dealloc, buffer_dealloc},
    {Py_tp_getset, buffer_getset},
    {Py_bf_getbuffer, buffer_getbuffer},
    {Py_bf_releasebuffer, buffer_releasebuffer},
    {Py_mp_length, buffer_length},
    {Py_tp_doc, "Base of memview.Buffer: raw bytes with a size, a capacity and a parent."},
    {0, NULL},
};

static PyType_Spec buffer_spec = {
    .name = "memview._core.BufferBase",
    .basicsize = sizeof(MVBuffer),
    .itemsize = 0,
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = buffer_slots,
};

PyObject *
mv_new_buffer(const mv_buf_meta *m, PyObject *parent)
{
    PyTypeObject *tp = (PyTypeObject *)(mv_buffer_type ? mv_buffer_type : mv_buffer_base_type);
    allocfunc alloc = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    MVBuffer *b = (MVBuffer *)alloc(tp, 0);
    if (b == NULL) {
        mv_go_buffer_release((uintptr_t)m->handle, NULL);
        return NULL;
    }
    b->handle = m->handle;
    b->data = m->data;
    b->size = (Py_ssize_t)m->size;
    b->capacity = (Py_ssize_t)m->capacity;
    b->one = 1;
    b->mutable_ = m->mutable_;
    b->resizable = m->resizable;
    b->device_kind = m->device_kind;
    memcpy(b->device, m->device, sizeof b->device);
    b->device[sizeof b->device - 1] = 0;
    Py_XINCREF(parent);
    b->parent = parent;
    return (PyObject *)b;
}

/* ---- functions of memview._core that the facade's Buffer calls ---- */

static MVBuffer *
live_buffer(PyObject *o)
{
    if (!mv_is_buffer(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Buffer is required");
        return NULL;
    }
    MVBuffer *b = (MVBuffer *)o;
    if (b->handle == 0) {
        PyErr_SetString(PyExc_ValueError, "memview: operation on a released buffer");
        return NULL;
    }
    if (b->busy > 0) {
        PyErr_SetString(PyExc_BufferError, "memview: the buffer is in use by another thread");
        return NULL;
    }
    return b;
}

static int
size_arg(PyObject *o, const char *what, int64_t *out)
{
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "memview: %s must be an integer", what);
        return -1;
    }
    PyObject *ix = PyNumber_Index(o);
    if (ix == NULL)
        return -1;
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(ix, &overflow);
    Py_DECREF(ix);
    if (v == -1 && PyErr_Occurred())
        return -1;
    if (overflow > 0) {
        PyErr_Format(PyExc_MemoryError, "memview: %s %R is too large", what, o);
        return -1;
    }
    if (overflow < 0 || v < 0) {
        PyErr_Format(PyExc_ValueError, "memview: %s must not be negative", what);
        return -1;
    }
    *out = (int64_t)v;
    return 0;
}

/* buffer_new(size, pool: int, resizable: bool) -> Buffer of size zero bytes */
static PyObject *
buf_new(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *size_o, *pool_o;
    int resizable;
    if (!PyArg_ParseTuple(args, "OOp", &size_o, &pool_o, &resizable))
        return NULL;
    int64_t size;
    unsigned long long pool;
    if (size_arg(size_o, "size", &size) < 0 || mv_pool_arg(pool_o, &pool) < 0)
        return NULL;
    mv_buf_meta m;
    mv_err e;
    int rc;
    /* pool memory on a CUDA device is zero-filled there: long work */
    NOGIL(pool != 0 || size >= MV_NOGIL_MIN, rc = mv_go_buffer_new(size, pool, resizable, &m, &e));
    if (rc != 0)
        return mv_raise(&e);
    return mv_new_buffer(&m, NULL);
}

/* buffer_from(obj, pool: int, mutable: bool) -> Buffer holding a copy of the
 * bytes of any buffer-protocol object (in C order) */
static PyObject *
buf_from(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *obj, *pool_o;
    int mutable_;
    if (!PyArg_ParseTuple(args, "OOp", &obj, &pool_o, &mutable_))
        return NULL;
    unsigned long long pool;
    if (mv_pool_arg(pool_o, &pool) < 0)
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_FULL_RO) < 0)
        return NULL;
    void *src = view.buf;
    void *tmp = NULL;
    if (!PyBuffer_IsContiguous(&view, 'C')) {
        tmp = PyMem_Malloc(view.len ? (size_t)view.len : 1);
        if (tmp == NULL) {
            PyBuffer_Release(&view);
            return PyErr_NoMemory();
        }
        if (PyBuffer_ToContiguous(tmp, &view, view.len, 'C') < 0) {
            PyMem_Free(tmp);
            PyBuffer_Release(&view);
            return NULL;
        }
        src = tmp;
    }
    mv_buf_meta m;
    mv_err e;
    int rc;
    NOGIL(view.len >= MV_NOGIL_MIN || pool != 0,
             rc = mv_go_buffer_from(src, view.len, pool, mutable_, &m, &e));
    PyMem_Free(tmp);
    PyBuffer_Release(&view);
    if (rc != 0)
        return mv_raise(&e);
    return mv_new_buffer(&m, NULL);
}

/* buffer_slice(buf, offset, length, mutable: bool) -> Buffer keeping buf alive */
static PyObject *
buf_slice(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *o, *off_o, *len_o;
    int mutable_;
    if (!PyArg_ParseTuple(args, "OOOp", &o, &off_o, &len_o, &mutable_))
        return NULL;
    MVBuffer *b = live_buffer(o);
    if (b == NULL)
        return NULL;
    int64_t offset, length;
    if (size_arg(off_o, "offset", &offset) < 0 || size_arg(len_o, "length", &length) < 0)
        return NULL;
    if (offset > b->size || length > b->size - offset) {
        PyErr_Format(PyExc_IndexError, "memview: slice of %lld bytes at offset %lld is outside a %zd-byte buffer",
                     (long long)length, (long long)offset, b->size);
        return NULL;
    }
    if (mutable_ && !b->mutable_) {
        PyErr_SetString(PyExc_BufferError, "memview: a mutable slice needs a mutable buffer");
        return NULL;
    }
    mv_buf_meta m;
    mv_err e;
    if (mv_go_buffer_slice(b->handle, offset, length, mutable_, &m, &e) != 0)
        return mv_raise(&e);
    return mv_new_buffer(&m, o);
}

/* resize(buf, n, shrink, reserve): Resize(n, shrink) or Reserve(n); refused with
 * BufferError while the buffer is exported, viewed or sliced */
static PyObject *
buf_resize(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *o, *n_o;
    int shrink, reserve;
    if (!PyArg_ParseTuple(args, "OOpp", &o, &n_o, &shrink, &reserve))
        return NULL;
    MVBuffer *b = live_buffer(o);
    if (b == NULL)
        return NULL;
    int64_t n;
    if (size_arg(n_o, reserve ? "capacity" : "size", &n) < 0)
        return NULL;
    if (!b->resizable) {
        PyErr_SetString(PyExc_ValueError,
                        "memview: the buffer is not resizable (make it with Buffer(size, resizable=True))");
        return NULL;
    }
    if (b->exports > 0) {
        PyErr_Format(PyExc_BufferError, "memview: cannot %s a buffer with %zd live buffer export(s)",
                     reserve ? "reserve" : "resize", b->exports);
        return NULL;
    }
    mv_buf_meta m;
    mv_err e;
    int rc;
    /* the memory may be copied */
    int64_t moved = b->capacity > n ? b->capacity : n;
    b->busy++;
    NOGIL(moved >= MV_NOGIL_MIN, rc = mv_go_buffer_resize(b->handle, n, shrink, reserve, &m, &e));
    b->busy--;
    if (rc != 0)
        return mv_raise(&e);
    b->data = m.data;
    b->size = (Py_ssize_t)m.size;
    b->capacity = (Py_ssize_t)m.capacity;
    Py_RETURN_NONE;
}

/* buffer_view(buf, dtype: str, shape: tuple, strides: tuple|None, offset) ->
 * Array over the buffer, validated against its extent; its base is buf */
static PyObject *
buf_view(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *o, *shape_t, *strides_o, *off_o;
    const char *dtype;
    if (!PyArg_ParseTuple(args, "OsOOO", &o, &dtype, &shape_t, &strides_o, &off_o))
        return NULL;
    MVBuffer *b = live_buffer(o);
    if (b == NULL)
        return NULL;
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM], offset;
    int n = mv_int64_tuple(shape_t, shape, "shape");
    if (n < 0)
        return NULL;
    int64_t *sp = NULL;
    if (strides_o != Py_None) {
        int ns = mv_int64_tuple(strides_o, strides, "strides");
        if (ns < 0)
            return NULL;
        if (ns != n) {
            PyErr_Format(PyExc_ValueError, "memview: Buffer.view: %d strides for %d dimensions", ns, n);
            return NULL;
        }
        sp = strides;
    }
    if (size_arg(off_o, "offset", &offset) < 0)
        return NULL;
    mv_meta m;
    mv_err e;
    if (mv_go_buffer_view(b->handle, (char *)dtype, n, shape, sp, offset, &m, &e) != 0)
        return mv_raise(&e);
    return mv_new_array(&m, o);
}

/* buffer_on(buf, device: str, copy: bool, pool: int, stream: int) -> Buffer:
 * buf itself on its own device, a view (whose parent is buf) where device can
 * address the memory, else a copy when copy is true, else BufferError */
static PyObject *
buf_on(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *o, *pool_o;
    const char *device;
    int copy;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "OspO|K", &o, &device, &copy, &pool_o, &stream))
        return NULL;
    MVBuffer *b = live_buffer(o);
    if (b == NULL)
        return NULL;
    unsigned long long pool;
    if (mv_pool_arg(pool_o, &pool) < 0)
        return NULL;
    if (strcmp(device, b->device) == 0) {
        Py_INCREF(o);
        return o;
    }
    mv_buf_meta m;
    mv_err e;
    int rc;
    b->busy++;
    NOGIL(copy, rc = mv_go_buffer_on(b->handle, (char *)device, copy, pool, (uintptr_t)stream, &m, &e));
    b->busy--;
    if (rc != 0)
        return mv_raise(&e);
    /* the same memory is a view (parent: this buffer); other memory a copy */
    return mv_new_buffer(&m, m.data == b->data ? o : NULL);
}

/* buffer_release(buf): give the memory reference back now; BufferError while
 * exported; a second call does nothing */
static PyObject *
buf_release(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (!mv_is_buffer(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Buffer is required");
        return NULL;
    }
    MVBuffer *b = (MVBuffer *)o;
    if (b->handle == 0)
        Py_RETURN_NONE;
    if (b->exports > 0) {
        PyErr_Format(PyExc_BufferError, "memview: cannot release a buffer with %zd live buffer export(s)",
                     b->exports);
        return NULL;
    }
    if (b->busy > 0) {
        PyErr_SetString(PyExc_BufferError, "memview: cannot release a buffer another thread is using");
        return NULL;
    }
    if (mv_check_go() < 0)
        return NULL;
    uintptr_t h = b->handle;
    b->handle = 0;
    b->data = NULL;
    b->size = b->capacity = 0;
    mv_err e;
    if (mv_go_buffer_release(h, &e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* array_on(a, device: str) -> Array over a's memory addressed from device
 * (BufferError when device cannot address it); its base is a's */
static PyObject *
arr_on(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    PyObject *o;
    const char *device;
    if (!PyArg_ParseTuple(args, "Os", &o, &device))
        return NULL;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: a memview.Array is required");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    uintptr_t h = mv_array_handle(a);
    if (h == 0)
        return NULL;
    mv_meta m;
    mv_err e;
    if (mv_go_array_on(h, (char *)device, &m, &e) != 0)
        return mv_raise(&e);
    return mv_new_array(&m, a->base ? a->base : o);
}

/* set_buffer_type(cls): the facade's Buffer subclass, used for every new buffer */
static PyObject *
buf_set_type(PyObject *mod, PyObject *cls)
{
    (void)mod;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)mv_buffer_base_type)) {
        PyErr_SetString(PyExc_TypeError, "memview: set_buffer_type needs a subclass of BufferBase");
        return NULL;
    }
    PyObject *old = mv_buffer_type;
    Py_INCREF(cls);
    mv_buffer_type = cls;
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef buffer_methods[] = {
    {"buffer_new", buf_new, METH_VARARGS, "buffer_new(size, pool, resizable) -> Buffer"},
    {"buffer_from", buf_from, METH_VARARGS, "buffer_from(obj, pool, mutable) -> Buffer (a copy)"},
    {"buffer_slice", buf_slice, METH_VARARGS, "buffer_slice(buf, offset, length, mutable) -> Buffer"},
    {"buffer_resize", buf_resize, METH_VARARGS, "buffer_resize(buf, n, shrink, reserve)"},
    {"buffer_view", buf_view, METH_VARARGS, "buffer_view(buf, dtype, shape, strides, offset) -> Array"},
    {"buffer_on", buf_on, METH_VARARGS, "buffer_on(buf, device, copy, pool, stream=0) -> Buffer"},
    {"buffer_release", buf_release, METH_O, "buffer_release(buf)"},
    {"array_on", arr_on, METH_VARARGS, "array_on(a, device) -> Array view from device"},
    {"set_buffer_type", buf_set_type, METH_O, "set_buffer_type(cls)"},
    {NULL},
};

int
mv_install_buffer(PyObject *mod)
{
    if (mv_buffer_base_type == NULL) {
        mv_buffer_base_type = PyType_FromSpec(&buffer_spec);
        if (mv_buffer_base_type == NULL)
            return -1;
    }
    Py_INCREF(mv_buffer_base_type);
    if (PyModule_AddObject(mod, "BufferBase", mv_buffer_base_type) < 0) {
        Py_DECREF(mv_buffer_base_type);
        return -1;
    }
    return PyModule_AddFunctions(mod, buffer_methods);
}
