package memview

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"
)

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
	NativeSize bool      // laid out under '@': native sizes and alignment
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
	native bool // '@': native sizes and alignment
}

// prefix returns the prefix character that sets m.
func (m fmtMode) prefix() byte {
	switch {
	case m.native:
		return '@'
	case m.order == Little:
		return '<'
	case m.order == Big:
		return '>'
	}
	return '='
}

// formatCode describes one format code. std is the size with standard sizes
// ('=' '<' '>' '!'); 0 means the code exists only with native sizes, as in
// struct. nativeSize and nativeAlign give the size and alignment under '@'.
type formatCode struct {
	std, nativeSize, nativeAlign int
}

// Native sizes and alignments are those of the C types on GOOS/GOARCH: long
// is 8 bytes on 64-bit Unix and 4 on Windows and 32-bit platforms; size_t and
// pointers are the word size; 8-byte types are 4-aligned on 386 Unix only.
// (Checked against struct.calcsize on linux/amd64.)
var (
	wordSize   = strconv.IntSize / 8
	longSize   = pick(strconv.IntSize == 64 && runtime.GOOS != "windows", 8, 4)
	eightAlign = pick(runtime.GOARCH == "386" && runtime.GOOS != "windows", 4, 8)
)

// pick returns a if c, else b.
func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// formatCodes lists every code ParseFormat knows, keyed by its text.
var formatCodes = map[string]formatCode{
	"?": {1, 1, 1}, "c": {1, 1, 1}, "b": {1, 1, 1}, "B": {1, 1, 1},
	"h": {2, 2, 2}, "H": {2, 2, 2}, "i": {4, 4, 4}, "I": {4, 4, 4},
	"l": {4, longSize, longSize}, "L": {4, longSize, longSize},
	"q": {8, 8, eightAlign}, "Q": {8, 8, eightAlign},
	"n": {0, wordSize, wordSize}, "N": {0, wordSize, wordSize}, "P": {0, wordSize, wordSize},
	"e": {2, 2, 2}, "f": {4, 4, 4}, "d": {8, 8, eightAlign},
	"Ze": {4, 4, 2}, "Zf": {8, 8, 4}, "Zd": {16, 16, eightAlign},
	"s": {1, 1, 1}, "p": {1, 1, 1}, "x": {1, 1, 1},
}

