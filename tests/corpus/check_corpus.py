"""The corpus check: unmodified Go modules from the module proxy (pinned in
tests/corpus/go.mod and go.sum), bound with memview as they are, called against
Python references, with what each binds and how fast.

    python3 build.py ext $(python3 tests/corpus/check_corpus.py --with-args)
    PYTHONPATH=.build/pkg .build/venv/bin/python tests/corpus/check_corpus.py

(--with-args: build.py's --with DIR=NAME for each module, from `go mod download
-json` in tests/corpus, which checks go.sum; .ci/run's corpus leg does the same.)

Each module is checked against a reference:
- montanaflynn/stats (statistics) against Python's statistics;
- gonum.org/v1/gonum/floats (numeric work; a package in a subfolder of its
  module) against NumPy, in place on NumPy's arrays;
- cespare/xxhash/v2 (hashing; a /vN module, imported as goxxhash: PyPI's
  xxhash has the name) and zeebo/xxh3 against PyPI's xxhash;
- spaolacci/murmur3 (a module with no go.mod) against PyPI's mmh3;
- lukechampine.com/blake3 (assembly) against PyPI's blake3;
- golang/snappy (compression) against cramjam's snappy (each decodes the
  other's output) and known values;
- mr-tron/base58 (encoding; imported as gobase58) against PyPI's base58;
- mmcloughlin/geohash (geometry; imported as gogeohash) against pygeohash;
- google/uuid (a named [16]byte with methods; imported as gouuid) against
  Python's uuid.
A reference not installed is said and skipped; the module is then checked by
known values and round trips. It fails on a wrong result, on a module with
less than 90% of its exported functions and methods bound (95% across the
corpus), and where mypy's stubtest finds a stub the build wrote at odds with
the module.
"""
import math
import statistics
import sys
import time

np = mv = None  # numpy and memview, imported by main (--with-args needs neither)

# import name: the Go package's import path
MODULES = {"stats": "github.com/montanaflynn/stats", "floats": "gonum.org/v1/gonum/floats",
           "goxxhash": "github.com/cespare/xxhash/v2", "xxh3": "github.com/zeebo/xxh3",
           "murmur3": "github.com/spaolacci/murmur3", "goblake3": "lukechampine.com/blake3",
           "snappy": "github.com/golang/snappy", "gobase58": "github.com/mr-tron/base58",
           "gogeohash": "github.com/mmcloughlin/geohash", "gouuid": "github.com/google/uuid"}


def reference(name: str):
    """The Python reference package name, or None (said) where it is not installed."""
    import importlib
    try:
        return importlib.import_module(name)
    except ImportError:
        print(f"({name} is not installed: checked against known values only)")
        return None


def best(fn, number):
    t = []
    for _ in range(5):
        s = time.perf_counter()
        for _ in range(number):
            fn()
        t.append((time.perf_counter() - s) / number)
    return min(t)


def speed(name: str, fn, ref: str, ref_fn, number: int) -> tuple:
    """A row of the speed table: fn against ref_fn, each the best of 5 runs of number calls."""
    return name, best(fn, number), ref, best(ref_fn, number)


def coverage() -> None:
    packages = mv.go_packages()
    print(f"{'module':36s} {'bound':>6s} {'fast':>6s} {'total':>6s}")
    bound = total = 0
    for name, path in MODULES.items():
        info = packages[name]
        assert info["path"] == path, (name, info["path"])
        n = info["bound"] + len(info["left_out"])
        print(f"{path:36s} {info['bound']:6d} {info['fast']:6d} {n:6d}")
        for what, why in sorted(info["left_out"].items()):
            print(f"    left out: {what}: {why}")
        assert info["bound"] >= 0.9 * n, f"{path}: {info['bound']} of {n} bound"
        bound += info["bound"]
        total += n
    print(f"{'the corpus':36s} {bound:6d} {'':6s} {total:6d}")
    assert bound >= 0.95 * total


