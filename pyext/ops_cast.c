/*
 * ops_cast.c — casts between the numeric item types (bool, the integers,
 * float16/32/64, complex64/128, in either byte order), as NumPy's unsafe casts
 * do them.
 *
 * Each element goes through the C conversion NumPy's own cast loops compile
 * ((int32_t)double, (float)int64_t, ...), so that on one machine the results
 * are NumPy's, out-of-range float to int included, which C leaves to the
 * platform. float16 is converted in software from the bits, rounding to
 * nearest even, straight from a double where the source is a double (no double
 * rounding), as NumPy does. What the hardware reports while a cast runs
 * (invalid: NaN or out of range to an integer; overflow: too large for the
 * float) is returned as MV_CAST_* flags, and mv_cast_postwarn turns them into
 * NumPy's warnings, under NumPy's error state where NumPy is loaded.
 *
 * The kernels need no GIL: ops_assign.c runs long casts without it.
 */
#include <fenv.h>

#include "ops.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3") /* the cast loops vectorise (clang does at -O2) */
#endif

#if defined(__x86_64__) || defined(_M_X64)
#include <emmintrin.h>
#endif

/* fe_clear, fe_test and fe_raise_overflow: the invalid and overflow flags of
 * the FPU the casts use. On x86-64 they are MXCSR's (the loops are SSE code),
 * read and written directly: glibc's feclearexcept also rewrites the x87
 * environment, which costs more than a small cast, and its feraiseexcept
 * raises overflow in the x87 status word. fe_test returns MV_CAST_* flags. */
#if defined(__x86_64__) || defined(_M_X64)
enum { MXCSR_IE = 0x01, MXCSR_OE = 0x08 };
static inline void
fe_clear(void)
{
    _mm_setcsr(_mm_getcsr() & ~(unsigned)(MXCSR_IE | MXCSR_OE));
}
static inline int
fe_test(void)
{
    unsigned csr = _mm_getcsr();
    return ((csr & MXCSR_IE) ? MV_CAST_INVALID : 0) | ((csr & MXCSR_OE) ? MV_CAST_OVERFLOW : 0);
}
static inline void
fe_raise_overflow(void)
{
    _mm_setcsr(_mm_getcsr() | MXCSR_OE);
}
#else
static inline void
fe_clear(void)
{
    feclearexcept(FE_INVALID | FE_OVERFLOW);
}
static inline int
fe_test(void)
{
    int raised = fetestexcept(FE_INVALID | FE_OVERFLOW);
    return ((raised & FE_INVALID) ? MV_CAST_INVALID : 0) | ((raised & FE_OVERFLOW) ? MV_CAST_OVERFLOW : 0);
}
static inline void
fe_raise_overflow(void)
{
    feraiseexcept(FE_OVERFLOW);
}
#endif

/* ---- the item types ---- */

typedef struct {
    float re, im;
} cfloat;
typedef struct {
    double re, im;
} cdouble;

/* The numeric types, in the order of mv_num.type: name, C type, class, component type. */
#define MV_NUM_TYPES(X)                                                                                          \
    X(b1, uint8_t, BOOL, uint8_t)                                                                                \
    X(i1, int8_t, INT, int8_t)                                                                                   \
    X(i2, int16_t, INT, int16_t)                                                                                 \
    X(i4, int32_t, INT, int32_t)                                                                                 \
    X(i8, int64_t, INT, int64_t)                                                                                 \
    X(u1, uint8_t, INT, uint8_t)                                                                                 \
    X(u2, uint16_t, INT, uint16_t)                                                                               \
    X(u4, uint32_t, INT, uint32_t)                                                                               \
    X(u8, uint64_t, INT, uint64_t)                                                                               \
    X(f2, uint16_t, HALF, uint16_t)                                                                              \
    X(f4, float, FLT, float)                                                                                     \
    X(f8, double, FLT, double)                                                                                   \
    X(c8, cfloat, CPLX, float)                                                                                   \
    X(c16, cdouble, CPLX, double)
/* the same list, for the inner loop of a nested expansion */
#define MV_NUM_TYPES2(X)                                                                                         \
    X(b1, uint8_t, BOOL, uint8_t)                                                                                \
    X(i1, int8_t, INT, int8_t)                                                                                   \
    X(i2, int16_t, INT, int16_t)                                                                                 \
    X(i4, int32_t, INT, int32_t)                                                                                 \
    X(i8, int64_t, INT, int64_t)                                                                                 \
    X(u1, uint8_t, INT, uint8_t)                                                                                 \
    X(u2, uint16_t, INT, uint16_t)                                                                               \
    X(u4, uint32_t, INT, uint32_t)                                                                               \
    X(u8, uint64_t, INT, uint64_t)                                                                               \
    X(f2, uint16_t, HALF, uint16_t)                                                                              \
    X(f4, float, FLT, float)                                                                                     \
    X(f8, double, FLT, double)                                                                                   \
    X(c8, cfloat, CPLX, float)                                                                                   \
    X(c16, cdouble, CPLX, double)

enum {
#define X(n, t, c, ct) T_##n,
    MV_NUM_TYPES(X)
#undef X
        T_COUNT
};

