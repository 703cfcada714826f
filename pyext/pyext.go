// Package pyext is the one package gopy binds: memview's CPython extension.
//
// Its exported Go functions are the small control API that gopy wraps (Install and
// the live handle count). Go packages built together with memview (build.py
// --with) are bound by gopy in the same extension, and reach memview through
// gopy_bridge.go; the code gopy generates calls package gopyrt. Everything on the
// hot path is C written to the limited API of Python 3.11, in eight layers that call
// downward only (base, go, core, ops, proto, mem, gopy, module; tools/cgraph.py
// checks it): heap types made with PyType_FromSpec whose getbuffer reads metadata
// cached in C and calls no Go, and the module memview._core, which module.c
// assembles from every layer's tables. C calls the functions this package exports
// (bridge.go, buffers.go, builders.go, pools.go, ...) only through the Go bridge,
// go_bridge.c, which go generate writes from their //export lines
// (tools/gobridge.py), with the GIL held unless they say otherwise. C keeps arrays,
// buffers and builders alive through handles (handles.go), and names pools by id,
// never by Go pointers.
package pyext

//go:generate python3 ../tools/gobridge.py
//go:generate sh -c "cd .. && go run ./tools/gendtypes"

/*
#cgo CFLAGS: -Wall -Wextra -Werror -fvisibility=hidden
int mv_install(void);
*/
import "C"

import "errors"

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

// LiveHandles is the number of handles C holds: one per live array, buffer and
// builder object. (Pool statistics are read through memview._core.pool_stats.)
func LiveHandles() int { return liveHandles() }
