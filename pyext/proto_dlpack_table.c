/*
 * proto_dlpack_table.c — DLPack 1.3's C exchange table
 * (__dlpack_c_exchange_api__): the functions a C consumer calls to take an
 * array as a tensor, or a tensor as an array, without Python calls; module.c
 * sets its capsule on the array type.
 */
#include "proto.h"

static MVArray *
exchangeable(void *py_object)
{
    PyObject *o = (PyObject *)py_object;
    if (!mv_is_array(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: the DLPack exchange table serves memview arrays only");
        return NULL;
    }
    MVArray *a = (MVArray *)o;
    if (mv_check_live(a) < 0)
        return NULL;
    if (!a->dl_ok) {
        mv_dl_refuse_dtype(a);
        return NULL;
    }
    return a;
}

static int
api_managed_from_py(void *py_object, DLManagedTensorVersioned **out)
{
    MVArray *a = exchangeable(py_object);
    if (a == NULL)
        return -1;
    DLManagedTensorVersioned *t = mv_dl_new_versioned(a, mv_dl_device(a), DLPACK_MINOR_VERSION, 0);
    if (t == NULL)
        return -1;
    *out = t;
    return 0;
}

static int
api_dltensor_from_py(void *py_object, DLTensor *out)
{
    MVArray *a = exchangeable(py_object);
    if (a == NULL)
        return -1;
    mv_dl_fill_tensor(a, out, mv_dl_device(a));
    return 0;
}

/* delete_keeping_error runs a refused tensor's deleter (which may be Python code)
 * with the pending exception set aside, then puts it back. */
static void
delete_keeping_error(DLManagedTensorVersioned *t)
{
    if (t->deleter == NULL)
        return;
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    t->deleter(t);
    PyErr_Restore(type, value, tb);
}

static int
api_managed_to_py(DLManagedTensorVersioned *t, void **out_py_object)
{
    /* The tensor is ours from here on, whatever happens. */
    if (t->version.major != DLPACK_MAJOR_VERSION) {
        PyErr_Format(PyExc_BufferError, "memview: DLPack version %u.%u is not supported (1.x is)",
                     t->version.major, t->version.minor);
        delete_keeping_error(t);
        return -1;
    }
    int readonly = (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    PyObject *fast = mv_dl_import_host(t, 1, &t->dl_tensor, readonly, NULL); /* host memory: no Go */
    if (fast != NULL) {
        *out_py_object = fast;
        return 0;
    }
    if (PyErr_Occurred()) {
        delete_keeping_error(t);
        return -1;
    }
    mv_dl_token *tok = mv_dl_new_token(t, 1);
    mv_meta m;
    if (tok == NULL || mv_dl_import_go(&t->dl_tensor, readonly, tok, &m) < 0) {
        free(tok);
        delete_keeping_error(t);
        return -1;
    }
    PyObject *r = mv_new_array(&m, NULL); /* on failure the handle's release calls the deleter */
    if (r == NULL)
        return -1;
    *out_py_object = r;
    return 0;
}

static int
api_allocator(DLTensor *proto, DLManagedTensorVersioned **out, void *error_ctx,
              void (*SetError)(void *error_ctx, const char *kind, const char *message))
{
    PyGILState_STATE st = PyGILState_Ensure();
    int rc = -1;
    char dtype[16], device[32];
    int64_t shape[MV_MAXDIM];
    PyObject *arr = NULL;
    if (mv_check_go() < 0)
        goto fail;
    if (proto->ndim < 0 || proto->ndim > MV_MAXDIM) {
        PyErr_Format(PyExc_ValueError, "memview: %d dimensions (at most %d)", (int)proto->ndim, MV_MAXDIM);
        goto fail;
    }
    if (mv_dl_dtype_name(proto->dtype, dtype, sizeof dtype) < 0 ||
        mv_dl_device_name(proto->device, device, sizeof device) < 0)
        goto fail;
    for (int i = 0; i < proto->ndim; i++)
        shape[i] = proto->shape[i];
    mv_meta m;
    mv_err e;
    int r;
    NOGIL(device != NULL && strcmp(device, "cpu") != 0,
          r = mv_go_empty(proto->ndim, shape, dtype, 'C', device, 0, 1, &m, &e));
    if ((arr = mv_finish_meta(r, &m, &e, NULL)) == NULL)
        goto fail;
    DLManagedTensorVersioned *t = mv_dl_new_versioned((MVArray *)arr, mv_dl_device((MVArray *)arr), DLPACK_MINOR_VERSION, 0);
    if (t == NULL)
        goto fail;
    *out = t;
    rc = 0;
    goto done;
fail:
    if (SetError != NULL) {
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyObject *name = type ? PyType_GetName((PyTypeObject *)type) : NULL;
        PyObject *msg = value ? PyObject_Str(value) : NULL;
        const char *k = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
        const char *s = msg ? PyUnicode_AsUTF8AndSize(msg, NULL) : NULL;
        PyErr_Clear();
        SetError(error_ctx, k ? k : "RuntimeError", s ? s : "memview: allocation failed");
        Py_XDECREF(name);
        Py_XDECREF(msg);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
    }
done:
    Py_XDECREF(arr); /* the tensor holds its own reference */
    PyGILState_Release(st);
    return rc;
}

static int
api_current_work_stream(DLDeviceType device_type, int32_t device_id, void **out)
{
    /* memview's own work defaults to the legacy default stream: the NULL stream. */
    (void)device_type;
    (void)device_id;
    *out = NULL;
    return 0;
}

static const DLPackExchangeAPI exchange_api = {
    .header = {.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, .prev_api = NULL},
    .managed_tensor_allocator = api_allocator,
    .managed_tensor_from_py_object_no_sync = api_managed_from_py,
    .managed_tensor_to_py_object_no_sync = api_managed_to_py,
    .dltensor_from_py_object_no_sync = api_dltensor_from_py,
    .current_work_stream = api_current_work_stream,
};

PyObject *
mv_dlpack_exchange_capsule(void)
{
    return PyCapsule_New((void *)&exchange_api, MV_DLPACK_EXCHANGE_API_CAPSULE, NULL);
}