int
mv_num_of(const char *typestr, mv_num *out)
{
    if (typestr == NULL || typestr[0] == 0 || typestr[1] == 0)
        return 0;
    char order = typestr[0], kind = typestr[1];
    char *end;
    long size = strtol(typestr + 2, &end, 10);
    if (*end != 0 || size <= 0)
        return 0;
    static const struct {
        char kind;
        int size, type;
    } known[] = {
        {'b', 1, T_b1}, {'i', 1, T_i1}, {'i', 2, T_i2}, {'i', 4, T_i4},  {'i', 8, T_i8},
        {'u', 1, T_u1}, {'u', 2, T_u2}, {'u', 4, T_u4}, {'u', 8, T_u8},  {'f', 2, T_f2},
        {'f', 4, T_f4}, {'f', 8, T_f8}, {'c', 8, T_c8}, {'c', 16, T_c16},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++)
        if (known[k].kind == kind && known[k].size == size) {
#if PY_LITTLE_ENDIAN
            int swapped = order == '>';
#else
            int swapped = order == '<';
#endif
            if (size == 1)
                swapped = 0;
            *out = (mv_num){.kind = kind, .size = (int)size, .swapped = swapped, .type = known[k].type};
            return 1;
        }
    return 0;
}

/* ---- float16, from and to the bits ---- */

/* halfbits_from: the float16 nearest (ties to even) to the binary number of
 * sign sgn, biased exponent e (bias bias) and significand m of mbits bits (no
 * implicit bit), with overflow raised as the hardware would. */
static uint16_t
halfbits_from(uint16_t sgn, int64_t e, uint64_t m, int mbits, int64_t bias, int64_t emax)
{
    if (e == emax) { /* infinity or NaN: the top of the payload kept, a NaN kept a NaN */
        if (m == 0)
            return (uint16_t)(sgn | 0x7c00u);
        uint16_t h = (uint16_t)(0x7c00u | (uint16_t)(m >> (mbits - 10)));
        if (h == 0x7c00u)
            h++;
        return (uint16_t)(sgn | h);
    }
    if (e == 0 && m == 0)
        return sgn;
    int64_t he = e - bias + 15; /* the float16 biased exponent */
    if (e == 0)                 /* a subnormal source: far below float16's range */
        return sgn;
    if (he >= 31) {
        fe_raise_overflow();
        return (uint16_t)(sgn | 0x7c00u);
    }
    uint64_t full = m | ((uint64_t)1 << mbits); /* with the implicit bit */
    int shift;                                  /* bits to drop from full to get the float16 significand */
    if (he <= 0) {                              /* a float16 subnormal */
        shift = mbits - 10 + (int)(1 - he);
        if (shift > mbits + 1)
            return sgn; /* below half the smallest subnormal: rounds to zero */
        he = 0;
    } else {
        shift = mbits - 10;
    }
    uint64_t keep = full >> shift, rest = full & (((uint64_t)1 << shift) - 1), half = (uint64_t)1 << (shift - 1);
    if (rest > half || (rest == half && (keep & 1)))
        keep++;
    uint32_t bits;
    if (he == 0)
        bits = (uint32_t)keep; /* a subnormal, or the smallest normal after rounding */
    else
        bits = ((uint32_t)he << 10) + (uint32_t)(keep - (1u << 10)); /* a carry moves into the exponent */
    if (bits >= 0x7c00u) {
        fe_raise_overflow();
        bits = 0x7c00u;
    }
    return (uint16_t)(sgn | bits);
}

static uint16_t
float_to_half(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return halfbits_from((uint16_t)((b >> 16) & 0x8000u), (b >> 23) & 0xff, b & 0x7fffffu, 23, 127, 0xff);
}

static uint16_t
double_to_half(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return halfbits_from((uint16_t)((b >> 48) & 0x8000u), (int64_t)((b >> 52) & 0x7ff), b & 0xfffffffffffffull, 52,
                         1023, 0x7ff);
}

/* half_to_float and half_to_double: every float16 exactly (a NaN's payload moved
 * up as NumPy moves it): its exponent and significand bits moved into place and
 * rebiased, infinities and NaNs rebiased once more, subnormals normalised by one
 * exact subtraction. Branch-free enough to vectorise. */
static inline float
half_to_float(uint16_t h)
{
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13, e = o & 0x0f800000u;
    o += (uint32_t)(127 - 15) << 23;
    if (e == 0x0f800000u) {
        o += (uint32_t)(127 - 15) << 23;
    } else if (e == 0) {
        o += 1u << 23;
        float f, m;
        uint32_t mb = (uint32_t)(127 - 14) << 23;
        memcpy(&f, &o, 4);
        memcpy(&m, &mb, 4);
        f -= m;
        memcpy(&o, &f, 4);
    }
    o |= (uint32_t)(h & 0x8000u) << 16;
    float f;
    memcpy(&f, &o, 4);
    return f;
}

