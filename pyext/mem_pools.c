/*
 * mem_pools.c — memview._core's pool functions (the Python facade's memview.Pool
 * holds an id), and the two hooks through which Go's pool wrappers reach
 * Python: the lines of a logging pool, and the traceback a checked pool keeps
 * with each live allocation. The hooks may be called without the GIL (from Go
 * work that gave it up) and take it themselves.
 */
#include <stdio.h>
#include "mem.h"

/* The facade's dispatcher of logging-pool lines: f(pool_id, line). */
static PyObject *pool_log_fn = NULL;

/* A thread writing a log line does not log the allocations its Python code
 * makes (that would recurse). */
static _Thread_local int in_pool_hook = 0;

void
mv_pool_log(uint64_t pool, const char *line)
{
    if (!Py_IsInitialized() || in_pool_hook)
        return;
    PyGILState_STATE st = PyGILState_Ensure();
    in_pool_hook = 1;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb); /* a free may run while an exception propagates */
    if (pool_log_fn != NULL) {
        PyObject *r = PyObject_CallFunction(pool_log_fn, "Ks", (unsigned long long)pool, line);
        if (r == NULL)
            PyErr_WriteUnraisable(pool_log_fn);
        Py_XDECREF(r);
    }
    PyErr_Restore(et, ev, tb);
    in_pool_hook = 0;
    PyGILState_Release(st);
}

#define MV_ORIGIN_FRAMES 12

/* append formats into buf[*len..n), keeping it NUL-terminated. */
static void
append(char *buf, int n, int *len, const char *fmt, const char *a, int line, const char *b)
{
    if (*len >= n - 1)
        return;
    int k = snprintf(buf + *len, (size_t)(n - *len), fmt, a, line, b);
    if (k > 0)
        *len = *len + k < n - 1 ? *len + k : n - 1;
}

static const char *
code_attr(PyObject *code, const char *name, PyObject **keep)
{
    *keep = code ? PyObject_GetAttrString(code, name) : NULL;
    const char *s = *keep && PyUnicode_Check(*keep) ? PyUnicode_AsUTF8AndSize(*keep, NULL) : NULL;
    if (s == NULL) {
        PyErr_Clear();
        return "?";
    }
    return s;
}

int
mv_py_origin(char *buf, int n)
{
    if (n <= 0)
        return 0;
    buf[0] = 0;
    if (!Py_IsInitialized() || in_pool_hook)
        return 0;
    PyGILState_STATE st = PyGILState_Ensure();
    in_pool_hook = 1;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyObject *frames[MV_ORIGIN_FRAMES];
    int k = 0;
    PyObject *f = (PyObject *)PyEval_GetFrame(); /* borrowed; NULL outside Python code */
    Py_XINCREF(f);
    while (f != NULL && f != Py_None && k < MV_ORIGIN_FRAMES) {
        frames[k++] = f;
        f = PyObject_GetAttrString(f, "f_back");
        if (f == NULL)
            PyErr_Clear();
    }
    Py_XDECREF(f);
    int len = 0;
    if (k == 0)
        append(buf, n, &len, "%s%.0d%s", "  Python: no Python frame (allocated from Go code)", 0, "");
    else if (k < MV_ORIGIN_FRAMES)
        append(buf, n, &len, "%s%.0d%s", "  Python traceback (most recent call last):\n", 0, "");
    else
        append(buf, n, &len, "%s%d%s", "  Python traceback (most recent call last; the innermost ", k,
               " frames):\n");
    for (int i = k - 1; i >= 0; i--) {
        PyObject *code = (PyObject *)PyFrame_GetCode((PyFrameObject *)frames[i]);
        int line = PyFrame_GetLineNumber((PyFrameObject *)frames[i]);
        PyObject *file_o, *name_o;
        const char *file = code_attr(code, "co_filename", &file_o);
        const char *name = code_attr(code, "co_name", &name_o);
        char where[1024];
        snprintf(where, sizeof where, "    File \"%s\"", file);
        append(buf, n, &len, "%s, line %d, in %s\n", where, line, name);
        Py_XDECREF(file_o);
        Py_XDECREF(name_o);
        Py_XDECREF(code);
        Py_DECREF(frames[i]);
    }
    PyErr_Restore(et, ev, tb);
    in_pool_hook = 0;
    PyGILState_Release(st);
    return len;
}

int
mv_pool_arg(PyObject *o, unsigned long long *id)
{
    if (!PyLong_Check(o)) {
        PyErr_SetString(PyExc_TypeError, "memview: pool id must be an int");
        return -1;
    }
    *id = PyLong_AsUnsignedLongLong(o);
    return (*id == (unsigned long long)-1 && PyErr_Occurred()) ? -1 : 0;
}

