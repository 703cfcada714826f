package memview

import (
	"fmt"
	"strconv"
	"strings"
)

// DType is an element type: one of the package variables Bool ... Complex128
// (the basic types), or any other item a PEP 3118 format describes —
// byte-swapped numbers, records, strings, sub-arrays (see ParseDType and
// DTypeFromFormat). It is a small comparable value: DTypes of equal format
// strings are equal. The zero DType is invalid.
type DType struct {
	id uint8
	ft *formatType // for id == formatID
}

// dtypeInfo describes one DType.
type dtypeInfo struct {
	name    string
	kind    byte // 'b', 'i', 'u', 'f', 'c'
	size    int
	format  string // PEP 3118 format NumPy exports on Linux x86-64
	typestr string // array-interface typestr, little-endian
}

// dtypeTable is indexed by DType.id; entry 0 is the invalid DType.
var dtypeTable = [...]dtypeInfo{
	{},
	{"bool", 'b', 1, "?", "|b1"},
	{"int8", 'i', 1, "b", "|i1"},
	{"int16", 'i', 2, "h", "<i2"},
	{"int32", 'i', 4, "i", "<i4"},
	{"int64", 'i', 8, "l", "<i8"},
	{"uint8", 'u', 1, "B", "|u1"},
	{"uint16", 'u', 2, "H", "<u2"},
	{"uint32", 'u', 4, "I", "<u4"},
	{"uint64", 'u', 8, "L", "<u8"},
	{"float16", 'f', 2, "e", "<f2"},
	{"float32", 'f', 4, "f", "<f4"},
	{"float64", 'f', 8, "d", "<f8"},
	{"complex64", 'c', 8, "Zf", "<c8"},
	{"complex128", 'c', 16, "Zd", "<c16"},
}

// The supported element types, named as in NumPy. All are native
// (little-endian) byte order.
var (
	Bool       = DType{id: 1}  // bool, 1 byte
	Int8       = DType{id: 2}  // int8
	Int16      = DType{id: 3}  // int16
	Int32      = DType{id: 4}  // int32
	Int64      = DType{id: 5}  // int64
	Uint8      = DType{id: 6}  // uint8
	Uint16     = DType{id: 7}  // uint16
	Uint32     = DType{id: 8}  // uint32
	Uint64     = DType{id: 9}  // uint64
	Float16    = DType{id: 10} // IEEE 754 half precision
	Float32    = DType{id: 11} // float32
	Float64    = DType{id: 12} // float64
	Complex64  = DType{id: 13} // two float32
	Complex128 = DType{id: 14} // two float64
)

// DTypes lists every valid DType, in a fixed order.
func DTypes() []DType {
	out := make([]DType, 0, len(dtypeTable)-1)
	for i := 1; i < len(dtypeTable); i++ {
		out = append(out, DType{id: uint8(i)})
	}
	return out
}

func (d DType) info() dtypeInfo {
	if d.id == formatID && d.ft != nil {
		return dtypeInfo{name: d.ft.name, kind: d.ft.kind, size: d.ft.desc.Size, format: d.ft.format, typestr: d.ft.typestr}
	}
	if int(d.id) >= len(dtypeTable) {
		return dtypeTable[0]
	}
	return dtypeTable[d.id]
}

// IsValid reports whether d is a basic or a format type (false for the zero
// DType).
func (d DType) IsValid() bool {
	return (d.id != 0 && int(d.id) < len(dtypeTable)) || (d.id == formatID && d.ft != nil)
}

// Name returns the NumPy name, such as "float64". A format type has the name
// of its layout, the same for every spelling of it: a basic type's name when
// its layout is one ("1d" is "float64"), else its typestr (">f8", "|S5",
// "<c4"), else, for records and other compound items, its canonical format
// (see ItemDesc.Canonical). "invalid" for the zero DType.
func (d DType) Name() string {
	if !d.IsValid() {
		return "invalid"
	}
	return d.info().name
}

// String returns Name().
func (d DType) String() string { return d.Name() }

// Itemsize returns the size of one element in bytes (0 for the zero DType).
func (d DType) Itemsize() int { return d.info().size }

// Kind returns the NumPy kind character: 'b', 'i', 'u', 'f' or 'c', and for
// format types also 'S' (bytes) or 'V' (records and other compound items); 0
// for the zero DType.
func (d DType) Kind() byte { return d.info().kind }

// Typestr returns the NumPy array-interface type string, such as "<f8" or
// "|u1" ('|' for one-byte types).
func (d DType) Typestr() string {
	if !d.IsValid() {
		return ""
	}
	return d.info().typestr
}

