/*
 * arrow.c — the Arrow PyCapsule interface, both ways, written from the Arrow C
 * data interface and C device data interface specifications.
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
#include "protocols.h"
#include "arrow_c.h"
#include "foreign.h"
#include "go_bridge.h"

/* ---- formats ---- */

/* arrow_format gives the Arrow format string of a typestr, or NULL. */
static const char *
arrow_format(const char *typestr)
{
    static const struct {
        const char *typestr, *format;
    } table[] = {
        {"|i1", "c"}, {"|u1", "C"}, {"<i2", "s"}, {"<u2", "S"}, {"<i4", "i"}, {"<u4", "I"},
        {"<i8", "l"}, {"<u8", "L"}, {"<f2", "e"}, {"<f4", "f"}, {"<f8", "g"},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(typestr, table[i].typestr) == 0)
            return table[i].format;
    return NULL;
}

/* dtype_of gives memview's dtype name of a primitive Arrow format, or NULL;
 * *itemsize is its size in bytes. */
static const char *
dtype_of(const char *format, int64_t *itemsize)
{
    static const struct {
        const char *format, *dtype;
        int64_t size;
    } table[] = {
        {"c", "int8", 1}, {"C", "uint8", 1}, {"s", "int16", 2}, {"S", "uint16", 2}, {"i", "int32", 4},
        {"I", "uint32", 4}, {"l", "int64", 8}, {"L", "uint64", 8}, {"e", "float16", 2}, {"f", "float32", 4},
        {"g", "float64", 8},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(format, table[i].format) == 0) {
            *itemsize = table[i].size;
            return table[i].dtype;
        }
    return NULL;
}

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
    const char *value = arrow_format(a->typestr);
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

/* ---- import ---- */

/* An Arrow array memview imported, moved out of its capsules: released (array,
 * then schema) when the last reference to its memory goes. */
typedef struct {
    mv_foreign base;
    struct ArrowSchema schema;
    struct ArrowArray array;
} arrow_token;

static void
arrow_token_release(mv_foreign *f)
{
    arrow_token *t = (arrow_token *)f;
    if (t->array.release != NULL)
        t->array.release(&t->array);
    if (t->schema.release != NULL)
        t->schema.release(&t->schema);
    free(t);
}

static int
refuse_nulls(const struct ArrowArray *arr)
{
    if (arr->null_count == 0 || arr->n_buffers < 1 || arr->buffers[0] == NULL)
        return 0;
    if (arr->null_count < 0)
        PyErr_SetString(PyExc_ValueError,
                        "memview.from_arrow: the array has a validity bitmap and an unknown null count; "
                        "memview arrays have no nulls (fill them first, e.g. pyarrow.compute.fill_null)");
    else
        PyErr_Format(PyExc_ValueError,
                     "memview.from_arrow: the array has %lld null(s); memview arrays have no nulls "
                     "(fill them first, e.g. pyarrow.compute.fill_null)", (long long)arr->null_count);
    return -1;
}

/* metadata_value finds key in Arrow's binary metadata; its value (not
 * NUL-terminated) and length, or NULL. */
static const char *
metadata_value(const char *md, const char *key, int32_t *len)
{
    if (md == NULL)
        return NULL;
    int32_t n, k, v;
    memcpy(&n, md, 4);
    md += 4;
    for (int32_t i = 0; i < n; i++) {
        memcpy(&k, md, 4);
        const char *kp = md + 4;
        memcpy(&v, kp + k, 4);
        const char *vp = kp + k + 4;
        if ((size_t)k == strlen(key) && memcmp(kp, key, (size_t)k) == 0) {
            *len = v;
            return vp;
        }
        md = vp + v;
    }
    return NULL;
}

/* tensor_shape reads the "shape" of an arrow.fixed_shape_tensor's metadata into
 * out (after out[0], the number of rows): the number of axes, 0 if the array is
 * not such an extension, -1 with an exception if memview cannot take it. */
