package memview

import (
	"encoding/binary"
	"strconv"
	"strings"
	"sync"
)

// Canonical returns the one PEP 3118 format shared by every spelling of d's
// layout. Two items have the same layout — the same bytes hold the same values
// under the same names — exactly when their canonical formats are equal; this
// is the rule DType.SameLayout applies everywhere memview decides whether two
// item types are one ("1d", "d ", "<d", "=d" and "@d" are all "<d"; "c" and
// "1s" are "<1s"; ">L " and "!I" are ">I"; "3d" and "(3)d" are "<(3)d").
//
// The canonical form uses standard sizes and no alignment: the byte order
// ('<' or '>') is written at the start and wherever it changes (one-byte
// elements keep the order in force; native order is written as the machine's);
// every gap between fields and the end of a record is explicit 'x' padding;
// each number is written with the one code of its kind and size (? b h i q B H
// I Q e f d Ze Zf Zd — so 'l', 'n', 'N' and 'P' become the code of their size);
// a 'c' field is a byte string ("3c" is "3s"); strings, Pascal strings and
// named void fields always carry their length ("1s"); a repeat count is a
// sub-array shape; and an item that is not one unnamed field filling the item
// (several fields, a named field, padding after a field) is a record "T{...}",
// as NumPy reads such formats. ParseFormat(d.Canonical()) describes the same
// layout, and its Canonical() is the same string.
func (d *ItemDesc) Canonical() string {
	if d == nil {
		return ""
	}
	w := canonWriter{order: d.firstOrder()}
	w.b.WriteByte(w.order)
	if f, ok := d.single(); ok {
		if f.Record != nil && elemDims(f) == nil {
			w.record(f.Record)
		} else {
			w.field(f)
		}
	} else {
		w.record(d)
	}
	return w.b.String()
}

// single returns d's one field when it is unnamed, at offset 0 and fills the
// item: an item that is one number, string or sub-array, or one record.
func (d *ItemDesc) single() (*Field, bool) {
	if len(d.Fields) != 1 {
		return nil, false
	}
	f := &d.Fields[0]
	n, ok := mulInt(f.Size, f.Repeat)
	return f, ok && f.Name == "" && f.Offset == 0 && n == d.Size
}

// canonWriter writes a canonical format; order is the prefix in force.
// With portable set it writes the spelling of portableFormat instead: a plain
// repeat as a count, a shape before the prefix, and the first prefix
// (pending until then) after the first item's shape.
type canonWriter struct {
	b        strings.Builder
	order    byte
	portable bool
	pending  byte // the first prefix, not yet written (portable)
}

// record writes "T{...}" of d's fields with explicit padding.
func (w *canonWriter) record(d *ItemDesc) {
	w.flush()
	w.b.WriteString("T{")
	w.body(d)
	w.b.WriteByte('}')
}

// body writes d's fields with explicit padding, without the braces.
func (w *canonWriter) body(d *ItemDesc) {
	off := 0
	for i := range d.Fields {
		f := &d.Fields[i]
		w.pad(f.Offset - off)
		w.field(f)
		off = f.Offset + f.Size*f.Repeat
	}
	w.pad(d.Size - off)
}

func (w *canonWriter) pad(n int) {
	if n > 0 {
		w.flush()
		w.b.WriteString(strconv.Itoa(n) + "x")
	}
}

// flush writes the pending first prefix.
func (w *canonWriter) flush() {
	if w.pending != 0 {
		w.b.WriteByte(w.pending)
		w.pending = 0
	}
}

// field writes one field: [prefix] [(dims)] [length] code [:name:]; portable,
// [(dims)] [prefix] [count] [length] code [:name:].
func (w *canonWriter) field(f *Field) {
	code, size, dims := canonLeaf(f)
	// a plain repeat, or a 1-D sub-array of numbers (the same layout), as a count
	// ("3i"), which struct reads too: not of 0 or 1, which say otherwise, nor
	// before a string, where a count is its length
	count := w.portable && len(dims) == 1 && dims[0] >= 2 && code != "s" && code != "p" && code != "x" && code != "w"
	if w.portable && dims != nil && !count {
		writeDims(&w.b, dims)
		dims = nil
	}
	w.flush()
	if isNumber(f) {
		if o := numberOrder(f); o != w.order {
			w.b.WriteByte(o)
			w.order = o
		}
	}
	switch {
	case count:
		w.b.WriteString(strconv.Itoa(dims[0]))
	case dims != nil:
		writeDims(&w.b, dims)
	}
	if f.Record != nil {
		w.record(f.Record)
	} else {
		if code == "s" || code == "p" || code == "x" {
			w.b.WriteString(strconv.Itoa(size))
		}
		if code == "w" {
			w.b.WriteString(strconv.Itoa(size / 4))
		}
		w.b.WriteString(code)
	}
	if f.Name != "" {
		w.b.WriteString(":" + f.Name + ":")
	}
}