// Format returns the PEP 3118 format exported in Py_buffer.format. For the
// basic types it is NumPy's on Linux x86-64: "?", "b", "B", "h", "H", "i",
// "I", "l", "L", "e", "f", "d", "Zf", "Zd"; a format type exports the format
// it was made from, unchanged (see DTypeFromFormat), and new arrays are made
// with the spelling of Normal.
func (d DType) Format() string { return d.info().format }

// dtypeNames maps NumPy names, aliases and one-character codes to DTypes.
var dtypeNames = map[string]DType{
	"bool": Bool, "bool_": Bool, "?": Bool,
	"int8": Int8, "byte": Int8, "b": Int8,
	"int16": Int16, "short": Int16, "h": Int16,
	"int32": Int32, "intc": Int32, "i": Int32,
	"int64": Int64, "int": Int64, "int_": Int64, "long": Int64, "longlong": Int64, "intp": Int64, "l": Int64, "q": Int64,
	"uint8": Uint8, "ubyte": Uint8, "B": Uint8,
	"uint16": Uint16, "ushort": Uint16, "H": Uint16,
	"uint32": Uint32, "uintc": Uint32, "I": Uint32,
	"uint64": Uint64, "uint": Uint64, "ulong": Uint64, "ulonglong": Uint64, "uintp": Uint64, "L": Uint64, "Q": Uint64, "P": Uint64,
	"float16": Float16, "half": Float16, "e": Float16,
	"float32": Float32, "single": Float32, "f": Float32,
	"float64": Float64, "float": Float64, "double": Float64, "d": Float64,
	"complex64": Complex64, "csingle": Complex64, "F": Complex64,
	"complex128": Complex128, "complex": Complex128, "cdouble": Complex128, "D": Complex128,
}

// ParseDType parses a NumPy dtype name ("float64", "int8", "bool",
// "complex128", "float16", aliases such as "double"), a character or
// kind-and-size code ("f8", "i4", "u1", "b1", "c16", "?", "d", "f", "e"), a
// typestr ("<f8", "|u1", "=i4"; big-endian ">f8" gives the format type ">d"),
// or any PEP 3118 format DTypeFromFormat accepts ("T{<i:a:<d:b:}"). An unknown
// name wraps ErrType.
func ParseDType(s string) (DType, error) {
	if len(s) == 2 && strings.IndexByte("<>=!", s[0]) >= 0 && (s[1] == 'l' || s[1] == 'L') {
		// NumPy reads "<l" as a C long (8 bytes here), a PEP 3118 format as a
		// standard-size long (4 bytes): refuse rather than pick one silently.
		return DType{}, fmt.Errorf("memview: data type %q is ambiguous: NumPy reads it as %d bytes (C long), "+
			"a PEP 3118 format as 4; write %q or %q: %w", s, longSize, numpyName(s[1], 8), numpyName(s[1], 4), ErrType)
	}
	body, swapped := s, false
	if len(s) > 1 {
		switch s[0] {
		case '<', '=', '|':
			body = s[1:]
		case '>', '!':
			body, swapped = s[1:], true
		}
	}
	d, ok := dtypeNames[body]
	if !ok {
		d, ok = parseKindSize(body)
	}
	if !ok && body == "c4" { // complex32, a format type: the typestr "<c4" names "Ze"
		if swapped {
			return formatDType(">Ze")
		}
		return formatDType("<Ze")
	}
	if !ok && len(body) > 1 && body[0] == 'S' && strings.TrimLeft(body[1:], "0123456789") == "" && body[1] != '0' {
		return formatDType(body[1:] + "s") // NumPy's bytes typestr "|S5": the format "5s"
	}
	if !ok {
		if f, isExt := numpyExtension(body, swapped); isExt {
			return formatDType(f)
		}
	}
	if !ok {
		if s == "" {
			return DType{}, fmt.Errorf("memview: data type \"\" not understood: %w", ErrType)
		}
		f, err := DTypeFromFormat(s)
		if err != nil {
			return DType{}, fmt.Errorf("memview: data type %s not understood (not a NumPy name or typestr; as a PEP 3118 format: %v): %w", quote(s), err, ErrType)
		}
		return f, nil
	}
	if swapped && d.Itemsize() > 1 {
		return formatDType(">" + standardCode(d.Kind(), d.Itemsize()))
	}
	return d, nil
}

// numpyExtension returns the format of a NumPy type that only a format type
// describes: str "U3" ("3w"), void "V4" ("4x"), long double "f16", "g",
// "longdouble" or "float128" ("g") and its complex ("Zg"); big-endian when
// swapped.
func numpyExtension(body string, swapped bool) (string, bool) {
	order := "<"
	if swapped {
		order = ">"
	}
	native := order // long doubles are native-only to NumPy's format reader
	if !swapped {
		native = ""
	}
	switch body {
	case "f16", "g", "longdouble", "float128":
		return native + "g", true
	case "c32", "G", "clongdouble", "complex256":
		return native + "Zg", true
	}
	if len(body) > 1 && (body[0] == 'U' || body[0] == 'V') && body[1] != '0' &&
		strings.TrimLeft(body[1:], "0123456789") == "" {
		if body[0] == 'U' {
			return order + body[1:] + "w", true
		}
		return body[1:] + "x", true
	}
	return "", false
}

