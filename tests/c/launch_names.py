"""Counts the kernel launches a trace names (tests/c/gpu.sh, one client's traces in each format).

    launch_names.py CLIENT TEXT JSON PERFETTO      (a file given as - is not counted)

Prints `launches named / launches: CLIENT text N/M, json N/M, perfetto N/M`, then the kernels
named (most launched first) and the unnamed handles; exits 0 when every format has launches and
names them all. A launch is a cuLaunchKernel / cuLaunchKernelEx / cuLaunchCooperativeKernel call
(any ABI or per-thread variant); it is named when its `f` is not a bare address.
"""
import collections
import json
import re
import sys

LAUNCH = re.compile(r"cuLaunch(Kernel|KernelEx|CooperativeKernel)(_v\d+)?(_ptsz)?$")
TEXT_F = re.compile(r'(?:\(|, )f=("(?:[^"\\]|\\.)*"|[^,)\s]+)')


def named(f):
    return f is not None and not f.startswith("0x") and f != "NULL"


def from_text(path):
    out = []
    for line in open(path, errors="replace"):
        m = re.match(r"\[cudagen tid=\d+\] (\w+)\(", line)
        if m and LAUNCH.match(m.group(1)):
            f = TEXT_F.search(line)
            out.append(f.group(1).strip('"') if f else None)
    return out


def from_json(path):
    out = []
    for line in open(path, errors="replace"):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if LAUNCH.match(e.get("fn", "")):
            out.append(e["args"].get("f"))
    return out


def from_perfetto(path):
    try:
        doc = json.load(open(path, errors="replace"))
    except ValueError as e:
        print(f"{path}: not JSON ({e})")
        return []
    return [e["args"].get("f") for e in doc if e.get("ph") in ("X", "i") and LAUNCH.match(e.get("name", "").split(":")[0])]


def main(client, text, json_file, perfetto):
    readers = {"text": (from_text, text), "json": (from_json, json_file), "perfetto": (from_perfetto, perfetto)}
    counts = {fmt: read(path) for fmt, (read, path) in readers.items() if path != "-"}
    cells = [f"{fmt} {sum(map(named, fs))}/{len(fs)}" for fmt, fs in counts.items()]
    print(f"launches named / launches: {client} " + ", ".join(cells))
    first = next(iter(counts.values()), [])
    kernels = collections.Counter(f for f in first if named(f))
    unnamed = collections.Counter(f for f in first if not named(f))
    print(f"  {len(kernels)} kernels: " + "; ".join(f"{k} x{n}" for k, n in kernels.most_common(8))[:600])
    if unnamed:
        print(f"  unnamed: " + " ".join(f"{k} x{n}" for k, n in unnamed.most_common(8)))
    ok = all(fs and all(map(named, fs)) for fs in counts.values())
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main(*sys.argv[1:5])