// ParseFormat parses a struct-module format string as extended by PEP 3118
// and returns the layout of one item.
//
// Syntax: items, optionally separated by whitespace, each
//
//	[prefix] [(d1,d2,...)] [prefix] [count] code [:name:]
//
// where prefix is one of '@' (native sizes and alignment; the start state),
// '=' (native order), '<', '>' or '!' with standard sizes and no alignment.
// A prefix may appear before any item and holds until the next one, across
// record boundaries too (as NumPy reads it). Codes: ? c b B h H i I l L q Q
// n N e f d s p x P, and Ze Zf Zd (complex of two halves, floats, doubles).
// 'n', 'N' and 'P' need native sizes. "T{...}" is a record of items.
//
// Layout, checked against CPython's struct and NumPy on linux/amd64:
//   - Under '@' each item starts at a multiple of its alignment (a sub-array
//     or repeat at the alignment of one element), and a zero count ("0l")
//     only aligns. Otherwise items are packed.
//   - The top-level item gets no trailing padding, so Size equals
//     struct.calcsize for every format struct accepts ("ib" is 5).
//   - A record is laid out as NumPy's PEP 3118 reader does: its alignment is
//     the lcm of the alignments of its items laid out under '@' (a nested
//     record counting with its own alignment), and if the prefix in force at
//     its '}' is '@' its size is rounded up to that alignment ("T{i:a:b:b:}"
//     is 8, "T{i:a:<b:b:}" is 5). The record is then aligned in its parent
//     like any item, by the prefix in force at its '}'.
//   - Complex codes are two parts; under '@' they align as one part (Zf 4,
//     Zd 8, as NumPy's complex64 and complex128; Ze, which neither struct
//     nor NumPy reads, 2).
//   - A count before 's' or 'p' is the string length; before unnamed 'x' it
//     is padding; named 'x' (NumPy's void fields, "3x:v:") is a field of
//     opaque bytes. A named zero-count item ("0i:z:") is a field of shape
//     [0]; an unnamed one only aligns.
//
// Field names must be non-empty, valid UTF-8 and unique within a record. Records may nest
// 64 deep, a sub-array may have 64 dimensions, expanding arrays of records
// may give at most 65536 components, and at most 65536 of the values Unpack
// makes may hold no bytes (zero-size elements, rows of an empty sub-array),
// so that Unpack's work is bounded by the size of its input plus a constant.
// Every error wraps ErrInvalid and says at which byte the format went wrong.
// The empty format is valid: an item of size 0.
func ParseFormat(s string) (*ItemDesc, error) {
	p := &formatParser{s: s, mode: fmtMode{Native, true}}
	d, _, err := p.items(false)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// formatParser holds the state of one ParseFormat call.
type formatParser struct {
	s      string
	pos    int
	mode   fmtMode
	depth  int
	nameAt int // index of the name of the last item parsed
}

// errorf returns an ErrInvalid error about the byte at index at.
func (p *formatParser) errorf(at int, format string, args ...any) error {
	return fmt.Errorf("memview: format %s at byte %d: %s: %w", quote(p.s), at, fmt.Sprintf(format, args...), ErrInvalid)
}

// isFormatSpace reports whether c is whitespace the struct module skips.
func isFormatSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// setMode applies a prefix character and reports whether c is one.
func (p *formatParser) setMode(c byte) bool {
	switch c {
	case '@':
		p.mode = fmtMode{Native, true}
	case '=':
		p.mode = fmtMode{Native, false}
	case '<':
		p.mode = fmtMode{Little, false}
	case '>', '!':
		p.mode = fmtMode{Big, false}
	default:
		return false
	}
	return true
}

// items parses items up to the end of the string (top level) or the '}'
// that closes a record, and returns their layout and what expanding them
// costs.
func (p *formatParser) items(inRecord bool) (*ItemDesc, itemCost, error) {
	d := &ItemDesc{Align: 1}
	off := 0
	var cost itemCost
	prefixAt := -1 // index of a prefix not yet followed by an item
	var names map[string]bool
	for {
		for p.pos < len(p.s) && isFormatSpace(p.s[p.pos]) {
			p.pos++
		}
		if p.pos == len(p.s) {
			if inRecord {
				return nil, itemCost{}, p.errorf(p.pos, "unterminated record")
			}
			break
		}
		c := p.s[p.pos]
		if c == '}' {
			if !inRecord {
				return nil, itemCost{}, p.errorf(p.pos, "'}' outside a record")
			}
			if prefixAt >= 0 { // NumPy refuses "T{i<}" too
				return nil, itemCost{}, p.errorf(prefixAt, "byte-order prefix %q before '}' names no item", p.s[prefixAt])
			}
			p.pos++
			break
		}
		if p.setMode(c) {
			if prefixAt >= 0 {
				return nil, itemCost{}, p.errorf(p.pos, "two byte-order prefixes in a row")
			}
			prefixAt = p.pos
			p.pos++
			continue
		}
		prefixAt = -1
		f, isField, align, ic, err := p.item()
		if err != nil {
			return nil, itemCost{}, err
		}
		if p.mode.native {
			var ok bool
			if off, ok = alignUp(off, align); !ok {
				return nil, itemCost{}, p.errorf(p.pos, "item size overflows")
			}
			d.Align = lcm(d.Align, align)
		}
		total, ok := mulInt(f.Size, f.Repeat)
		if ok {
			f.Offset = off
			off, ok = addInt(off, total)
		}
		if !ok {
			return nil, itemCost{}, p.errorf(p.pos, "item size overflows")
		}
		if !isField {
			continue
		}
		if f.Name != "" {
			if names[f.Name] {
				return nil, itemCost{}, p.errorf(p.nameAt, "duplicate field name %q", f.Name)
			}
			if names == nil {
				names = map[string]bool{}
			}
			names[f.Name] = true
		}
		if cost.leaves = satAdd(cost.leaves, ic.leaves); cost.leaves > maxFormatComponents {
			return nil, itemCost{}, p.errorf(p.pos, "more than %d components", maxFormatComponents)
		}
		cost.free = satAdd(cost.free, ic.free)
		d.Fields = append(d.Fields, f)
	}
	if inRecord && p.mode.native {
		var ok bool
		if off, ok = alignUp(off, d.Align); !ok {
			return nil, itemCost{}, p.errorf(p.pos, "item size overflows")
		}
	}
	d.Size = off
	if cost.free > maxFormatFreeValues {
		return nil, itemCost{}, p.errorf(p.pos, "more than %d values of zero size", maxFormatFreeValues)
	}
	return d, cost, nil
}

// item parses one item, not its leading prefix. It returns the item as a
// Field without its offset; isField is false for padding and for an unnamed
// zero count, which only aligns. align is the alignment of one element under
// '@'.
func (p *formatParser) item() (f Field, isField bool, align int, cost itemCost, err error) {
	start := p.pos
	var shape []int
	if p.s[p.pos] == '(' {
		if shape, err = p.shape(); err != nil {
			return f, false, 0, cost, err
		}
		if p.pos < len(p.s) && p.setMode(p.s[p.pos]) { // NumPy reads "(2)<i"
			p.pos++
		}
	}
	count, hasCount := 1, false
	if p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
		count, hasCount = 0, true
		for p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
			var ok bool
			if count, ok = mulInt(count, 10); ok {
				count, ok = addInt(count, int(p.s[p.pos]-'0'))
			}
			if !ok {
				return f, false, 0, cost, p.errorf(start, "count too large")
			}
			p.pos++
		}
	}
	if p.pos == len(p.s) {
		return f, false, 0, cost, p.errorf(start, "count or shape without a format code")
	}
	codeAt := p.pos
	code := p.s[p.pos : p.pos+1]
	p.pos++
	var rec *ItemDesc
	var recCost itemCost
	switch code {
	case "Z":
		if p.pos < len(p.s) {
			code += p.s[p.pos : p.pos+1]
			p.pos++
		}
	case "T":
		if p.pos == len(p.s) || p.s[p.pos] != '{' {
			return f, false, 0, cost, p.errorf(codeAt, "'T' not followed by '{'")
		}
		if p.depth == maxFormatDepth {
			return f, false, 0, cost, p.errorf(codeAt, "records nested more than %d deep", maxFormatDepth)
		}
		p.pos++
		p.depth++
		rec, recCost, err = p.items(true)
		p.depth--
		if err != nil {
			return f, false, 0, cost, err
		}
	}
	m := p.mode // for a record, the prefix in force at its '}'
	f = Field{Code: code, Order: m.order, NativeSize: m.native, Repeat: 1, Record: rec}
	switch {
	case rec != nil:
		f.Size, align = rec.Size, rec.Align
	default:
		info, ok := formatCodes[code]
		switch {
		case !ok || code == "Z":
			return f, false, 0, cost, p.errorf(codeAt, "unknown format code %q", code)
		case info.std == 0 && !m.native:
			return f, false, 0, cost, p.errorf(codeAt, "format code %q needs native size ('@')", code)
		case m.native:
			f.Size, align = info.nativeSize, info.nativeAlign
		default:
			f.Size, align = info.std, 1
		}
	}
	if p.pos < len(p.s) && p.s[p.pos] == ':' {
		end := strings.IndexByte(p.s[p.pos+1:], ':')
		switch {
		case end < 0:
			return f, false, 0, cost, p.errorf(p.pos, "unterminated field name")
		case end == 0:
			return f, false, 0, cost, p.errorf(p.pos, "empty field name")
		}
		f.Name = p.s[p.pos+1 : p.pos+1+end]
		if !utf8.ValidString(f.Name) {
			return f, false, 0, cost, p.errorf(p.pos+1, "field name is not valid UTF-8")
		}
		p.nameAt = p.pos + 1
		p.pos += end + 2
	}

	isString := code == "s" || code == "p" || code == "x"
	dims := shape
	switch {
	case isString:
		f.Size = count
	case hasCount && count != 1 && (shape != nil || count == 0 && f.Name != ""):
		dims = append(dims, count)
	case hasCount && count != 1:
		f.Repeat = count
	}
	if len(dims) > maxFormatDims {
		return f, false, 0, cost, p.errorf(start, "sub-array has more than %d dimensions", maxFormatDims)
	}
	if dims != nil {
		f.Shape, f.Repeat = dims, 1
		for _, d := range dims {
			var ok bool
			if f.Repeat, ok = mulInt(f.Repeat, d); !ok {
				return f, false, 0, cost, p.errorf(start, "sub-array too large")
			}
		}
	}
	isField = (code != "x" || f.Name != "") && (f.Repeat != 0 || f.Shape != nil || isString)
	cost.leaves = 1
	elemFree := 0
	if f.Size == 0 {
		elemFree = 1
	}
	if rec != nil {
		elemFree = satAdd(elemFree, recCost.free)
		if cost.leaves = satMul(f.Repeat, recCost.leaves); cost.leaves > maxFormatComponents {
			return f, false, 0, cost, p.errorf(start, "more than %d components", maxFormatComponents)
		}
	}
	cost.free = satMul(f.Repeat, elemFree)
	if rowsFree := f.Size == 0 || f.Repeat == 0; rowsFree && (dims != nil || f.Repeat != 1) {
		// The []any of every row of every dimension but the last holds no bytes.
		rows := 1
		cost.free = satAdd(cost.free, 1)
		for _, d := range dims[:max(len(dims)-1, 0)] {
			rows = satMul(rows, d)
			cost.free = satAdd(cost.free, rows)
		}
	}
	return f, isField, align, cost, nil
}