/* pool_new(kind: int, name: str|None, inner: int) -> id */
static PyObject *
pools_new(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    int kind;
    const char *name = NULL;
    unsigned long long inner = 0;
    if (!PyArg_ParseTuple(args, "iz|K", &kind, &name, &inner))
        return NULL;
    uint64_t id = 0;
    mv_err e;
    int rc;
    /* a CUDA pool may load the driver and create its context */
    NOGIL(kind == MV_POOL_BACKEND, rc = mv_go_pool_new(kind, (char *)(name ? name : ""), inner, &id, &e));
    if (rc != 0)
        return mv_raise(&e);
    return PyLong_FromUnsignedLongLong(id);
}

/* pool_drop(id): forget a pool id (its memory stays with its buffers) */
static PyObject *
pools_drop(PyObject *mod, PyObject *arg)
{
    (void)mod;
    unsigned long long id;
    if (mv_pool_arg(arg, &id) < 0)
        return NULL;
    if (mv_go_usable())
        mv_go_pool_drop(id);
    Py_RETURN_NONE;
}

/* pool_default(set: int = 0) -> id of the default pool, after making pool
 * `set` the default when it is not 0 */
static PyObject *
pools_default(PyObject *mod, PyObject *args)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    unsigned long long set = 0;
    if (!PyArg_ParseTuple(args, "|K", &set))
        return NULL;
    uint64_t id = 0;
    mv_err e;
    if (set != 0)
        mv_blocks_pool_changed(); /* cached blocks belong to the pool that lent them */
    if (mv_go_pool_default(set, &id, &e) != 0)
        return mv_raise(&e);
    return PyLong_FromUnsignedLongLong(id);
}

/* pool_stats(id) -> (bytes_allocated, max_memory, total_bytes_allocated,
 * num_allocations, num_live, backend_name, device) */
static PyObject *
pools_stats(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    unsigned long long id;
    if (mv_pool_arg(arg, &id) < 0)
        return NULL;
    int64_t s[5];
    char backend[64], device[24];
    mv_err e;
    mv_blocks_flush(); /* the cache's free blocks are not the user's */
    if (mv_go_pool_stats(id, s, backend, sizeof backend, device, sizeof device, &e) != 0)
        return mv_raise(&e);
    return Py_BuildValue("(LLLLLss)", (long long)s[0], (long long)s[1], (long long)s[2],
                         (long long)s[3], (long long)s[4], backend, device);
}

/* pool_leaks(id) -> str: a JSON list of a checked pool's leak reports */
static PyObject *
pools_leaks(PyObject *mod, PyObject *arg)
{
    (void)mod;
    if (mv_check_go() < 0)
        return NULL;
    unsigned long long id;
    if (mv_pool_arg(arg, &id) < 0)
        return NULL;
    char *out = NULL;
    mv_err e;
    if (mv_go_pool_leaks(id, &out, &e) != 0)
        return mv_raise(&e);
    PyObject *r = PyUnicode_FromString(out);
    free(out);
    return r;
}

/* set_pool_log(f): f(pool_id, line) receives each line of a logging pool */
static PyObject *
pools_set_log(PyObject *mod, PyObject *f)
{
    (void)mod;
    if (!PyCallable_Check(f)) {
        PyErr_SetString(PyExc_TypeError, "memview: set_pool_log needs a callable");
        return NULL;
    }
    PyObject *old = pool_log_fn;
    Py_INCREF(f);
    pool_log_fn = f;
    Py_XDECREF(old);
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

static PyMethodDef pool_methods[] = {
    {"pool_new", pools_new, METH_VARARGS, "pool_new(kind, name, inner=0) -> pool id"},
    {"pool_drop", pools_drop, METH_O, "pool_drop(id)"},
    {"pool_info", core_pool_info, METH_NOARGS, "pool_info() -> (backend, warning)"},
    {"pool_default", pools_default, METH_VARARGS, "pool_default(set=0) -> id of the default pool"},
    {"pool_stats", pools_stats, METH_O, "pool_stats(id) -> (bytes, max, total, count, live, backend, device)"},
    {"pool_leaks", pools_leaks, METH_O, "pool_leaks(id) -> JSON list of leak reports"},
    {"set_pool_log", pools_set_log, METH_O, "set_pool_log(f): f(pool_id, line) gets a logging pool's lines"},
    {NULL},
};

int
mv_install_pools(PyObject *mod)
{
    if (PyModule_AddFunctions(mod, pool_methods) < 0)
        return -1;
    if (PyModule_AddIntConstant(mod, "POOL_BACKEND", MV_POOL_BACKEND) < 0 ||
        PyModule_AddIntConstant(mod, "POOL_PROXY", MV_POOL_PROXY) < 0 ||
        PyModule_AddIntConstant(mod, "POOL_LOGGING", MV_POOL_LOGGING) < 0 ||
        PyModule_AddIntConstant(mod, "POOL_CHECKED", MV_POOL_CHECKED) < 0)
        return -1;
    return 0;
}
