package memview

import "fmt"

// Record fields by name, as NumPy has them: a["b"] is a view of field b's
// elements (a sub-array field adds its dimensions as axes), and
// a[["a", "c"]] a view whose items hold only fields a and c, at their
// offsets, with the whole item's size — so that the bytes of the other
// fields lie in its gaps, which writes never touch (FieldRuns).

// FieldView says where one field of a record's items lies and what its
// elements are.
type FieldView struct {
	Offset  int   // bytes from the start of the item to the field
	Shape   []int // the field's sub-array dimensions, nil for one element
	Strides []int // their byte strides (C order, one element apart)
	DType   DType // one element of the field, spelled as memview spells new types (Normal)
}

// fields returns the named fields of d's items: a record's ("T{...}") or the
// top level's; an error wrapping ErrType for an item that has none.
func (d DType) fields() ([]Field, error) {
	desc := d.Item()
	if desc == nil {
		return nil, fmt.Errorf("memview: invalid dtype has no fields: %w", ErrType)
	}
	fs := desc.Fields
	if topRecord(desc) {
		fs = desc.Fields[0].Record.Fields
	}
	for _, f := range fs {
		if f.Name != "" {
			return fs, nil
		}
	}
	return nil, fmt.Errorf("memview: %s has no named fields: %w", d, ErrType)
}

// fieldNamed finds field name among fs; an error wrapping ErrInvalid (NumPy's
// ValueError) when there is none.
func fieldNamed(d DType, fs []Field, name string) (Field, error) {
	for _, f := range fs {
		if f.Name == name && name != "" {
			return f, nil
		}
	}
	return Field{}, fmt.Errorf("memview: no field of name %s in %s: %w", name, d, ErrInvalid)
}

// Field returns where field name of d's items lies, and what its elements
// are (NumPy's a["name"]). An item without named fields wraps ErrType; a
// name it does not have wraps ErrInvalid.
func (d DType) Field(name string) (FieldView, error) {
	fs, err := d.fields()
	if err != nil {
		return FieldView{}, err
	}
	f, err := fieldNamed(d, fs, name)
	if err != nil {
		return FieldView{}, err
	}
	one := f
	one.Name, one.Offset, one.Shape, one.Repeat = "", 0, nil, 1
	_, size, dims := canonLeaf(&f) // "3c" is one string of 3 bytes; "(2)3c" two of 3
	if f.Code == "c" {
		one.Code, one.Size = "s", size
	}
	elem, err := formatDType(one.Format())
	if err != nil {
		return FieldView{}, fmt.Errorf("memview: field %s of %s: %w", name, d, err)
	}
	v := FieldView{Offset: f.Offset, DType: elem.Normal()}
	if len(dims) > 0 {
		v.Shape = append([]int(nil), dims...)
		v.Strides, err = ContiguousStrides(dims, size, 'C')
		if err != nil {
			return FieldView{}, err
		}
	}
	return v, nil
}

// Select returns the DType of items that hold only the named fields of d's,
// in the order given, at their offsets, with d's item size (NumPy's
// multi-field view a[["a", "c"]]): the other fields' bytes become gaps. The
// names must be distinct and in the order of their offsets, which is the only
// order a PEP 3118 format describes (else ErrInvalid); an item without named
// fields wraps ErrType.
func (d DType) Select(names ...string) (DType, error) {
	fs, err := d.fields()
	if err != nil {
		return DType{}, err
	}
	desc := &ItemDesc{Size: d.Itemsize(), Align: 1}
	end := 0
	for k, name := range names {
		f, err := fieldNamed(d, fs, name)
		if err != nil {
			return DType{}, err
		}
		for _, prev := range names[:k] {
			if prev == name {
				return DType{}, fmt.Errorf("memview: duplicate field of name %s: %w", name, ErrInvalid)
			}
		}
		if f.Offset < end {
			return DType{}, fmt.Errorf("memview: fields %s of %s are not in the order of their offsets, which "+
				"no PEP 3118 format describes: %w", quoteNames(names), d, ErrInvalid)
		}
		end = f.Offset + f.Size*f.Repeat
		desc.Fields = append(desc.Fields, f)
	}
	return formatDType(desc.Canonical())
}

// quoteNames writes names as Python writes a list of str.
func quoteNames(names []string) string {
	s := "["
	for k, n := range names {
		if k > 0 {
			s += ", "
		}
		s += "'" + n + "'"
	}
	return s + "]"
}

// Field returns a view of field name of a's records (NumPy's a["name"]):
// a's shape and then the field's sub-array dimensions, over the same memory,
// read-only if a is. Errors are DType.Field's.
func (a *Array) Field(name string) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	v, err := a.dt.Field(name)
	if err != nil {
		return nil, err
	}
	l := Layout{
		Shape:    append(a.Shape(), v.Shape...),
		Strides:  append(a.Strides(), v.Strides...),
		Offset:   a.layout.Offset + v.Offset,
		Itemsize: v.DType.Itemsize(),
	}
	return a.viewAs(v.DType, l)
}

// Fields returns a view of a whose items hold only the named fields
// (NumPy's a[["a", "c"]]): the same shape, strides and memory. Errors are
// DType.Select's.
func (a *Array) Fields(names ...string) (*Array, error) {
	if err := a.alive(); err != nil {
		return nil, err
	}
	dt, err := a.dt.Select(names...)
	if err != nil {
		return nil, err
	}
	l := a.Layout()
	return a.viewAs(dt, l)
}

// viewAs is view with items of dt.
func (a *Array) viewAs(dt DType, l Layout) (*Array, error) {
	l, err := NewLayout(l.Shape, l.Strides, l.Offset, l.Itemsize, a.buf.Len())
	if err != nil {
		return nil, err
	}
	return newArray(a.buf, dt, l, a.readonly)
}