// numpyName names the integer of size bytes, signed for code 'l', unsigned
// for 'L'.
func numpyName(code byte, size int) string {
	if code == 'L' {
		return "uint" + strconv.Itoa(8*size)
	}
	return "int" + strconv.Itoa(8*size)
}

// ParseDTypeOrFormat parses s as a PEP 3118 format first (DTypeFromFormat),
// and as a NumPy name or typestr (ParseDType) only if it is not one: the
// reading of item descriptors, where "<l" is struct's 4-byte long and "p" a
// Pascal string.
func ParseDTypeOrFormat(s string) (DType, error) {
	if s != "" {
		if d, err := DTypeFromFormat(s); err == nil {
			return d, nil
		}
	}
	return ParseDType(s)
}

// parseKindSize parses a kind character followed by a size in bytes ("f8").
func parseKindSize(s string) (DType, bool) {
	if len(s) < 2 || strings.TrimLeft(s[1:], "0123456789") != "" || s[1] == '0' {
		return DType{}, false
	}
	for _, d := range DTypes() {
		if d.Kind() == s[0] && fmt.Sprint(d.Itemsize()) == s[1:] {
			return d, true
		}
	}
	return DType{}, false
}

// DTypeFromFormat returns the DType of a PEP 3118 format. A basic type's own
// format (? b B h H i I l L e f d Zf Zd, as Format returns them) gives that
// basic DType, and the empty format means "B".
//
// Every other format ParseFormat accepts gives a format type whose Format is
// the string given, byte for byte, so that an array imported from an
// exporter exports the exporter's spelling again, as CPython's memoryview
// does: other spellings of a basic type ("q", "<d", "=l", "@h", "n"),
// big-endian items, records ("T{...}"), repeat counts, sub-arrays, strings,
// padding, whitespace — also where NumPy reads the string otherwise than
// memview and struct do ("ix" is 5 bytes to struct and 8 to NumPy) or not at
// all ('n' in a record, 'P'): a consumer fails on it as it fails on the
// exporter. Normal gives the spelling of new arrays. A format type of a basic
// type's layout has that type's name, typestr and kind, and is SameLayout
// with it. Sizes follow the struct module: with '@' or no prefix (native) 'l'
// and 'L' are 8 bytes (LP64); with '=' or '<' (standard sizes) they are 4
// bytes; 'n' and 'N' exist only in native mode. A format ParseFormat refuses,
// or items of 0 bytes, wrap ErrType.
func DTypeFromFormat(format string) (DType, error) {
	if d, err := basicFromFormat(format); err == nil && (format == "" || format == d.Format()) {
		return d, nil
	}
	return formatDType(format)
}

// basicFromFormat maps a single native numeric item to its basic DType.
func basicFromFormat(format string) (DType, error) {
	body, native := format, true
	if format != "" {
		switch format[0] {
		case '@':
			body = format[1:]
		case '=', '<':
			body, native = format[1:], false
		case '>', '!':
			return DType{}, fmt.Errorf("memview: format %q is big-endian; byte-swapped formats are not supported yet: %w", format, ErrType)
		}
	}
	var d DType
	switch body {
	case "", "B":
		d = Uint8
	case "?":
		d = Bool
	case "b":
		d = Int8
	case "h":
		d = Int16
	case "H":
		d = Uint16
	case "i":
		d = Int32
	case "I":
		d = Uint32
	case "q":
		d = Int64
	case "Q":
		d = Uint64
	case "e":
		d = Float16
	case "f":
		d = Float32
	case "d":
		d = Float64
	case "Zf":
		d = Complex64
	case "Zd":
		d = Complex128
	case "l":
		d = Int32
		if native {
			d = Int64
		}
	case "L":
		d = Uint32
		if native {
			d = Uint64
		}
	case "n", "N":
		if !native {
			return DType{}, fmt.Errorf("memview: format %q: 'n' and 'N' exist only with native sizes: %w", format, ErrType)
		}
		d = Int64
		if body == "N" {
			d = Uint64
		}
	default:
		return DType{}, fmt.Errorf("memview: unsupported buffer format %q (want one native numeric item): %w", format, ErrType)
	}
	if format == "" && body == "" {
		return Uint8, nil
	}
	if body == "" {
		// A lone prefix ("<") names no item.
		return DType{}, fmt.Errorf("memview: unsupported buffer format %q (no item after the byte order): %w", format, ErrType)
	}
	return d, nil
}