static inline double
half_to_double(uint16_t h)
{
    uint64_t o = (uint64_t)(h & 0x7fffu) << 42, e = o & (0x1full << 52);
    o += (uint64_t)(1023 - 15) << 52;
    if (e == 0x1full << 52) {
        o += (uint64_t)(1023 - 15) << 52;
    } else if (e == 0) {
        o += 1ull << 52;
        double f, m;
        uint64_t mb = (uint64_t)(1023 - 14) << 52;
        memcpy(&f, &o, 8);
        memcpy(&m, &mb, 8);
        f -= m;
        memcpy(&o, &f, 8);
    }
    o |= (uint64_t)(h & 0x8000u) << 48;
    double f;
    memcpy(&f, &o, 8);
    return f;
}

/* ---- float to integer, as NumPy's build compiles it ---- */

/* C leaves a NaN or out-of-range float-to-integer conversion undefined, and
 * compilers choose differently: NumPy's wheels are built by gcc, memview's by
 * gcc or by zig's clang, whose loops give other values (and vectorise with
 * saturating packs). On x86-64 these are the conversions gcc emits for a plain
 * (T)x, spelled with the SSE instructions themselves, so that every compiler
 * gives gcc's results: cvttsd2si to 32 bits for targets narrower than 32 bits
 * and int32, to 64 bits for uint32 and int64 (the low half kept), and for
 * uint64 gcc's split at 2^63 (x - 2^63 converted, the top bit flipped; a NaN
 * takes the first branch). Elsewhere the plain conversion. */
#if defined(__x86_64__) || defined(_M_X64)
static inline int32_t
f64_i32(double x)
{
    return _mm_cvttsd_si32(_mm_set_sd(x));
}
static inline int64_t
f64_i64(double x)
{
    return _mm_cvttsd_si64(_mm_set_sd(x));
}
static inline int32_t
f32_i32(float x)
{
    return _mm_cvttss_si32(_mm_set_ss(x));
}
static inline int64_t
f32_i64(float x)
{
    return _mm_cvttss_si64(_mm_set_ss(x));
}
static inline uint64_t
f64_u64(double x)
{
    return x >= 0x1p63 ? (uint64_t)f64_i64(x - 0x1p63) ^ (UINT64_C(1) << 63) : (uint64_t)f64_i64(x);
}
static inline uint64_t
f32_u64(float x)
{
    return x >= 0x1p63f ? (uint64_t)f32_i64(x - 0x1p63f) ^ (UINT64_C(1) << 63) : (uint64_t)f32_i64(x);
}
/* SIGNED(DT): whether the integer type DT is signed */
#define SIGNED(DT) _Generic((DT)0, int8_t: 1, int16_t: 1, int32_t: 1, int64_t: 1, default: 0)
/* F2I(target type, source type, x): (DT)x as gcc compiles it on x86-64 */
#define F2I(DT, SC, x)                                                                                           \
    ((sizeof(DT) < 4 || (sizeof(DT) == 4 && SIGNED(DT)))                                                         \
         ? (DT)(sizeof(SC) == 8 ? f64_i32((double)(x)) : f32_i32((float)(x)))                                    \
     : (sizeof(DT) == 4 || SIGNED(DT)) ? (DT)(sizeof(SC) == 8 ? f64_i64((double)(x)) : f32_i64((float)(x)))      \
                                       : (DT)(sizeof(SC) == 8 ? f64_u64((double)(x)) : f32_u64((float)(x))))
#else
#define F2I(DT, SC, x) ((DT)(x))
#endif

/* ---- float to narrow integers, four at a time ---- */

/* cvttpd2dq and cvttps2dq convert as cvttsd2si/cvttss2si to 32 bits do, lane by
 * lane, so the dense loops from float and complex sources to integers of 32
 * bits or fewer take them (NumPy's loops are vectorised there too): four
 * sources to four int32 lanes (the real parts of complex ones), kept whole for
 * int32, their low 16 or 8 bits packed for the narrower targets. vec_cast
 * returns how many of the n items it did; the scalar loop does the rest. */