// satAdd returns a+b for non-negative a and b, or MaxInt if that overflows.
func satAdd(a, b int) int {
	if c, ok := addInt(a, b); ok {
		return c
	}
	return math.MaxInt
}

// satMul returns a*b for non-negative a and b, or MaxInt if that overflows.
func satMul(a, b int) int {
	if c, ok := mulInt(a, b); ok {
		return c
	}
	return math.MaxInt
}

// shape parses "(d1,d2,...)": non-negative decimal dimensions, whitespace
// allowed around them, at least one.
func (p *formatParser) shape() ([]int, error) {
	start := p.pos
	p.pos++
	var dims []int
	for {
		for p.pos < len(p.s) && isFormatSpace(p.s[p.pos]) {
			p.pos++
		}
		at, v := p.pos, 0
		for p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
			var ok bool
			if v, ok = mulInt(v, 10); ok {
				v, ok = addInt(v, int(p.s[p.pos]-'0'))
			}
			if !ok {
				return nil, p.errorf(at, "dimension too large")
			}
			p.pos++
		}
		if p.pos == at {
			if p.pos == len(p.s) {
				return nil, p.errorf(start, "unterminated shape")
			}
			return nil, p.errorf(p.pos, "bad character %q in shape", p.s[p.pos])
		}
		if len(dims) == maxFormatDims {
			return nil, p.errorf(at, "sub-array has more than %d dimensions", maxFormatDims)
		}
		dims = append(dims, v)
		for p.pos < len(p.s) && isFormatSpace(p.s[p.pos]) {
			p.pos++
		}
		switch {
		case p.pos == len(p.s):
			return nil, p.errorf(start, "unterminated shape")
		case p.s[p.pos] == ')':
			p.pos++
			return dims, nil
		case p.s[p.pos] != ',':
			return nil, p.errorf(p.pos, "bad character %q in shape", p.s[p.pos])
		}
		p.pos++
	}
}

