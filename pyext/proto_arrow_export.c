/*
 * proto_arrow_export.c — the Arrow PyCapsule interface, export side, written
 * from the Arrow C data interface and C device data interface specifications
 * (arrow_c.h); proto_arrow_import.c is the other direction.
 *
 * Export: a 1-D contiguous array of a number type is an Arrow primitive array
 * whose data buffer is the array's memory; an N-d C-contiguous array is the
 * canonical extension type arrow.fixed_shape_tensor (storage: a fixed-size list
 * of the row's elements, one row per index of axis 0). Arrow has no type for
 * byte-per-item booleans or complex numbers: those are refused, as are strided
 * layouts (nothing is copied behind the caller's back). Each exported
 * ArrowArray keeps the memview array alive and export-locked until its release
 * callback runs (exactly once, from any thread).
 *
 * Import (memview._core.from_arrow): a primitive array without nulls, a
 * fixed-size list of one, or a fixed_shape_tensor, on the CPU or a CUDA device,
 * is wrapped read-only without a copy; the producer's release runs when the
 * last memview reference goes.
 */
#include "proto.h"

/* ---- export: schemas ---- */

typedef struct {
    char format[32];
    char *metadata;               /* malloc'd, or NULL */
    struct ArrowSchema child;     /* the value type of a fixed-size list */
    struct ArrowSchema *children[1];
} schema_priv;

static void
schema_release(struct ArrowSchema *s)
{
    schema_priv *p = s->private_data;
    for (int64_t i = 0; i < s->n_children; i++) {
        struct ArrowSchema *c = s->children[i];
        if (c->release != NULL)
            c->release(c);
    }
    free(p->metadata);
    free(p);
    s->release = NULL;
}

/* put_kv appends one key/value pair to Arrow's binary metadata encoding. */
static char *
put_kv(char *w, const char *key, const char *value)
{
    int32_t n = (int32_t)strlen(key);
    memcpy(w, &n, 4);
    memcpy(w + 4, key, (size_t)n);
    w += 4 + n;
    n = (int32_t)strlen(value);
    memcpy(w, &n, 4);
    memcpy(w + 4, value, (size_t)n);
    return w + 4 + n;
}

/* fill_schema describes a: a primitive type for 1-D, else a fixed_shape_tensor
 * over a fixed-size list. 0 or -1 with an exception (nothing to release then). */
static int
fill_schema(const MVArray *a, struct ArrowSchema *s)
{
    const char *value = mv_arrow_format(a->typestr);
    if (value == NULL) {
        PyErr_Format(PyExc_TypeError,
                     "memview: an array of dtype %s has no Arrow type (Arrow has signed and unsigned "
                     "integers and floats here; its booleans are bit-packed, and it has no complex numbers, "
                     "records or byte-swapped numbers)", a->dtype);
        return -1;
    }
    if (a->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "memview: a 0-d array has no Arrow form; reshape it to (1,) first");
        return -1;
    }
    schema_priv *p = calloc(1, sizeof *p);
    if (p == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *s = (struct ArrowSchema){.format = p->format, .name = "", .flags = ARROW_FLAG_NULLABLE,
                              .release = schema_release, .private_data = p};
    if (a->ndim == 1) {
        snprintf(p->format, sizeof p->format, "%s", value);
        return 0;
    }
    long long row = 1;
    char shape[MV_MAXDIM * 24 + 16], *w = shape;
    w += sprintf(w, "{\"shape\":[");
    for (int i = 1; i < a->ndim; i++) {
        row *= a->shape[i];
        w += sprintf(w, i > 1 ? ",%lld" : "%lld", (long long)a->shape[i]);
    }
    sprintf(w, "]}");
    snprintf(p->format, sizeof p->format, "+w:%lld", row);
    const char *ext_name = "arrow.fixed_shape_tensor";
    size_t n = 4 + 2 * (4 + strlen("ARROW:extension:name")) + 4 + strlen(ext_name) + 4 + strlen(shape) + 16;
    if ((p->metadata = malloc(n)) == NULL) {
        free(p);
        PyErr_NoMemory();
        return -1;
    }
    int32_t pairs = 2;
    memcpy(p->metadata, &pairs, 4);
    w = put_kv(p->metadata + 4, "ARROW:extension:name", ext_name);
    put_kv(w, "ARROW:extension:metadata", shape);
    s->metadata = p->metadata;
    schema_priv *cp = calloc(1, sizeof *cp);
    if (cp == NULL) {
        free(p->metadata);
        free(p);
        PyErr_NoMemory();
        return -1;
    }
    snprintf(cp->format, sizeof cp->format, "%s", value);
    p->child = (struct ArrowSchema){.format = cp->format, .name = "item", .flags = ARROW_FLAG_NULLABLE,
                                    .release = schema_release, .private_data = cp};
    p->children[0] = &p->child;
    s->n_children = 1;
    s->children = p->children;
    return 0;
}

