package memview

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// ParseFormat parses a struct-module format string as extended by PEP 3118
// and returns the layout of one item.
//
// Syntax: items, optionally separated by whitespace, each
//
//	[prefix] [(d1,d2,...)] [prefix] [count] code [:name:]
//
// where a shape may be followed by more ("(2)(3)i", as NumPy writes a
// sub-array of sub-arrays, is "(2,3)i") and prefix is one of '@' (native
// sizes and alignment; the start state), '^' (native sizes, no alignment:
// NumPy's unaligned native), '=' (native order), '<', '>' or '!' with
// standard sizes and no alignment. A prefix may
// appear before any item and holds until the next one, across record
// boundaries too (as NumPy reads it). Codes: ? c b B h H i I l L q Q n N e f d
// s p x P, Ze Zf Zd (complex of two halves, floats, doubles), and NumPy's g
// and Zg (x86-64 long double: 80-bit extended precision in 16 bytes, and its
// complex) and w (one UCS-4 character; "3w" is a string of 3, as 's'), and u
// (wchar_t, as the array module and ctypes write it: read as 'w' where
// wchar_t is UCS-4). 'n' and 'N' need native sizes; 'P' has the pointer size
// under any prefix ("<P", as ctypes writes c_void_p, which struct refuses).
// "T{...}" is a record of items. 'O' (Python objects) and '&' (pointers) are
// refused, saying why.
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
	p := &formatParser{s: s, mode: fmtMode{Native, true, false}}
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
	nameAt int  // index of the name of the last item parsed
	numpy  bool // read as NumPy's PEP 3118 reader does (see numpyReading)
	calign bool // align standard-size items too, as a C compiler lays them out (see cReading)
}