// alignUp rounds off up to a multiple of a (a > 0) and reports whether the
// result fits in an int.
func alignUp(off, a int) (int, bool) {
	return addInt(off, (a-off%a)%a)
}

// lcm returns the least common multiple of two positive alignments.
func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}

// Format returns a canonical PEP 3118 format for d: every gap written as
// explicit 'x' padding, a prefix wherever the mode changes, counts as struct
// writes them and shapes as NumPy does. ParseFormat(d.Format()) gives the
// same size and offsets for any d that ParseFormat returned.
func (d *ItemDesc) Format() string {
	var b strings.Builder
	mode := fmtMode{Native, true}
	d.writeFormat(&b, &mode, nil)
	return b.String()
}

// writeFormat writes the items of d to b. mode is the mode in force and is
// updated; end, for a record, is the mode its '}' must see.
func (d *ItemDesc) writeFormat(b *strings.Builder, mode *fmtMode, end *fmtMode) {
	off := 0
	for i := range d.Fields {
		f := &d.Fields[i]
		if f.Offset > off {
			fmt.Fprintf(b, "%dx", f.Offset-off)
		}
		fm := fmtMode{f.Order, f.NativeSize}
		// A record's own mode is the one at its '}', which its last item sets;
		// an empty record keeps the mode it starts in.
		if fm != *mode && (f.Record == nil || len(f.Record.Fields) == 0) {
			b.WriteByte(fm.prefix())
			*mode = fm
		}
		if f.Shape != nil {
			b.WriteByte('(')
			for k, n := range f.Shape {
				if k > 0 {
					b.WriteByte(',')
				}
				b.WriteString(strconv.Itoa(n))
			}
			b.WriteByte(')')
		}
		switch {
		case f.Code == "s" || f.Code == "p" || f.Code == "x":
			if f.Size != 1 {
				b.WriteString(strconv.Itoa(f.Size))
			}
		case f.Shape == nil && f.Repeat != 1:
			b.WriteString(strconv.Itoa(f.Repeat))
		}
		if f.Record != nil {
			b.WriteString("T{")
			f.Record.writeFormat(b, mode, &fm)
			b.WriteByte('}')
		} else {
			b.WriteString(f.Code)
		}
		if f.Name != "" {
			b.WriteString(":" + f.Name + ":")
		}
		off = f.Offset + f.Size*f.Repeat
	}
	switch {
	case end != nil && *end != *mode:
		// The prefix must be followed by an item; "0x" is one of no size.
		b.WriteByte(end.prefix())
		*mode = *end
		fmt.Fprintf(b, "%dx", d.Size-off)
	case d.Size > off:
		fmt.Fprintf(b, "%dx", d.Size-off)
	}
}

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
