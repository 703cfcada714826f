package memview

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
)

// Unpack decodes the item at the start of b (which must hold at least Size
// bytes) into one value per field, honouring each field's byte order:
//
//	'?'                          bool (any non-zero byte is true)
//	'c'                          byte
//	b h i l q n                  int64
//	B H I L Q N P                uint64
//	e f d                        float64 (e is IEEE 754 half precision)
//	Ze Zf Zd                     complex128
//	s, named x                   []byte of Size bytes
//	p                            []byte: the Pascal string (length byte first, at most Size-1 bytes)
//	T                            []any, one value per field of the record
//
// A field with Repeat > 1 or a Shape gives an []any of its elements, nested
// one level per dimension of Shape. Byte strings are copies; nothing returned
// aliases b.
func (d *ItemDesc) Unpack(b []byte) ([]any, error) {
	if d.Size < 0 || len(b) < d.Size {
		return nil, fmt.Errorf("memview: unpack needs %d bytes for one item, got %d: %w", d.Size, len(b), ErrInvalid)
	}
	return d.unpack(b[:d.Size], "")
}

func (d *ItemDesc) unpack(b []byte, path string) ([]any, error) {
	out := make([]any, len(d.Fields))
	for i := range d.Fields {
		f := &d.Fields[i]
		fp := fieldPath(path, f.Name, i)
		if err := checkField(f, len(b), fp); err != nil {
			return nil, err
		}
		k := 0
		v, err := eachElement(f, func() (any, error) {
			at := f.Offset + k*f.Size
			k++
			return unpackElem(f, b[at:at+f.Size], fp)
		})
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// elemDims returns the dimensions the elements of f nest by: Shape, [Repeat]
// for a plain repeat, or nil for a single element.
func elemDims(f *Field) []int {
	switch {
	case f.Shape != nil:
		return f.Shape
	case f.Repeat != 1:
		return []int{f.Repeat}
	}
	return nil
}

// eachElement calls next once per element of f and returns the scalar, or
// the elements nested as []any by elemDims(f).
func eachElement(f *Field, next func() (any, error)) (any, error) {
	var build func(dims []int) (any, error)
	build = func(dims []int) (any, error) {
		if len(dims) == 0 {
			return next()
		}
		out := make([]any, dims[0])
		for i := range out {
			v, err := build(dims[1:])
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return build(elemDims(f))
}

// byteOrder returns the encoding/binary order for o.
func byteOrder(o ByteOrder) binary.ByteOrder {
	switch o {
	case Little:
		return binary.LittleEndian
	case Big:
		return binary.BigEndian
	}
	return binary.NativeEndian
}

// getUint reads an unsigned integer of len(e) bytes (1, 2, 4 or 8).
func getUint(o binary.ByteOrder, e []byte) (uint64, bool) {
	switch len(e) {
	case 1:
		return uint64(e[0]), true
	case 2:
		return uint64(o.Uint16(e)), true
	case 4:
		return uint64(o.Uint32(e)), true
	case 8:
		return o.Uint64(e), true
	}
	return 0, false
}

// putUint writes the low len(e) bytes of v (len 1, 2, 4 or 8).
func putUint(o binary.ByteOrder, e []byte, v uint64) {
	switch len(e) {
	case 1:
		e[0] = byte(v)
	case 2:
		o.PutUint16(e, uint16(v))
	case 4:
		o.PutUint32(e, uint32(v))
	case 8:
		o.PutUint64(e, v)
	}
}

// getFloat reads a half, single, double or long double from e (2, 4, 8 or 16
// bytes).
func getFloat(o binary.ByteOrder, e []byte) float64 {
	if len(e) == 16 {
		return longDoubleToFloat64(o, e)
	}
	u, _ := getUint(o, e)
	switch len(e) {
	case 2:
		return float16ToFloat64(uint16(u))
	case 4:
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(u)
}

// codeKind classifies the codes for Pack and Unpack.
func codeKind(code string) byte {
	switch code {
	case "b", "h", "i", "l", "q", "n":
		return 'i'
	case "B", "H", "I", "L", "Q", "N", "P":
		return 'u'
	case "e", "f", "d", "g":
		return 'f'
	case "Ze", "Zf", "Zd", "Zg":
		return 'z'
	case "s", "x":
		return 's'
	case "?", "c", "p", "T", "w":
		return code[0]
	}
	return 0 // unknown
}

// sizeFits reports whether size is valid for one element of kind k.
func sizeFits(k byte, size int) bool {
	switch k {
	case 'i', 'u':
		return size == 1 || size == 2 || size == 4 || size == 8
	case 'f':
		return size == 2 || size == 4 || size == 8 || size == 16
	case 'z':
		return size == 4 || size == 8 || size == 16 || size == 32
	case 'w':
		return size%4 == 0
	case '?', 'c':
		return size == 1
	case 's', 'p', 'T':
		return true
	}
	return false
}

// checkField returns an ErrInvalid error unless f is a field ParseFormat
// could have made for an item of itemLen bytes: a known code with a size
// that fits it, a Record exactly for "T", a Shape of non-negative dimensions
// whose product is Repeat, and bytes inside the item. Fields from
// ParseFormat always pass; the check keeps hand-made ones from panicking.
func checkField(f *Field, itemLen int, path string) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("memview: field %s: %s: %w", path, fmt.Sprintf(format, args...), ErrInvalid)
	}
	if !sizeFits(codeKind(f.Code), f.Size) || (f.Code == "T") != (f.Record != nil) {
		return bad("format code %q with size %d", f.Code, f.Size)
	}
	if f.Shape != nil {
		n, ok := 1, true
		for _, d := range f.Shape {
			if ok = ok && d >= 0; ok {
				n, ok = mulInt(n, d)
			}
		}
		if !ok || n != f.Repeat {
			return bad("shape %v does not hold %d elements", f.Shape, f.Repeat)
		}
	}
	end, ok := mulInt(f.Size, f.Repeat)
	if ok {
		end, ok = addInt(f.Offset, end)
	}
	if !ok || f.Offset < 0 || f.Size < 0 || f.Repeat < 0 || end > itemLen {
		return bad("bytes [%d, +%d*%d) outside the %d-byte item", f.Offset, f.Size, f.Repeat, itemLen)
	}
	return nil
}

// unpackElem decodes one element of f from e (len(e) == f.Size).
func unpackElem(f *Field, e []byte, path string) (any, error) {
	o := byteOrder(f.Order)
	switch codeKind(f.Code) {
	case '?':
		return e[0] != 0, nil
	case 'c':
		return e[0], nil
	case 'i':
		u, _ := getUint(o, e)
		shift := 64 - 8*len(e)
		return int64(u<<shift) >> shift, nil
	case 'u':
		u, _ := getUint(o, e)
		return u, nil
	case 'f':
		return getFloat(o, e), nil
	case 'z':
		h := len(e) / 2
		return complex(getFloat(o, e[:h]), getFloat(o, e[h:])), nil
	case 's':
		return append([]byte{}, e...), nil
	case 'w':
		return getUCS4(o, e), nil
	case 'p':
		if len(e) == 0 {
			return []byte{}, nil
		}
		n := min(int(e[0]), len(e)-1)
		return append([]byte{}, e[1:1+n]...), nil
	}
	return f.Record.unpack(e, path) // 'T'
}

// Pack encodes vals, one per field in the form Unpack returns, as one item
// at the start of dst (which must hold at least Size bytes), honouring each
// field's byte order. Padding bytes are written as zeros, as struct does.
//
// Accepted Go types: '?' bool; 'c' byte, or a []byte or string of length 1;
// integer codes any Go integer type, in the range of the field (as struct,
// 'P' also takes negative values and stores them in two's complement); e f d
// any Go integer or float ('g' keeps every float64 exactly; Unpack rounds a
// long double to the nearest float64); Ze Zf Zd Zg also complex64 and
// complex128; 'w' a string (Unpack drops trailing NULs, as NumPy); s, p and
// named x a []byte or string, zero-padded when shorter and truncated when
// longer ('p' as struct's Pascal string); a record, a repeat or a sub-array
// an []any of the right length, nested as Unpack returns it.
//
// As struct does, a finite value too large for 'e' (or for 'f' and the parts
// of 'Zf' with standard sizes) is refused; with native sizes 'f' rounds it
// to infinity. A value of the wrong Go type wraps ErrType; a wrong count or
// length, an out-of-range value or a short dst wraps ErrInvalid. On error dst
// is unchanged: the item is checked in full before any byte is written.
func (d *ItemDesc) Pack(dst []byte, vals []any) error {
	if d.Size < 0 || len(dst) < d.Size {
		return fmt.Errorf("memview: pack needs %d bytes for one item, got %d: %w", d.Size, len(dst), ErrInvalid)
	}
	item := make([]byte, d.Size) // zeros: the padding
	if err := d.pack(item, vals, ""); err != nil {
		return err
	}
	copy(dst, item)
	return nil
}

func (d *ItemDesc) pack(b []byte, vals []any, path string) error {
	if len(vals) != len(d.Fields) {
		return fmt.Errorf("memview: pack %s: %d values for %d fields: %w", recordName(path), len(vals), len(d.Fields), ErrInvalid)
	}
	for i := range d.Fields {
		f := &d.Fields[i]
		fp := fieldPath(path, f.Name, i)
		if err := checkField(f, len(b), fp); err != nil {
			return err
		}
		end := f.Offset + f.Size*f.Repeat
		if err := packElements(f, b[f.Offset:end], vals[i], elemDims(f), fp); err != nil {
			return err
		}
	}
	return nil
}

// packElements packs v, nested as []any by dims, into b, which holds
// exactly those elements of f.
func packElements(f *Field, b []byte, v any, dims []int, path string) error {
	if len(dims) == 0 {
		return packElem(f, b, v, path)
	}
	list, ok := v.([]any)
	if !ok {
		return fmt.Errorf("memview: pack field %s: %T, want []any of %d: %w", path, v, dims[0], ErrType)
	}
	if len(list) != dims[0] {
		return fmt.Errorf("memview: pack field %s: %d values, want %d: %w", path, len(list), dims[0], ErrInvalid)
	}
	step := 0
	if dims[0] > 0 {
		step = len(b) / dims[0]
	}
	for i, x := range list {
		if err := packElements(f, b[i*step:(i+1)*step], x, dims[1:], path+"["+strconv.Itoa(i)+"]"); err != nil {
			return err
		}
	}
	return nil
}

// packElem encodes v as one element of f into e (len(e) == f.Size).
func packElem(f *Field, e []byte, v any, path string) error {
	typeErr := func() error {
		return fmt.Errorf("memview: pack field %s: %T for format code %q: %w", path, v, f.Code, ErrType)
	}
	rangeErr := func(what string) error {
		return fmt.Errorf("memview: pack field %s: %v %s for format code %q (%d bytes): %w", path, v, what, f.Code, f.Size, ErrInvalid)
	}
	o := byteOrder(f.Order)
	switch k := codeKind(f.Code); k {
	case '?':
		x, ok := v.(bool)
		if !ok {
			return typeErr()
		}
		if x {
			e[0] = 1
		}
	case 'c':
		switch x := v.(type) {
		case byte:
			e[0] = x
		case []byte, string:
			s := asBytes(x)
			if len(s) != 1 {
				return rangeErr("is not of length 1")
			}
			e[0] = s[0]
		default:
			return typeErr()
		}
	case 'i', 'u':
		mag, neg, ok := asInteger(v)
		if !ok {
			return typeErr()
		}
		bits := uint(8 * len(e))
		var limit uint64 // largest magnitude allowed
		switch {
		case k == 'u' && !neg:
			limit = math.MaxUint64 >> (64 - bits)
		case k == 'u' && f.Code != "P":
			return rangeErr("out of range")
		case neg:
			limit = 1 << (bits - 1)
		default:
			limit = 1<<(bits-1) - 1
		}
		if mag > limit {
			return rangeErr("out of range")
		}
		u := mag
		if neg {
			u = -mag // two's complement
		}
		putUint(o, e, u)
	case 'f':
		x, ok := asFloat(v)
		if !ok {
			return typeErr()
		}
		if err := putFloat(o, e, x, f.NativeSize); err != nil {
			return rangeErr(err.Error())
		}
	case 'z':
		x, ok := asComplex(v)
		if !ok {
			return typeErr()
		}
		h := len(e) / 2
		if err := putFloat(o, e[:h], real(x), f.NativeSize); err != nil {
			return rangeErr(err.Error())
		}
		if err := putFloat(o, e[h:], imag(x), f.NativeSize); err != nil {
			return rangeErr(err.Error())
		}
	case 's', 'p':
		switch v.(type) {
		case []byte, string:
		default:
			return typeErr()
		}
		s := asBytes(v)
		if k == 's' {
			copy(e, s)
			break
		}
		if len(e) > 0 {
			n := min(len(s), len(e)-1)
			copy(e[1:], s[:n])
			e[0] = byte(min(n, 255))
		}
	case 'w':
		s, ok := v.(string)
		if !ok {
			return typeErr()
		}
		if !putUCS4(o, e, s) {
			return rangeErr("does not fit")
		}
	case 'T':
		list, ok := v.([]any)
		if !ok {
			return typeErr()
		}
		return f.Record.pack(e, list, path)
	}
	return nil
}

// putFloat encodes x as a half, single or double into e (2, 4 or 8 bytes).
// As struct, a finite x that rounds to infinity is refused, except for a
// single with native sizes.
func putFloat(o binary.ByteOrder, e []byte, x float64, native bool) error {
	switch len(e) {
	case 2:
		h := float64ToFloat16(x)
		if h&0x7fff == 0x7c00 && !math.IsInf(x, 0) {
			return fmt.Errorf("too large")
		}
		o.PutUint16(e, h)
	case 4:
		y := float32(x)
		if math.IsInf(float64(y), 0) && !math.IsInf(x, 0) && !native {
			return fmt.Errorf("too large")
		}
		o.PutUint32(e, math.Float32bits(y))
	case 16:
		float64ToLongDouble(o, e, x)
	default:
		o.PutUint64(e, math.Float64bits(x))
	}
	return nil
}

// asBytes returns the bytes of a []byte or string.
func asBytes(v any) []byte {
	if s, ok := v.(string); ok {
		return []byte(s)
	}
	b, _ := v.([]byte)
	return b
}

// asInteger returns the magnitude and sign of a Go integer.
func asInteger(v any) (mag uint64, neg, ok bool) {
	var i int64
	switch x := v.(type) {
	case int:
		i = int64(x)
	case int8:
		i = int64(x)
	case int16:
		i = int64(x)
	case int32:
		i = int64(x)
	case int64:
		i = x
	case uint:
		return uint64(x), false, true
	case uint8:
		return uint64(x), false, true
	case uint16:
		return uint64(x), false, true
	case uint32:
		return uint64(x), false, true
	case uint64:
		return x, false, true
	case uintptr:
		return uint64(x), false, true
	default:
		return 0, false, false
	}
	if i < 0 {
		return uint64(-(i + 1)) + 1, true, true
	}
	return uint64(i), false, true
}

// asFloat returns a Go float or integer as a float64.
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	}
	mag, neg, ok := asInteger(v)
	if neg {
		return -float64(mag), ok
	}
	return float64(mag), ok
}

// asComplex returns a Go complex, float or integer as a complex128.
func asComplex(v any) (complex128, bool) {
	switch x := v.(type) {
	case complex128:
		return x, true
	case complex64:
		return complex128(x), true
	}
	r, ok := asFloat(v)
	return complex(r, 0), ok
}

// fieldPath names field i of the record at path for error messages:
// "a", "rec.b", or "#2" for an unnamed field.
func fieldPath(path, name string, i int) string {
	if name == "" {
		name = "#" + strconv.Itoa(i)
	}
	if path == "" {
		return name
	}
	return path + "." + name
}

// recordName names the record at path for error messages.
func recordName(path string) string {
	if path == "" {
		return "item"
	}
	return "record " + path
}
