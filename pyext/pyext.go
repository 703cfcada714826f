// Package pyext is the one package gopy binds: memview's CPython extension.
//
// Its exported Go functions are the small control API that gopy wraps (Install,
// live handle and pool statistics). Go packages built together with memview
// (build.py --with) are bound by gopy in the same extension, and reach memview
// through gopy_bridge.go; the code gopy generates calls package gopyrt. Everything on the hot path is C written to the
// limited API of Python 3.11 (exporter.c, module.c): a heap type made with
// PyType_FromSpec whose getbuffer reads metadata cached in C and calls no Go, and
// the module memview._core, whose functions call Go (bridge.go) with the GIL held.
// C keeps arrays alive through handles (handles.go), never Go pointers.
package pyext

/*
#cgo CFLAGS: -Wall -Werror=implicit-function-declaration -Werror=int-conversion -Werror=incompatible-pointer-types
int mv_install(void);
*/
import "C"

import (
	"errors"

	"github.com/memview/memview/memview"
)

// Install creates the module memview._core (the array type and its functions) and
// registers it in sys.modules. memview/__init__.py calls it once; later calls do
// nothing. It refuses when another extension made memview._core: that extension
// runs its own Go runtime, and a process can hold only one (golang/go#18976).
func Install() error {
	switch C.mv_install() {
	case 0:
		return nil
	case 1:
		return errors.New("memview: another memview extension is already loaded in this process " +
			"(memview._core exists); a process can run only one Go runtime (golang/go#18976), so " +
			"build your Go packages together with memview into one extension: python3 build.py wheel --with DIR")
	default:
		return errors.New("memview: could not create memview._core (see the Python error above)")
	}
}

// LiveHandles is the number of array handles C holds: one per live array object.
func LiveHandles() int { return liveHandles() }

// PoolBytesAllocated is the default pool's live bytes.
func PoolBytesAllocated() int64 { return memview.DefaultPool().BytesAllocated() }

// PoolMaxMemory is the default pool's peak of live bytes.
func PoolMaxMemory() int64 { return memview.DefaultPool().MaxMemory() }

// PoolTotalBytesAllocated is the sum of every allocation the default pool made.
func PoolTotalBytesAllocated() int64 { return memview.DefaultPool().TotalBytesAllocated() }

// PoolNumAllocations is the number of allocations the default pool made.
func PoolNumAllocations() int64 { return memview.DefaultPool().NumAllocations() }

// PoolNumLive is the number of the default pool's allocations not yet freed.
func PoolNumLive() int64 { return memview.DefaultPool().NumLive() }
