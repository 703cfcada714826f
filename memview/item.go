package memview

import "fmt"

// Item reads one element of any dtype as Go values through its item
// descriptor (see ItemDesc.Unpack): one value per field — a record's fields in
// order (for a format that is one record, "T{...}", its fields directly), a
// sub-array or repeat as []any, strings as []byte — with the byte order of the
// format honoured on any machine. idx indexes every axis, as in ItemBytes.
func (a *Array) Item(idx ...int) ([]any, error) {
	b, err := a.ItemBytes(idx...)
	if err != nil {
		return nil, err
	}
	vals, err := a.dt.Item().Unpack(b)
	if err != nil {
		return nil, fmt.Errorf("memview: item %s of %s: %w", tuple(idx), a.dt, err)
	}
	if topRecord(a.dt.Item()) {
		return vals[0].([]any), nil
	}
	return vals, nil
}

// topRecord reports whether an item is one unnamed record ("T{...}"), whose
// fields Item and SetItem take directly.
func topRecord(d *ItemDesc) bool {
	return len(d.Fields) == 1 && d.Fields[0].Name == "" && d.Fields[0].Record != nil &&
		d.Fields[0].Shape == nil && d.Fields[0].Repeat == 1
}

// SetItem writes one element from Go values (see ItemDesc.Pack; the element is
// unchanged on error). A read-only array wraps ErrReadOnly.
func (a *Array) SetItem(vals []any, idx ...int) error {
	if a.readonly {
		return fmt.Errorf("memview: set item of a read-only array: %w", ErrReadOnly)
	}
	b, err := a.ItemBytes(idx...)
	if err != nil {
		return err
	}
	if topRecord(a.dt.Item()) {
		vals = []any{vals}
	}
	if err := a.dt.Item().Pack(b, vals); err != nil {
		return fmt.Errorf("memview: set item %s of %s: %w", tuple(idx), a.dt, err)
	}
	return nil
}
