"""Checks the trace files tests/c/trace_test.c leaves (run by tests/c/run.sh).

    trace_check.py calls TEXT JSON PERFETTO FILTERED    the `calls` run in each format
    trace_check.py count TRACE CALLS                    every call is a line or counted as dropped
    trace_check.py untimed TEXT PERFETTO SUMMARY         the `calls` run with CUDAGEN_TRACE_DURATIONS=0
    trace_check.py names TEXT JSON PERFETTO ARGS SUMMARY  the `names` run (ARGS: CUDAGEN_TRACE_ARGS=1)
"""
import json
import re
import sys

TID = r"\[cudagen tid=\d+\] "
DUR = r" \d+\.\d{3}us"
ADDR = r"0x[0-9a-f]+"
DATA = r"data@[0-9a-f]{8}"

# The `calls` run, in order: enum names, values written by the call (not the slot's address),
# the slot's address where the call failed, a copied string, 11 arguments, a loader failure.
TEXT = [
    r"cuInit\(Flags=0\) -> CUDA_SUCCESS",
    r"cuDeviceGet\(device=0, ordinal=0\) -> CUDA_SUCCESS",
    r"cuCtxCreate_v2\(pctx=context#1\(0x1000\), flags=0, dev=0\) -> CUDA_SUCCESS",
    r"cuCtxGetCurrent\(pctx=context#1\(0x1000\)\) -> CUDA_SUCCESS",
    r"cuCtxGetCurrent\(pctx=NULL\) -> CUDA_ERROR_INVALID_VALUE",
    r"cuDeviceGetAttribute\(pi=132, attrib=CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev=0\) -> CUDA_SUCCESS",
    rf"cuDeviceGetAttribute\(pi={ADDR}, attrib=CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev=7\) -> CUDA_ERROR_INVALID_DEVICE",
    rf"cuModuleLoadData\(module={DATA}, image={DATA}\) -> CUDA_SUCCESS",
    rf'cuModuleGetFunction\(hfunc=empty5 \[{DATA}\], hmod={DATA}, name="empty5"\) -> CUDA_SUCCESS',
    r"cuStreamCreate\(phStream=stream#1\(0x4000\), Flags=1\) -> CUDA_SUCCESS",
    rf"cuLaunchKernel\(f=empty5 \[{DATA}\], gridDimX=1, gridDimY=2, gridDimZ=3, blockDimX=32, blockDimY=1, blockDimZ=1, "
    rf"sharedMemBytes=48, hStream=stream#1\(0x4000\), kernelParams={ADDR}, extra=NULL\) -> CUDA_SUCCESS",
    r"cuStreamSynchronize\(hStream=stream#1\(0x4000\)\) -> CUDA_SUCCESS",
    rf"cuLaunchHostFunc\(hStream=stream#1\(0x4000\), fn={ADDR}, userData=NULL\) -> CUDA_SUCCESS",
    rf"cuLaunchHostFunc\(hStream=stream#1\(0x4000\), fn={ADDR}, userData=NULL\) -> CUDA_SUCCESS",
    rf"cuMemAlloc_v2\(dptr={ADDR}, bytesize=64\) -> CUDA_ERROR_NOT_FOUND",
]

# Perfetto names a launch's slice after the kernel it runs.
SLICES = [re.match(r"\w+", t).group(0) for t in TEXT]
SLICES[10] = "cuLaunchKernel: empty5"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


# Made by the host function inside each cuLaunchHostFunc: written at once, so they may come
# before the lines of earlier calls, still buffered.
NESTED = r"cuDeviceGet\(device=5, ordinal=5\) -> CUDA_SUCCESS"


def take_nested(items, is_nested, where):
    """The two nested calls among `items`, and the others in order."""
    nested = [x for x in items if is_nested(x)]
    if len(nested) != 2:
        fail(f"{where}: {len(nested)} nested calls, expected 2")
    return nested, [x for x in items if not is_nested(x)]


