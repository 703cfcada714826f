"""The corpus check: unmodified Go modules from the module proxy (pinned in
tests/corpus/go.mod and go.sum), bound with memview as they are, called against
Python references, with what each binds and how fast.

    python3 build.py ext $(python3 tests/corpus/check_corpus.py --with-args)
    PYTHONPATH=.build/pkg .build/venv/bin/python tests/corpus/check_corpus.py

(--with-args: build.py's --with DIR=NAME for each module, from `go mod download
-json` in tests/corpus, which checks go.sum; .ci/run's corpus leg does the same.)

Each module is checked against a reference: montanaflynn/stats against Python's
statistics, cespare/xxhash/v2 (a /vN module, imported as goxxhash: PyPI's
xxhash has the name) against PyPI's xxhash, golang/snappy against cramjam's
snappy (each decodes the other's output) and known values. It fails on a wrong
result, on a module with less than 90% of its exported functions and methods
bound (95% across the corpus), and where mypy's stubtest finds a stub the build
wrote at odds with the module.
"""
import math
import statistics
import sys
import time

np = mv = None  # numpy and memview, imported by main (--with-args needs neither)

MODULES = {"stats": "github.com/montanaflynn/stats", "goxxhash": "github.com/cespare/xxhash/v2",
           "snappy": "github.com/golang/snappy"}


def best(fn, number):
    t = []
    for _ in range(5):
        s = time.perf_counter()
        for _ in range(number):
            fn()
        t.append((time.perf_counter() - s) / number)
    return min(t)


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
        rows.append((f"stats.Mean ({n * 8} B)", best(lambda: stats.Mean(v), number),
                     "statistics.fmean", best(lambda: statistics.fmean(vl), number)))
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
            rows.append((f"goxxhash.Sum64 ({n} B)", best(lambda: goxxhash.Sum64(raw), number),
                         "xxhash.xxh64_intdigest", best(lambda: xxhash.xxh64_intdigest(raw), number)))
    return rows


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
            rows.append((f"snappy.Encode ({n} B)", best(lambda: snappy.Encode(None, raw), number),
                         "cramjam.snappy.compress_raw", best(lambda: cramjam.snappy.compress_raw(raw), number)))
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
    return " ".join(f"--with {dirs[path]}={name}" for name, path in MODULES.items())


def main() -> int:
    if sys.argv[1:] == ["--with-args"]:
        print(with_args())
        return 0
    global np, mv
    import numpy as np
    import memview as mv
    coverage()
    stubtest()
    rows = check_stats() + check_xxhash() + check_snappy()
    print(f"\n{'call':28s} {'Go':>11s}   {'reference':28s} {'ref':>11s} {'ratio':>7s}")
    for name, t, ref, tr in rows:
        print(f"{name:28s} {t * 1e9:9.0f}ns   {ref:28s} {tr * 1e9:9.0f}ns {t / tr:6.2f}x")
    print("corpus: every module matches its reference")
    return 0


if __name__ == "__main__":
    sys.exit(main())
