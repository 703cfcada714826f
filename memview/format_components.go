package memview

import (
	"strconv"
	"strings"
)

// Components returns the leaves of d as one flat list: the fields of nested
// records in place of the records, with offsets from the start of the item
// and names joined by dots ("b.x"). A field that is an array of records
// gives its leaves once per element, indexed in C order ("b[1].x",
// "c[0,2].y"); a record with no fields gives nothing. The Shape slices are
// copies.
func (d *ItemDesc) Components() []Field {
	var out []Field
	d.appendComponents(&out, "", 0)
	return out
}

func (d *ItemDesc) appendComponents(out *[]Field, prefix string, base int) {
	for _, f := range d.Fields {
		name := f.Name
		if prefix != "" && name != "" {
			name = prefix + "." + name
		} else if name == "" {
			name = prefix
		}
		if f.Record == nil {
			f.Name, f.Offset = name, base+f.Offset
			if f.Shape != nil {
				f.Shape = append([]int(nil), f.Shape...)
			}
			*out = append(*out, f)
			continue
		}
		if f.Shape == nil && f.Repeat == 1 {
			f.Record.appendComponents(out, name, base+f.Offset)
			continue
		}
		if !f.Record.hasLeaves() { // "(1000000000)T{x}" has no components
			continue
		}
		dims := f.Shape
		if dims == nil {
			dims = []int{f.Repeat}
		}
		for i := 0; i < f.Repeat; i++ {
			f.Record.appendComponents(out, name+"["+unravelIndex(i, dims)+"]", base+f.Offset+i*f.Size)
		}
	}
}

// hasLeaves reports whether d has a field that is not a record, or a record
// array of at least one element that has one.
func (d *ItemDesc) hasLeaves() bool {
	for _, f := range d.Fields {
		if f.Record == nil || f.Repeat > 0 && f.Record.hasLeaves() {
			return true
		}
	}
	return false
}

// unravelIndex writes flat index i into dims in C order as "i,j,k".
func unravelIndex(i int, dims []int) string {
	idx := make([]string, len(dims))
	for k := len(dims) - 1; k >= 0; k-- {
		idx[k] = strconv.Itoa(i % dims[k])
		i /= dims[k]
	}
	return strings.Join(idx, ",")
}
