"""Written by tools/gendtypes from the Go core's tables (memview.DTypes, memview.FormatCodes): do not edit.

BASIC: one row per basic dtype, in the Go core's order: (name, kind,
itemsize, PEP 3118 format, typestr).
CODES: one row per PEP 3118 format code the Go core reads, by code: (code,
NumPy kind of what it holds, standard size or 0 where only native sizes
have it)."""

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

CODES = (
    ("?", "b", 1),
    ("B", "u", 1),
    ("H", "u", 2),
    ("I", "u", 4),
    ("L", "u", 4),
    ("N", "u", 0),
    ("P", "u", 8),
    ("Q", "u", 8),
    ("Zd", "c", 16),
    ("Ze", "c", 4),
    ("Zf", "c", 8),
    ("Zg", "c", 32),
    ("b", "i", 1),
    ("c", "S", 1),
    ("d", "f", 8),
    ("e", "f", 2),
    ("f", "f", 4),
    ("g", "f", 16),
    ("h", "i", 2),
    ("i", "i", 4),
    ("l", "i", 4),
    ("n", "i", 0),
    ("p", "V", 1),
    ("q", "i", 8),
    ("s", "S", 1),
    ("w", "U", 4),
    ("x", "V", 1),
)
