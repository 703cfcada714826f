"""Written by tools/gendtypes from the Go core's dtype table (memview.DTypes): do not edit.

BASIC: one row per basic dtype, in the Go core's order: (name, kind,
itemsize, PEP 3118 format, typestr)."""

BASIC = (
    ("bool", "b", 1, "?", "|b1"),
    ("int8", "i", 1, "b", "|i1"),
    ("int16", "i", 2, "h", "<i2"),
    ("int32", "i", 4, "i", "<i4"),
    ("int64", "i", 8, "l", "<i8"),
    ("uint8", "u", 1, "B", "|u1"),
    ("uint16", "u", 2, "H", "<u2"),
    ("uint32", "u", 4, "I", "<u4"),
    ("uint64", "u", 8, "L", "<u8"),
    ("float16", "f", 2, "e", "<f2"),
    ("float32", "f", 4, "f", "<f4"),
    ("float64", "f", 8, "d", "<f8"),
    ("complex64", "c", 8, "Zf", "<c8"),
    ("complex128", "c", 16, "Zd", "<c16"),
)