def stubtest() -> None:
    """mypy's stubtest over the stubs the build wrote for the corpus, with no allowlist."""
    import pathlib
    import subprocess
    config = pathlib.Path(__file__).resolve().parent.parent.parent / "tools" / "stubtest.ini"
    r = subprocess.run([sys.executable, "-m", "mypy.stubtest", *MODULES, "--mypy-config-file", str(config)],
                       capture_output=True, text=True, timeout=600)
    print(r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip())
    assert r.returncode == 0, r.stdout + r.stderr


def check_stats() -> list:
    import stats
    rng = np.random.default_rng(1)
    x = rng.normal(3.0, 2.0, 1001)
    xs = x.tolist()
    assert math.isclose(stats.Mean(x), statistics.fmean(xs), rel_tol=1e-12)
    assert stats.Median(x) == statistics.median(xs)
    assert math.isclose(stats.StandardDeviationSample(x), statistics.stdev(xs), rel_tol=1e-9)
    assert math.isclose(stats.SampleVariance(x), statistics.variance(xs), rel_tol=1e-9)
    assert stats.Sum(np.arange(5.0)) == 10.0 and stats.Max(x) == max(xs) and stats.Min(x) == min(xs)
    assert list(stats.Mode(np.array([1.0, 2.0, 2.0, 3.0]))) == [2.0]
    try:
        stats.Mean(np.zeros(0))
    except stats.ErrEmptyInput as e:
        assert isinstance(e, stats.Error) and isinstance(e, RuntimeError)
    else:
        raise AssertionError("stats.Mean of nothing did not raise stats.ErrEmptyInput")
    rows = []
    for n in (8, 1 << 17):  # 64 B and 1 MiB of float64
        v = rng.normal(size=n)
        vl = v.tolist()
        number = 20_000 if n < 100 else 20
        rows.append(speed(f"stats.Mean ({n * 8} B)", lambda: stats.Mean(v),
                              "statistics.fmean", lambda: statistics.fmean(vl), number))
    return rows


