/*
 * module.c — memview._core: the functions the Python facade calls. Each parses
 * its arguments, calls one Go function (pyext/bridge.go) with the GIL held, and
 * turns the result into an array object or a Python exception. In a forked
 * child, where no Go may run (fork.c), the host work among them is done in C
 * instead (hostwork.c, create.c, views.c) and the rest raises at once.
 *
 * The module is made by mv_install (called once, through gopy, from
 * memview/__init__.py) and placed in sys.modules as "memview._core".
 */
#include "capi.h"
#include "go_bridge.h"

_Static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "memview needs a 64-bit Py_ssize_t");

PyObject *mv_cuda_error = NULL;

static MVArray *
live_array(PyObject *o, const char *what)
{
    if (!mv_is_array(o)) {
        PyErr_Format(PyExc_TypeError, "memview: %s must be a memview.Array", what);
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    /* every caller hands the array to Go: a C-level view gets its handle now */
    return mv_array_handle(a) == 0 ? NULL : a;
}

/* host_array: o as a live host array for the forked child's paths, which hand
 * nothing to Go; NULL with an exception otherwise. */
static MVArray *
host_array(PyObject *o, const char *what)
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

/* The UTF-8 text of a dtype name or format: a str without NUL characters
 * (which C would cut the name at), else TypeError in NumPy's words. */
static const char *
dtype_arg(PyObject *o)
{
    Py_ssize_t n;
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &n) : NULL;
    if (s == NULL) {
        PyErr_Clear(); /* not a str, or lone surrogates */
        PyErr_Format(PyExc_TypeError, "memview: data type %R not understood", o);
        return NULL;
    }
    if ((Py_ssize_t)strlen(s) != n) {
        PyErr_Format(PyExc_TypeError, "memview: data type %R not understood (it contains a NUL character)", o);
        return NULL;
    }
    return s;
}

/* An O& converter: a Python int in [0, 2**64) into *(unsigned long long *)p
 * (PyArg's "K" would silently wrap -1 or 2**64 + 1). */
static int
u64_arg(PyObject *o, void *p)
{
    if (!PyLong_Check(o)) {
        PyObject *name = PyType_GetName(Py_TYPE(o));
        PyErr_Format(PyExc_TypeError, "memview: an int is required, not %R", name);
        Py_XDECREF(name);
        return 0;
    }
    unsigned long long v = PyLong_AsUnsignedLongLong(o);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "memview: %R is outside [0, 2**64): not a handle or id", o);
        return 0;
    }
    *(unsigned long long *)p = v;
    return 1;
}

/* Parse a tuple of ints into out[0..n). Returns n or -1. */
static int
int64_tuple(PyObject *t, int64_t *out, const char *what)
{
    if (!PyTuple_Check(t)) {
        PyErr_Format(PyExc_TypeError, "memview: %s must be a tuple of ints", what);
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(t);
    if (n > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: %s has %zd dimensions; at most %d are allowed",
                     what, n, MV_MAXDIM);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GetItem(t, i);
        if (PyBool_Check(x)) {
            PyErr_Format(PyExc_TypeError, "memview: %s entries must be integers, not bool", what);
            return -1;
        }
        PyObject *ix = PyNumber_Index(x); /* ints and anything with __index__ */
        if (ix == NULL)
            return -1;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(ix, &overflow);
        Py_DECREF(ix);
        if (v == -1 && PyErr_Occurred())
            return -1;
        if (overflow) {
            PyErr_Format(PyExc_ValueError, "memview: maximum allowed dimension exceeded: %s[%zd] = %R "
                         "does not fit in 64 bits", what, i, x);
            return -1;
        }
        out[i] = (int64_t)v;
    }
    return (int)n;
}

/* Long work runs without the GIL, so that other Python threads keep running:
 * copies and fills of MV_NOGIL_MIN bytes or more, and everything that involves
 * a CUDA device (allocation with its zero-fill, transfers, synchronisation).
 * The arrays involved stay alive (the call holds references to them) and are
 * marked busy, so a release() from another thread is refused meanwhile. */
static int
long_work(const MVArray *a)
{
    return a->len >= MV_NOGIL_MIN || a->device_kind != MV_DEV_CPU;
}


static PyObject *
finish(int rc, const mv_meta *m, const mv_err *e, PyObject *base)
{
    if (rc != 0)
        return mv_raise(e);
    return mv_new_array(m, base);
}

