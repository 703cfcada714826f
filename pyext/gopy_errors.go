package pyext

/*
#include <stdint.h>

static void *mv_class_pointer(uintptr_t p) { return (void *)p; }
*/
import "C"

import "github.com/memview/memview/pyext/gopyrt"

// GoSentinels lists the sentinel errors of the Go packages built into the
// extension (exported package-level variables and constants of an error
// type), one "pkg.Name=pkg.First" line each: pkg.First is the first of them
// that is the same error (an alias names the variable it copies), or the
// sentinel itself. memview's Python layer makes an exception class of each.
func GoSentinels() string { return gopyrt.Sentinels() }

// SetGoSentinelClass hands Go the exception class (its address, id(cls),
// kept alive for good by the caller) a Go error matching the sentinel name
// ("pkg.Name") raises; false when there is no such sentinel.
func SetGoSentinelClass(name string, class uintptr) bool {
	return gopyrt.SetSentinelClass(name, C.mv_class_pointer(C.uintptr_t(class)))
}
