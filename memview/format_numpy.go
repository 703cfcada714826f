package memview

// NumPy reads a PEP 3118 format (np.asarray of a buffer, np.dtype of
// memoryview(x).format) with its own reader, which differs from memview's in
// three ways; numpyReading models them, so that memview can tell whether
// NumPy reads a format as it does:
//
//   - The whole item is a record: under '@' at the end of the format it is
//     padded to its alignment. struct, and memview, give the top level no
//     trailing padding: "ix" is 5 bytes to struct.calcsize, 8 to NumPy.
//   - An unnamed zero count ("0l") is a field of shape (0,) to NumPy; memview
//     and struct only align by it.
//   - The grammar is narrower: no whitespace, a byte-order prefix after a
//     shape ("(2)<i") but not before it, no prefix at the end, and no 'n',
//     'N', 'P', 'p' or 'Ze'; 'g' and 'Zg' with native sizes only.
//
// Records nested in the item are laid out alike. (NumPy also pads an element
// under '@' whose size is not a multiple of its alignment; no element is
// such: a record laid out under '@' closes under '@' and is padded already.)

// numpyReading returns the layout NumPy reads from format s, or an error
// where NumPy's reader refuses it or memview does.
func numpyReading(s string) (*ItemDesc, error) {
	p := &formatParser{s: s, mode: fmtMode{Native, true, false}, numpy: true}
	d, _, err := p.items(false)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// numpyReadsCode reports whether NumPy's reader knows format code c, with
// native sizes ('@' or '^') or standard ones.
func numpyReadsCode(c string, native bool) bool {
	switch c {
	case "n", "N", "P", "p", "Ze":
		return false
	case "g", "Zg":
		return native
	}
	return true
}

// portableFormat returns a spelling of d that NumPy's reader and memview read
// alike, and struct too where d is an item of struct's grammar: d's canonical
// format (standard sizes, no alignment, every gap explicit padding) with a
// plain repeat written as a count ("3i"), the byte order after a shape
// ("(2,3)<d", as NumPy reads it), and the fields of the item without the
// braces of a record around them ("<i1x" for "ix", where that is the same
// layout: "T{T{...}}" keeps its outer record).
func (d *ItemDesc) portableFormat() string {
	canon := d.Canonical()
	for _, braces := range []bool{false, true} {
		w := canonWriter{order: d.firstOrder(), portable: true}
		w.pending = w.order
		f, single := d.single()
		switch {
		case single && (f.Record == nil || elemDims(f) != nil):
			w.field(f)
		case braces && single:
			w.record(f.Record)
		case braces:
			w.record(d)
		case single:
			w.body(f.Record)
		default:
			w.body(d)
		}
		w.flush()
		s := w.b.String()
		if r, err := ParseFormat(s); err == nil && r.Canonical() == canon {
			return s
		}
	}
	return canon
}
