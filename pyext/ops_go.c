/*
 * ops_go.c — the array operations Go does: creation of any size and device,
 * import of any exporter and of CUDA memory, views the C paths leave to Go,
 * copies, fills, and release. Each parses its arguments, calls one Go function
 * with the GIL held (without it for long work), and turns the result into an
 * array or an exception. In a forked child the host work among them is done in
 * C instead (ops_create.c, ops_host.c, ops_views.c) and the rest raises at once.
 */
#include "ops.h"

MVArray *
mv_live_array(PyObject *o, const char *what)
{
    if (!mv_is_array(o)) {
        PyErr_Format(PyExc_TypeError, "memview: %s must be a memview.Array", what);
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    /* every caller hands the array to Go: a C-level view gets its handle now */
    return mv_array_handle(a) == 0 ? NULL : a;
}

/* mv_host_array: o as a live host array for the forked child's paths, which hand
 * nothing to Go; NULL with an exception otherwise. */
MVArray *
mv_host_array(PyObject *o, const char *what)
{
    if (!mv_is_array(o)) {
        PyErr_Format(PyExc_TypeError, "memview: %s must be a memview.Array", what);
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    if (a->device_kind != MV_DEV_CPU) {
        mv_raise_forked_cuda("work on CUDA memory");
        return NULL;
    }
    return a;
}

/* Long work runs without the GIL, so that other Python threads keep running:
 * copies and fills of MV_NOGIL_MIN bytes or more, and everything that involves
 * a CUDA device (allocation with its zero-fill, transfers, synchronisation).
 * The arrays involved stay alive (the call holds references to them) and are
 * marked busy, so a release() from another thread is refused meanwhile. */
int
mv_long_work(const MVArray *a)
{
    return a->len >= MV_NOGIL_MIN || a->device_kind != MV_DEV_CPU;
}

/* empty(shape: tuple[int], dtype: str, order: str, device: str|None = None (cpu),
 * pool: int = 0 (the default)) -> Array, zero-filled, on the device named, from
 * the pool with that id */
static PyObject *
core_empty(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *shape_t, *dtype_o, *order_o;
    const char *dtype, *order, *device = NULL;
    unsigned long long pool = 0;
    if (!PyArg_ParseTuple(args, "OOO|zO&", &shape_t, &dtype_o, &order_o, &device, mv_u64_arg, &pool))
        return NULL;
    if ((dtype = mv_dtype_arg(dtype_o)) == NULL)
        return NULL;
    Py_ssize_t order_len = 0;
    order = PyUnicode_Check(order_o) ? PyUnicode_AsUTF8AndSize(order_o, &order_len) : NULL;
    if (order == NULL || order_len != 1) {
        PyErr_Clear();
        PyErr_Format(PyUnicode_Check(order_o) ? PyExc_ValueError : PyExc_TypeError,
                     "memview: order must be 'C' or 'F', not %R", order_o);
        return NULL;
    }
    int64_t shape[MV_MAXDIM];
    int n = mv_int64_tuple(shape_t, shape, "shape");
    if (n < 0)
        return NULL;
    if (!mv_go_usable()) {
        if (device != NULL && strcmp(device, "cpu") != 0)
            return mv_raise_forked_cuda("memory on a CUDA device");
        if (pool != 0)
            return mv_raise_forked("memory from a pool");
        for (int k = 0; k < n; k++)
            if (shape[k] < 0) {
                PyErr_SetString(PyExc_ValueError, "memview: negative dimensions are not allowed");
                return NULL;
            }
        return mv_child_empty(n, (Py_ssize_t *)shape, dtype, order[0]);
    }
    mv_meta m;
    mv_err e;
    int rc;
    /* a device allocation waits for its zero-fill */
    NOGIL(device != NULL, rc = mv_go_empty(n, shape, (char *)dtype, order[0], (char *)device, pool, 1, &m, &e));
    return mv_finish_meta(rc, &m, &e, NULL);
}

/* ---- import of any PEP 3118 exporter ---- */

/* The Py_buffer of an import lives until Go drops the last reference to it. */
void
mv_release_import(void *token)
{
    PyGILState_STATE st = PyGILState_Ensure();
    Py_buffer *view = (Py_buffer *)token;
    PyBuffer_Release(view);
    PyMem_Free(view);
    PyGILState_Release(st);
}

/* from_buffer(obj, writable: int, go: bool = False, format: str | None = None) -> Array;
 * writable: -1 as the source, 0 read-only, 1 writable; go: through Go even where C could
 * check the layout (tests); format: the items' format where the exporter's misstates it
 * (ctypes objects: the facade reads theirs from the type, memview._cdata), through Go */
static PyObject *
core_from_buffer(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *obj;
    int writable, go = 0;
    const char *format = NULL;
    if (!PyArg_ParseTuple(args, "Oi|pz", &obj, &writable, &go, &format))
        return NULL;
    if (!PyObject_CheckBuffer(obj)) {
        PyObject *name = PyType_GetName(Py_TYPE(obj));
        PyErr_Format(PyExc_TypeError,
                     "memview.from_buffer: an object with the buffer protocol is required, not %R", name);
        Py_XDECREF(name);
        return NULL;
    }
    Py_buffer *view = PyMem_Calloc(1, sizeof(Py_buffer));
    if (view == NULL)
        return PyErr_NoMemory();
    int flags = writable == 1 ? PyBUF_FULL : PyBUF_FULL_RO;
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        /* Exporters refuse a writable request in their own words (NumPy with
         * ValueError): if a read-only request succeeds, say BufferError here. */
        if (writable == 1) {
            PyObject *type, *value, *tb;
            PyErr_Fetch(&type, &value, &tb);
            if (PyObject_GetBuffer(obj, view, PyBUF_FULL_RO) == 0) {
                PyBuffer_Release(view);
                Py_XDECREF(type);
                Py_XDECREF(value);
                Py_XDECREF(tb);
                PyErr_SetString(PyExc_BufferError,
                                "memview.from_buffer: writable=True but the source is read-only");
            } else {
                PyErr_Clear();
                PyErr_Restore(type, value, tb);
            }
        }
        PyMem_Free(view);
        return NULL;
    }
    if (view->suboffsets != NULL) {
        for (int i = 0; i < view->ndim; i++) {
            if (view->suboffsets[i] >= 0) {
                PyBuffer_Release(view);
                PyMem_Free(view);
                PyErr_SetString(PyExc_ValueError,
                                "memview.from_buffer: PIL-style buffers (suboffsets) are not supported");
                return NULL;
            }
        }
    }
    int readonly = view->readonly || writable == 0;
    /* no Go for the usual exporter; a format given (a ctypes type's) is read by Go,
     * or in a forked child (go_fork.c) by C where it knows the format */
    PyObject *fast = go                 ? NULL
                     : format == NULL   ? mv_import_fast(obj, view, readonly, flags)
                     : !mv_go_usable() ? mv_import_format(obj, view, format, readonly, flags)
                                        : NULL;
    if (fast != NULL || PyErr_Occurred()) {
        if (fast == NULL) {
            PyBuffer_Release(view);
            PyMem_Free(view);
        }
        return fast;
    }
    if (!mv_go_usable()) {
        PyBuffer_Release(view);
        PyMem_Free(view);
        return mv_raise_forked("importing this buffer (its format or layout)");
    }
    /* An exporter asked for PyBUF_FULL_RO fills shape whenever ndim > 0; be
     * lenient with one that does not and read it as bytes. */
    int64_t shape1 = view->itemsize ? view->len / view->itemsize : 0;
    const int64_t *shape = (const int64_t *)view->shape;
    int ndim = view->ndim;
    if (ndim > 0 && shape == NULL) {
        shape = &shape1;
        ndim = 1;
    }
    mv_meta m;
    mv_err e;
    if (format == NULL)
        format = view->format ? view->format : "B";
    int rc = mv_go_import(view->buf, ndim, (int64_t *)shape, (int64_t *)view->strides,
                         view->itemsize, (char *)format, readonly, view, &m, &e);
    if (rc != 0) {
        /* Go did not take the token: give the buffer back here. */
        PyBuffer_Release(view);
        PyMem_Free(view);
        return mv_raise(&e);
    }
    return mv_new_array(&m, obj);
}

/* Called from Go when the last reference to imported CUDA memory goes. */
void
mv_release_object(void *token)
{
    PyGILState_STATE st = PyGILState_Ensure();
    Py_DECREF((PyObject *)token);
    PyGILState_Release(st);
}

/* from_cai(obj, ptr, shape, strides|None, typestr, readonly, stream, sync) -> Array
 * over the CUDA memory obj describes (the facade validated the interface dict).
 * With sync, memview's later work on it waits for the producer's stream. */
static PyObject *
core_from_cai(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (!mv_go_usable())
        return mv_raise_forked_cuda("importing CUDA memory");
    PyObject *obj, *shape_t, *strides_o, *typestr_o;
    const char *typestr;
    int readonly, sync;
    unsigned long long ptr, stream;
    if (!PyArg_ParseTuple(args, "OO&OOOpO&p", &obj, mv_u64_arg, &ptr, &shape_t, &strides_o, &typestr_o,
                          &readonly, mv_u64_arg, &stream, &sync))
        return NULL;
    if ((typestr = mv_dtype_arg(typestr_o)) == NULL)
        return NULL;
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    int n = mv_int64_tuple(shape_t, shape, "shape");
    if (n < 0)
        return NULL;
    int64_t *sp = NULL;
    if (strides_o != Py_None) {
        int ns = mv_int64_tuple(strides_o, strides, "strides");
        if (ns < 0)
            return NULL;
        if (ns != n) {
            PyErr_Format(PyExc_ValueError, "memview: %d strides for %d dimensions", ns, n);
            return NULL;
        }
        sp = strides;
    }
    mv_meta m;
    mv_err e;
    Py_INCREF(obj); /* given back by mv_release_object when Go drops the memory */
    int rc;
    /* the driver is asked where the memory is and records the import event */
    NOGIL(1, rc = mv_go_wrap_device((uintptr_t)ptr, n, shape, sp, (char *)typestr, readonly,
                                   (uintptr_t)stream, sync, obj, &m, &e));
    if (rc != 0) {
        Py_DECREF(obj);
        return mv_raise(&e);
    }
    return mv_new_array(&m, obj);
}

/* ---- copies and writes (Go does the work) ---- */

/* copy(a, order: str, device: str = "" (a's), stream: int = 0, pool: int = 0) ->
 * new Go-owned Array on device from the pool with that id (0: the default); work
 * left pending on device memory is recorded with it, in Go */
static PyObject *
core_copy(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o;
    const char *order, *device = "";
    unsigned long long stream = 0, pool = 0;
    if (!PyArg_ParseTuple(args, "Os|sO&O&", &o, &order, &device, mv_u64_arg, &stream, mv_u64_arg, &pool))
        return NULL;
    if (!mv_go_usable()) {
        MVArray *h = mv_host_array(o, "array");
        if (h == NULL)
            return NULL;
        if ((device[0] != 0 && strcmp(device, "cpu") != 0) || stream != 0)
            return mv_raise_forked_cuda("a copy to a CUDA device or on a stream");
        if (pool != 0)
            return mv_raise_forked("a copy from a pool");
        if (strlen(order) != 1) {
            PyErr_Format(PyExc_ValueError, "memview: order must be 'C', 'F', 'A' or 'K', not '%s'", order);
            return NULL;
        }
        h->busy++;
        PyObject *c = mv_child_copy(h, order[0]);
        h->busy--;
        return c;
    }
    MVArray *a = mv_live_array(o, "array");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc;
    a->busy++;
    NOGIL(mv_long_work(a) || device[0] != 0,
          rc = mv_go_copy_to_device(mv_go_handle(a), (char *)device, order[0], (uintptr_t)stream, pool, &m, &e));
    a->busy--;
    return mv_finish_meta(rc, &m, &e, NULL);
}

/* go_copyto(dst, src, stream=0): Go's strided copy with broadcasting between
 * arrays of one item type on any devices, overlap-safe (the facade's path for
 * CUDA memory; host arrays are written by ops_assign.c). Device-only work is
 * left pending on the stream, which every view of either operand's memory then
 * reports. */
static PyObject *
core_go_copyto(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *d, *s;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "OO|O&", &d, &s, mv_u64_arg, &stream))
        return NULL;
    if (!mv_go_usable())
        return mv_raise_forked_cuda("a copy with CUDA memory");
    MVArray *dst = mv_live_array(d, "destination");
    if (dst == NULL)
        return NULL;
    MVArray *src = mv_live_array(s, "source");
    if (src == NULL)
        return NULL;
    mv_err e;
    int rc;
    dst->busy++;
    src->busy++;
    NOGIL(mv_long_work(dst) || mv_long_work(src),
          rc = mv_go_copyto(mv_go_handle(dst), mv_go_handle(src), (uintptr_t)stream, &e));
    dst->busy--;
    src->busy--;
    if (rc != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* go_fill(a, item: bytes, stream=0): Go's fill of every element with one
 * element's bytes (the facade's path for CUDA memory) */