// writeDims writes a shape "(d1,d2,...)".
func writeDims(b *strings.Builder, dims []int) {
	b.WriteByte('(')
	for k, n := range dims {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(n))
	}
	b.WriteByte(')')
}

// canonLeaf returns the canonical code of f's elements, their size, and the
// dimensions they nest by ('c' repeated n times is one string of n bytes).
func canonLeaf(f *Field) (code string, size int, dims []int) {
	dims = elemDims(f)
	size = f.Size
	switch k := codeKind(f.Code); {
	case f.Record != nil:
		return "T", size, dims
	case f.Code == "c":
		if f.Shape == nil {
			return "s", f.Repeat, nil
		}
		return "s", 1, dims
	case f.Code == "x":
		return "x", size, dims
	case k == 's' || k == 'p' || k == '?' || k == 'w':
		return f.Code, size, dims
	default:
		return standardCode(fieldKind(f.Code), size), size, dims
	}
}

// nativeOrder is the prefix of the machine's byte order.
var nativeOrder = func() byte {
	if binary.NativeEndian.Uint16([]byte{1, 0}) == 1 {
		return '<'
	}
	return '>'
}()

// orderChar is the prefix of a field's byte order, native written as the
// machine's.
func orderChar(o ByteOrder) byte {
	switch o {
	case Little:
		return '<'
	case Big:
		return '>'
	}
	return nativeOrder
}

// numberOrder is the prefix a number field is written with: its byte order,
// except that a little-endian long double ('g', 'Zg') is written "^g", native
// sizes without alignment, since NumPy reads long doubles in native order only
// (on a little-endian machine).
func numberOrder(f *Field) byte {
	o := orderChar(f.Order)
	if (f.Code == "g" || f.Code == "Zg") && o == '<' && nativeOrder == '<' {
		return '^'
	}
	return o
}

// firstOrder is the byte order of the first multi-byte number written in
// d's canonical format, '<' if there is none: the format starts with it.
func (d *ItemDesc) firstOrder() byte {
	if o, ok := d.firstNumberOrder(); ok {
		return o
	}
	return '<'
}

func (d *ItemDesc) firstNumberOrder() (byte, bool) {
	for i := range d.Fields {
		f := &d.Fields[i]
		if f.Record != nil {
			if o, ok := f.Record.firstNumberOrder(); ok {
				return o, true
			}
			continue
		}
		if isNumber(f) {
			return numberOrder(f), true
		}
	}
	return 0, false
}

// isNumber reports whether f's elements are numbers of more than one byte,
// whose byte order matters.
func isNumber(f *Field) bool {
	code, size, _ := canonLeaf(f)
	return f.Record == nil && size > 1 && code != "s" && code != "p" && code != "x"
}

// Canonical returns the canonical format of d's item layout (see
// ItemDesc.Canonical); "" for the zero DType.
func (d DType) Canonical() string {
	if d.ft != nil {
		return d.ft.canonical
	}
	if !d.IsValid() {
		return ""
	}
	return basicCanonical()[d.id]
}

// SameLayout reports whether d and o are the same item type: whether their
// items have the same layout (equal canonical formats), however they were
// spelled. Copies, assignments and comparisons between arrays use this rule,
// never the format strings. The zero DType is the same as nothing.
func (d DType) SameLayout(o DType) bool {
	if !d.IsValid() || !o.IsValid() {
		return false
	}
	return d == o || d.Canonical() == o.Canonical()
}

// Basic returns the basic DType with d's layout (d itself for a basic DType;
// Float64 for a format type spelled "<d" or "1d"), and whether there is one.
func (d DType) Basic() (DType, bool) {
	b := d.basicOf()
	return b, b.IsBasic()
}

// basicOf returns the basic DType with d's layout, or d itself: a format type
// spelled "1d" or "=d" reads and writes as Float64.
func (d DType) basicOf() DType {
	if d.ft != nil && d.ft.basic.IsValid() {
		return d.ft.basic
	}
	return d
}

// basicCanonical returns the canonical formats of the basic DTypes, by id.
func basicCanonical() *[len(dtypeTable)]string {
	basicCanonOnce.Do(func() {
		for _, b := range DTypes() {
			basicCanon[b.id] = b.Item().Canonical()
		}
	})
	return &basicCanon
}

var (
	basicCanonOnce sync.Once
	basicCanon     [len(dtypeTable)]string
)

// basicWithCanonical returns the basic DType whose canonical format is c.
func basicWithCanonical(c string) (DType, bool) {
	for id, s := range basicCanonical() {
		if id != 0 && s == c {
			return DType{id: uint8(id)}, true
		}
	}
	return DType{}, false
}
