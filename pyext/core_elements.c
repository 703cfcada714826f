/*
 * core_elements.c — one element of a memview array read or written in C, for the
 * numeric dtypes in native byte order (booleans, integers, float32/64,
 * complex64/128); others go through the facade (memview/_array.py).
 */
#include "core.h"
#include "dlpack.h"
#include "dtypes_table.h"

/* ---- the basic dtypes ---- */

#define MV_DTYPE_ROW(name, kind, itemsize, format, typestr) {name, kind, itemsize, format, typestr},
static const mv_basic basics[] = {MV_BASIC_DTYPES(MV_DTYPE_ROW)};
#undef MV_DTYPE_ROW

/* by_kind_size[kind][log2 itemsize]: every array made reads it (scalar kind,
 * DLPack type), so it is indexed, filled from basics on first use */
static const char kinds[] = "biufc";
static const mv_basic *by_kind_size[sizeof kinds - 1][5];

const mv_basic *
mv_basic_of(char kind, Py_ssize_t itemsize)
{
    static int ready;
    const char *k = kind != 0 ? strchr(kinds, kind) : NULL;
    if (k == NULL || itemsize <= 0 || itemsize > 16 || (itemsize & (itemsize - 1)) != 0)
        return NULL;
    if (!ready) {
        for (size_t i = 0; i < sizeof basics / sizeof basics[0]; i++) {
            const char *bk = strchr(kinds, basics[i].kind);
            if (bk != NULL && basics[i].itemsize <= 16)
                by_kind_size[bk - kinds][__builtin_ctzl((unsigned long)basics[i].itemsize)] = &basics[i];
        }
        ready = 1;
    }
    return by_kind_size[k - kinds][__builtin_ctzl((unsigned long)itemsize)];
}

const mv_basic *
mv_basic_of_typestr(const char *t)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if ((t[0] != '<' && t[0] != '|') || t[1] == 0 || t[2] < '1' || t[2] > '9')
        return NULL;
    /* the item size: one digit, or "16" (the sizes basic dtypes have) */
    Py_ssize_t size = t[3] == 0 ? t[2] - '0' : (t[2] == '1' && t[3] == '6' && t[4] == 0) ? 16 : 0;
    return size == 0 ? NULL : mv_basic_of(t[1], size);
#else
    (void)t;
    return NULL; /* C reads and exchanges native little-endian items only */
#endif
}

/* DLPack's type code of each kind of basic dtype */
static const struct {
    char kind;
    int code;
} dl_codes[] = {{'b', kDLBool}, {'i', kDLInt}, {'u', kDLUInt}, {'f', kDLFloat}, {'c', kDLComplex}};

int
mv_dl_code(char kind)
{
    for (size_t k = 0; k < sizeof dl_codes / sizeof dl_codes[0]; k++)
        if (dl_codes[k].kind == kind)
            return dl_codes[k].code;
    return -1;
}

char
mv_dl_kind(int code)
{
    for (size_t k = 0; k < sizeof dl_codes / sizeof dl_codes[0]; k++)
        if (dl_codes[k].code == code)
            return dl_codes[k].kind;
    return 0;
}

PyObject *
mv_read_scalar(const MVArray *a, const char *p)
{
    switch (a->scalar) {
    case MV_SK_BOOL:
        return PyBool_FromLong(*(const uint8_t *)p != 0);
    case MV_SK_INT:
        switch (a->itemsize) {
        case 1: return PyLong_FromLong(*(const int8_t *)p);
        case 2: { int16_t v; memcpy(&v, p, 2); return PyLong_FromLong(v); }
        case 4: { int32_t v; memcpy(&v, p, 4); return PyLong_FromLong(v); }
        default: { int64_t v; memcpy(&v, p, 8); return PyLong_FromLongLong(v); }
        }
    case MV_SK_UINT:
        switch (a->itemsize) {
        case 1: return PyLong_FromLong(*(const uint8_t *)p);
        case 2: { uint16_t v; memcpy(&v, p, 2); return PyLong_FromLong(v); }
        case 4: { uint32_t v; memcpy(&v, p, 4); return PyLong_FromUnsignedLong(v); }
        default: { uint64_t v; memcpy(&v, p, 8); return PyLong_FromUnsignedLongLong(v); }
        }
    case MV_SK_FLOAT:
        if (a->itemsize == 4) { float v; memcpy(&v, p, 4); return PyFloat_FromDouble(v); }
        else { double v; memcpy(&v, p, 8); return PyFloat_FromDouble(v); }
    case MV_SK_COMPLEX:
        if (a->itemsize == 8) { float v[2]; memcpy(v, p, 8); return PyComplex_FromDoubles(v[0], v[1]); }
        else { double v[2]; memcpy(v, p, 16); return PyComplex_FromDoubles(v[0], v[1]); }
    }
    return NULL; /* not reached: callers check a->scalar */
}