static int
tensor_shape(const struct ArrowSchema *s, int64_t row, int64_t *out)
{
    int32_t len;
    const char *name = metadata_value(s->metadata, "ARROW:extension:name", &len);
    if (name == NULL || len != (int32_t)strlen("arrow.fixed_shape_tensor") ||
        memcmp(name, "arrow.fixed_shape_tensor", (size_t)len) != 0)
        return 0;
    const char *json = metadata_value(s->metadata, "ARROW:extension:metadata", &len);
    char buf[4096];
    if (json == NULL || len <= 0 || len >= (int32_t)sizeof buf) {
        PyErr_SetString(PyExc_ValueError, "memview.from_arrow: fixed_shape_tensor without readable metadata");
        return -1;
    }
    memcpy(buf, json, (size_t)len);
    buf[len] = 0;
    if (strstr(buf, "\"permutation\"") != NULL) {
        PyErr_SetString(PyExc_TypeError,
                        "memview.from_arrow: fixed_shape_tensor with a permutation is not supported");
        return -1;
    }
    char *p = strstr(buf, "\"shape\"");
    p = p ? strchr(p, '[') : NULL;
    int n = 0;
    int64_t prod = 1;
    while (p != NULL && *p != ']' && n < MV_MAXDIM - 1) {
        p++;
        while (*p == ' ')
            p++;
        if (*p == ']')
            break;
        char *end;
        long long d = strtoll(p, &end, 10);
        if (end == p || d < 0)
            break;
        out[1 + n++] = d;
        prod *= d;
        p = end;
        while (*p == ' ')
            p++;
        if (*p != ',' && *p != ']')
            break;
        if (*p == ']')
            break;
    }
    if (p == NULL || *p != ']' || prod != row) {
        PyErr_SetString(PyExc_ValueError, "memview.from_arrow: fixed_shape_tensor metadata does not match its storage");
        return -1;
    }
    return n;
}

/* from_arrow(obj) -> Array: the values of an Arrow array (any object with
 * __arrow_c_array__ or __arrow_c_device_array__), read-only, without a copy. */