/* A view's base is the owner of its memory: the parent's base, or the parent. */
static PyObject *
view_base(MVArray *parent)
{
    return parent->base ? parent->base : (PyObject *)parent;
}

/* finish_view makes a view of parent, with the same owner (the pending-work
 * state of CUDA memory comes with the memory, from Go). */
static PyObject *
finish_view(int rc, const mv_meta *m, const mv_err *e, MVArray *parent)
{
    return finish(rc, m, e, view_base(parent));
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
    if (!PyArg_ParseTuple(args, "OOO|zO&", &shape_t, &dtype_o, &order_o, &device, u64_arg, &pool))
        return NULL;
    if ((dtype = dtype_arg(dtype_o)) == NULL)
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
    int n = int64_tuple(shape_t, shape, "shape");
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
    NOGIL(device != NULL, rc = mv_go_empty(n, shape, (char *)dtype, order[0], (char *)device, pool, &m, &e));
    return finish(rc, &m, &e, NULL);
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
     * or in a forked child (fork.c) by C where it knows the format */
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
    if (!PyArg_ParseTuple(args, "OO&OOOpO&p", &obj, u64_arg, &ptr, &shape_t, &strides_o, &typestr_o,
                          &readonly, u64_arg, &stream, &sync))
        return NULL;
    if ((typestr = dtype_arg(typestr_o)) == NULL)
        return NULL;
    int64_t shape[MV_MAXDIM], strides[MV_MAXDIM];
    int n = int64_tuple(shape_t, shape, "shape");
    if (n < 0)
        return NULL;
    int64_t *sp = NULL;
    if (strides_o != Py_None) {
        int ns = int64_tuple(strides_o, strides, "strides");
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

/* (name, itemsize, typestr, format) of a dtype string, read as a PEP 3118
 * format first when as_format is set */
static PyObject *
dtype_info(PyObject *arg, int as_format)
{
    const char *name = dtype_arg(arg);
    if (name == NULL)
        return NULL;
    mv_meta m; /* only itemsize, dtype, typestr and format are filled */
    mv_err e;
    if (mv_go_dtype_info((char *)name, as_format, &m, &e) != 0)
        return mv_raise(&e);
    const char *format = m.long_format ? m.long_format : m.format;
    PyObject *r = Py_BuildValue("(sLss)", m.long_dtype ? m.long_dtype : m.dtype, (long long)m.itemsize,
                                m.typestr, format);
    free(m.long_format);
    free(m.long_dtype);
    return r;
}


/* dtype_desc(name) -> str: the JSON item descriptor of a dtype (see format_bridge.go) */
static PyObject *
dtype_desc(PyObject *arg, int unused)
{
    (void)unused;
    const char *name = dtype_arg(arg);
    if (name == NULL)
        return NULL;
    char *out = NULL;
    mv_err e;
    if (mv_go_dtype_desc((char *)name, &out, &e) != 0)
        return mv_raise(&e);
    PyObject *r = PyUnicode_FromString(out);
    free(out);
    return r;
}

/* What Go answered about dtypes (dtype_info, format_info, dtype_desc), by
 * (question, argument): asked once, and known in a forked child, which cannot
 * ask Go (fork.c). The basic dtypes and formats are asked at install
 * (memo_basics). */
static PyObject *dtype_memo;
#define MEMO_MAX 4096

static PyObject *
memoized(int which, PyObject *arg, PyObject *(*ask)(PyObject *, int), int as_format)
{
    if (!PyUnicode_Check(arg))
        return ask(arg, as_format); /* the TypeError, raised before Go */
    if (dtype_memo == NULL && (dtype_memo = PyDict_New()) == NULL)
        return NULL;
    PyObject *key = Py_BuildValue("(iO)", which, arg);
    if (key == NULL)
        return NULL;
    PyObject *r = PyUnicode_CheckExact(arg) ? PyDict_GetItemWithError(dtype_memo, key) : NULL;
    if (r != NULL || PyErr_Occurred()) {
        Py_DECREF(key);
        return Py_XNewRef(r);
    }
    if (!mv_go_usable()) {
        Py_DECREF(key);
        char what[200];
        PyOS_snprintf(what, sizeof what, "reading the dtype %.120s, which this process's parent never read,",
                      PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, NULL) : "(not a str)");
        PyErr_Clear();
        return mv_raise_forked(what);
    }
    r = ask(arg, as_format);
    if (r != NULL && PyUnicode_CheckExact(arg) && PyDict_Size(dtype_memo) < MEMO_MAX &&
        PyDict_SetItem(dtype_memo, key, r) < 0)
        Py_CLEAR(r);
    Py_DECREF(key);
    return r;
}

/* dtype_info(name) -> (name, itemsize, typestr, format) of a dtype name, typestr or format */
static PyObject *
core_dtype_info(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return memoized(0, arg, dtype_info, 0);
}

/* format_info(format) -> the same for a PEP 3118 format (an exporter's), read
 * as struct reads it ("<l" is 4 bytes) */
static PyObject *
core_format_info(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return memoized(1, arg, dtype_info, 1);
}

/* dtype_desc(name) -> str: the JSON item descriptor of a dtype (see format_bridge.go) */
static PyObject *
core_dtype_desc(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return memoized(2, arg, dtype_desc, 0);
}

/* memo_basics asks Go about the basic dtypes once, by name and by format. */
static int
memo_basics(void)
{
    static const char *const names[] = {
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128",
        "?", "b", "B", "h", "H", "i", "I", "l", "L", "q", "Q", "e", "f", "d", "Zf", "Zd",
        "<i", "<l", "<q", "<d", "<f", "<h", "<b", "<B", "<H", "<I", "<L", "<Q", "<?", "<e",
    };
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        PyObject *n = PyUnicode_FromString(names[k]);
        if (n == NULL)
            return -1;
        for (int which = 0; which < 3; which++) {
            PyObject *r = which == 0 ? memoized(0, n, dtype_info, 0)
                        : which == 1 ? memoized(1, n, dtype_info, 1) : memoized(2, n, dtype_desc, 0);
            if (r == NULL)
                PyErr_Clear(); /* a spelling Go does not take in that role */
            Py_XDECREF(r);
        }
        Py_DECREF(n);
    }
    return 0;
}

