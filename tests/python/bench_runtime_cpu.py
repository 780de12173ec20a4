"""The runtime bench of tests/gpu/runtime_py.py without a GPU (not a test).

cuda.bindings.runtime and cudagen's wheel (feature `static-cudart`) each carry NVIDIA's static
cudart, which calls libcuda.so.1 (the dynamic floor loads the nvidia-cuda-runtime-cu12 wheel's
libcudart.so.12, which must be installed in this Python). Both run over one fake libcuda whose entries all fail (test_oracle's), so every call
takes cudart's failure path; the floors of bench_rt_floor.c (the wheel's libcudart.so.12 through
dlopen, and its libcudart_static.a linked in) take the same path from a few lines of C. Prints
the BENCH lines of runtime_py.measure.

    .venv/bin/python tests/python/bench_runtime_cpu.py
"""

import ctypes
import os
import subprocess
import sys
import sysconfig
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def cudart_dir():
    import nvidia.cuda_runtime

    return os.path.join(list(nvidia.cuda_runtime.__path__)[0], "lib")


def build(out):
    """The fake libcuda (failing entries) and both floors into folder ``out``."""
    sys.path.insert(0, HERE)
    import test_oracle

    src = os.path.join(out, "libcuda.c")
    with open(src, "w") as f:
        f.write(test_oracle._FAKE_CUDA)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-DSTATUS=1", "-DVERSION=12090", "-Wl,-soname,libcuda.so.1",
                    "-o", os.path.join(out, "libcuda.so.1"), src], check=True)
    floor_c = os.path.join(HERE, "bench_rt_floor.c")
    cc = ["gcc", "-O2", "-shared", "-fPIC", "-I" + sysconfig.get_paths()["include"]]
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    subprocess.run(cc + ["-DFLOOR_DYNAMIC", "-DCUDART_MAJOR=12", floor_c, "-ldl", "-o", os.path.join(out, "bench_rt_floor_dyn" + suffix)],
                   check=True)
    subprocess.run(cc + [floor_c, os.path.join(cudart_dir(), "libcudart_static.a"), "-Wl,--exclude-libs,ALL", "-ldl", "-lrt",
                         "-lpthread", "-o", os.path.join(out, "bench_rt_floor_static" + suffix)], check=True)


def main():
    if len(sys.argv) == 1:
        with tempfile.TemporaryDirectory() as out:
            build(out)
            env = dict(os.environ, CUDAGEN_BENCH_FLOOR=out, CUDAGEN_BENCH_CUDART=os.path.join(cudart_dir(), "libcudart.so.12"))
            sys.exit(subprocess.run([sys.executable, __file__, out], env=env).returncode)
    ctypes.CDLL(os.path.join(sys.argv[1], "libcuda.so.1"), mode=ctypes.RTLD_GLOBAL)
    sys.path.insert(0, os.path.join(HERE, "..", "gpu"))
    import runtime_py
    from cuda.bindings import runtime as theirs

    runtime_py.measure(theirs, {"s": 0, "ts": 0, "si": 0}, runtime_py.floors())


if __name__ == "__main__":
    main()