def check_calls(text_file, json_file, perfetto_file, filtered_file):
    lines = open(text_file).read().splitlines()
    _, lines = take_nested(lines, lambda l: re.fullmatch(TID + NESTED + DUR, l), text_file)
    if len(lines) != len(TEXT):
        fail(f"{text_file}: {len(lines)} lines, expected {len(TEXT)}:\n" + "\n".join(lines))
    tids = set()
    for line, want in zip(lines, TEXT):
        if not re.fullmatch(TID + want + DUR, line):
            fail(f"{text_file}:\n  got  {line}\n  want {want}")
        tids.add(line.split("]")[0])
    if len(tids) != 1:
        fail(f"one thread expected: {tids}")
    events = [json.loads(l) for l in open(json_file)]
    _, events = take_nested(events, lambda e: e["fn"] == "cuDeviceGet" and e["args"]["ordinal"] == 5, json_file)
    if len(events) != len(TEXT):
        fail(f"{json_file}: {len(events)} lines")
    attr = events[5]
    if (attr["fn"], attr["args"], attr["result"]) != (
        "cuDeviceGetAttribute",
        {"pi": 132, "attrib": "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT", "dev": 0},
        "CUDA_SUCCESS",
    ):
        fail(f"json: {attr}")
    if events[8]["args"]["name"] != "empty5" or events[10]["args"]["extra"] is not None:
        fail(f"json: {events[8]} {events[10]}")
    if events[4]["args"]["pctx"] is not None or events[4]["result"] != "CUDA_ERROR_INVALID_VALUE":
        fail(f"json: {events[4]}")
    doc = json.load(open(perfetto_file))
    slices = [e for e in doc if e.get("ph") == "X"]
    inner, slices = take_nested(slices, lambda e: e["name"] == "cuDeviceGet" and e["args"]["ordinal"] == 5, perfetto_file)
    outer = [e for e in slices if e["name"] == "cuLaunchHostFunc"]
    for i, o in zip(sorted(inner, key=lambda e: e["ts"]), outer):
        if not (o["ts"] <= i["ts"] and i["ts"] + i["dur"] <= o["ts"] + o["dur"] + 1) or i["tid"] != o["tid"]:
            fail(f"perfetto: a nested call is not inside its caller: {i} {o}")
    if [s["name"] for s in slices] != SLICES:
        fail(f"perfetto names: {[s['name'] for s in slices]}")
    launch = slices[10]
    if launch["args"]["gridDimZ"] != 3 or launch["args"]["result"] != "CUDA_SUCCESS" or launch["dur"] < 0:
        fail(f"perfetto: {launch}")
    if not all(a["ts"] <= b["ts"] for a, b in zip(slices, slices[1:])):
        fail("perfetto: slices out of order")
    filtered = open(filtered_file).read().splitlines()
    if len(filtered) != 3 or not all("] cuDeviceGetAttribute(" in l or "] cuMemAlloc_v2(" in l for l in filtered):
        fail(f"CUDAGEN_TRACE_ONLY: {filtered}")
    print(f"ok: {len(lines)} calls in text, JSON, Perfetto; filter kept {len(filtered)}")


def check_untimed(text_file, perfetto_file, summary_file):
    """Lines without durations, Perfetto instants in call order, a summary of counts."""
    lines = open(text_file).read().splitlines()
    _, lines = take_nested(lines, lambda l: re.fullmatch(TID + NESTED, l), text_file)
    if len(lines) != len(TEXT) or not all(re.fullmatch(TID + want, l) for l, want in zip(lines, TEXT)):
        fail(f"{text_file}: lines with durations or wrong:\n" + "\n".join(lines))
    doc = json.load(open(perfetto_file))
    instants = [e for e in doc if e.get("ph") == "i"]
    _, instants = take_nested(instants, lambda e: e["name"] == "cuDeviceGet" and e["args"]["ordinal"] == 5, perfetto_file)
    if any(e.get("ph") == "X" or "dur" in e for e in doc) or [e["name"] for e in instants] != SLICES:
        fail(f"perfetto: {doc}")
    if not all(a["ts"] <= b["ts"] for a, b in zip(instants, instants[1:])):
        fail("perfetto: instants out of order")
    summary = open(summary_file).read()
    if not re.search(r"API summary \(pid \d+\): 12 functions, 17 calls, 3 errors\n +Calls +Errors  Name\n", summary) \
            or not re.search(r"\n +2 +1  cuDeviceGetAttribute\n", summary) or "Total (ms)" in summary:
        fail(f"summary: {summary}")
    print(f"ok: {len(lines) + 2} calls without durations in text, Perfetto instants, summary of counts")


def check_count(trace_file, calls):
    lines = open(trace_file, errors="replace").read().splitlines()
    dropped = 0
    traced = 0
    for l in lines:
        m = re.fullmatch(r"\[cudagen\] trace buffer full: (\d+) calls dropped", l)
        if m:
            dropped += int(m.group(1))
        elif re.fullmatch(TID + r"cuCtxGetCurrent\(pctx=context#1\(0x1000\)\) -> CUDA_SUCCESS" + DUR, l):
            traced += 1
        else:
            fail(f"{trace_file}: unexpected line {l!r}")
    if traced + dropped != calls:
        fail(f"{trace_file}: {traced} lines + {dropped} dropped != {calls} calls")
    print(f"ok: {traced} lines + {dropped} dropped = {calls} calls")


# The `names` run's launches: the kernel each names (with its module), its grid, its stream.
LAUNCHES = [("saxpy", 2, 1), ("scale<float>", 1, 2), ("scale<float>", 4, 2), ("cross", 1, 1), ("hidden", 1, 2), ("view", 1, 1)]
SAXPY_ARGS = "[0x40000000, dev:0x7f0000100000, dev:0x7f0000100100, 0x40]"


