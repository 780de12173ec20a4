"""Cost of the module attribute lookup per call, without a GPU (not a test).

Calls each function through its module (`driver.cuCtxGetCurrent()`) and through a bound local
(`f()`), cudagen against cuda.bindings, in one process: timeit rounds alternating in order, the
median ns per call. The driver calls run over test_oracle's fake libcuda (every entry fails fast),
the runtime ones over the nvidia-cuda-runtime-cu12 wheel's libcudart.so.12 (skipped when that
wheel is not installed), nvrtcVersion over the libnvrtc cudagen finds. The difference between the
two forms is what CPython's attribute load on the module costs: ~20 ns when cudagen's modules had a
`__getattr__` (unspecialized), ~0 without one (NOTES "Module attribute cost", "Lazy classes
again": a module has one until it has built its last class).

    .venv/bin/python tests/python/bench_attr_cpu.py [ROUNDS]
"""

import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
NUMBER = 20000


def fake_libcuda(out):
    sys.path.insert(0, HERE)
    import test_oracle

    src = os.path.join(out, "libcuda.c")
    with open(src, "w") as f:
        f.write(test_oracle._FAKE_CUDA)
    lib = os.path.join(out, "libcuda.so.1")
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-DSTATUS=1", "-DVERSION=12090", "-Wl,-soname,libcuda.so.1", "-o", lib, src],
                   check=True)
    return lib


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    with tempfile.TemporaryDirectory() as out:
        lib = fake_libcuda(out)
        os.environ["CUDAGEN_LIBCUDA"] = lib
        ctypes.CDLL(lib, mode=ctypes.RTLD_GLOBAL)  # cuda.bindings dlopens libcuda.so.1: this one
        try:
            import nvidia.cuda_runtime

            os.environ.setdefault("CUDAGEN_CUDART_PATH", os.path.join(list(nvidia.cuda_runtime.__path__)[0], "lib", "libcudart.so.12"))
            runtime = True
        except ImportError:
            runtime = False
        from cuda.bindings import driver as th_d, nvrtc as th_n, runtime as th_rt

        import cudagen
        from cudagen import driver as d, nvrtc as n, runtime as rt

        env = {"d": d, "n": n, "rt": rt, "th_d": th_d, "th_n": th_n, "th_rt": th_rt}
        cases = [("cuCtxGetCurrent", "d", "th_d"), ("nvrtcVersion", "n", "th_n")]
        if runtime:
            cases.append(("cudaGetDevice", "rt", "th_rt"))
        stmts = {}  # (call, side, form) -> statement
        for name, ours, theirs in cases:
            for side, mod in (("cudagen", ours), ("cuda.bindings", theirs)):
                env["%s_%s" % (mod, name)] = getattr(env[mod], name)
                getattr(env[mod], name)()  # loads the library
                stmts[(name, side, "module")] = "%s.%s()" % (mod, name)
                stmts[(name, side, "bound")] = "%s_%s()" % (mod, name)
        keys = list(stmts)
        runs = {k: [] for k in keys}
        for r in range(rounds):
            for k in keys if r % 2 == 0 else keys[::-1]:
                runs[k].append(timeit.Timer(stmts[k], globals=env).timeit(NUMBER) / NUMBER * 1e9)
        med = {k: statistics.median(v) for k, v in runs.items()}
        print("cudagen from %s; module __getattr__: %s; %s, %d rounds of %d calls, median ns per call"
              % (os.path.dirname(cudagen.__file__), "__getattr__" in vars(d), sys.version.split()[0], rounds, NUMBER))
        print("| call | cudagen module | cudagen bound | difference | cuda.bindings module | cuda.bindings bound | difference |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, _, _ in cases:
            row = []
            for side in ("cudagen", "cuda.bindings"):
                a, b = med[(name, side, "module")], med[(name, side, "bound")]
                row += ["%.1f" % a, "%.1f" % b, "%+.1f" % (a - b)]
            print("| %s | %s |" % (name, " | ".join(row)))


if __name__ == "__main__":
    main()
