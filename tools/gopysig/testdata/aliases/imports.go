package aliases

import (
	. "github.com/memview/memview/tools/gopysig/testdata/aliasdep"
	dep "github.com/memview/memview/tools/gopysig/testdata/aliasdep"
)

// FromDep uses its import only through an alias: spelled out, the import is
// left unused (and blanked).
func FromDep(v dep.Value) int { return len(v) }

// FromDot does the same through a dot import.
func FromDot(v Value) int { return len(v) }
