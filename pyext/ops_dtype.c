/*
 * ops_dtype.c — the one cache of what Go says about item types: every
 * question C asks Go about a dtype name or a format (mv_ask), answered once
 * and kept, for the module functions dtype_info, format_info and dtype_desc,
 * for creation in C (ops_create.c) and for imports in C (ops_import.c).
 *
 * The answers to the basic dtypes and formats (dtypes_table.h, and the other
 * spellings exporters use) are asked at install and kept for good, so that a
 * forked child, which cannot ask Go (go_fork.c), knows them too; others are
 * kept as they come, and dropped all at once when the cache is full (mv_ask_gen
 * then changes, for those who remember an answer by its address).
 */
#include "ops.h"
#include "dtypes_table.h"

/* An entry: a question, its key and Go's answer. */
typedef struct {
    mv_item item;
    char *key; /* PyMem, NUL-terminated */
    Py_ssize_t n;
    uint32_t hash;
    int ask;
} entry;

#define NITEM 1024 /* answers kept */
#define NSLOT 2048 /* hash slots: a power of two, twice NITEM */
static entry items[NITEM];
static int nitems, npinned;
static int16_t slots[NSLOT]; /* index + 1 into items; 0 is empty */
unsigned mv_ask_gen;

static uint32_t
hash_of(int ask, const char *key, Py_ssize_t n)
{
    uint32_t h = 2166136261u ^ (uint32_t)ask; /* FNV-1a */
    for (Py_ssize_t k = 0; k < n; k++)
        h = (h ^ (unsigned char)key[k]) * 16777619u;
    return h;
}

static void
put_slot(int idx)
{
    uint32_t s = items[idx].hash & (NSLOT - 1);
    while (slots[s] != 0)
        s = (s + 1) & (NSLOT - 1);
    slots[s] = (int16_t)(idx + 1);
}

static entry *
find(int ask, const char *key, Py_ssize_t n, uint32_t h)
{
    for (uint32_t s = h & (NSLOT - 1); slots[s] != 0; s = (s + 1) & (NSLOT - 1)) {
        entry *x = &items[slots[s] - 1];
        if (x->hash == h && x->ask == ask && x->n == n && memcmp(x->key, key, (size_t)n) == 0)
            return x;
    }
    return NULL;
}

static void
free_entry(entry *x)
{
    PyMem_Free(x->key);
    PyMem_Free(x->item.format);
    PyMem_Free(x->item.dtype);
    PyMem_Free(x->item.json);
    PyMem_Free(x->item.sub);
    Py_CLEAR(x->item.answer);
    memset(x, 0, sizeof *x);
}

/* drop_unpinned forgets every answer not asked at install. */
static void
drop_unpinned(void)
{
    for (int k = npinned; k < nitems; k++)
        free_entry(&items[k]);
    nitems = npinned;
    memset(slots, 0, sizeof slots);
    for (int k = 0; k < nitems; k++)
        put_slot(k);
    mv_ask_gen++;
}

/* strdup16 is a PyMem copy of s in at least 16 zeroed bytes (arrays copy
 * short ones whole), or NULL when memory ran out. */