// aligns reports whether items are aligned in the mode in force.
func (p *formatParser) aligns() bool {
	return !p.mode.packed && (p.mode.native || p.calign)
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
		p.mode = fmtMode{Native, true, false}
	case '^':
		p.mode = fmtMode{Native, true, true}
	case '=':
		p.mode = fmtMode{Native, false, false}
	case '<':
		p.mode = fmtMode{Little, false, false}
	case '>', '!':
		p.mode = fmtMode{Big, false, false}
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
			if p.numpy {
				return nil, itemCost{}, p.errorf(p.pos, "NumPy reads no whitespace")
			}
			p.pos++
		}
		if p.pos == len(p.s) {
			if inRecord {
				return nil, itemCost{}, p.errorf(p.pos, "unterminated record")
			}
			if prefixAt >= 0 && p.numpy {
				return nil, itemCost{}, p.errorf(prefixAt, "NumPy reads no byte-order prefix at the end")
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
		if prefixAt >= 0 && c == '(' && p.numpy {
			return nil, itemCost{}, p.errorf(prefixAt, "NumPy reads a byte-order prefix after a shape, not before")
		}
		prefixAt = -1
		f, isField, align, ic, err := p.item()
		if err != nil {
			return nil, itemCost{}, err
		}
		if p.aligns() {
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
	if (inRecord || p.numpy || p.calign) && p.aligns() {
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
		for p.pos < len(p.s) && p.s[p.pos] == '(' { // NumPy writes a sub-array of sub-arrays "(2)(3)i"
			if p.numpy {
				return f, false, 0, cost, p.errorf(p.pos, "NumPy reads one shape per item")
			}
			more, err := p.shape()
			if err != nil {
				return f, false, 0, cost, err
			}
			if len(shape)+len(more) > maxFormatDims {
				return f, false, 0, cost, p.errorf(start, "sub-array has more than %d dimensions", maxFormatDims)
			}
			shape = append(shape, more...)
		}
		if p.pos < len(p.s) && p.setMode(p.s[p.pos]) { // NumPy reads "(2)<i"
			p.pos++
		}
	}
	count, hasCount, err := p.count(start)
	if err != nil {
		return f, false, 0, cost, err
	}
	code, codeAt, rec, recCost, err := p.code(start)
	if err != nil {
		return f, false, 0, cost, err
	}
	m := p.mode // for a record, the prefix in force at its '}'
	f = Field{Code: code, Order: m.order, NativeSize: m.native, Packed: m.packed, Repeat: 1, Record: rec}
	if f.Size, align, err = p.codeSize(code, codeAt, rec); err != nil {
		return f, false, 0, cost, err
	}
	if f.Name, err = p.name(); err != nil {
		return f, false, 0, cost, err
	}
	isString := code == "s" || code == "p" || code == "x" || code == "w"
	dims := shape
	switch {
	case code == "w": // a count of UCS-4 characters
		var ok bool
		if f.Size, ok = mulInt(count, 4); !ok {
			return f, false, 0, cost, p.errorf(start, "count too large")
		}
	case isString:
		f.Size = count
	case hasCount && count != 1 && (shape != nil || count == 0 && (f.Name != "" || p.numpy)):
		dims = append(dims, count)
	case hasCount && count != 1:
		f.Repeat = count
	}
	if len(dims) > maxFormatDims {
		return f, false, 0, cost, p.errorf(start, "sub-array has more than %d dimensions", maxFormatDims)
	}
	if p.numpy && shape != nil && (isString && f.Size == 0 || !isString && hasCount && count == 0) {
		return f, false, 0, cost, p.errorf(start, "NumPy makes no sub-array of unstructured items of 0 bytes")
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
	if cost, err = p.cost(&f, dims, recCost, start); err != nil {
		return f, false, 0, cost, err
	}
	return f, isField, align, cost, nil
}

// count parses the decimal count before a code, if there is one; start is
// where the item began, for errors.
func (p *formatParser) count(start int) (count int, hasCount bool, err error) {
	count = 1
	if p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
		count, hasCount = 0, true
		for p.pos < len(p.s) && '0' <= p.s[p.pos] && p.s[p.pos] <= '9' {
			var ok bool
			if count, ok = mulInt(count, 10); ok {
				count, ok = addInt(count, int(p.s[p.pos]-'0'))
			}
			if !ok {
				return 0, false, p.errorf(start, "count too large")
			}
			p.pos++
		}
	}
	if p.pos == len(p.s) {
		return 0, false, p.errorf(start, "count or shape without a format code")
	}
	return count, hasCount, nil
}

// code parses a format code: one letter, "Z" and a letter, or a record
// "T{...}" whose layout and cost it returns too.
func (p *formatParser) code(start int) (code string, codeAt int, rec *ItemDesc, recCost itemCost, err error) {
	codeAt = p.pos
	code = p.s[p.pos : p.pos+1]
	p.pos++
	switch code {
	case "u": // wchar_t, as array's 'u' and ctypes' c_wchar ("<u") write it
		switch {
		case p.numpy:
			return "", 0, nil, recCost, p.errorf(codeAt, "NumPy does not read format code %q here", code)
		case wcharSize != 4:
			return "", 0, nil, recCost, p.errorf(codeAt, "format code 'u' is a %d-byte wchar_t (UCS-2) here, which no dtype holds", wcharSize)
		}
		code = "w" // UCS-4, as NumPy's 'w'
	case "Z":
		if p.pos < len(p.s) {
			code += p.s[p.pos : p.pos+1]
			p.pos++
		}
	case "T":
		if p.pos == len(p.s) || p.s[p.pos] != '{' {
			return "", 0, nil, recCost, p.errorf(codeAt, "'T' not followed by '{'")
		}
		if p.depth == maxFormatDepth {
			return "", 0, nil, recCost, p.errorf(codeAt, "records nested more than %d deep", maxFormatDepth)
		}
		p.pos++
		p.depth++
		rec, recCost, err = p.items(true)
		p.depth--
		if err != nil {
			return "", 0, nil, recCost, err
		}
	}
	return code, codeAt, rec, recCost, nil
}

// codeSize returns the size of one element of code, or of record rec, and
// its alignment under '@', in the mode in force.
func (p *formatParser) codeSize(code string, codeAt int, rec *ItemDesc) (size, align int, err error) {
	if rec != nil {
		return rec.Size, rec.Align, nil
	}
	info, ok := formatCodes[code]
	switch {
	case !ok || code == "Z":
		return 0, 0, p.unknownCode(code, codeAt)
	case p.numpy && !numpyReadsCode(code, p.mode.native):
		return 0, 0, p.errorf(codeAt, "NumPy does not read format code %q here", code)
	case info.std == 0 && !p.mode.native:
		return 0, 0, p.errorf(codeAt, "format code %q needs native size ('@')", code)
	case p.mode.native:
		return info.nativeSize, info.nativeAlign, nil
	case p.calign && info.std != info.nativeSize: // 'l' and 'L': C's 4-byte int
		return info.std, info.std, nil
	case p.calign:
		return info.std, info.nativeAlign, nil
	}
	return info.std, 1, nil
}

// unknownCode returns the error for a code ParseFormat does not read.
func (p *formatParser) unknownCode(code string, codeAt int) error {
	if why, ok := refusedCodes[code]; ok {
		return p.errorf(codeAt, "format code %q refused: %s", code, why)
	}
	return p.errorf(codeAt, "unknown format code %q", code)
}

// name parses the ":name:" after a code, if there is one.
func (p *formatParser) name() (string, error) {
	if p.pos == len(p.s) || p.s[p.pos] != ':' {
		return "", nil
	}
	end := strings.IndexByte(p.s[p.pos+1:], ':')
	switch {
	case end < 0:
		return "", p.errorf(p.pos, "unterminated field name")
	case end == 0:
		return "", p.errorf(p.pos, "empty field name")
	}
	name := p.s[p.pos+1 : p.pos+1+end]
	if !utf8.ValidString(name) {
		return "", p.errorf(p.pos+1, "field name is not valid UTF-8")
	}
	p.nameAt = p.pos + 1
	p.pos += end + 2
	return name, nil
}

// cost returns what expanding field f costs (see itemCost); dims is its
// sub-array shape and recCost the cost of one element of its record.
func (p *formatParser) cost(f *Field, dims []int, recCost itemCost, start int) (itemCost, error) {
	cost := itemCost{leaves: 1}
	elemFree := 0
	if f.Size == 0 {
		elemFree = 1
	}
	if f.Record != nil {
		elemFree = satAdd(elemFree, recCost.free)
		if cost.leaves = satMul(f.Repeat, recCost.leaves); cost.leaves > maxFormatComponents {
			return cost, p.errorf(start, "more than %d components", maxFormatComponents)
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
	return cost, nil
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
