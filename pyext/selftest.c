//go:build memview_selftest

/*
 * selftest.c — memview._core functions of the test build only (build.py test,
 * -tags memview_selftest); selftest_off.go stands in for them in the product.
 */
#include "capi.h"
#include "_cgo_export.h"

/* _selftest_panic(): runs a Go function that panics, to prove the panic is
 * recovered and surfaces as SystemError instead of aborting the interpreter. */
static PyObject *
core_selftest_panic(PyObject *mod, PyObject *unused)
{
    if (mv_check_go() < 0)
        return NULL;
    mv_err e;
    if (mvgo_selftest_panic(&e) != 0)
        return mv_raise(&e);
    Py_RETURN_NONE;
}

static PyMethodDef selftest_methods[] = {
    {"_selftest_panic", core_selftest_panic, METH_NOARGS, "raise SystemError from a recovered Go panic"},
    {"_c_layout", mv_selftest_c_layout, METH_VARARGS,
     "_c_layout(a, op, arg) -> (shape, strides, offset, scalar, c, f) or None: views.c's layout"},
    {NULL},
};

int
mv_add_selftests(PyObject *mod)
{
    return PyModule_AddFunctions(mod, selftest_methods);
}