def check_names(text_file, json_file, perfetto_file, args_file, summary_file):
    """Handles named in each format: functions (one made on another thread, C++ names demangled,
    one only the driver's name query knows) with their module, numbered streams and graphs, kernel
    arguments in the args mode, the summary by kernel and by graph."""
    lines = open(text_file).read().splitlines()
    module = re.search(rf"cuModuleLoadData\(module=({DATA}), image=\1\)", "\n".join(lines))
    if not module:
        fail(f"{text_file}: no module named after its image")
    data = module.group(1)
    launches = [l for l in lines if "] cuLaunchKernel(" in l]
    if len(launches) != len(LAUNCHES):
        fail(f"{text_file}: {len(launches)} launches")
    for line, (name, grid, stream) in zip(launches, LAUNCHES):
        want = (rf"cuLaunchKernel\(f={re.escape(name)} \[{data}\], gridDimX={grid}, .*hStream=stream#{stream}\({ADDR}\), "
                rf"kernelParams=({ADDR}|NULL), extra=NULL\) -> CUDA_SUCCESS")
        if not re.fullmatch(TID + want + DUR, line):
            fail(f"{text_file}:\n  got  {line}\n  want {want}")
    if not any(re.fullmatch(TID + r'cuModuleGetFunction\(hfunc=k2 \[k2\.cubin\], hmod=k2\.cubin, name="k2"\) -> CUDA_SUCCESS' + DUR, l) for l in lines):
        fail(f"{text_file}: no function named with its module's file name")
    cross = [l for l in lines if 'name="cross"' in l]
    if len(cross) != 1 or cross[0].split("]")[0] == launches[3].split("]")[0]:
        fail(f"{text_file}: the function made on another thread: {cross}")
    graph = [l for l in lines if "] cuGraphLaunch(" in l]
    if len(graph) != 3 or not all(f"hGraphExec=graphExec#1(0x5800), hStream=stream#1(0x4000)" in l for l in graph):
        fail(f"{text_file}: graph launches {graph}")
    if not re.fullmatch(TID + rf"cuModuleUnload\(hmod={data}\) -> CUDA_SUCCESS" + DUR, lines[-1]):
        fail(f"{text_file}: last line {lines[-1]}")
    events = [json.loads(l) for l in open(json_file)]
    got = [(e["args"]["f"], e["args"]["f.module"], e["args"]["hStream"]) for e in events if e["fn"] == "cuLaunchKernel"]
    want = [(n, data, f"stream#{s}(0x{0x4000 + 0x100 * (s - 1):x})") for n, _, s in LAUNCHES]
    if got != want:
        fail(f"{json_file}: {got}")
    doc = json.load(open(perfetto_file))
    names = [e["name"] for e in doc if e.get("ph") == "X" and e["name"].startswith(("cuLaunchKernel", "cuGraphLaunch"))]
    if names != [f"cuLaunchKernel: {n}" for n, _, _ in LAUNCHES] + ["cuGraphLaunch: graphExec#1"] * 3:
        fail(f"{perfetto_file}: {names}")
    args = [l for l in open(args_file).read().splitlines() if "] cuLaunchKernel(" in l]
    if len(args) != 6 or f"kernelParams={SAXPY_ARGS}, extra=NULL)" not in args[0] \
            or not re.search(rf"kernelParams={ADDR}, extra=NULL\)", args[1]) \
            or "kernelParams=[{dev:0x7f0000100200, 0x40}], extra=NULL)" not in args[5]:
        fail(f"{args_file}: {args[:2]} {args[5:]}")
    summary = open(summary_file).read()
    if not re.search(r"launches by kernel: 5 kernels, 6 launches\n +Total \(ms\) +Launches +Shapes +Mean \(us\)  Name\n", summary) \
            or not re.search(r"\n +[0-9.]+ +2 +2 +[0-9.]+  scale<float>\n", summary) \
            or not re.search(r"\n +[0-9.]+ +1 +1 +[0-9.]+  hidden\n", summary) \
            or not re.search(r"launches by graph: 1 graphs, 3 launches\n.*\n +[0-9.]+ +3 +[0-9.]+  graphExec#1 \(graph#1, 2 nodes\)\n", summary):
        fail(f"summary: {summary}")
    print(f"ok: {len(launches)} launches named in text, JSON, Perfetto (one via the driver's query), modules by hash and file, "
          "streams and graphs numbered, kernel arguments, summary by kernel and graph")


if __name__ == "__main__":
    if sys.argv[1] == "calls":
        check_calls(*sys.argv[2:6])
    elif sys.argv[1] == "untimed":
        check_untimed(*sys.argv[2:5])
    elif sys.argv[1] == "names":
        check_names(*sys.argv[2:7])
    else:
        check_count(sys.argv[2], int(sys.argv[3]))