static PyObject *
core_go_fill(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o;
    const char *item;
    Py_ssize_t n;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "Oy#|O&", &o, &item, &n, mv_u64_arg, &stream))
        return NULL;
    if (!mv_go_usable())
        return mv_raise_forked_cuda("a fill of CUDA memory");
    MVArray *a = mv_live_array(o, "array");
    if (a == NULL)
        return NULL;
    mv_err e;
    int rc;
    a->busy++;
    NOGIL(mv_long_work(a), rc = mv_go_fill(mv_go_handle(a), (void *)item, n, (uintptr_t)stream, &e));
    a->busy--;
    if (rc != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* release(a): drop the array's memory now; BufferError while exported */
static PyObject *
core_release(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: release needs a memview.Array");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_released(a))
        Py_RETURN_NONE; /* releasing twice is harmless, as for memoryview */
    if (a->exports > 0) {
        PyErr_Format(PyExc_BufferError,
                     "memview: cannot release an array with %zd live buffer export(s)", a->exports);
        return NULL;
    }
    if (a->busy > 0) {
        PyErr_SetString(PyExc_BufferError,
                        "memview: cannot release an array while another thread copies into or from it");
        return NULL;
    }
    if (mv_release(a) < 0)
        return NULL;
    Py_RETURN_NONE;
}

PyObject *
mv_import_go(PyObject *obj)
{
    PyObject *args = Py_BuildValue("(Oi)", obj, -1);
    if (args == NULL)
        return NULL;
    PyObject *r = core_from_buffer(NULL, args);
    Py_DECREF(args);
    return r;
}

PyMethodDef mv_ops_go_functions[] = {
    {"empty", core_empty, METH_VARARGS, "empty(shape, dtype, order, device=None, pool=0) -> zero-filled Go-owned array"},
    {"from_buffer", core_from_buffer, METH_VARARGS,
     "from_buffer(obj, writable, go=False, format=None) -> array over obj's memory"},
    {"from_cai", core_from_cai, METH_VARARGS, "from_cai(obj, ptr, shape, strides, typestr, readonly, stream)"},
    {"copy", core_copy, METH_VARARGS, "copy(a, order, device='', stream=0, pool=0) -> new array"},
    {"go_copyto", core_go_copyto, METH_VARARGS, "go_copyto(dst, src, stream=0): Go's copy, CUDA memory too"},
    {"go_fill", core_go_fill, METH_VARARGS, "go_fill(a, item_bytes, stream=0): Go's fill, CUDA memory too"},
    {"release", core_release, METH_O, "release(a): free the array's reference now"},
    {NULL},
};
