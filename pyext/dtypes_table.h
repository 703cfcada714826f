/* Written by tools/gendtypes from the Go core's tables (memview.DTypes, memview.FormatCodes): do not edit. */
/*
 * dtypes_table.h — memview's basic dtypes, in the Go core's order (MV_K_* of
 * mem.h and DType ids follow it): X(name, kind, itemsize, format, typestr),
 * the name and strings as C string literals, kind as a character literal.
 */
#ifndef MEMVIEW_DTYPES_TABLE_H
#define MEMVIEW_DTYPES_TABLE_H

#define MV_BASIC_DTYPES(X) \
    X("bool", 'b', 1, "?", "|b1") \
    X("int8", 'i', 1, "b", "|i1") \
    X("int16", 'i', 2, "h", "<i2") \
    X("int32", 'i', 4, "i", "<i4") \
    X("int64", 'i', 8, "l", "<i8") \
    X("uint8", 'u', 1, "B", "|u1") \
    X("uint16", 'u', 2, "H", "<u2") \
    X("uint32", 'u', 4, "I", "<u4") \
    X("uint64", 'u', 8, "L", "<u8") \
    X("float16", 'f', 2, "e", "<f2") \
    X("float32", 'f', 4, "f", "<f4") \
    X("float64", 'f', 8, "d", "<f8") \
    X("complex64", 'c', 8, "Zf", "<c8") \
    X("complex128", 'c', 16, "Zd", "<c16")

#define MV_N_BASIC_DTYPES 14

#endif
