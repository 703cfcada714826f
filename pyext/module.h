/*
 * module.h — the top of pyext's C: module.c, the composition root, and the
 * test build's hooks (selftest.c; selftest_off.go stands in for them in the
 * product).
 */
#ifndef MEMVIEW_MODULE_H
#define MEMVIEW_MODULE_H

#include "gopy.h"

/* mv_install makes memview._core (pyext.go's Install calls it). */
int mv_install(void);

/* mv_add_selftests adds the test build's functions; 0 or -1 with an exception. */
int mv_add_selftests(PyObject *mod);

#endif
