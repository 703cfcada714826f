/*
 * module.c — the composition root: memview._core made from the tables each layer
 * of pyext's C exports. Nothing else assembles; nothing calls up into here.
 *
 *   module   module.c, selftest.c (the test build's hooks)
 *   gopy     gopy.c, gopy_fast.c, gopy_gate.c: what gopy's bindings reach (gopy.h)
 *   mem      mem_*.c: Buffer, Builder and the pools (mem.h)
 *   proto    proto_*.c: one file per exchange protocol and direction (proto.h)
 *   ops      ops_*.c: creation, views, imports, copies, in C and through Go (ops.h)
 *   core     core_*.c: the array object, its owners, layouts, items, errors (core.h)
 *   go       go_*.c: the only C that calls Go, and the fork gate (go.h)
 *   base     base.c: Python's headers, argument parsing, strings (base.h)
 *
 * A file includes its layer's header, which includes the one below; calls go
 * down only (tools/cgraph.py checks it in CI). mv_install is called once,
 * through gopy, from memview/__init__.py, and places the module in sys.modules
 * as "memview._core".
 */
#include "module.h"

_Static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "memview needs a 64-bit Py_ssize_t");

/* ---- the array type, assembled from each layer's tables ---- */

/* Slots, attributes and methods of memview._core.ArrayBase: core_array.c's
 * (the buffer protocol, the cached attributes), then the views' (indexing,
 * len, iteration, T, transpose, reshape), creation's (copy), writes' (fill), and one table per
 * exchange protocol. */
static PyType_Slot *const array_slot_tables[] = {mv_array_core_slots, mv_view_slots};
static PyGetSetDef *const array_getset_tables[] = {mv_array_core_getset, mv_view_getset, mv_array_interface_getset};
static PyMethodDef *const array_method_tables[] = {mv_view_methods, mv_create_methods, mv_assign_methods,
                                                   mv_dlpack_methods, mv_arrow_methods};
#define MAX_SLOTS 24
#define MAX_GETSET 32
#define MAX_METHODS 48
static PyType_Slot array_slots[MAX_SLOTS];
static PyGetSetDef array_getset[MAX_GETSET];
static PyMethodDef array_methods[MAX_METHODS];

/* join copies the entries of n tables, each ended by a zeroed entry, into out
 * (room for max, the last kept zero); -1 with SystemError when they do not fit. */
#define JOIN(out, max, tables, end)                                                  \
    do {                                                                             \
        int k_ = 0;                                                                  \
        for (size_t t_ = 0; t_ < sizeof(tables) / sizeof(tables[0]); t_++)          \
            for (const __typeof__(out[0]) *e_ = tables[t_]; !(end); e_++) {          \
                if (k_ == (max) - 1) {                                               \
                    PyErr_SetString(PyExc_SystemError, "memview: " #out " is full"); \
                    return NULL;                                                     \
                }                                                                    \
                out[k_++] = *e_;                                                     \
            }                                                                        \
    } while (0)

static PyObject *
make_array_type(void)
{
    JOIN(array_slots, MAX_SLOTS - 2, array_slot_tables, e_->slot == 0);
    JOIN(array_getset, MAX_GETSET, array_getset_tables, e_->name == NULL);
    JOIN(array_methods, MAX_METHODS, array_method_tables, e_->ml_name == NULL);
    int k = 0;
    while (array_slots[k].slot != 0)
        k++;
    array_slots[k++] = (PyType_Slot){Py_tp_getset, array_getset};
    array_slots[k] = (PyType_Slot){Py_tp_methods, array_methods};
    static PyType_Spec spec = {
        .name = "memview._core.ArrayBase",
        .basicsize = sizeof(MVArray),
        .itemsize = 0,
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
        .slots = array_slots,
    };
    return PyType_FromSpec(&spec);
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

static PyMethodDef module_functions[] = {
    {"set_array_type", core_set_array_type, METH_O, "set_array_type(cls)"},
    {NULL},
};

/* The module's functions, by layer. */
static PyMethodDef *const function_tables[] = {
    module_functions,
    mv_proto_functions, mv_dlpack_functions, mv_arrow_functions, mv_pickle_functions,             /* proto */
    mv_ops_go_functions, mv_view_functions, mv_assign_functions, mv_cast_functions, mv_dtype_functions, mv_cuda_functions, /* ops */
    mv_block_functions, mv_child_functions,                                                      /* core */
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "memview._core",
    .m_doc = "memview's C core: array type and Go bridge (internal; use the memview package).",
    .m_size = -1,
};

/* add_type adds the array type, made once, and memview.cuda.CUDAError. */
static int
add_types(PyObject *mod)
{
    if (mv_array_base_type == NULL && (mv_array_base_type = make_array_type()) == NULL)
        return -1;
    if (PyModule_AddObjectRef(mod, "ArrayBase", mv_array_base_type) < 0)
        return -1;
    if (mv_cuda_error == NULL) {
        mv_cuda_error = PyErr_NewExceptionWithDoc(
            "memview.cuda.CUDAError",
            "No CUDA driver or device, or an error reported by the CUDA driver.",
            PyExc_RuntimeError, NULL);
        if (mv_cuda_error == NULL)
            return -1;
    }
    if (PyModule_AddObjectRef(mod, "CUDAError", mv_cuda_error) < 0)
        return -1;
    /* DLPack 1.3: the exchange table is an attribute of the type. The facade's
     * Array class names it too, in case this type is ever made immutable. */
    PyObject *api = mv_dlpack_exchange_capsule();
    if (api == NULL)
        return -1;
    if (PyObject_SetAttrString(mv_array_base_type, "__dlpack_c_exchange_api__", api) < 0)
        PyErr_Clear();
    int rc = PyModule_AddObjectRef(mod, "dlpack_exchange_api", api);
    Py_DECREF(api);
    return rc;
}

/* install fills the module: functions, types, constants, and what each layer
 * asks of Go once (the basic dtypes and formats). */
static int
install(PyObject *mod)
{
    for (size_t k = 0; k < sizeof function_tables / sizeof function_tables[0]; k++)
        if (PyModule_AddFunctions(mod, function_tables[k]) < 0)
            return -1;
    if (mv_dlpack_export_init() < 0 || mv_dlpack_from_init() < 0) /* proto: names, before the capsule */
        return -1;
    if (add_types(mod) < 0 || PyModule_AddIntConstant(mod, "MAXDIM", MV_MAXDIM) < 0)
        return -1;
    if (mv_install_pools(mod) < 0 || mv_install_buffer(mod) < 0 || mv_install_builder(mod) < 0) /* mem */
        return -1;
    if (mv_install_dtypes() < 0 || mv_install_create(mod) < 0) /* ops */
        return -1;
    if (mv_add_gopy_functions(mod) < 0 || mv_add_selftests(mod) < 0) /* gopy, module */
        return -1;
    /* last: gopy's module is complete once memview/_ext imported it */
    return mv_gate_gopy_module("memview._ext._pyext");
}

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
    if (install(mod) < 0 || PyDict_SetItemString(modules, "memview._core", mod) < 0) {
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
