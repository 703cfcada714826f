//go:build !memview_selftest

package pyext

// The product extension has no self-test functions (see selftest.go).

/*
#include "module.h"

int
mv_add_selftests(PyObject *mod)
{
    (void)mod;
    return 0;
}
*/
import "C"
