/*
 * mem_builder_items.c — a Builder's items: how C converts a Python value into
 * one item of the basic dtypes (with assignment's range checks and NumPy's
 * float16 rounding), and the facade's packer for every other value and dtype.
 */
#include <math.h>
#include "mem.h"
#include "dtypes_table.h"

/* The names of the basic dtypes, in the Go core's order, which MV_K_* follow
 * from 1 (dtypes_table.h). */
#define MV_DTYPE_NAME(name, kind, itemsize, format, typestr) name,
static const char *const kind_names[] = {MV_BASIC_DTYPES(MV_DTYPE_NAME)};
#undef MV_DTYPE_NAME
_Static_assert(sizeof kind_names / sizeof kind_names[0] == MV_K_C128, "MV_K_* must follow dtypes_table.h");

/* The bounds of the signed integer kinds. */
static const long long int_lo[] = {[MV_K_I8] = INT8_MIN, [MV_K_I16] = INT16_MIN, [MV_K_I32] = INT32_MIN, [MV_K_I64] = INT64_MIN};
static const long long int_hi[] = {[MV_K_I8] = INT8_MAX, [MV_K_I16] = INT16_MAX, [MV_K_I32] = INT32_MAX, [MV_K_I64] = INT64_MAX};
static const unsigned long long uint_hi[] = {[MV_K_U8] = UINT8_MAX, [MV_K_U16] = UINT16_MAX, [MV_K_U32] = UINT32_MAX, [MV_K_U64] = UINT64_MAX};

/* half_from_double rounds d to the nearest IEEE half (ties to even), ±inf
 * beyond its range (as memview's float16 assignment saturates), NaN kept. */
static uint16_t
half_from_double(double d)
{
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 48) & 0x8000);
    int exp = (int)((bits >> 52) & 0x7ff);
    uint64_t man = bits & 0xfffffffffffffULL;
    if (exp == 0x7ff)
        return sign | 0x7c00 | (man ? 0x200 : 0);
    int e = exp - 1023 + 15;
    if (e >= 0x1f)
        return sign | 0x7c00;
    if (e <= 0) { /* a subnormal half, or zero */
        if (e < -10)
            return sign;
        man |= 1ULL << 52;
        int shift = 43 - e;
        uint64_t h = man >> shift, rem = man & ((1ULL << shift) - 1), half = 1ULL << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return sign | (uint16_t)h;
    }
    uint64_t rem = man & ((1ULL << 42) - 1), half = 1ULL << 41;
    uint16_t h = sign | (uint16_t)(e << 10) | (uint16_t)(man >> 42);
    if (rem > half || (rem == half && (h & 1)))
        h++; /* a carry into the exponent is right, up to infinity */
    return h;
}

/* through_packer converts v with the facade's packer into dst. */
static int
through_packer(MVBuilder *b, PyObject *v, char *dst)
{
    PyObject *r = PyObject_CallFunctionObjArgs(b->packer, v, NULL);
    if (r == NULL)
        return -1;
    char *p;
    Py_ssize_t n;
    if (!PyBytes_Check(r) || PyBytes_AsStringAndSize(r, &p, &n) < 0 || n != b->itemsize) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_SystemError, "memview: the packer of %S gave %R, not %zd bytes",
                         b->dtype, r, b->itemsize);
        Py_DECREF(r);
        return -1;
    }
    memcpy(dst, p, (size_t)n);
    Py_DECREF(r);
    return 0;
}

static int
out_of_bounds(MVBuilder *b, PyObject *v)
{
    PyObject *i = PyNumber_Index(v);
    if (i != NULL) {
        PyErr_Format(PyExc_OverflowError, "memview: Python integer %S out of bounds for %S", i, b->dtype);
        Py_DECREF(i);
    }
    return -1;
}

/* convert_int writes the integer value of v (an int, or a float truncated as
 * memview's assignment does) into dst; 1: not converted here. */