#if defined(__x86_64__) || defined(_M_X64)
static inline __m128i
ld4_f8(const char *s)
{
    __m128i lo = _mm_cvttpd_epi32(_mm_loadu_pd((const double *)s));
    __m128i hi = _mm_cvttpd_epi32(_mm_loadu_pd((const double *)s + 2));
    return _mm_unpacklo_epi64(lo, hi);
}
static inline __m128i
ld4_f4(const char *s)
{
    return _mm_cvttps_epi32(_mm_loadu_ps((const float *)s));
}
static inline __m128i
ld4_c16(const char *s)
{
    const double *p = (const double *)s;
    __m128d r01 = _mm_unpacklo_pd(_mm_loadu_pd(p), _mm_loadu_pd(p + 2));
    __m128d r23 = _mm_unpacklo_pd(_mm_loadu_pd(p + 4), _mm_loadu_pd(p + 6));
    return _mm_unpacklo_epi64(_mm_cvttpd_epi32(r01), _mm_cvttpd_epi32(r23));
}
static inline __m128i
ld4_c8(const char *s)
{
    const float *p = (const float *)s;
    return _mm_cvttps_epi32(_mm_shuffle_ps(_mm_loadu_ps(p), _mm_loadu_ps(p + 4), _MM_SHUFFLE(2, 0, 2, 0)));
}
/* the low 16 (8) bits of each lane, sign-extended, so that a saturating pack keeps them */
static inline __m128i
low16(__m128i v)
{
    return _mm_srai_epi32(_mm_slli_epi32(v, 16), 16);
}
static inline __m128i
low8(__m128i v)
{
    return _mm_srai_epi32(_mm_slli_epi32(v, 24), 24);
}
#define VEC_FROM(SN, SZ)                                                                                         \
    static Py_ssize_t vec_##SN##_32(char *d, const char *s, Py_ssize_t n)                                        \
    {                                                                                                            \
        Py_ssize_t k = 0;                                                                                        \
        for (; k + 4 <= n; k += 4)                                                                               \
            _mm_storeu_si128((__m128i *)(void *)(d + 4 * k), ld4_##SN(s + SZ * k));                             \
        return k;                                                                                                \
    }                                                                                                            \
    static Py_ssize_t vec_##SN##_16(char *d, const char *s, Py_ssize_t n)                                        \
    {                                                                                                            \
        Py_ssize_t k = 0;                                                                                        \
        for (; k + 8 <= n; k += 8)                                                                               \
            _mm_storeu_si128((__m128i *)(void *)(d + 2 * k),                                                     \
                             _mm_packs_epi32(low16(ld4_##SN(s + SZ * k)), low16(ld4_##SN(s + SZ * (k + 4)))));    \
        return k;                                                                                                \
    }                                                                                                            \
    static Py_ssize_t vec_##SN##_8(char *d, const char *s, Py_ssize_t n)                                         \
    {                                                                                                            \
        Py_ssize_t k = 0;                                                                                        \
        for (; k + 16 <= n; k += 16) {                                                                           \
            __m128i a = _mm_packs_epi32(low8(ld4_##SN(s + SZ * k)), low8(ld4_##SN(s + SZ * (k + 4))));           \
            __m128i b = _mm_packs_epi32(low8(ld4_##SN(s + SZ * (k + 8))), low8(ld4_##SN(s + SZ * (k + 12))));    \
            _mm_storeu_si128((__m128i *)(void *)(d + k), _mm_packs_epi16(a, b));                                 \
        }                                                                                                        \
        return k;                                                                                                \
    }
VEC_FROM(f8, 8)
VEC_FROM(f4, 4)
VEC_FROM(c16, 16)
VEC_FROM(c8, 8)

/* doubles to floats, four at a time (complex128 to complex64: its parts);
 * cvtpd2ps rounds and flags lane by lane as cvtsd2ss does */
static Py_ssize_t
vec_f8_f4(char *d, const char *s, Py_ssize_t n)
{
    Py_ssize_t k = 0;
    for (; k + 4 <= n; k += 4) {
        const double *p = (const double *)(const void *)(s + 8 * k);
        __m128 lo = _mm_cvtpd_ps(_mm_loadu_pd(p)), hi = _mm_cvtpd_ps(_mm_loadu_pd(p + 2));
        _mm_storeu_ps((float *)(void *)(d + 4 * k), _mm_movelh_ps(lo, hi));
    }
    return k;
}
#endif

/* ---- one element: NumPy's conversion for each class of source and target ---- */

/* CONV_<source class>_<target class>(target type, target component, source
 * component, x, out) */
#define CONV_BOOL_BOOL(DT, DC, SC, x, out) out = (DT)((x) != 0)
#define CONV_BOOL_INT(DT, DC, SC, x, out) out = (DT)(x)
#define CONV_BOOL_FLT(DT, DC, SC, x, out) out = (DT)(x)
#define CONV_BOOL_HALF(DT, DC, SC, x, out) out = float_to_half((float)(x))
#define CONV_BOOL_CPLX(DT, DC, SC, x, out) (out).re = (DC)(x), (out).im = 0
#define CONV_INT_BOOL CONV_BOOL_BOOL
#define CONV_INT_INT CONV_BOOL_INT
#define CONV_INT_FLT CONV_BOOL_INT
#define CONV_INT_HALF CONV_BOOL_HALF
#define CONV_INT_CPLX CONV_BOOL_CPLX
#define CONV_FLT_BOOL CONV_BOOL_BOOL
#define CONV_FLT_INT(DT, DC, SC, x, out) out = F2I(DT, SC, x)
#define CONV_FLT_FLT CONV_BOOL_INT
#define CONV_FLT_HALF(DT, DC, SC, x, out) out = sizeof(SC) == 8 ? double_to_half((double)(x)) : float_to_half((float)(x))
#define CONV_FLT_CPLX CONV_BOOL_CPLX
#define CONV_HALF_BOOL(DT, DC, SC, x, out) out = (DT)(((x)&0x7fffu) != 0)
#define CONV_HALF_INT(DT, DC, SC, x, out) out = F2I(DT, float, half_to_float(x))
#define CONV_HALF_FLT(DT, DC, SC, x, out) out = sizeof(DT) == 8 ? (DT)half_to_double(x) : (DT)half_to_float(x)
#define CONV_HALF_HALF(DT, DC, SC, x, out) out = (x)
#define CONV_HALF_CPLX(DT, DC, SC, x, out)                                                                       \
    (out).re = sizeof(DC) == 8 ? (DC)half_to_double(x) : (DC)half_to_float(x), (out).im = 0
#define CONV_CPLX_BOOL(DT, DC, SC, x, out) out = (DT)((x).re != 0 || (x).im != 0)
#define CONV_CPLX_INT(DT, DC, SC, x, out) out = F2I(DT, SC, (x).re)
#define CONV_CPLX_FLT(DT, DC, SC, x, out) out = (DT)(x).re
#define CONV_CPLX_HALF(DT, DC, SC, x, out)                                                                       \
    out = sizeof(SC) == 8 ? double_to_half((double)(x).re) : float_to_half((float)(x).re)
#define CONV_CPLX_CPLX(DT, DC, SC, x, out) (out).re = (DC)(x).re, (out).im = (DC)(x).im

/* one strided loop over n native items (sw: unused, 0) */
typedef void cast_loop(char *d, Py_ssize_t dstep, const char *s, Py_ssize_t sstep, Py_ssize_t n, int sw);

/* vec_cast(source type, target type, ...): the vectorised part of a dense loop,
 * where there is one (the types are constants: the switch folds away) */
static inline Py_ssize_t
vec_cast(int st, int dt, char *d, const char *s, Py_ssize_t n)
{
#if defined(__x86_64__) || defined(_M_X64)
#define VEC_CASE(SN)                                                                                             \
    case T_##SN:                                                                                                 \
        switch (dt) {                                                                                            \
        case T_i4:                                                                                               \
            return vec_##SN##_32(d, s, n);                                                                       \
        case T_i2:                                                                                               \
        case T_u2:                                                                                               \
            return vec_##SN##_16(d, s, n);                                                                       \
        case T_i1:                                                                                               \
        case T_u1:                                                                                               \
            return vec_##SN##_8(d, s, n);                                                                        \
        }                                                                                                        \
        return 0;
    if (st == T_f8 && dt == T_f4)
        return vec_f8_f4(d, s, n);
    if (st == T_c16 && dt == T_c8) /* the parts, as 2n doubles */
        return vec_f8_f4(d, s, 2 * n) / 2;
    switch (st) {
        VEC_CASE(f8)
        VEC_CASE(f4)
        VEC_CASE(c16)
        VEC_CASE(c8)
    }
#undef VEC_CASE
#else
    (void)st, (void)dt, (void)d, (void)s, (void)n;
#endif
    return 0;
}

#define LOOP(SN, ST, SK, SCT, DN, DT, DK, DCT)                                                                   \
    static void cast_##SN##_##DN(char *d, Py_ssize_t dstep, const char *s, Py_ssize_t sstep, Py_ssize_t n,      \
                                 int sw)                                                                         \
    {                                                                                                            \
        (void)sw; /* byte-swapped items come native (swapped_run) */                                            \
        if (dstep == (Py_ssize_t)sizeof(DT) && sstep == (Py_ssize_t)sizeof(ST)) {                                \
            for (Py_ssize_t k = vec_cast(T_##SN, T_##DN, d, s, n); k < n; k++) {                                 \
                ST x;                                                                                            \
                DT y;                                                                                            \
                memcpy(&x, s + k * (Py_ssize_t)sizeof(ST), sizeof x);                                           \
                CONV_##SK##_##DK(DT, DCT, SCT, x, y);                                                            \
                memcpy(d + k * (Py_ssize_t)sizeof(DT), &y, sizeof y);                                           \
            }                                                                                                    \
            return;                                                                                              \
        }                                                                                                        \
        for (Py_ssize_t k = 0; k < n; k++, s += sstep, d += dstep) {                                             \
            ST x;                                                                                                \
            DT y;                                                                                                \
            memcpy(&x, s, sizeof x);                                                                             \
            CONV_##SK##_##DK(DT, DCT, SCT, x, y);                                                                \
            memcpy(d, &y, sizeof y);                                                                             \
        }                                                                                                        \
    }

/* Expand LOOP for every (source, target) pair: PAIR_<source> fixes the source,
 * MV_NUM_TYPES2 gives every target. */
#define PAIR_b1(DN, DT, DK, DCT) LOOP(b1, uint8_t, BOOL, uint8_t, DN, DT, DK, DCT)
#define PAIR_i1(DN, DT, DK, DCT) LOOP(i1, int8_t, INT, int8_t, DN, DT, DK, DCT)
#define PAIR_i2(DN, DT, DK, DCT) LOOP(i2, int16_t, INT, int16_t, DN, DT, DK, DCT)
#define PAIR_i4(DN, DT, DK, DCT) LOOP(i4, int32_t, INT, int32_t, DN, DT, DK, DCT)
#define PAIR_i8(DN, DT, DK, DCT) LOOP(i8, int64_t, INT, int64_t, DN, DT, DK, DCT)
#define PAIR_u1(DN, DT, DK, DCT) LOOP(u1, uint8_t, INT, uint8_t, DN, DT, DK, DCT)
#define PAIR_u2(DN, DT, DK, DCT) LOOP(u2, uint16_t, INT, uint16_t, DN, DT, DK, DCT)
#define PAIR_u4(DN, DT, DK, DCT) LOOP(u4, uint32_t, INT, uint32_t, DN, DT, DK, DCT)
#define PAIR_u8(DN, DT, DK, DCT) LOOP(u8, uint64_t, INT, uint64_t, DN, DT, DK, DCT)
#define PAIR_f2(DN, DT, DK, DCT) LOOP(f2, uint16_t, HALF, uint16_t, DN, DT, DK, DCT)
#define PAIR_f4(DN, DT, DK, DCT) LOOP(f4, float, FLT, float, DN, DT, DK, DCT)
#define PAIR_f8(DN, DT, DK, DCT) LOOP(f8, double, FLT, double, DN, DT, DK, DCT)
#define PAIR_c8(DN, DT, DK, DCT) LOOP(c8, cfloat, CPLX, float, DN, DT, DK, DCT)
#define PAIR_c16(DN, DT, DK, DCT) LOOP(c16, cdouble, CPLX, double, DN, DT, DK, DCT)

MV_NUM_TYPES2(PAIR_b1)
MV_NUM_TYPES2(PAIR_i1)
MV_NUM_TYPES2(PAIR_i2)
MV_NUM_TYPES2(PAIR_i4)
MV_NUM_TYPES2(PAIR_i8)
MV_NUM_TYPES2(PAIR_u1)
MV_NUM_TYPES2(PAIR_u2)
MV_NUM_TYPES2(PAIR_u4)
MV_NUM_TYPES2(PAIR_u8)
MV_NUM_TYPES2(PAIR_f2)
MV_NUM_TYPES2(PAIR_f4)
MV_NUM_TYPES2(PAIR_f8)
MV_NUM_TYPES2(PAIR_c8)
MV_NUM_TYPES2(PAIR_c16)

#define ROW(SN)                                                                                                  \
    {                                                                                                            \
        cast_##SN##_b1, cast_##SN##_i1, cast_##SN##_i2, cast_##SN##_i4, cast_##SN##_i8, cast_##SN##_u1,          \
            cast_##SN##_u2, cast_##SN##_u4, cast_##SN##_u8, cast_##SN##_f2, cast_##SN##_f4, cast_##SN##_f8,      \
            cast_##SN##_c8, cast_##SN##_c16                                                                      \
    }
static cast_loop *const loops[T_COUNT][T_COUNT] = {
    ROW(b1), ROW(i1), ROW(i2), ROW(i4), ROW(i8), ROW(u1), ROW(u2),
    ROW(u4), ROW(u8), ROW(f2), ROW(f4), ROW(f8), ROW(c8), ROW(c16),
};

/* ---- strided arrays ---- */

/* swap_dense copies count components of c bytes (2, 4, 8) from s to d with the
 * bytes of each reversed; d may be s. On x86-64 sixteen bytes at a time with
 * SSE2 alone (no pshufb in the baseline): the 16-bit words of each component
 * reordered, then the two bytes of every word swapped. */
#if defined(__x86_64__) || defined(_M_X64)
#define SWAP16_LANES(v) _mm_or_si128(_mm_slli_epi16(v, 8), _mm_srli_epi16(v, 8))
#define SWAP_BLOCKS(WORDS)                                                                                       \
    for (; i + 16 <= nb; i += 16) {                                                                              \
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));                                     \
        v = WORDS;                                                                                               \
        _mm_storeu_si128((__m128i *)(void *)(d + i), SWAP16_LANES(v));                                          \
    }
#endif
#if (defined(__x86_64__) || defined(_M_X64)) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
/* swap_avx2: where the CPU has AVX2, 32 bytes at a time with one byte shuffle;
 * it returns how many bytes it did */
__attribute__((target("avx2"))) static Py_ssize_t
swap_avx2(unsigned char *d, const unsigned char *s, Py_ssize_t nb, int c)
{
    static const signed char order[3][16] = {
        {1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14},
        {3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12},
        {7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8},
    };
    const signed char *o = order[c == 2 ? 0 : c == 4 ? 1 : 2];
    __m256i m = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)o));
    Py_ssize_t i = 0;
    for (; i + 32 <= nb; i += 32) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(s + i));
        _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_shuffle_epi8(v, m));
    }
    return i;
}
#define MV_SWAP_AVX2 1
#endif