/* write_scalar stores value at p when it converts exactly as the facade's
 * _dtypes.pack would, for the plain cases: 1 written, 0 not handled here. */
int
mv_write_scalar(const MVArray *a, char *p, PyObject *value)
{
    switch (a->scalar) {
    case MV_SK_BOOL:
        if (value != Py_True && value != Py_False)
            return 0;
        *(uint8_t *)p = value == Py_True;
        return 1;
    case MV_SK_INT:
    case MV_SK_UINT: {
        if (!PyLong_CheckExact(value))
            return 0;
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        if (overflow)
            return 0; /* the facade says which bound */
        unsigned bits = (unsigned)a->itemsize * 8;
        if (a->scalar == MV_SK_INT) {
            if (bits < 64 && (v < -(1LL << (bits - 1)) || v > (1LL << (bits - 1)) - 1))
                return 0;
        } else if (v < 0 || (bits < 64 && v > (long long)((1ULL << bits) - 1))) {
            return 0; /* uint64 values above 2**63 - 1 go the slow way too */
        }
        switch (a->itemsize) {
        case 1: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
        case 2: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
        case 4: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
        default: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
        }
        return 1;
    }
    case MV_SK_FLOAT: {
        double d;
        if (PyFloat_CheckExact(value))
            d = PyFloat_AsDouble(value);
        else if (PyLong_CheckExact(value)) {
            d = PyLong_AsDouble(value);
            if (d == -1.0 && PyErr_Occurred()) {
                PyErr_Clear();
                return 0;
            }
        } else
            return 0;
        if (a->itemsize == 8) {
            memcpy(p, &d, 8);
            return 1;
        }
        if (d != d)
            return 0; /* NaN payloads: as struct packs them */
        float f = (float)d; /* out of range: ±inf, as the facade saturates */
        memcpy(p, &f, 4);
        return 1;
    }
    case MV_SK_COMPLEX: {
        double re, im;
        if (PyComplex_CheckExact(value)) {
            re = PyComplex_RealAsDouble(value);
            im = PyComplex_ImagAsDouble(value);
        } else if (PyFloat_CheckExact(value)) {
            re = PyFloat_AsDouble(value);
            im = 0.0;
        } else
            return 0;
        if (a->itemsize == 16) {
            double v[2] = {re, im};
            memcpy(p, v, 16);
            return 1;
        }
        float v[2] = {(float)re, (float)im};
        if (re != re || im != im || ((v[0] - v[0]) != 0 && (re - re) == 0) ||
            ((v[1] - v[1]) != 0 && (im - im) == 0))
            return 0; /* NaN or overflow: the facade's rules */
        memcpy(p, v, 8);
        return 1;
    }
    }
    return 0;
}


/* ---- what an array caches at creation ---- */

/* ---- what C and DLPack make of an array's items ---- */

void
mv_item_kinds(MVArray *a, const MVArray *like)
{
    a->dl_ok = 0;
    if (like != NULL) { /* a view: the same items */
        a->scalar = like->scalar;
        a->dl_code = like->dl_code;
        a->dl_bits = like->dl_bits;
    } else {
        /* basic dtypes in native byte order: C reads their elements (not
         * float16's: the facade rounds those), DLPack describes them */
        const mv_basic *b = mv_basic_of_typestr(a->typestr);
        a->scalar = MV_SK_NONE;
        a->dl_bits = 0;
        if (b == NULL || b->itemsize != a->itemsize)
            return; /* records, strings, sub-arrays, swapped bytes */
        switch (b->kind) {
        case 'b': a->scalar = MV_SK_BOOL; break;
        case 'i': a->scalar = MV_SK_INT; break;
        case 'u': a->scalar = MV_SK_UINT; break;
        case 'f': a->scalar = b->itemsize == 2 ? MV_SK_NONE : MV_SK_FLOAT; break;
        case 'c': a->scalar = MV_SK_COMPLEX; break;
        }
        a->dl_code = (uint8_t)mv_dl_code(b->kind);
        a->dl_bits = (uint8_t)(b->itemsize * 8);
    }
    if (a->dl_bits == 0)
        return;
    /* DLPack counts strides in items: whole items only. A basic dtype's size
     * is a power of two: by a shift. */
    Py_ssize_t size = a->dl_bits / 8;
    int shift = __builtin_ctzl((unsigned long)size);
    for (int i = 0; i < a->ndim; i++) {
        if ((a->strides[i] & (size - 1)) != 0)
            return;
        a->dl_strides[i] = a->strides[i] >> shift; /* arithmetic: negative strides stay exact */
    }
    a->dl_ok = 1;
}
