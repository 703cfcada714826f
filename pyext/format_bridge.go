package pyext

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"encoding/json"
	"unsafe"

	"github.com/memview/memview/memview"
)

// The item descriptor of a dtype, for the Python facade, which reads and writes
// elements of byte-swapped, record and other format dtypes with it (module
// memview._formats). It crosses as JSON: descriptors are made once per dtype.

type fieldJSON struct {
	Name   string    `json:"name"`
	Code   string    `json:"code"`
	Order  string    `json:"order"`  // "native", "little" or "big"
	Native bool      `json:"native"` // native sizes and alignment ('@'), else standard sizes
	Offset int       `json:"offset"`
	Size   int       `json:"size"`
	Repeat int       `json:"repeat"`
	Shape  []int     `json:"shape"`
	Record *descJSON `json:"record"`
	Format string    `json:"format"` // the field alone as a format of its own (memview.Field.Format)
}

type descJSON struct {
	Size   int         `json:"size"`
	Align  int         `json:"align"`
	Fields []fieldJSON `json:"fields"`
}

func toJSON(d *memview.ItemDesc) *descJSON {
	out := &descJSON{Size: d.Size, Align: d.Align, Fields: []fieldJSON{}}
	for _, f := range d.Fields {
		fj := fieldJSON{Name: f.Name, Code: f.Code, Order: f.Order.String(), Native: f.NativeSize, Offset: f.Offset,
			Size: f.Size, Repeat: f.Repeat, Shape: f.Shape, Format: f.Format()}
		if f.Record != nil {
			fj.Record = toJSON(f.Record)
		}
		out.Fields = append(out.Fields, fj)
	}
	return out
}

// mvgo_dtype_desc writes the JSON item descriptor of a dtype (a PEP 3118
// format, or else a name or typestr: memview.ParseDTypeOrFormat) to *out,
// malloc'd: the caller frees it.
//
//export mvgo_dtype_desc
func mvgo_dtype_desc(name *C.char, out **C.char, e *C.mv_err) (rc C.int) {
	defer guard(e, &rc)
	dt, err := memview.ParseDTypeOrFormat(C.GoString(name))
	if err != nil {
		return setErr(e, err)
	}
	b, err := json.Marshal(toJSON(dt.Item()))
	if err != nil {
		return setErr(e, err)
	}
	storeCPtr(out, unsafe.Pointer(C.CString(string(b))))
	return 0
}