static void
swap_dense(unsigned char *d, const unsigned char *s, Py_ssize_t count, int c)
{
    Py_ssize_t i = 0, nb = count * c;
#ifdef MV_SWAP_AVX2
    if (nb >= 64 && (c == 2 || c == 4 || c == 8) && __builtin_cpu_supports("avx2"))
        i = swap_avx2(d, s, nb, c);
#endif
    switch (c) {
    case 2:
#if defined(__x86_64__) || defined(_M_X64)
        SWAP_BLOCKS(v)
#endif
        for (; i < nb; i += 2) {
            uint16_t v;
            memcpy(&v, s + i, 2);
            v = __builtin_bswap16(v);
            memcpy(d + i, &v, 2);
        }
        return;
    case 4:
#if defined(__x86_64__) || defined(_M_X64)
        SWAP_BLOCKS(_mm_shufflehi_epi16(_mm_shufflelo_epi16(v, _MM_SHUFFLE(2, 3, 0, 1)), _MM_SHUFFLE(2, 3, 0, 1)))
#endif
        for (; i < nb; i += 4) {
            uint32_t v;
            memcpy(&v, s + i, 4);
            v = __builtin_bswap32(v);
            memcpy(d + i, &v, 4);
        }
        return;
    case 8:
#if defined(__x86_64__) || defined(_M_X64)
        SWAP_BLOCKS(_mm_shufflehi_epi16(_mm_shufflelo_epi16(v, _MM_SHUFFLE(0, 1, 2, 3)), _MM_SHUFFLE(0, 1, 2, 3)))
#endif
        for (; i < nb; i += 8) {
            uint64_t v;
            memcpy(&v, s + i, 8);
            v = __builtin_bswap64(v);
            memcpy(d + i, &v, 8);
        }
        return;
    }
}

