/*
 * gopy_gate.c — the functions gopy binds pass the fork check (go_fork.c) before Go.
 *
 * gopy's code calls Go from C (pybindgen's wrappers in memview._ext._pyext), and
 * its Python wrappers reach those functions as attributes of that module at each
 * call (_pyext.sigproc_Sum(...), _pyext.DecRef(handle) in every __del__). So
 * memview replaces each built-in function of the module, once, when it installs
 * itself, with a built-in function of its own that holds the original and passes
 * every call on to it, in the process memview was loaded in. In a forked child it
 * raises the fork's RuntimeError instead, before any Go runs; gopy's reference
 * counting of its handles (IncRef, DecRef: what finalizers call) does nothing
 * there, so a child leaks what it inherited and its exit reclaims it.
 */
#include "gopy.h"

/* gate_call(original, args, kwargs): the original function, or the fork's error */
static PyObject *
gate_call(PyObject *orig, PyObject *args, PyObject *kwargs)
{
    if (!mv_go_usable()) {
        PyObject *name = PyObject_GetAttrString(orig, "__name__");
        const char *s = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
        PyErr_Clear();
        char what[160];
        PyOS_snprintf(what, sizeof what, "the bound Go function %s", s ? s : "(unknown)");
        Py_XDECREF(name);
        return mv_raise_forked(what);
    }
    return PyObject_Call(orig, args, kwargs);
}

/* gate_refcount: gopy's handle reference counting, a no-op in a forked child */
static PyObject *
gate_refcount(PyObject *orig, PyObject *args, PyObject *kwargs)
{
    if (!mv_go_usable())
        Py_RETURN_NONE;
    return PyObject_Call(orig, args, kwargs);
}

/* gate_one returns a gated copy of fn, a built-in function named name. The
 * method definition lives as long as the process (the module does). */
static PyObject *
gate_one(PyObject *fn, PyObject *name, PyObject *modname)
{
    const char *s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (s == NULL)
        return NULL;
    PyObject *doc = PyObject_GetAttrString(fn, "__doc__");
    if (doc == NULL)
        return NULL;
    const char *d = doc != Py_None ? PyUnicode_AsUTF8AndSize(doc, NULL) : NULL;
    if (d == NULL)
        PyErr_Clear();
    PyMethodDef *def = PyMem_Calloc(1, sizeof *def);
    char *n = PyMem_Malloc(strlen(s) + 1);
    char *dd = d ? PyMem_Malloc(strlen(d) + 1) : NULL;
    Py_DECREF(doc);
    if (def == NULL || n == NULL || (d != NULL && dd == NULL)) {
        PyMem_Free(def);
        PyMem_Free(n);
        PyMem_Free(dd);
        return PyErr_NoMemory();
    }
    strcpy(n, s);
    if (dd)
        strcpy(dd, d);
    int refcount = strcmp(s, "DecRef") == 0 || strcmp(s, "IncRef") == 0;
    *def = (PyMethodDef){n, (PyCFunction)(void (*)(void))(refcount ? gate_refcount : gate_call),
                         METH_VARARGS | METH_KEYWORDS, dd};
    return PyCFunction_NewEx(def, fn, modname);
}

int
mv_gate_gopy_module(const char *module)
{
    PyObject *mod = PyImport_ImportModule(module);
    if (mod == NULL)
        return -1;
    PyObject *dict = PyModule_GetDict(mod); /* borrowed */
    PyObject *modname = PyModule_GetNameObject(mod);
    PyObject *keys = dict && modname ? PyDict_Keys(dict) : NULL;
    int rc = keys == NULL ? -1 : 0;
    for (Py_ssize_t k = 0; rc == 0 && k < PyList_Size(keys); k++) {
        PyObject *name = PyList_GetItem(keys, k);         /* borrowed */
        PyObject *fn = PyDict_GetItemWithError(dict, name); /* borrowed */
        if (fn == NULL || !PyUnicode_Check(name) || !PyCFunction_Check(fn) ||
            PyCFunction_GetSelf(fn) != mod) /* not one of the module's own (or gated already) */
            continue;
        PyObject *gated = gate_one(fn, name, modname);
        if (gated == NULL || PyDict_SetItem(dict, name, gated) < 0)
            rc = -1;
        Py_XDECREF(gated);
    }
    Py_XDECREF(keys);
    Py_XDECREF(modname);
    Py_DECREF(mod);
    return rc;
}