def check_xxhash() -> list:
    import goxxhash
    try:
        import xxhash
    except ImportError:
        print("(PyPI's xxhash is not installed: goxxhash checked against known values only)")
        xxhash = None
    assert goxxhash.Sum64(b"") == 17241709254077376921 and goxxhash.Sum64String("abc") == 4952883123889572249
    rng = np.random.default_rng(2)
    rows = []
    for n in (64, 1 << 20):
        data = rng.integers(0, 256, n, dtype=np.uint8)
        raw = data.tobytes()
        d = goxxhash.New()
        d.Write(raw[: n // 2])
        d.Write(data[n // 2:])
        assert d.Sum64() == goxxhash.Sum64(raw) == goxxhash.Sum64(data)  # bytes and any buffer alike
        if xxhash is not None:
            assert goxxhash.Sum64(raw) == xxhash.xxh64_intdigest(raw)
            number = 100_000 if n < 100 else 200
            rows.append(speed(f"goxxhash.Sum64 ({n} B)", lambda: goxxhash.Sum64(raw),
                              "xxhash.xxh64_intdigest", lambda: xxhash.xxh64_intdigest(raw), number))
    return rows


def check_floats() -> list:
    import floats
    rng = np.random.default_rng(4)
    x, y = rng.normal(size=1000), rng.normal(size=1000)
    assert math.isclose(floats.Sum(x), x.sum(), rel_tol=1e-12) and math.isclose(floats.Dot(x, y), x @ y, rel_tol=1e-12)
    assert math.isclose(floats.Norm(x, 2), np.linalg.norm(x), rel_tol=1e-12) and floats.Max(x) == x.max()
    d = x.copy()
    floats.Add(d, y)  # in place, on NumPy's memory
    assert np.array_equal(d, x + y)
    floats.Scale(0.5, d)
    assert np.array_equal(d, (x + y) * 0.5)
    assert np.allclose(floats.CumSum(np.empty(1000), x), np.cumsum(x))
    s, idx = x.copy(), np.zeros(1000, dtype=np.int64)
    floats.Argsort(s, idx)
    assert np.array_equal(s, np.sort(x)) and np.array_equal(idx, np.argsort(x, kind="stable"))
    assert floats.Count(lambda v: v > 0, x) == int((x > 0).sum())  # a Python callable where Go takes a func
    try:
        floats.Add(d, y[:5])
    except RuntimeError as e:
        assert "length" in str(e)
    else:
        raise AssertionError("floats.Add of unequal lengths did not raise")
    rows = []
    for n in (8, 1 << 17):
        v = rng.normal(size=n)
        number = 50_000 if n < 100 else 200
        rows.append(speed(f"floats.Sum ({n * 8} B)", lambda: floats.Sum(v),
                              "numpy.ndarray.sum", lambda: v.sum(), number))
    return rows


def check_xxh3() -> list:
    import xxh3
    xxhash = reference("xxhash")
    rng = np.random.default_rng(5)
    rows = []
    for n in (0, 64, 1 << 20):
        raw = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        h = xxh3.New()
        h.Write(raw)
        assert h.Sum64() == xxh3.Hash(raw) == xxh3.Hash(np.frombuffer(raw, np.uint8))
        q = xxh3.Hash128(raw)  # a struct of two uint64 fields: a value object
        if xxhash is not None:
            assert xxh3.Hash(raw) == xxhash.xxh3_64_intdigest(raw)
            assert xxh3.HashSeed(raw, 7) == xxhash.xxh3_64_intdigest(raw, seed=7)
            assert (q.Hi << 64 | q.Lo) == xxhash.xxh3_128_intdigest(raw)
            if n:
                number = 100_000 if n < 100 else 200
                rows.append(speed(f"xxh3.Hash ({n} B)", lambda: xxh3.Hash(raw),
                              "xxhash.xxh3_64_intdigest", lambda: xxhash.xxh3_64_intdigest(raw), number))
    return rows


def check_murmur3() -> list:
    import murmur3
    mmh3 = reference("mmh3")
    rng = np.random.default_rng(6)
    rows = []
    assert murmur3.Sum32(b"") == 0 and murmur3.Sum32(b"hello") == 613153351
    for n in (64, 1 << 20):
        raw = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        h = murmur3.New128()  # an interface value: gopy's object, taking bytes
        h.Write(raw)
        h1, h2 = murmur3.Sum128(raw)  # several results: a tuple
        assert bytes(h.Sum(None)) == h1.to_bytes(8, "big") + h2.to_bytes(8, "big")
        assert murmur3.Sum64(raw) == h1 and murmur3.Sum32(np.frombuffer(raw, np.uint8)) == murmur3.Sum32(raw)
        if mmh3 is not None:
            assert murmur3.Sum32(raw) == mmh3.hash(raw, signed=False)
            assert murmur3.Sum32WithSeed(raw, 42) == mmh3.hash(raw, 42, signed=False)
            assert (h1, h2) == mmh3.hash64(raw, signed=False)
            number = 100_000 if n < 100 else 200
            rows.append(speed(f"murmur3.Sum32 ({n} B)", lambda: murmur3.Sum32(raw),
                              "mmh3.hash", lambda: mmh3.hash(raw, signed=False), number))
    return rows


def check_blake3() -> list:
    import goblake3
    blake3 = reference("blake3")
    assert goblake3.Sum256(b"").hex() == "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    rng = np.random.default_rng(7)
    rows = []
    for n in (64, 1 << 20):
        raw = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        digest = goblake3.Sum256(raw)  # a [32]byte: bytes, as hashlib's digest()
        assert isinstance(digest, bytes) and len(digest) == 32 and goblake3.Sum512(raw)[:32] == digest
        key = bytes(range(32))
        h = goblake3.New(32, key)
        h.Write(raw)
        keyed = bytes(h.Sum(None))
        if blake3 is not None:
            assert digest == blake3.blake3(raw).digest()
            assert keyed == blake3.blake3(raw, key=key).digest()
            number = 50_000 if n < 100 else 100
            rows.append(speed(f"goblake3.Sum256 ({n} B)", lambda: goblake3.Sum256(raw),
                              "blake3.blake3().digest", lambda: blake3.blake3(raw).digest(), number))
    return rows


def check_base58() -> list:
    import gobase58
    base58 = reference("base58")
    assert gobase58.Encode(b"hello world") == "StV1DL6CwTryKyV" and bytes(gobase58.Decode("StV1DL6CwTryKyV")) == \
        b"hello world"
    try:
        gobase58.Decode("0OIl")
    except RuntimeError as e:
        assert "invalid" in str(e)
    else:
        raise AssertionError("gobase58.Decode of a bad digit did not raise")
    rng = np.random.default_rng(8)
    rows = []
    for n in (32, 1024):
        raw = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        enc = gobase58.Encode(raw)
        assert bytes(gobase58.Decode(enc)) == raw
        if base58 is not None:
            assert enc == base58.b58encode(raw).decode() and bytes(gobase58.Decode(enc)) == base58.b58decode(enc)
            number = 20_000 if n < 100 else 200
            rows.append(speed(f"gobase58.Encode ({n} B)", lambda: gobase58.Encode(raw),
                              "base58.b58encode", lambda: base58.b58encode(raw), number))
    return rows


def check_geohash() -> list:
    import gogeohash
    pygeohash = reference("pygeohash")
    assert gogeohash.Encode(57.64911, 10.40744) == "u4pruydqqvj8"
    lat, lng = gogeohash.Decode("u4pruydqqvj")  # several results: a tuple
    assert abs(lat - 57.64911) < 1e-5 and abs(lng - 10.40744) < 1e-5
    box = gogeohash.BoundingBox("u4pruyd")  # a struct of four float64 fields: a value object
    assert box.MinLat < box.Center()[0] < box.MaxLat and box.Contains(*box.Center())
    assert gogeohash.ConvertIntToString(gogeohash.EncodeIntWithPrecision(57.64911, 10.40744, 60), 12) == "u4pruydqqvj8"
    assert gogeohash.Neighbor("u4pruyd", gogeohash.North) == "u4pruyf" and gogeohash.Validate("u4pruyd") is None
    rows = []
    if pygeohash is not None:
        rng = np.random.default_rng(9)
        for la, lo in zip(rng.uniform(-90, 90, 200), rng.uniform(-180, 180, 200)):
            assert gogeohash.EncodeWithPrecision(la, lo, 9) == pygeohash.encode(la, lo, 9)
        rows.append(speed("gogeohash.Encode", lambda: gogeohash.Encode(57.64911, 10.40744),
                              "pygeohash.encode", lambda: pygeohash.encode(57.64911, 10.40744, 12), 50_000))
    return rows


def check_uuid() -> list:
    import uuid
    import gouuid
    dns = gouuid.NameSpaceDNS()  # a package variable: its getter
    assert type(dns) is gouuid.UUID and isinstance(dns, bytes) and dns == uuid.NAMESPACE_DNS.bytes
    u = gouuid.NewSHA1(dns, b"python.org")  # a named [16]byte: bytes, with UUID's methods
    assert u == uuid.uuid5(uuid.NAMESPACE_DNS, "python.org").bytes and str(u) == u.String() == \
        str(uuid.uuid5(uuid.NAMESPACE_DNS, "python.org"))
    assert u.Version() == 5 and u.Variant() == gouuid.RFC4122 and u.URN() == uuid.UUID(bytes=u).urn
    assert gouuid.NewMD5(uuid.NAMESPACE_URL.bytes, b"x") == uuid.uuid3(uuid.NAMESPACE_URL, "x").bytes
    r = gouuid.NewRandom()
    assert uuid.UUID(bytes=r).version == 4 and gouuid.Parse(str(r)) == r and gouuid.FromBytes(r) == r
    assert gouuid.Must(r, None) == r  # gopy's path: the bytes as a Go copy, None a nil error
    try:
        gouuid.Parse("not a uuid")
    except RuntimeError as e:
        assert "invalid UUID" in str(e)
    else:
        raise AssertionError("gouuid.Parse of a bad string did not raise")
    s = str(uuid.uuid4())
    return [speed("gouuid.Parse", lambda: gouuid.Parse(s), "uuid.UUID", lambda: uuid.UUID(s), 50_000),
            speed("gouuid.NewSHA1", lambda: gouuid.NewSHA1(dns, b"python.org"),
                  "uuid.uuid5", lambda: uuid.uuid5(uuid.NAMESPACE_DNS, "python.org"), 50_000)]


def check_snappy() -> list:
    import snappy
    try:
        import cramjam
    except ImportError:
        print("(cramjam is not installed: snappy checked by round trips and known values only)")
        cramjam = None
    assert bytes(snappy.Encode(None, b"")) == b"\x00" and snappy.MaxEncodedLen(100) == 148
    assert snappy.DecodedLen(bytes(snappy.Encode(None, b"abc" * 10))) == 30
    try:
        snappy.Decode(None, b"\xff\xff\xff")
    except snappy.ErrCorrupt:
        pass
    else:
        raise AssertionError("snappy.Decode of corrupt input did not raise snappy.ErrCorrupt")
    rng = np.random.default_rng(3)
    rows = []
    for n in (64, 1 << 20):
        raw = (rng.integers(0, 16, n, dtype=np.uint8) + 65).tobytes()  # compressible
        enc = snappy.Encode(None, raw)
        assert bytes(snappy.Decode(None, enc)) == raw
        dst = bytearray(snappy.MaxEncodedLen(n))
        into = snappy.Encode(dst, raw)  # Go's Encode(dst, src) returns dst[:n]: a view of dst
        assert bytes(into) == bytes(enc) and np.asarray(into).ctypes.data == np.frombuffer(dst, np.uint8).ctypes.data
        del into
        if cramjam is not None:
            assert bytes(cramjam.snappy.decompress_raw(bytes(enc))) == raw
            assert bytes(snappy.Decode(None, bytes(cramjam.snappy.compress_raw(raw)))) == raw
            number = 50_000 if n < 100 else 50
            rows.append(speed(f"snappy.Encode ({n} B)", lambda: snappy.Encode(None, raw),
                              "cramjam.snappy.compress_raw", lambda: cramjam.snappy.compress_raw(raw), number))
    return rows


def with_args() -> str:
    """build.py's --with DIR=NAME arguments for the corpus: each module's
    directory in the module cache (go mod download, which checks go.sum)."""
    import json
    import pathlib
    import subprocess
    out = subprocess.run(["go", "mod", "download", "-json"], cwd=pathlib.Path(__file__).parent, check=True,
                         capture_output=True, text=True).stdout
    dirs, dec, at = {}, json.JSONDecoder(), 0
    while at < len(out.rstrip()):
        mod, at = dec.raw_decode(out, at)
        dirs[mod["Path"]] = mod["Dir"]
        while at < len(out) and out[at].isspace():
            at += 1
    out = []
    for name, path in MODULES.items():
        mod = max((m for m in dirs if path == m or path.startswith(m + "/")), key=len)  # its module
        out.append(f"--with {dirs[mod]}{path[len(mod):]}={name}")
    return " ".join(out)


def main() -> int:
    if sys.argv[1:] == ["--with-args"]:
        print(with_args())
        return 0
    global np, mv
    import numpy as np
    import memview as mv
    coverage()
    stubtest()
    rows = (check_stats() + check_floats() + check_xxhash() + check_xxh3() + check_murmur3() + check_blake3() +
            check_snappy() + check_base58() + check_geohash() + check_uuid())
    print(f"\n{'call':28s} {'Go':>11s}   {'reference':28s} {'ref':>11s} {'ratio':>7s}")
    for name, t, ref, tr in rows:
        print(f"{name:28s} {t * 1e9:9.0f}ns   {ref:28s} {tr * 1e9:9.0f}ns {t / tr:6.2f}x")
    print("corpus: every module matches its reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
