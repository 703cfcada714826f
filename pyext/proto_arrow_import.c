/*
 * proto_arrow_import.c — memview._core.from_arrow: an Arrow array (a primitive
 * array, or a fixed_shape_tensor) taken from its PyCapsules without a copy, on
 * the host in C, on a device through Go; the release callbacks run once, when
 * nothing uses the memory any more.
 */
#include "proto.h"

/* dtype_of is the dtype name of an Arrow primitive format (NULL for another);
 * *itemsize is its size in bytes. */
static const char *
dtype_of(const char *format, int64_t *itemsize)
{
    const mv_basic *b = mv_arrow_basic(format);
    if (b == NULL)
        return NULL;
    *itemsize = (int64_t)b->itemsize;
    return b->name;
}

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
    if (!mv_go_usable()) { /* a forked child (go_fork.c): the array is made in C */
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
