package pyext

/*
#include "bridge.h"
*/
import "C"

import (
	"fmt"
	"strings"

	"github.com/memview/memview/memview"
)

// mvgo_field_info describes a view of record fields for C (ops_fields.c):
// key is '1' and one field name, or '*' and names (NumPy's a["b"] and
// a[["a", "c"]]), each name followed by ':', then ':' and the dtype's name.
// m receives the view's items and, as its shape and strides, the dimensions
// a sub-array field adds; *offset the field's offset in the item.
//
//export mvgo_field_info
func mvgo_field_info(key *C.char, m *C.mv_meta, offset *C.int64_t, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	k := C.GoString(key)
	if len(k) < 1 {
		return setErr(e, fmt.Errorf("memview: empty field key: %w", errInternal))
	}
	kind, rest := k[0], k[1:]
	var names []string
	for {
		i := strings.IndexByte(rest, ':')
		if i < 0 {
			return setErr(e, fmt.Errorf("memview: malformed field key %q: %w", k, errInternal))
		}
		name := rest[:i]
		rest = rest[i+1:]
		if name == "" {
			break
		}
		names = append(names, name)
	}
	dt, err := memview.ParseDType(rest)
	if err != nil {
		return setErr(e, err)
	}
	m.ndim = 0
	*offset = 0
	if kind == '1' && len(names) == 1 {
		v, err := dt.Field(names[0])
		if err != nil {
			return setErr(e, err)
		}
		*offset = C.int64_t(v.Offset)
		m.ndim = C.int32_t(len(v.Shape))
		for i := range v.Shape {
			m.shape[i] = C.int64_t(v.Shape[i])
			m.strides[i] = C.int64_t(v.Strides[i])
		}
		dt = v.DType
	} else if dt, err = dt.Select(names...); err != nil {
		return setErr(e, err)
	}
	m.itemsize = C.int64_t(dt.Itemsize())
	putDType(m, dt)
	return 0
}
