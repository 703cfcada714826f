package pyext

/*
#include <stdlib.h>
*/
import "C"

import (
	"unsafe"

	"github.com/memview/memview/pyext/gopyrt"
)

// mvgo_sentinels lists the sentinel errors and error types of the Go
// packages built into the extension (gopyrt.Sentinels), one
// "pkg.Name=pkg.First" line each, as a C string the caller frees:
// memview._core.go_sentinels (gopy_fast.c).
//
//export mvgo_sentinels
func mvgo_sentinels() *C.char { return C.CString(gopyrt.Sentinels()) }

// mvgo_set_sentinel_class hands Go the exception class (a PyObject* the
// caller keeps alive for good) that a Go error matching the sentinel name
// ("pkg.Name") raises; 0 when there is no such sentinel:
// memview._core.go_set_sentinel_class.
//
//export mvgo_set_sentinel_class
func mvgo_set_sentinel_class(name *C.char, class unsafe.Pointer) C.int {
	if gopyrt.SetSentinelClass(C.GoString(name), class) {
		return 1
	}
	return 0
}
