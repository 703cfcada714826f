"""memview.record: one element of a record array, as a[i] reads it.

A record is the tuple of its fields' values (what NumPy's tolist() gives, and what it
compares equal to) that also takes a field name, rec["b"], as NumPy's np.void does. It
keeps the element's bytes: assigned to an element of an array of the same layout it is
copied exactly, byte for byte (a bool byte, a long double or a NaN's payload as it
was), and only the bytes of fields are written.
"""
from __future__ import annotations


class record(tuple):
    """One element of a record array: a tuple of its fields that also takes their names."""

    def __new__(cls, values, names, raw: bytes, dtype: str):
        self = super().__new__(cls, values)
        self._names = tuple(names)
        self._raw = bytes(raw)
        self._dtype = dtype
        return self

    def __getitem__(self, key):
        if isinstance(key, str):
            try:
                key = self._names.index(key)
            except ValueError:
                raise KeyError(f"memview: the record has no field {key!r} (its fields: {list(self._names)})") \
                    from None
        return tuple.__getitem__(self, key)

    @property
    def names(self) -> tuple:
        """The names of the fields, in order."""
        return self._names

    def keys(self) -> tuple:
        """The names of the fields (so that dict(rec) pairs names with values)."""
        return self._names

    def tobytes(self) -> bytes:
        """The element's bytes, as they were in the array."""
        return self._raw

    @property
    def dtype(self):
        """The record's item type (a memview.dtype)."""
        from . import _dtype
        return _dtype.dtype(self._dtype)

    def __reduce__(self):
        return (record, (tuple(self), self._names, self._raw, self._dtype))