/* swap_copy_run: one type in both byte orders, a copy that reverses each
 * component (c bytes; an item of sz bytes) */
static void
swap_copy_run(char *d, Py_ssize_t dstep, const char *s, Py_ssize_t sstep, Py_ssize_t n, Py_ssize_t sz, int c)
{
    if (dstep == sz && sstep == sz) {
        swap_dense((unsigned char *)d, (const unsigned char *)s, n * sz / c, c);
        return;
    }
    for (Py_ssize_t i = 0; i < n; i++, d += dstep, s += sstep)
        swap_dense((unsigned char *)d, (const unsigned char *)s, sz / c, c);
}

/* swapped_run casts n items where either side is byte-swapped, in chunks: the
 * source gathered into native order, cast there by the dense loop, the result
 * swapped and scattered (dense sides swapped or cast in place, in one pass). */
static void
swapped_run(cast_loop *loop, char *d, Py_ssize_t dstep, mv_num dn, const char *s, Py_ssize_t sstep, mv_num sn,
            Py_ssize_t n, int sw)
{
    enum { CHUNK = 256 };
    _Alignas(16) unsigned char sb[CHUNK * 16], db[CHUNK * 16];
    Py_ssize_t ssz = sn.size, dsz = dn.size;
    int sc = sn.kind == 'c' ? sn.size / 2 : sn.size, dc = dn.kind == 'c' ? dn.size / 2 : dn.size;
    for (Py_ssize_t at = 0; at < n; at += CHUNK) {
        Py_ssize_t m = n - at < CHUNK ? n - at : CHUNK;
        const char *sp = s + at * sstep;
        if (sstep == ssz && (sw & 1)) { /* gathered and swapped in one pass */
            swap_dense(sb, (const unsigned char *)sp, m * ssz / sc, sc);
        } else {
            if (sstep == ssz)
                memcpy(sb, sp, (size_t)(m * ssz));
            else
                for (Py_ssize_t i = 0; i < m; i++)
                    memcpy(sb + i * ssz, sp + i * sstep, (size_t)ssz);
            if (sw & 1)
                swap_dense(sb, sb, m * ssz / sc, sc);
        }
        char *dp = d + at * dstep;
        if (dstep == dsz && !(sw & 2)) { /* cast straight into place */
            loop(dp, dsz, (const char *)sb, ssz, m, 0);
            continue;
        }
        loop((char *)db, dsz, (const char *)sb, ssz, m, 0);
        if (dstep == dsz) { /* swapped and scattered in one pass */
            swap_dense((unsigned char *)dp, db, m * dsz / dc, dc);
            continue;
        }
        if (sw & 2)
            swap_dense(db, db, m * dsz / dc, dc);
        for (Py_ssize_t i = 0; i < m; i++)
            memcpy(dp + i * dstep, db + i * dsz, (size_t)dsz);
    }
}