/* cuda_device_count() -> int; 0 where there is no driver or device */
static PyObject *
core_cuda_device_count(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    if (!mv_go_usable())
        return PyLong_FromLong(0); /* a forked child cannot use CUDA (fork.c): none here */
    int n;
    NOGIL(1, n = mv_go_cuda_device_count()); /* the first call loads and initialises the driver */
    return PyLong_FromLong(n);
}

/* ---- views ---- */

/* view(a, key: tuple of 7-int tuples) -> Array (basic indexing) */
static PyObject *
core_view(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *key;
    if (!PyArg_ParseTuple(args, "OO!", &o, &PyTuple_Type, &key))
        return NULL;
    if (!mv_go_usable()) {
        MVArray *h = host_array(o, "array");
        return h ? mv_child_view(h, key) : NULL;
    }
    MVArray *a = live_array(o, "array");
    if (a == NULL)
        return NULL;
    Py_ssize_t n = PyTuple_Size(key);
    if (n > 2 * MV_MAXDIM) {
        PyErr_SetString(PyExc_IndexError, "memview: too many indices");
        return NULL;
    }
    mv_index idx[2 * MV_MAXDIM];
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t f[7];
        PyObject *item = PyTuple_GetItem(key, i);
        if (!PyTuple_Check(item) || PyTuple_Size(item) != 7) {
            PyErr_SetString(PyExc_TypeError, "memview: malformed index key");
            return NULL;
        }
        if (int64_tuple(item, f, "index") < 0)
            return NULL;
        idx[i] = (mv_index){.kind = f[0], .value = f[1], .start = f[2], .stop = f[3],
                            .step = f[4], .has_start = f[5], .has_stop = f[6]};
    }
    mv_meta m;
    mv_err e;
    int rc = mv_go_index(a->handle, (int)n, idx, &m, &e);
    return finish_view(rc, &m, &e, a);
}

/* Parse (array, tuple of ints) arguments. */
static MVArray *
array_and_ints(PyObject *args, int64_t *out, int *n, const char *what)
{
    PyObject *o, *t;
    if (!PyArg_ParseTuple(args, "OO", &o, &t))
        return NULL;
    MVArray *a = live_array(o, "array");
    if (a == NULL || (*n = int64_tuple(t, out, what)) < 0)
        return NULL;
    return a;
}

/* transpose(a, axes: tuple) -> Array; () reverses the axes */
static PyObject *
core_transpose(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *t;
    if (!mv_go_usable()) {
        if (!PyArg_ParseTuple(args, "OO!", &o, &PyTuple_Type, &t))
            return NULL;
        MVArray *h = host_array(o, "array");
        return h ? mv_child_transpose(h, t) : NULL;
    }
    int64_t axes[MV_MAXDIM];
    int n;
    MVArray *a = array_and_ints(args, axes, &n, "axes");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc = mv_go_transpose(a->handle, n, axes, &m, &e);
    return finish_view(rc, &m, &e, a);
}

