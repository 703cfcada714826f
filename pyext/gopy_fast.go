package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"unsafe"

	"github.com/memview/memview/memview"
	"github.com/memview/memview/pyext/gopyrt"
)

// The call entries generated for bound packages (gopyfast.py, gopy_fast.c)
// lend a *memview.Array parameter the memory of the argument's Py_buffer as
// memview.from_buffer does (imports.go).
func init() {
	gopyrt.ImportBuffer = func(buf unsafe.Pointer, shape []int, strides unsafe.Pointer, itemsize int,
		format string, readonly bool, token unsafe.Pointer) (*memview.Array, error) {
		return importBuffer(buf, shape, (*C.int64_t)(strides), itemsize, format, readonly, token)
	}
}