int
mv_cast_strided(char *d, const Py_ssize_t *ds, mv_num dn, const char *s, const Py_ssize_t *ss, mv_num sn,
                const Py_ssize_t *shape, int nd)
{
    /* drop axes of one element and merge axes that both sides step through evenly */
    Py_ssize_t sh[MV_MAXDIM], dst[MV_MAXDIM], sst[MV_MAXDIM];
    int n = 0;
    for (int k = 0; k < nd; k++) {
        if (shape[k] == 0)
            return 0;
        if (shape[k] == 1)
            continue;
        if (n > 0 && dst[n - 1] == ds[k] * shape[k] && sst[n - 1] == ss[k] * shape[k]) {
            sh[n - 1] *= shape[k];
            dst[n - 1] = ds[k];
            sst[n - 1] = ss[k];
            continue;
        }
        sh[n] = shape[k];
        dst[n] = ds[k];
        sst[n] = ss[k];
        n++;
    }
    if (n == 0) {
        sh[0] = 1;
        dst[0] = sst[0] = 0;
        n = 1;
    }
    cast_loop *loop = loops[sn.type][dn.type];
    int sw = (sn.swapped ? 1 : 0) | (dn.swapped ? 2 : 0);
    /* only casts from floats (to integers, to narrower floats) and to float16
     * can raise invalid or overflow: the others need not ask the hardware */
    int fe = (sn.kind == 'f' || sn.kind == 'c' || (dn.kind == 'f' && dn.size == 2)) && sn.type != dn.type;
    if (fe)
        fe_clear();
    Py_ssize_t idx[MV_MAXDIM] = {0};
    int inner = n - 1;
    for (;;) {
        if (sw && (sw == 3 || sn.type != dn.type))
            swapped_run(loop, d, dst[inner], dn, s, sst[inner], sn, sh[inner], sw);
        else if (sw) /* the same type in the other byte order */
            swap_copy_run(d, dst[inner], s, sst[inner], sh[inner], sn.size, sn.kind == 'c' ? sn.size / 2 : sn.size);
        else
            loop(d, dst[inner], s, sst[inner], sh[inner], 0);
        int k = inner - 1;
        for (; k >= 0; k--) {
            d += dst[k];
            s += sst[k];
            if (++idx[k] < sh[k])
                break;
            d -= dst[k] * sh[k];
            s -= sst[k] * sh[k];
            idx[k] = 0;
        }
        if (k < 0)
            break;
    }
    int raised = fe ? fe_test() : 0;
    if (raised)
        fe_clear();
    return raised;
}

