//go:build memview_selftest

package pyext

/*
#include "bridge.h"
*/
import "C"

// The test build (build.py test, -tags memview_selftest) adds
// memview._core._selftest_panic (selftest.c): a Go function C calls that
// panics on purpose, to prove guard turns the panic into SystemError. The
// product extension has no such function.

//export mvgo_selftest_panic
func mvgo_selftest_panic(e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	var m map[string]int
	m["a panic on purpose"] = 1 // assignment to a nil map: a real runtime panic
	return 0
}
