/*
 * gopy.h — the gopy bridge: what gopy's generated bindings and bound Go
 * packages reach in memview, and the fork gate around gopy's own module.
 *
 *   gopy.c       memview._core's functions for gopy values (Go slices, lent
 *                arrays, handles) and the argument conversions of bound calls
 *   gopy_fast.c  what the generated call entries call (gopy_fast.h is their
 *                whole boundary)
 *   gopy_gate.c  every function of a gopy module behind the fork check
 */
#ifndef MEMVIEW_GOPY_H
#define MEMVIEW_GOPY_H

#include "mem.h"
#include "gopy_fast.h"

/* mv_add_gopy_functions adds gopy.c's and gopy_fast.c's functions to the module;
 * 0 or -1 with an exception. */
int mv_add_gopy_functions(PyObject *mod);
int mv_add_gopy_fast_functions(PyObject *mod);

/* mv_gate_gopy_module wraps every function of gopy's extension module (by its
 * import name) in the fork check; 0 or -1 with an exception. */
int mv_gate_gopy_module(const char *module);

#endif
