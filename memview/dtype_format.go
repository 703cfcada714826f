package memview

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// formatID is the DType id of a type described only by its PEP 3118 format:
// byte-swapped numbers (">f8"), records ("T{<i:a:<d:b:}"), strings ("5s"),
// sub-arrays, padding. Such DTypes copy, index and export like any other; their
// elements are read and written through their ItemDesc (Unpack, Pack).
const formatID = uint8(len(dtypeTable))

// formatType is what a format DType knows; one per distinct format string
// (interned, so that DTypes of equal formats compare equal with ==; DTypes of
// different spellings of one layout are SameLayout, and have the same name).
type formatType struct {
	format    string // the format it was made from, exported as it is (arrays over an exporter's memory)
	desc      *ItemDesc
	canonical string // desc.Canonical()
	basic     DType  // the basic DType of the same layout, if there is one
	name      string // the layout's one name: a basic name ("float64"), a typestr (">f8", "|S5") or the canonical format
	typestr   string // array-interface typestr: ">f8", "|S5", "|V12"
	kind      byte   // 'b', 'i', 'u', 'f', 'c', 'S' or 'V'

	normalOnce sync.Once
	normal     DType // what new arrays of the layout are made with (Normal)
	runsOnce   sync.Once
	runs       []ByteRun // the bytes its fields hold, nil for all (FieldRuns)
}

var formatTypes sync.Map // format string -> *formatType

// formatDType returns the DType of a PEP 3118 format that is not spelled as
// one of the basic types. Errors wrap ErrType: a format ParseFormat refuses
// (its message says why), or an item of zero bytes.
//
// Its name is the same for every spelling of its layout: the basic type's
// name when the layout is a basic type's ("1d", "d " and "=d" are
// "float64"), else the typestr of a single number or byte string (">f8",
// "<c4", "|S3"), else the canonical format ("T{<i:a:d:b:}"). ParseDType
// reads every such name back to a DType of the same layout.
func formatDType(format string) (DType, error) {
	if ft, ok := formatTypes.Load(format); ok {
		return DType{id: formatID, ft: ft.(*formatType)}, nil
	}
	desc, err := ParseFormat(format)
	if err != nil {
		return DType{}, fmt.Errorf("memview: unsupported buffer format %s: %v: %w", quote(format), err, ErrType)
	}
	if desc.Size == 0 {
		return DType{}, fmt.Errorf("memview: format %s describes items of 0 bytes: %w", quote(format), ErrType)
	}
	canon := desc.Canonical()
	ft := &formatType{format: format, desc: desc, canonical: canon, name: canon,
		typestr: "|V" + strconv.Itoa(desc.Size), kind: 'V'}
	if b, ok := basicWithCanonical(canon); ok {
		ft.basic, ft.name, ft.typestr, ft.kind = b, b.Name(), b.Typestr(), b.Kind()
	} else if f, ok := desc.single(); ok && f.Record == nil {
		code, size, dims := canonLeaf(f)
		order := orderChar(f.Order)
		if size == 1 {
			order = '|'
		}
		switch k := fieldKind(f.Code); {
		case dims != nil:
		case code == "s":
			ft.kind, ft.typestr = 'S', "|S"+strconv.Itoa(size)
			ft.name = ft.typestr
		case code == "w":
			ft.kind, ft.typestr = 'U', string(orderChar(f.Order))+"U"+strconv.Itoa(size/4)
			ft.name = ft.typestr
		case k != 0:
			ft.kind, ft.typestr = k, string(order)+string(k)+strconv.Itoa(size)
			ft.name = ft.typestr
		}
	}
	actual, _ := formatTypes.LoadOrStore(format, ft)
	return DType{id: formatID, ft: actual.(*formatType)}, nil
}

// fieldKind is the NumPy kind of a numeric format code ('b', 'i', 'u', 'f',
// 'c'), from formatCodes, or 0.
func fieldKind(code string) byte {
	if c, ok := formatCodes[code]; ok && strings.IndexByte("biufc", c.kind) >= 0 {
		return c.kind
	}
	return 0
}

// standardCode is the standard-size format code of a number of a kind ('b',
// 'i', 'u', 'f', 'c') and size, for writing it with an explicit byte order
// (">d" for big-endian float64), or "": read from formatCodes, where one code
// has each (the codes whose native size differs, 'l' and 'L', and 'P', the
// pointer-sized twin of 'Q', are left out).
func standardCode(kind byte, size int) string {
	return stdCodes[kindSize{kind, size}]
}

type kindSize struct {
	kind byte
	size int
}

var stdCodes = func() map[kindSize]string {
	m := map[kindSize]string{}
	for code, c := range formatCodes {
		if strings.IndexByte("biufc", c.kind) >= 0 && c.std != 0 && c.std == c.nativeSize && code != "l" && code != "L" && code != "P" {
			m[kindSize{c.kind, c.std}] = code
		}
	}
	return m
}()

// Item returns the item descriptor of d: for a basic DType, that of its
// format; nil for the zero DType.
func (d DType) Item() *ItemDesc {
	if d.ft != nil {
		return d.ft.desc
	}
	if !d.IsValid() {
		return nil
	}
	basicDescOnce.Do(func() {
		for _, b := range DTypes() {
			desc, err := ParseFormat(b.Format())
			if err != nil {
				panic("memview: basic dtype format does not parse: " + err.Error())
			}
			basicDescs[b.id] = desc
		}
	})
	return basicDescs[d.id]
}

var (
	basicDescOnce sync.Once
	basicDescs    [len(dtypeTable)]*ItemDesc
)

