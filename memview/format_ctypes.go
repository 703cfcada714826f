package memview

// ctypes writes the PEP 3118 format of a C structure with '<' or '>' before
// every field ("T{<i:a:<d:b:}") and no padding, while its items have the
// layout a C compiler gives the structure, padding included: the format
// reads as 12 bytes, the items are 16 (sizeof). cReading lays a format out as
// C would, so that DTypeOfExport can tell where such a format still says
// where every field is.

// cReading returns the layout of format s with every item aligned as a C
// compiler aligns it, whatever the byte-order prefix ('^' excepted: packed),
// records and the whole item padded to their alignment, as C's sizeof pads a
// structure.
func cReading(s string) (*ItemDesc, error) {
	p := &formatParser{s: s, mode: fmtMode{Native, true, false}, calign: true}
	d, _, err := p.items(false)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// sameLeaves reports whether a and b have the same components: the same
// leaves at the same offsets, however their records are padded.
func sameLeaves(a, b *ItemDesc) bool {
	ca, cb := a.Components(), b.Components()
	if len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		x, y := ca[i], cb[i]
		if x.Offset != y.Offset || x.Size != y.Size || x.Repeat != y.Repeat || x.Code != y.Code || x.Order != y.Order {
			return false
		}
	}
	return true
}