static void
schema_capsule_destructor(PyObject *cap)
{
    struct ArrowSchema *s = PyCapsule_GetPointer(cap, MV_ARROW_SCHEMA_CAPSULE);
    if (s == NULL) {
        PyErr_Clear();
        return;
    }
    if (s->release != NULL)
        s->release(s);
    free(s);
}

static PyObject *
schema_capsule(const MVArray *a)
{
    struct ArrowSchema *s = malloc(sizeof *s);
    if (s == NULL)
        return PyErr_NoMemory();
    if (fill_schema(a, s) < 0) {
        free(s);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(s, MV_ARROW_SCHEMA_CAPSULE, schema_capsule_destructor);
    if (cap == NULL) {
        s->release(s);
        free(s);
    }
    return cap;
}

/* ---- export: arrays ---- */

/* Each ArrowArray (the parent and a list's child) owns its own private data and
 * its own reference to the memview array, so a consumer may move a child out
 * and release it on its own, as the specification allows. */
typedef struct {
    PyObject *owner;
    uintptr_t sync_event;         /* CUevent handed to a device consumer, or 0 */
    const void *buffers[2];
    struct ArrowArray child;
    struct ArrowArray *children[1];
} array_priv;

static const int64_t empty_buffer = 0; /* a valid address for a buffer of 0 bytes */

static void
array_release(struct ArrowArray *arr)
{
    array_priv *p = arr->private_data;
    for (int64_t i = 0; i < arr->n_children; i++) {
        struct ArrowArray *c = arr->children[i];
        if (c->release != NULL)
            c->release(c);
    }
    if (p->sync_event != 0)
        if (mv_go_usable()) /* else: a forked child that must not enter Go keeps it */
            mv_go_event_destroy(p->sync_event);
    PyObject *owner = p->owner;
    free(p);
    arr->release = NULL;
    mv_unlend(owner);
}

static array_priv *
new_priv(MVArray *a)
{
    array_priv *p = calloc(1, sizeof *p);
    if (p == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    p->owner = (PyObject *)a;
    mv_lend(a);
    return p;
}

/* fill_array lends a's memory to an ArrowArray. The layout must be what
 * fill_schema described: C-contiguous, ndim >= 1. */
static int
fill_array(MVArray *a, struct ArrowArray *arr)
{
    int contiguous = a->c_contig;
    if (!contiguous) {
        PyErr_Format(PyExc_BufferError,
                     "memview: Arrow arrays are contiguous, and this array is not C-contiguous (strides %zd...); "
                     "make a contiguous copy first with a.copy()", a->ndim ? a->strides[0] : 0);
        return -1;
    }
    const void *data = a->buf != NULL ? a->buf : (const void *)&empty_buffer;
    array_priv *p = new_priv(a);
    if (p == NULL)
        return -1;
    p->buffers[0] = NULL; /* no validity bitmap: no nulls */
    p->buffers[1] = data;
    *arr = (struct ArrowArray){.length = a->ndim ? a->shape[0] : 1, .null_count = 0, .offset = 0,
                               .n_buffers = 2, .buffers = p->buffers, .release = array_release,
                               .private_data = p};
    if (a->ndim == 1)
        return 0;
    /* fixed-size list: the parent has only a validity buffer; the child holds the values */
    array_priv *cp = new_priv(a);
    if (cp == NULL) {
        array_release(arr);
        return -1;
    }
    cp->buffers[0] = NULL;
    cp->buffers[1] = data;
    p->child = (struct ArrowArray){.length = a->len / a->itemsize, .null_count = 0, .offset = 0, .n_buffers = 2,
                                   .buffers = cp->buffers, .release = array_release, .private_data = cp};
    p->children[0] = &p->child;
    arr->n_buffers = 1;
    arr->n_children = 1;
    arr->children = p->children;
    return 0;
}

static void
array_capsule_destructor(PyObject *cap)
{
    struct ArrowArray *arr = PyCapsule_GetPointer(cap, MV_ARROW_ARRAY_CAPSULE);
    if (arr == NULL) {
        PyErr_Clear();
        return;
    }
    if (arr->release != NULL)
        arr->release(arr);
    free(arr);
}

static void
device_array_capsule_destructor(PyObject *cap)
{
    struct ArrowDeviceArray *d = PyCapsule_GetPointer(cap, MV_ARROW_DEVICE_ARRAY_CAPSULE);
    if (d == NULL) {
        PyErr_Clear();
        return;
    }
    if (d->array.release != NULL)
        d->array.release(&d->array);
    free(d);
}

static const char *const arrow_kw[] = {"requested_schema"};
static PyObject *arrow_kwnames[1];

/* check_requested accepts None or a schema capsule. A requested schema other
 * than memview's own type is ignored, as the protocol allows: the consumer casts. */
static int
check_requested(PyObject *req)
{
    if (req == NULL || req == Py_None || PyCapsule_IsValid(req, MV_ARROW_SCHEMA_CAPSULE))
        return 0;
    PyErr_Format(PyExc_TypeError, "memview: requested_schema must be None or an \"arrow_schema\" PyCapsule, not %R",
                 req);
    return -1;
}

static PyObject *
pair(PyObject *schema, PyObject *array)
{
    if (schema == NULL || array == NULL) {
        Py_XDECREF(schema);
        Py_XDECREF(array);
        return NULL;
    }
    return Py_BuildValue("(NN)", schema, array);
}

PyObject *
mv_array_arrow_schema(PyObject *self, PyObject *unused)
{
    (void)unused;
    MVArray *a = (MVArray *)self;
    if (mv_check_live(a) < 0)
        return NULL;
    return schema_capsule(a);
}

PyObject *
mv_array_arrow_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    PyObject *v[1];
    if (mv_intern(arrow_kw, 1, arrow_kwnames) < 0 ||
        mv_parse_kwargs("__arrow_c_array__()", args, nargs, kwnames, arrow_kwnames, 1, 1, v) < 0 ||
        check_requested(v[0]) < 0 || mv_check_live(a) < 0)
        return NULL;
    if (a->device_kind == MV_DEV_CUDA) {
        PyErr_Format(PyExc_BufferError,
                     "memview: the array is in %s device memory; __arrow_c_array__ serves CPU memory: use "
                     "__arrow_c_device_array__, or copy to the host with a.to('cpu')", a->device);
        return NULL;
    }
    PyObject *schema = schema_capsule(a);
    if (schema == NULL)
        return NULL;
    struct ArrowArray *arr = malloc(sizeof *arr);
    if (arr == NULL) {
        Py_DECREF(schema);
        return PyErr_NoMemory();
    }
    if (mv_host_wait(a) < 0 || fill_array(a, arr) < 0) {
        free(arr);
        Py_DECREF(schema);
        return NULL;
    }
    PyObject *cap = PyCapsule_New(arr, MV_ARROW_ARRAY_CAPSULE, array_capsule_destructor);
    if (cap == NULL) {
        arr->release(arr);
        free(arr);
    }
    return pair(schema, cap);
}

PyObject *
mv_array_arrow_device_array(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    MVArray *a = (MVArray *)self;
    /* requested_schema, then keyword arguments of later versions of the
     * protocol: any that is not None is refused with NotImplementedError. */
    if (nargs > 1) {
        PyErr_SetString(PyExc_TypeError, "__arrow_c_device_array__() takes at most 1 positional argument");
        return NULL;
    }
    PyObject *req = nargs ? args[0] : NULL;
    if (mv_intern(arrow_kw, 1, arrow_kwnames) < 0)
        return NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *kw = PyTuple_GetItem(kwnames, k), *val = args[nargs + k];
        if (PyUnicode_Compare(kw, arrow_kwnames[0]) == 0) {
            req = val;
        } else if (val != Py_None) {
            PyErr_Format(PyExc_NotImplementedError, "memview: __arrow_c_device_array__ does not support %U=%R",
                         kw, val);
            return NULL;
        }
    }
    if (check_requested(req) < 0 || mv_check_live(a) < 0)
        return NULL;
    PyObject *schema = schema_capsule(a);
    if (schema == NULL)
        return NULL;
    struct ArrowDeviceArray *d = calloc(1, sizeof *d);
    if (d == NULL) {
        Py_DECREF(schema);
        return PyErr_NoMemory();
    }
    if (fill_array(a, &d->array) < 0) {
        free(d);
        Py_DECREF(schema);
        return NULL;
    }
    DLDevice dev = mv_dl_device(a); /* Arrow's device numbers are DLPack's */
    d->device_type = dev.device_type;
    /* -1 where the device type has no ids (CPU, pinned host memory) */
    d->device_id = (dev.device_type == kDLCPU || dev.device_type == kDLCUDAHost) ? -1 : a->device_id;
    if (dev.device_type == kDLCUDA || dev.device_type == kDLCUDAManaged) {
        /* The consumer waits, on its own stream, for an event that completes
         * with the work pending on the array. */
        array_priv *p = d->array.private_data;
        mv_err e;
        uintptr_t ev = 0;
        uintptr_t h = mv_array_handle(a);
        if (h == 0 || mv_go_sync_event(h, (uintptr_t)mv_pending_stream(a), &ev, &e) != 0) {
            d->array.release(&d->array);
            free(d);
            Py_DECREF(schema);
            return h == 0 ? NULL : mv_raise(&e);
        }
        p->sync_event = ev;
        d->sync_event = ev ? (void *)&p->sync_event : NULL; /* a pointer to the CUevent */
    }
    PyObject *cap = PyCapsule_New(d, MV_ARROW_DEVICE_ARRAY_CAPSULE, device_array_capsule_destructor);
    if (cap == NULL) {
        d->array.release(&d->array);
        free(d);
    }
    return pair(schema, cap);
}

/* The array type's Arrow C data methods (module.c puts them on the type). */
PyMethodDef mv_arrow_methods[] = {
    {"__arrow_c_schema__", mv_array_arrow_schema, METH_NOARGS,
     "__arrow_c_schema__() -> PyCapsule \"arrow_schema\": the Arrow type of the array."},
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))mv_array_arrow_array, METH_FASTCALL | METH_KEYWORDS,
     "__arrow_c_array__(requested_schema=None) -> (schema, array) PyCapsules over the array's memory."},
    {"__arrow_c_device_array__", (PyCFunction)(void (*)(void))mv_array_arrow_device_array,
     METH_FASTCALL | METH_KEYWORDS,
     "__arrow_c_device_array__(requested_schema=None, **kwargs) -> (schema, device array) PyCapsules."},
    {NULL},
};