static PyObject *
core_from_arrow(PyObject *mod, PyObject *obj)
{
    (void)mod;
    const char *who = "memview.from_arrow";
    int device = 0;
    PyObject *r = PyObject_CallMethod(obj, "__arrow_c_array__", NULL);
    if (r == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        device = 1;
        r = PyObject_CallMethod(obj, "__arrow_c_device_array__", NULL);
        if (r == NULL && PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyObject *name = PyType_GetName(Py_TYPE(obj));
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "%s: %R object has neither __arrow_c_array__ nor "
                         "__arrow_c_device_array__", who, name);
            Py_XDECREF(name);
            return NULL;
        }
    }
    if (r == NULL)
        return NULL;
    const char *arr_name = device ? MV_ARROW_DEVICE_ARRAY_CAPSULE : MV_ARROW_ARRAY_CAPSULE;
    PyObject *scap = NULL, *acap = NULL, *result = NULL;
    if (!PyTuple_Check(r) || PyTuple_Size(r) != 2 ||
        !PyCapsule_IsValid(scap = PyTuple_GetItem(r, 0), MV_ARROW_SCHEMA_CAPSULE) ||
        !PyCapsule_IsValid(acap = PyTuple_GetItem(r, 1), arr_name)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a (\"arrow_schema\", \"%s\") pair of PyCapsules", who, arr_name);
        goto out;
    }
    struct ArrowSchema *s = PyCapsule_GetPointer(scap, MV_ARROW_SCHEMA_CAPSULE);
    void *ap = PyCapsule_GetPointer(acap, arr_name);
    struct ArrowArray *arr = device ? &((struct ArrowDeviceArray *)ap)->array : ap;
    if (s->release == NULL || arr->release == NULL) {
        PyErr_Format(PyExc_ValueError, "%s: the Arrow structures were already released or moved", who);
        goto out;
    }
    int kind = MV_DEV_CPU, id = 0;
    if (device) {
        struct ArrowDeviceArray *d = ap;
        switch (d->device_type) {
        case ARROW_DEVICE_CPU: break;
        case ARROW_DEVICE_CUDA: kind = MV_DEV_CUDA; id = (int)d->device_id; break;
        case ARROW_DEVICE_CUDA_HOST: kind = MV_DEV_CUDA_HOST; break;
        case ARROW_DEVICE_CUDA_MANAGED: kind = MV_DEV_CUDA_MANAGED; id = d->device_id > 0 ? (int)d->device_id : 0; break;
        default:
            PyErr_Format(PyExc_BufferError, "%s: Arrow device type %d is not CPU or CUDA memory", who,
                         (int)d->device_type);
            goto out;
        }
        if (kind != MV_DEV_CPU && !mv_go_usable()) {
            mv_raise_forked("importing Arrow data on a CUDA device");
            goto out;
        }
        if (d->sync_event != NULL && (kind == MV_DEV_CUDA || kind == MV_DEV_CUDA_MANAGED)) {
            mv_err e;
            if (mv_go_wait_event(id, (uintptr_t)(*(void **)d->sync_event), &e) != 0) {
                mv_raise(&e);
                goto out;
            }
        }
    }
    if (s->dictionary != NULL || arr->dictionary != NULL) {
        PyErr_Format(PyExc_TypeError, "%s: dictionary-encoded arrays are not supported", who);
        goto out;
    }
    int64_t shape[MV_MAXDIM];
    int ndim;
    const char *dtype;
    int64_t itemsize = 0;
    const struct ArrowArray *values;
    int64_t first; /* index of element 0 in the values buffer */
    if ((dtype = dtype_of(s->format, &itemsize)) != NULL) {
        if (arr->n_buffers != 2) {
            PyErr_Format(PyExc_ValueError, "%s: a primitive array has 2 buffers, not %lld", who,
                         (long long)arr->n_buffers);
            goto out;
        }
        ndim = 1;
        shape[0] = arr->length;
        values = arr;
        first = arr->offset;
    } else if (strncmp(s->format, "+w:", 3) == 0 && s->n_children == 1 && arr->n_children == 1 &&
               (dtype = dtype_of(s->children[0]->format, &itemsize)) != NULL) {
        int64_t row = strtoll(s->format + 3, NULL, 10);
        values = arr->children[0];
        if (refuse_nulls(arr) < 0 || values->n_buffers != 2)
            goto out;
        shape[0] = arr->length;
        int n = tensor_shape(s, row, shape);
        if (n < 0)
            goto out;
        if (n == 0)
            shape[1] = row, n = 1;
        ndim = 1 + n;
        first = values->offset + arr->offset * row;
    } else {
        PyErr_Format(PyExc_TypeError,
                     "%s: Arrow type \"%s\" is not supported (integers and floats, fixed-size lists of them, "
                     "and arrow.fixed_shape_tensor are; Arrow booleans are bit-packed)", who, s->format);
        goto out;
    }
    if (refuse_nulls(values) < 0)
        goto out;
    uintptr_t data = (uintptr_t)values->buffers[1] + (uintptr_t)(first * itemsize);
    arrow_token *tok = malloc(sizeof *tok);
    if (tok == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    tok->base.release = arrow_token_release;
    tok->schema = *s;
    tok->array = *arr;
    if (!mv_go_usable()) { /* a forked child (fork.c): the array is made in C */
        const char *format = mv_known_format(dtype);
        result = format == NULL ? mv_raise_forked("importing Arrow data of this type")
                                : mv_child_import_foreign(obj, &tok->base, (void *)data, ndim, shape, itemsize,
                                                          format);
        if (result == NULL) {
            free(tok); /* the capsules still own the structures */
            goto out;
        }
        s->release = NULL; /* moved into the token */
        arr->release = NULL;
        goto out;
    }
    mv_meta m;
    mv_err e;
    /* Arrow data is immutable: the array is read-only. */
    if (mv_go_import_foreign(data, ndim, shape, NULL, (char *)dtype, 1, kind, id, tok, (char *)who, &m, &e) != 0) {
        free(tok); /* the capsules still own the structures */
        mv_raise(&e);
        goto out;
    }
    s->release = NULL; /* moved: the capsules now hold released structures */
    arr->release = NULL;
    result = mv_new_array(&m, obj);
out:
    Py_DECREF(r);
    return result;
}

PyMethodDef mv_arrow_functions[] = {
    {"from_arrow", core_from_arrow, METH_O, "from_arrow(obj) -> read-only Array over an Arrow array's values"},
    {NULL},
};