// Normal returns the DType memview makes new arrays of d's layout with
// (Empty, Copy, the creation of Python arrays from a dtype): the basic DType
// of the layout where there is one ("q", "<q" and "n" give Int64), else the
// format type of the layout's portable spelling, which NumPy's PEP 3118
// reader and memview read alike, and struct too where the layout is of
// struct's grammar ("ix", 5 bytes to struct and memview and 8 to NumPy, whose
// reader pads the whole item as a record, gives "<i1x"). An exporter's own
// spelling stays with the arrays over its memory and their views; new memory
// gets this one, so that its spelling depends on the layout alone.
func (d DType) Normal() DType {
	if b, ok := d.Basic(); ok || d.ft == nil {
		return b
	}
	ft := d.ft
	ft.normalOnce.Do(func() {
		ft.normal = d
		// from the canonical format, so that every spelling of the layout gets one
		c, err := ParseFormat(ft.canonical)
		if err != nil {
			return
		}
		if p := c.portableFormat(); p != ft.format {
			if n, err := formatDType(p); err == nil && n.ft.canonical == ft.canonical {
				ft.normal = n
			}
		}
	})
	return ft.normal
}

// IsBasic reports whether d is one of the native numeric DTypes (Bool ...
// Complex128), as opposed to a type described by a format.
func (d DType) IsBasic() bool { return d.id != 0 && d.id < formatID }

// DTypeOfExport returns the DType of an exporter's items: DTypeFromFormat of
// its format, whose item size must be itemsize. Where a record's format and
// the exporter's item size disagree but the layout is unambiguous, the items
// are that record with the padding the format leaves out added or dropped at
// the end:
//
//   - NumPy writes "T{d:a:b:b:}", 16 bytes under '@', for one aligned element
//     of a packed 9-byte dtype, and leaves out the padding at the end of a
//     record that is not its alignment's ("T{=i:a:}" for 5-byte items).
//   - ctypes writes a C structure with '<' or '>' before every field and none
//     of its padding ("T{<d:a:<c:b:}", 9 bytes as written, for a 16-byte
//     struct).
//
// The fields must end within itemsize. Where laying the fields out with C's
// alignment (cReading) gives itemsize at other offsets ("T{<i:a:<d:b:}" for
// a 16-byte struct of an int and a double) the format does not say where
// they are: an error says so (memview reads a ctypes object's layout from
// its type instead, in mv.from_buffer). A format of one number, string or
// sub-array gets no padding. The DType is then spelled as correctedFormat
// writes it: the exporter's string with the padding it left out, where NumPy
// reads that alike ("T{xxh:x:4x}" for NumPy's "T{xxh:x:}" of 8-byte items),
// else the layout's portable spelling. Where the string and the item size
// agree, the DType is DTypeFromFormat's: the exporter's string, unchanged.
// Any other mismatch wraps ErrInvalid.
func DTypeOfExport(format string, itemsize int) (DType, error) {
	dt, err := DTypeFromFormat(format)
	if err != nil || dt.Itemsize() == itemsize {
		return dt, err
	}
	mismatch := fmt.Errorf("memview: format %s has item size %d but the exporter says %d: %w",
		quote(format), dt.Itemsize(), itemsize, ErrInvalid)
	d := dt.Item()
	rec := d
	f, single := d.single()
	if single && f.Record != nil && elemDims(f) == nil {
		rec, single = f.Record, false
	}
	if itemsize <= 0 || single || len(rec.Fields) == 0 {
		return DType{}, mismatch
	}
	if c, err := cReading(format); itemsize > d.Size && err == nil && c.Size == itemsize && !sameLeaves(c, d) {
		return DType{}, fmt.Errorf("memview: format %s has item size %d but the exporter says %d; "+
			"laid out with C's alignment (as ctypes writes structures, without their padding) its fields "+
			"would fill %d bytes, but at other offsets, which the format does not give: %w",
			quote(format), dt.Itemsize(), itemsize, itemsize, ErrInvalid)
	}
	for _, f := range rec.Fields {
		if f.Offset+f.Size*f.Repeat > itemsize {
			return DType{}, mismatch
		}
	}
	resized := *rec
	resized.Size = itemsize
	out, err := formatDType(correctedFormat(format, &resized))
	if err != nil || out.Itemsize() != itemsize || out.ft.canonical != resized.Canonical() {
		return DType{}, mismatch
	}
	return out, nil
}

// correctedFormat spells layout want, which an exporter's format s states
// with the wrong item size (DTypeOfExport), so that NumPy reads it with the
// exporter's item size, field names and offsets: s with the padding it left
// out at the end written inside its record ("T{xxh:x:}" becomes
// "T{xxh:x:4x}") or after its fields, where memview and NumPy both read that
// as want; else want's portable spelling, or its canonical format.
func correctedFormat(s string, want *ItemDesc) string {
	canon := want.Canonical()
	readsAlike := func(c string) bool {
		d, err := ParseFormat(c)
		if err != nil || d.Canonical() != canon {
			return false
		}
		n, err := numpyReading(c)
		return err == nil && n.Canonical() == canon
	}
	if got, err := ParseFormat(s); err == nil && got.Size < want.Size {
		pad := strconv.Itoa(want.Size-got.Size) + "x"
		t := strings.TrimRight(s, " ")
		if strings.HasPrefix(t, "T{") && strings.HasSuffix(t, "}") {
			if c := t[:len(t)-1] + pad + "}"; readsAlike(c) {
				return c
			}
		}
		if c := t + pad; readsAlike(c) {
			return c
		}
	}
	if p := want.portableFormat(); readsAlike(p) {
		return p
	}
	return canon
}
