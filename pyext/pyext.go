// Package pyext is the one package gopy binds: memview's CPython extension.
//
// Its exported Go functions are the small control API that gopy wraps (Install and
// the live handle count). Everything on the hot path is C written to the limited
// API of Python 3.11 (exporter.c, module.c, and buffer.c, builder.c, pools.c for
// raw memory): heap types made with PyType_FromSpec whose getbuffer reads
// metadata cached in C and calls no Go, and the module memview._core, whose
// functions call Go (bridge.go, buffers.go, builders.go, pools.go) with the GIL
// held unless they say otherwise. C keeps arrays, buffers and builders alive
// through handles (handles.go), and names pools by id, never by Go pointers.
package pyext

/*
#cgo CFLAGS: -Wall -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types
int mv_install(void);
*/
import "C"

import "errors"

// Install creates the module memview._core (the array type and its functions) and
// registers it in sys.modules. memview/__init__.py calls it once; later calls do
// nothing.
func Install() error {
	if C.mv_install() != 0 {
		return errors.New("memview: could not create memview._core (see the Python error above)")
	}
	return nil
}

// LiveHandles is the number of handles C holds: one per live array, buffer and
// builder object. (Pool statistics are read through memview._core.pool_stats.)
func LiveHandles() int { return liveHandles() }
