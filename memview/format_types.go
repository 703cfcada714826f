package memview

import "strconv"

// ByteOrder is the byte order of one field of an item.
type ByteOrder uint8

// The byte orders a format can name: Native for '@' and '=', Little for '<',
// Big for '>' and '!'.
const (
	Native ByteOrder = iota // the machine's order
	Little                  // least significant byte first
	Big                     // most significant byte first
)

// String returns "native", "little" or "big".
func (o ByteOrder) String() string {
	switch o {
	case Native:
		return "native"
	case Little:
		return "little"
	case Big:
		return "big"
	}
	return "ByteOrder(" + strconv.Itoa(int(o)) + ")"
}

// ItemDesc describes the layout of one item (one array element) given by a
// PEP 3118 format string: its size in bytes, the alignment it needs, and its
// fields in order. ParseFormat makes one; a nested record ("T{...}") has its
// own ItemDesc in Field.Record. Padding ('x' without a name) is not a field;
// it shows only in the offsets and the size.
type ItemDesc struct {
	Size   int     // bytes in one item, padding included
	Align  int     // alignment the item needs: the lcm of the alignments of the items laid out under '@' (1 if none)
	Fields []Field // the fields in format order
}

// Field is one field of an item, in the spirit of Ruby's
// rb_memory_view_item_component_t: a format code, a byte order, where the
// field starts, and how many elements of what size it holds.
//
// A field holds Repeat elements of Size bytes each, back to back from Offset.
// For 's', 'p' and named 'x' fields the count in the format is the length of
// one element ("3s": Size 3, Repeat 1); for other codes it is a repeat count
// ("3i": Size 4, Repeat 3). A sub-array ("(2,3)d") has Shape [2 3] and
// Repeat 6; a count after a shape adds a last dimension, as NumPy reads it
// ("(2)3i" has Shape [2 3]).
type Field struct {
	Name       string    // the ":name:" after the code; "" if none
	Code       string    // "?", "c", "b" ... "d", "Zf", "Zd", "Ze", "s", "p", "P", "x" (named padding: opaque bytes), or "T" for a record
	Order      ByteOrder // byte order of the numbers in the field
	NativeSize bool      // laid out under '@' (native sizes and alignment) or '^' (native sizes)
	Packed     bool      // laid out under '^': native sizes, no alignment
	Offset     int       // bytes from the start of the item (or of the enclosing record)
	Size       int       // bytes in one element
	Repeat     int       // number of elements: the count, or the product of Shape
	Shape      []int     // sub-array shape, nil if none
	Record     *ItemDesc // the layout of one element of a "T" field, else nil
}

// Limits that keep hostile formats from costing much: item sizes and counts
// must fit in an int, and these bound the rest.
const (
	maxFormatDepth      = 64      // records nested in records
	maxFormatDims       = 64      // dimensions of one sub-array, as NumPy's NPY_MAXDIMS
	maxFormatComponents = 1 << 16 // leaves after expanding arrays of records (see Components)
	maxFormatFreeValues = 1 << 16 // values Unpack makes that hold no bytes (see itemCost)
)

// itemCost is what expanding an item costs: leaves for Components, and
// free values for Unpack. A value of an element with bytes, or an []any
// of a row with bytes, is paid for by the caller's buffer; a zero-size
// element ("0s", "T{}") or the []any of a row of zero bytes is free, and
// "(1000000000)T{}" or "(1000000000,0)d" would describe 0 bytes and a
// billion values. Sums saturate at MaxInt.
type itemCost struct {
	leaves, free int
}

// fmtMode is the state a byte-order prefix sets.
type fmtMode struct {
	order  ByteOrder
	native bool // '@' or '^': native sizes
	packed bool // '^': native sizes without alignment (NumPy's unaligned native)
}

// prefix returns the prefix character that sets m.
func (m fmtMode) prefix() byte {
	switch {
	case m.native && m.packed:
		return '^'
	case m.native:
		return '@'
	case m.order == Little:
		return '<'
	case m.order == Big:
		return '>'
	}
	return '='
}

// IsSimple reports whether d is one number and nothing else: a single
// unnamed field at offset 0 that fills the item, with Repeat 1, no shape, and
// a numeric code (not 'c', 's', 'p', 'x' or a record). "<d", "Zf" and ">i"
// are simple; "3d", "d:x:", "dx" and "T{d}" are not.
func (d *ItemDesc) IsSimple() bool {
	if len(d.Fields) != 1 {
		return false
	}
	f := d.Fields[0]
	switch f.Code {
	case "c", "s", "p", "x", "T":
		return false
	}
	return f.Name == "" && f.Offset == 0 && f.Size == d.Size && f.Repeat == 1 && f.Shape == nil
}