static int
convert_int(MVBuilder *b, PyObject *v, char *dst)
{
    int k = b->kind;
    int is_unsigned = k >= MV_K_U8 && k <= MV_K_U64;
    long long x = 0;
    unsigned long long ux = 0;
    if (PyLong_Check(v)) {
        if (is_unsigned) {
            ux = PyLong_AsUnsignedLongLong(v);
            if (ux == (unsigned long long)-1 && PyErr_Occurred()) {
                if (!PyErr_ExceptionMatches(PyExc_OverflowError))
                    return -1;
                PyErr_Clear();
                return out_of_bounds(b, v);
            }
            if (ux > uint_hi[k])
                return out_of_bounds(b, v);
        } else {
            int overflow = 0;
            x = PyLong_AsLongLongAndOverflow(v, &overflow);
            if (x == -1 && PyErr_Occurred())
                return -1;
            if (overflow || x < int_lo[k] || x > int_hi[k])
                return out_of_bounds(b, v);
        }
    } else if (PyFloat_Check(v)) {
        double d = PyFloat_AsDouble(v);
        if (d == -1.0 && PyErr_Occurred())
            return -1;
        if (isnan(d) || isinf(d)) { /* as int() and NumPy: ValueError for NaN, OverflowError for infinity */
            PyErr_Format(isnan(d) ? PyExc_ValueError : PyExc_OverflowError,
                         "memview: cannot convert float %s to integer %S", isnan(d) ? "NaN" : "infinity", b->dtype);
            return -1;
        }
        d = trunc(d);
        if (is_unsigned ? (d < 0 || d >= 18446744073709551616.0 || (unsigned long long)d > uint_hi[k])
                        : (d < -9223372036854775808.0 || d >= 9223372036854775808.0 ||
                           (long long)d < int_lo[k] || (long long)d > int_hi[k])) {
            PyObject *i = PyLong_FromDouble(d);
            if (i != NULL) {
                PyErr_Format(PyExc_OverflowError, "memview: Python integer %S out of bounds for %S", i, b->dtype);
                Py_DECREF(i);
            }
            return -1;
        }
        if (is_unsigned)
            ux = (unsigned long long)d;
        else
            x = (long long)d;
    } else {
        return 1;
    }
    switch (k) {
    case MV_K_I8: { int8_t t = (int8_t)x; memcpy(dst, &t, 1); break; }
    case MV_K_I16: { int16_t t = (int16_t)x; memcpy(dst, &t, 2); break; }
    case MV_K_I32: { int32_t t = (int32_t)x; memcpy(dst, &t, 4); break; }
    case MV_K_I64: { int64_t t = (int64_t)x; memcpy(dst, &t, 8); break; }
    case MV_K_U8: { uint8_t t = (uint8_t)ux; memcpy(dst, &t, 1); break; }
    case MV_K_U16: { uint16_t t = (uint16_t)ux; memcpy(dst, &t, 2); break; }
    case MV_K_U32: { uint32_t t = (uint32_t)ux; memcpy(dst, &t, 4); break; }
    default: { uint64_t t = (uint64_t)ux; memcpy(dst, &t, 8); break; }
    }
    return 0;
}

/* mv_builder_convert writes one item holding v into dst (b->itemsize bytes). */
int
mv_builder_convert(MVBuilder *b, PyObject *v, char *dst)
{
    int rc = 1;
    switch (b->kind) {
    case MV_K_BOOL: {
        int t = PyObject_IsTrue(v);
        if (t < 0)
            return -1;
        dst[0] = (char)t;
        return 0;
    }
    case MV_K_F16: case MV_K_F32: case MV_K_F64:
        if (PyFloat_Check(v) || PyLong_Check(v)) {
            double d = PyFloat_AsDouble(v);
            if (d == -1.0 && PyErr_Occurred())
                return -1;
            if (b->kind == MV_K_F64) {
                memcpy(dst, &d, 8);
            } else if (b->kind == MV_K_F32) {
                float f = (float)d; /* ±inf beyond float's range, as assignment saturates */
                memcpy(dst, &f, 4);
            } else {
                uint16_t h = half_from_double(d);
                memcpy(dst, &h, 2);
            }
            rc = 0;
        }
        break;
    case MV_K_C64: case MV_K_C128: {
        double re, im = 0;
        if (PyComplex_Check(v)) {
            re = PyComplex_RealAsDouble(v);
            im = PyComplex_ImagAsDouble(v);
        } else if (PyFloat_Check(v) || PyLong_Check(v)) {
            re = PyFloat_AsDouble(v);
        } else {
            break;
        }
        if (PyErr_Occurred())
            return -1;
        if (b->kind == MV_K_C128) {
            memcpy(dst, &re, 8);
            memcpy(dst + 8, &im, 8);
        } else {
            float t[2] = {(float)re, (float)im};
            memcpy(dst, t, 8);
        }
        rc = 0;
        break;
    }
    case MV_K_PACK:
        break;
    default:
        rc = convert_int(b, v, dst);
    }
    if (rc <= 0)
        return rc;
    return through_packer(b, v, dst);
}

/* mv_builder_convert_exact converts v in place when it is of an exact built-in type C
 * converts without running Python code (float, int, bool, complex): 0 done,
 * -1 error, 1 not converted here. */
int
mv_builder_convert_exact(MVBuilder *b, PyObject *v, char *dst)
{
    switch (b->kind) {
    case MV_K_F64:
        if (PyFloat_CheckExact(v) || PyLong_CheckExact(v)) {
            double d = PyFloat_AsDouble(v);
            if (d == -1.0 && PyErr_Occurred())
                return -1;
            memcpy(dst, &d, 8);
            return 0;
        }
        return 1;
    case MV_K_BOOL:
        if (PyBool_Check(v)) {
            dst[0] = v == Py_True;
            return 0;
        }
        return 1;
    case MV_K_PACK:
        return 1;
    case MV_K_C64: case MV_K_C128:
        if (PyComplex_CheckExact(v))
            return mv_builder_convert(b, v, dst);
        break;
    }
    /* ints and floats of every other kind: converted by C alone, never the packer */
    if (PyFloat_CheckExact(v) || PyLong_CheckExact(v))
        return mv_builder_convert(b, v, dst);
    return 1;
}

int
mv_builder_kind(const char *name)
{
    for (size_t i = 0; i < sizeof kind_names / sizeof kind_names[0]; i++)
        if (strcmp(name, kind_names[i]) == 0)
            return (int)i + 1;
    return MV_K_PACK;
}