/* reshape(a, shape: tuple) -> Array view, or ValueError if a copy is needed */
static PyObject *
core_reshape(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o, *t;
    if (!mv_go_usable()) {
        if (!PyArg_ParseTuple(args, "OO!", &o, &PyTuple_Type, &t))
            return NULL;
        MVArray *h = host_array(o, "array");
        return h ? mv_child_reshape(h, t) : NULL;
    }
    int64_t shape[MV_MAXDIM];
    int n;
    MVArray *a = array_and_ints(args, shape, &n, "shape");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc = mv_go_reshape(a->handle, n, shape, &m, &e);
    return finish_view(rc, &m, &e, a);
}

/* readonly_view(a) -> Array: the same elements, read-only */
static PyObject *
core_readonly_view(PyObject *mod, PyObject *o)
{
    (void)mod;
    if (!mv_go_usable()) {
        MVArray *h = host_array(o, "array");
        return h ? mv_child_readonly(h) : NULL;
    }
    MVArray *a = live_array(o, "array");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc = mv_go_readonly(a->handle, &m, &e);
    return finish_view(rc, &m, &e, a);
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
    if (!PyArg_ParseTuple(args, "Os|sO&O&", &o, &order, &device, u64_arg, &stream, u64_arg, &pool))
        return NULL;
    if (!mv_go_usable()) {
        MVArray *h = host_array(o, "array");
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
    MVArray *a = live_array(o, "array");
    if (a == NULL)
        return NULL;
    mv_meta m;
    mv_err e;
    int rc;
    a->busy++;
    NOGIL(long_work(a) || device[0] != 0,
          rc = mv_go_copy_to_device(a->handle, (char *)device, order[0], (uintptr_t)stream, pool, &m, &e));
    a->busy--;
    return finish(rc, &m, &e, NULL);
}

/* child_copyto is copyto in a forked child: host arrays, CopyInto's rules. */
static PyObject *
child_copyto(PyObject *d, PyObject *s, unsigned long long stream)
{
    MVArray *dst = host_array(d, "destination"), *src = dst ? host_array(s, "source") : NULL;
    if (src == NULL)
        return NULL;
    if (stream != 0)
        return mv_raise_forked("a copy on a stream");
    if (dst->itemsize != src->itemsize || strcmp(dst->dtype, src->dtype) != 0) {
        PyErr_Format(PyExc_TypeError, "memview: copy of %s into %s", src->dtype, dst->dtype);
        return NULL;
    }
    if (dst->readonly) {
        PyErr_SetString(PyExc_ValueError, "memview: copy into a read-only array");
        return NULL;
    }
    Py_ssize_t ss[MV_MAXDIM];
    if (mv_host_broadcast(src->ndim, src->shape, src->strides, dst->ndim, dst->shape, ss) < 0)
        return NULL;
    int rc;
    dst->busy++;
    src->busy++;
    NOGIL(dst->len >= MV_NOGIL_MIN,
          rc = mv_host_assign(dst->buf, dst->strides, src->buf, ss, dst->shape, dst->ndim, dst->itemsize));
    dst->busy--;
    src->busy--;
    if (rc < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* copyto(dst, src, stream=0): strided copy with broadcasting, between any devices;
 * overlap-safe. Device-only work is left pending on the stream, which every view
 * of either operand's memory then reports. */
static PyObject *
core_copyto(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *d, *s;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "OO|O&", &d, &s, u64_arg, &stream))
        return NULL;
    if (!mv_go_usable())
        return child_copyto(d, s, stream);
    MVArray *dst = live_array(d, "destination");
    if (dst == NULL)
        return NULL;
    MVArray *src = live_array(s, "source");
    if (src == NULL)
        return NULL;
    mv_err e;
    int rc;
    dst->busy++;
    src->busy++;
    NOGIL(long_work(dst) || long_work(src),
          rc = mv_go_copyto(dst->handle, src->handle, (uintptr_t)stream, &e));
    dst->busy--;
    src->busy--;
    if (rc != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* fill(a, item: bytes, stream=0) — item is one element's bytes */
static PyObject *
core_fill(PyObject *mod, PyObject *args)
{
    (void)mod;
    PyObject *o;
    const char *item;
    Py_ssize_t n;
    unsigned long long stream = 0;
    if (!PyArg_ParseTuple(args, "Oy#|O&", &o, &item, &n, u64_arg, &stream))
        return NULL;
    if (!mv_go_usable()) {
        MVArray *h = host_array(o, "array");
        if (h == NULL)
            return NULL;
        if (stream != 0)
            return mv_raise_forked("a fill on a stream");
        if (n != h->itemsize) {
            PyErr_Format(PyExc_ValueError, "memview: fill with %zd bytes for %s items of %zd bytes", n, h->dtype,
                         h->itemsize);
            return NULL;
        }
        if (h->readonly) {
            PyErr_SetString(PyExc_ValueError, "memview: fill of a read-only array");
            return NULL;
        }
        Py_ssize_t zero[MV_MAXDIM] = {0};
        int rc;
        h->busy++;
        NOGIL(h->len >= MV_NOGIL_MIN,
              rc = mv_host_assign(h->buf, h->strides, item, zero, h->shape, h->ndim, h->itemsize));
        h->busy--;
        if (rc < 0)
            return NULL;
        Py_RETURN_NONE;
    }
    MVArray *a = live_array(o, "array");
    if (a == NULL)
        return NULL;
    mv_err e;
    int rc;
    a->busy++;
    NOGIL(long_work(a), rc = mv_go_fill(a->handle, (void *)item, n, (uintptr_t)stream, &e));
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
    mv_err e;
    mv_forget_fresh(a);
    uintptr_t h = a->handle;
    a->handle = 0;
    int rc = 0;
    if (a->cviews > 0) {
        /* C-level views use this array's handle and import: they are given
         * back when the last of them goes (mv_drop_hold) */
        a->kept = h;
        h = 0;
        a->kept_import = a->import;
        a->import = NULL;
        a->kept_block = a->block;
        a->block = NULL;
    }
    mv_import_free(&a->import);
    mv_block_drop(a, &a->block);
    /* freeing CUDA memory may wait for the device; a forked child never gives Go
     * back what it inherited (fork.c): its exit reclaims it */
    if (h != 0 && mv_go_usable())
        NOGIL(a->device_kind != MV_DEV_CPU, rc = mv_go_release(h, &e));
    mv_drop_hold(a); /* a C-level view: its base array may go now */
    if (rc != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

/* pool_info() -> (backend, warning) of the default pool */
static PyObject *
core_pool_info(PyObject *mod, PyObject *unused)
{
    (void)mod; (void)unused;
    if (mv_check_go() < 0)
        return NULL;
    char backend[64], warning[512];
    mv_go_pool_info(backend, sizeof backend, warning, sizeof warning);
    return Py_BuildValue("(ss)", backend, warning);
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
    if (!PyArg_ParseTuple(args, "O&", u64_arg, &h))
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
    if (!PyArg_ParseTuple(args, "iO&p", &ordinal, u64_arg, &h, &query))
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

/* set_array_type(cls): the facade's Array subclass, used for every new array */
static PyObject *
core_set_array_type(PyObject *mod, PyObject *cls)
{
    (void)mod;
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, (PyTypeObject *)mv_array_base_type)) {
        PyErr_SetString(PyExc_TypeError, "memview: set_array_type needs a subclass of ArrayBase");
        return NULL;
    }
    PyObject *old = mv_array_type;
    Py_INCREF(cls);
    mv_array_type = cls;
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
    {"empty", core_empty, METH_VARARGS, "empty(shape, dtype, order, device=None, pool=0) -> zero-filled Go-owned array"},
    {"from_buffer", core_from_buffer, METH_VARARGS,
     "from_buffer(obj, writable, go=False, format=None) -> array over obj's memory"},
    {"from_cai", core_from_cai, METH_VARARGS, "from_cai(obj, ptr, shape, strides, typestr, readonly, stream)"},
    {"dtype_info", core_dtype_info, METH_O, "dtype_info(name) -> (name, itemsize, typestr, format)"},
    {"format_info", core_format_info, METH_O, "format_info(format) -> (name, itemsize, typestr, format)"},
    {"dtype_desc", core_dtype_desc, METH_O, "dtype_desc(name) -> JSON item descriptor"},
    {"cuda_device_count", core_cuda_device_count, METH_NOARGS, "number of CUDA devices (0 without a driver)"},
    {"view", core_view, METH_VARARGS, "view(a, key) -> basic-indexing view"},
    {"transpose", core_transpose, METH_VARARGS, "transpose(a, axes) -> view"},
    {"reshape", core_reshape, METH_VARARGS, "reshape(a, shape) -> view"},
    {"readonly_view", core_readonly_view, METH_O, "readonly_view(a) -> read-only view"},
    {"copy", core_copy, METH_VARARGS, "copy(a, order, device='', stream=0, pool=0) -> new array"},
    {"copyto", core_copyto, METH_VARARGS, "copyto(dst, src, stream=0): strided copy with broadcasting"},
    {"fill", core_fill, METH_VARARGS, "fill(a, item_bytes, stream=0)"},
    {"cuda_stream_create", core_cuda_stream_create, METH_VARARGS, "cuda_stream_create(device, non_blocking) -> handle"},
    {"cuda_stream_destroy", core_cuda_stream_destroy, METH_VARARGS, "cuda_stream_destroy(handle)"},
    {"cuda_stream_sync", core_cuda_stream_sync, METH_VARARGS, "cuda_stream_sync(device, handle, query) -> done"},
    {"cuda_pool_stats", core_cuda_pool_stats, METH_NOARGS, "cuda_pool_stats() -> (bytes, live, total, count)"},
    {"release", core_release, METH_O, "release(a): free the array's reference now"},
    {"pool_info", core_pool_info, METH_NOARGS, "pool_info() -> (backend, warning)"},
    {"set_array_type", core_set_array_type, METH_O, "set_array_type(cls)"},
    {NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "memview._core",
    .m_doc = "memview's C core: array type and Go bridge (internal; use the memview package).",
    .m_size = -1,
    .m_methods = core_methods,
};

/* mv_install makes memview._core once and registers it in sys.modules. Called
 * from Go (gopy released the GIL), so it takes the GIL itself. Returns 0, 1 when
 * memview._core was made by another extension (another Go runtime: refused), or
 * -1; on failure the Python error is printed to stderr. */
int
mv_install(void)
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = -1;
    PyObject *modules = PyImport_GetModuleDict(); /* borrowed */
    if (PyDict_GetItemString(modules, "memview._core") != NULL) {
        /* Ours if this extension made its array type; else another one did. */
        rc = mv_array_base_type != NULL ? 0 : 1;
        goto out;
    }
    if (mv_install_fork_handlers() < 0)
        goto fail;
    PyObject *mod = PyModule_Create(&core_module);
    if (mod == NULL)
        goto fail;
    if (mv_array_base_type == NULL) {
        mv_array_base_type = mv_make_base_type();
        if (mv_array_base_type == NULL) {
            Py_DECREF(mod);
            goto fail;
        }
    }
    Py_INCREF(mv_array_base_type);
    if (PyModule_AddObject(mod, "ArrayBase", mv_array_base_type) < 0) {
        Py_DECREF(mv_array_base_type);
        Py_DECREF(mod);
        goto fail;
    }
    if (mv_cuda_error == NULL) {
        mv_cuda_error = PyErr_NewExceptionWithDoc(
            "memview.cuda.CUDAError",
            "No CUDA driver or device, or an error reported by the CUDA driver.",
            PyExc_RuntimeError, NULL);
        if (mv_cuda_error == NULL) {
            Py_DECREF(mod);
            goto fail;
        }
    }
    Py_INCREF(mv_cuda_error);
    if (PyModule_AddObject(mod, "CUDAError", mv_cuda_error) < 0) {
        Py_DECREF(mv_cuda_error);
        Py_DECREF(mod);
        goto fail;
    }
    if (mv_install_memory(mod) < 0) { /* Buffer, Builder, pools (memory.c) */
        Py_DECREF(mod);
        goto fail;
    }
    if (PyModule_AddIntConstant(mod, "MAXDIM", MV_MAXDIM) < 0 || mv_protocols_init(mod) < 0 ||
        mv_add_gopy_functions(mod) < 0 || mv_views_init(mod) < 0 ||
        mv_install_blocks(mod) < 0 || mv_install_create(mod) < 0 || mv_install_hostwork(mod) < 0 || memo_basics() < 0 || mv_install_import_formats() < 0 ||
        mv_add_selftests(mod) < 0 ||
        mv_gate_gopy_module("memview._ext._pyext") < 0 ||
        PyDict_SetItemString(modules, "memview._core", mod) < 0) {
        Py_DECREF(mod);
        goto fail;
    }
    Py_DECREF(mod);
    rc = 0;
    goto out;
fail:
    PyErr_Print();
out:
    PyGILState_Release(st);
    return rc;
}
