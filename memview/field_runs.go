package memview

import (
	"slices"
	"unsafe"
)

// A record's gaps — padding, and bytes no field of the format names — are not
// memview's to write: they may be other fields of the same memory (NumPy's
// multi-field views a[["a", "c"]], dtypes with offsets, overlapping views of
// one buffer). Copies and fills into existing arrays (CopyInto, CopyData,
// FillBytes) write only the bytes of fields, as NumPy does; new arrays are
// copied whole.

// ByteRun is a range of bytes of an item: Len bytes from Offset.
type ByteRun struct {
	Offset, Len int
}

// FieldRuns returns the bytes of d's items that its fields hold, as sorted,
// merged runs, or nil when they fill the whole item (every basic DType, and
// most formats): the bytes CopyInto, CopyData and FillBytes write. A record
// with padding or unnamed gaps ("T{xxh:x:}", "i:a:4xd:b:") has runs around
// them; a named 'x' field is opaque bytes, and counts, and so is an item of
// padding alone ("4x", as NumPy writes its void dtype V4). The slice is shared:
// callers must not change it.
func (d DType) FieldRuns() []ByteRun {
	if d.ft == nil {
		return nil
	}
	ft := d.ft
	ft.runsOnce.Do(func() { ft.runs = fieldRuns(ft.desc) })
	return ft.runs
}

// fieldRuns computes FieldRuns from an item descriptor.
func fieldRuns(d *ItemDesc) []ByteRun {
	if opaque(d) {
		return nil // padding alone: opaque bytes ("4x", "T{4x}", NumPy's V4)
	}
	var runs []ByteRun
	for _, f := range d.Components() {
		if n := f.Size * f.Repeat; n > 0 {
			runs = append(runs, ByteRun{f.Offset, n})
		}
	}
	slices.SortFunc(runs, func(a, b ByteRun) int { return a.Offset - b.Offset })
	merged := runs[:0]
	for _, r := range runs {
		if k := len(merged) - 1; k >= 0 && r.Offset <= merged[k].Offset+merged[k].Len {
			merged[k].Len = max(merged[k].Len, r.Offset+r.Len-merged[k].Offset)
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) == 1 && merged[0] == (ByteRun{0, d.Size}) {
		return nil
	}
	if len(merged) == 0 {
		return []ByteRun{} // fields of no bytes ("4x0i:z:"): nothing is written
	}
	return slices.Clip(merged)
}

// opaque reports whether d has no fields but records of no fields, one in
// another: padding alone, whose bytes are the item's.
func opaque(d *ItemDesc) bool {
	for _, f := range d.Fields {
		if f.Record == nil || f.Name != "" || f.Shape != nil || f.Repeat != 1 || !opaque(f.Record) {
			return false
		}
	}
	return true
}

// assignFields is assign for items whose fields do not fill them (runs, from
// FieldRuns): as if through a temporary, only the runs of each dst item are
// written. Where the two operands' bytes intersect, src's items are gathered
// whole first.
func assignFields(dst unsafe.Pointer, dStrides []int, src unsafe.Pointer, sStrides []int, shape []int, itemsize int,
	runs []ByteRun) {
	if !spansIntersect(dst, dStrides, src, sStrides, shape, itemsize) {
		copyRuns(dst, dStrides, src, sStrides, shape, runs)
		return
	}
	if dst == src && slices.Equal(dStrides, sStrides) {
		return // every item onto itself
	}
	tShape, tStrides, n := tempLayout(shape, dStrides, sStrides, itemsize)
	withTemp(n, func(t unsafe.Pointer) {
		copyStrided(t, tStrides, src, sStrides, tShape, itemsize)
		copyRuns(dst, dStrides, t, tStrides, shape, runs)
	})
}

// copyRuns copies the runs of every item of src to dst (copyStrided's rules).
func copyRuns(dst unsafe.Pointer, dStrides []int, src unsafe.Pointer, sStrides []int, shape []int, runs []ByteRun) {
	for _, r := range runs {
		copyStrided(unsafe.Add(dst, r.Offset), dStrides, unsafe.Add(src, r.Offset), sStrides, shape, r.Len)
	}
}

// assignItems copies items of dt, writing only their fields' bytes.
func assignItems(dt DType, dst unsafe.Pointer, dStrides []int, src unsafe.Pointer, sStrides []int, shape []int) {
	if runs := dt.FieldRuns(); runs != nil {
		assignFields(dst, dStrides, src, sStrides, shape, dt.Itemsize(), runs)
		return
	}
	assign(dst, dStrides, src, sStrides, shape, dt.Itemsize())
}