/* ---- warnings, as NumPy gives them ---- */

static PyObject *complex_warning; /* numpy.exceptions.ComplexWarning, or memview's own */

/* mv_complex_warning: the class of the warning a complex-to-real cast gives */
static PyObject *
mv_complex_warning(void)
{
    if (complex_warning != NULL)
        return complex_warning;
    PyObject *mod = PyImport_ImportModule("numpy.exceptions");
    if (mod != NULL) {
        complex_warning = PyObject_GetAttrString(mod, "ComplexWarning");
        Py_DECREF(mod);
    }
    if (complex_warning == NULL) {
        PyErr_Clear();
        complex_warning = PyErr_NewExceptionWithDoc(
            "memview.ComplexWarning",
            "The warning a cast from complex to real numbers gives: it discards the imaginary part.\n"
            "(NumPy's numpy.exceptions.ComplexWarning where NumPy can be imported.)",
            PyExc_RuntimeWarning, NULL);
    }
    return complex_warning;
}

int
mv_cast_prewarn(mv_num d, mv_num s)
{
    if (s.kind != 'c' || d.kind == 'c' || d.kind == 'b') /* a bool reads both parts */
        return 0;
    PyObject *w = mv_complex_warning();
    if (w == NULL)
        return -1;
    return PyErr_WarnEx(w, "Casting complex values to real discards the imaginary part", 1);
}

/* numpy_errstate: what NumPy's error state (np.geterr()) says for kind
 * ("over", "invalid"): 0 ignore, 1 warn, 2 raise; warn without one. */
static int
numpy_errstate(PyObject *state, const char *kind)
{
    if (state == NULL)
        return 1;
    PyObject *v = PyDict_GetItemString(state, kind);
    if (v == NULL || !PyUnicode_Check(v))
        return 1;
    if (PyUnicode_CompareWithASCIIString(v, "ignore") == 0)
        return 0;
    if (PyUnicode_CompareWithASCIIString(v, "raise") == 0)
        return 2;
    return 1;
}

int
mv_cast_postwarn(int flags)
{
    if (flags == 0)
        return 0;
    /* NumPy's error state, where NumPy is loaded (np.errstate, np.seterr) */
    PyObject *state = NULL, *name = PyUnicode_FromString("numpy");
    if (name == NULL)
        return -1;
    PyObject *np = PyImport_GetModule(name);
    Py_DECREF(name);
    if (np != NULL) {
        state = PyObject_CallMethod(np, "geterr", NULL);
        Py_DECREF(np);
        if (state != NULL && !PyDict_Check(state))
            Py_CLEAR(state);
        if (state == NULL)
            PyErr_Clear();
    } else if (PyErr_Occurred()) {
        PyErr_Clear();
    }
    static const struct {
        int flag;
        const char *kind, *text;
    } order[] = { /* NumPy reports overflow before invalid */
                 {MV_CAST_OVERFLOW, "over", "overflow encountered in cast"},
                 {MV_CAST_INVALID, "invalid", "invalid value encountered in cast"}};
    int rc = 0;
    for (int k = 0; k < 2 && rc == 0; k++) {
        if (!(flags & order[k].flag))
            continue;
        switch (numpy_errstate(state, order[k].kind)) {
        case 0:
            break;
        case 2:
            PyErr_SetString(PyExc_FloatingPointError, order[k].text);
            rc = -1;
            break;
        default:
            rc = PyErr_WarnEx(PyExc_RuntimeWarning, order[k].text, 1);
        }
    }
    Py_XDECREF(state);
    return rc;
}

/* complex_warning(): the class a complex-to-real cast warns with (memview.ComplexWarning) */
static PyObject *
core_complex_warning(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    return Py_XNewRef(mv_complex_warning());
}

PyMethodDef mv_cast_functions[] = {
    {"complex_warning", core_complex_warning, METH_NOARGS,
     "complex_warning(): the warning class of a complex-to-real cast: NumPy's ComplexWarning, or memview's own"},
    {NULL},
};