static char *
strdup16(const char *s)
{
    size_t n = strlen(s);
    char *p = PyMem_Calloc(n < 16 ? 16 : n + 1, 1);
    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

/* ask_go puts Go's answer to ask about key into it: 0, or -1 with *e set (rc
 * 1 when the answer could not be kept: out of memory, no exception set). */
static int
ask_go(int ask, const char *key, mv_item *it, mv_err *e)
{
    mv_meta m;
    int align = 0, rc;
    switch (ask) {
    case MV_ASK_DESC: {
        char *out = NULL;
        if ((rc = mv_go_dtype_desc((char *)key, &out, e)) != 0)
            return -1;
        it->json = mv_pymem_strdup(out);
        free(out);
        return it->json == NULL ? 1 : 0;
    }
    case MV_ASK_CREATE:
        rc = mv_go_create_info((char *)key, &m, e);
        break;
    case MV_ASK_IMPORT:
        rc = mv_go_import_info((char *)key, &m, &align, e);
        break;
    case MV_ASK_FIELD: {
        int64_t offset = 0;
        m.ndim = 0;
        rc = mv_go_field_info((char *)key, &m, &offset, e);
        it->offset = (Py_ssize_t)offset;
        if (rc == 0 && m.ndim > 0) {
            it->sub = PyMem_Malloc(2 * (size_t)m.ndim * sizeof(Py_ssize_t));
            if (it->sub == NULL) {
                free(m.long_format);
                free(m.long_dtype);
                return 1;
            }
            for (int k = 0; k < m.ndim; k++) {
                it->sub[k] = (Py_ssize_t)m.shape[k];
                it->sub[m.ndim + k] = (Py_ssize_t)m.strides[k];
            }
            it->nsub = m.ndim;
        }
        break;
    }
    default:
        rc = mv_go_dtype_info((char *)key, ask == MV_ASK_FORMAT, &m, e);
    }
    if (rc != 0)
        return -1;
    it->format = strdup16(m.long_format ? m.long_format : m.format);
    it->dtype = strdup16(m.long_dtype ? m.long_dtype : m.dtype);
    it->short16 = it->format != NULL && it->dtype != NULL && mv_short16(it->format) && mv_short16(it->dtype);
    free(m.long_format);
    free(m.long_dtype);
    it->itemsize = (Py_ssize_t)m.itemsize;
    it->runs = m.runs;
    it->normal = m.normal;
    it->align = align > 0 ? align : 1;
    memcpy(it->typestr, m.typestr, sizeof it->typestr);
    it->typestr[sizeof it->typestr - 1] = 0;
    return it->format == NULL || it->dtype == NULL ? 1 : 0;
}

const mv_item *
mv_ask(int ask, const char *key, Py_ssize_t n, int raise)
{
    uint32_t h = hash_of(ask, key, n);
    entry *x = find(ask, key, n, h);
    if (x != NULL)
        return &x->item;
    if (!mv_go_usable()) {
        if (raise) {
            char what[200];
            PyOS_snprintf(what, sizeof what, "reading the dtype %.120s, which this process's parent never read,",
                          key);
            mv_raise_forked(what);
        }
        return NULL;
    }
    if (nitems == NITEM)
        drop_unpinned();
    x = &items[nitems];
    mv_err e;
    int rc = ask_go(ask, key, &x->item, &e);
    if (rc == 0 && (x->key = PyMem_Malloc((size_t)n + 1)) == NULL)
        rc = 1;
    if (rc != 0) {
        free_entry(x);
        if (!raise)
            return NULL;
        return rc < 0 ? (mv_raise(&e), NULL) : (PyErr_NoMemory(), NULL);
    }
    memcpy(x->key, key, (size_t)n);
    x->key[n] = 0;
    x->n = n;
    x->hash = h;
    x->ask = ask;
    put_slot(nitems++);
    return &x->item;
}

/* answer is the module functions' form of Go's answer to ask about arg: made
 * once and kept with it. */
static PyObject *
answer(int ask, PyObject *arg)
{
    const char *name = mv_dtype_arg(arg);
    if (name == NULL)
        return NULL; /* the TypeError, raised before Go */
    Py_ssize_t n = (Py_ssize_t)strlen(name);
    const mv_item *it = mv_ask(ask, name, n, 1);
    if (it == NULL)
        return NULL;
    if (it->answer != NULL)
        return Py_NewRef(it->answer);
    unsigned gen = mv_ask_gen;
    PyObject *r;
    if (ask == MV_ASK_DESC) {
        r = PyUnicode_FromString(it->json);
    } else {
        /* the items first: they run no other code, while making the tuple may
         * (a collection) */
        PyObject *d = PyUnicode_FromString(it->dtype), *z = PyLong_FromSsize_t(it->itemsize);
        PyObject *t = PyUnicode_FromString(it->typestr), *f = PyUnicode_FromString(it->format);
        r = d && z && t && f ? PyTuple_Pack(4, d, z, t, f) : NULL;
        Py_XDECREF(d);
        Py_XDECREF(z);
        Py_XDECREF(t);
        Py_XDECREF(f);
    }
    /* making r may have run other code that asked in turn: the entry is
     * looked up again before r is kept in it */
    if (r != NULL && gen == mv_ask_gen) {
        entry *x = find(ask, name, n, hash_of(ask, name, n));
        if (x != NULL && x->item.answer == NULL)
            x->item.answer = Py_NewRef(r);
    }
    return r;
}

/* dtype_info(name) -> (name, itemsize, typestr, format) of a dtype name, typestr or format */
static PyObject *
core_dtype_info(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return answer(MV_ASK_DTYPE, arg);
}

/* format_info(format) -> the same for a PEP 3118 format (an exporter's), read
 * as struct reads it ("<l" is 4 bytes) */
static PyObject *
core_format_info(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return answer(MV_ASK_FORMAT, arg);
}

/* dtype_desc(name) -> str: the JSON item descriptor of a dtype (see format_bridge.go) */
static PyObject *
core_dtype_desc(PyObject *mod, PyObject *arg)
{
    (void)mod;
    return answer(MV_ASK_DESC, arg);
}

/* The basic dtypes by name and format (dtypes_table.h), and the formats that
 * exporters and the facade spell them with: the codes of the table and the
 * other codes of the same types, bare and after each byte-order prefix of
 * native order (those Go refuses are left out). */
#define MV_DTYPE_NAME(name, kind, itemsize, format, typestr) name,
#define MV_DTYPE_FORMAT(name, kind, itemsize, format, typestr) format,
static const char *const basic_dtypes[] = {MV_BASIC_DTYPES(MV_DTYPE_NAME)};
static const char *const basic_codes[] = {MV_BASIC_DTYPES(MV_DTYPE_FORMAT) "q", "Q", "n", "N", "c"};
#undef MV_DTYPE_NAME
#undef MV_DTYPE_FORMAT

/* ask_all asks every question about key; an answer Go refuses (a spelling it
 * does not take in that role) is left out. */
static void
ask_all(const char *key)
{
    for (int ask = 0; ask < MV_ASK_FIELD; ask++) /* fields are asked of records only */
        mv_ask(ask, key, (Py_ssize_t)strlen(key), 0);
}

int
mv_install_dtypes(void)
{
    for (size_t k = 0; k < sizeof basic_dtypes / sizeof basic_dtypes[0]; k++) {
        ask_all(basic_dtypes[k]);
        if (mv_ask(MV_ASK_CREATE, basic_dtypes[k], (Py_ssize_t)strlen(basic_dtypes[k]), 0) == NULL) {
            PyErr_Format(PyExc_SystemError, "memview: the Go core does not know the dtype %s", basic_dtypes[k]);
            return -1;
        }
    }
    static const char *const prefixes[] = {"", "<", "=", "@"};
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes[0]; p++)
        for (size_t k = 0; k < sizeof basic_codes / sizeof basic_codes[0]; k++) {
            char key[8];
            PyOS_snprintf(key, sizeof key, "%s%s", prefixes[p], basic_codes[k]);
            ask_all(key);
        }
    npinned = nitems; /* kept for good */
    return 0;
}

/* dtype_cache() -> (answers kept, kept for good, times the others were dropped) */
static PyObject *
core_dtype_cache(PyObject *mod, PyObject *unused)
{
    (void)mod;
    (void)unused;
    return Py_BuildValue("(iiI)", nitems, npinned, mv_ask_gen);
}

PyMethodDef mv_dtype_functions[] = {
    {"dtype_cache", core_dtype_cache, METH_NOARGS,
     "dtype_cache() -> (answers kept, kept for good, times the others were dropped)"},
    {"dtype_info", core_dtype_info, METH_O, "dtype_info(name) -> (name, itemsize, typestr, format)"},
    {"format_info", core_format_info, METH_O, "format_info(format) -> (name, itemsize, typestr, format)"},
    {"dtype_desc", core_dtype_desc, METH_O, "dtype_desc(name) -> JSON item descriptor"},
    {NULL},
};
