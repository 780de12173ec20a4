/* nvJitLink and NVVM from C, built against NVIDIA's headers (or cudagen's) and linked with
 * -lnvJitLink -lnvvm -lnvrtc -lcuda, so that the cudagen shim can trace it under LD_PRELOAD:
 *   1. NVRTC compiles a kernel with -dlto to LTO-IR; nvJitLink links it (-lto) to a cubin for the
 *      GPU's arch (sm_90 without a GPU);
 *   2. NVVM compiles a hand-written NVVM IR kernel to PTX;
 *   3. with a driver: both are loaded with cuModuleLoadData, launched, and the results checked.
 * Prints one line per step and `RESULT: PASS`, or `RESULT: SKIP no driver` after steps 1-2. */
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <nvvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

static const char *KERNEL =
    "extern \"C\" __global__ void scale(float *x, float a, int n)\n"
    "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= a; }\n";

static const char *NVVM_IR =
    "target datalayout = \"e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define void @scale(float* %x, float %a, i32 %n) {\n"
    "entry:\n"
    "  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %base = mul i32 %ctaid, %ntid\n"
    "  %i = add i32 %base, %tid\n"
    "  %in = icmp slt i32 %i, %n\n"
    "  br i1 %in, label %body, label %done\n"
    "body:\n"
    "  %idx = sext i32 %i to i64\n"
    "  %p = getelementptr float, float* %x, i64 %idx\n"
    "  %v = load float, float* %p\n"
    "  %r = fmul float %v, %a\n"
    "  store float %r, float* %p\n"
    "  br label %done\n"
    "done:\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{void (float*, float, i32)* @scale, !\"kernel\", i32 1}\n"
    "!nvvmir.version = !{!1}\n"
    "!1 = !{i32 2, i32 0}\n";

static int fail(const char *what, long code) {
    printf("FAIL %s -> %ld\nRESULT: FAIL\n", what, code);
    return 1;
}

/* NVRTC -dlto, then nvJitLink: the cubin for sm_<sm> (malloc'd) and its size. */
static int link_cubin(int sm, char **cubin, size_t *size) {
    nvrtcProgram prog;
    char arch[32], larch[32];
    snprintf(arch, sizeof arch, "--gpu-architecture=sm_%d", sm);
    snprintf(larch, sizeof larch, "-arch=sm_%d", sm);
    const char *nopts[] = {"-dlto", arch};
    nvrtcResult nr = nvrtcCreateProgram(&prog, KERNEL, "scale.cu", 0, NULL, NULL);
    if (nr == NVRTC_SUCCESS) nr = nvrtcCompileProgram(prog, 2, nopts);
    size_t n = 0;
    if (nr == NVRTC_SUCCESS) nr = nvrtcGetLTOIRSize(prog, &n);
    char *ltoir = malloc(n ? n : 1);
    if (nr == NVRTC_SUCCESS) nr = nvrtcGetLTOIR(prog, ltoir);
    nvrtcDestroyProgram(&prog);
    if (nr != NVRTC_SUCCESS) return fail("nvrtc -dlto", nr);
    printf("nvrtc: %zu bytes of LTO-IR for sm_%d\n", n, sm);
    nvJitLinkHandle h;
    const char *lopts[] = {larch, "-lto"};
    nvJitLinkResult r = nvJitLinkCreate(&h, 2, lopts);
    if (r != NVJITLINK_SUCCESS) return fail("nvJitLinkCreate", r);
    r = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ltoir, n, "scale.ltoir");
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkComplete(h);
    if (r == NVJITLINK_SUCCESS) r = nvJitLinkGetLinkedCubinSize(h, size);
    if (r == NVJITLINK_SUCCESS) {
        *cubin = malloc(*size);
        r = nvJitLinkGetLinkedCubin(h, *cubin);
    }
    nvJitLinkDestroy(&h);
    free(ltoir);
    if (r != NVJITLINK_SUCCESS) return fail("nvJitLink link", r);
    unsigned major = 0, minor = 0;
    nvJitLinkVersion(&major, &minor);
    printf("nvJitLink %u.%u: cubin %zu bytes, ELF %s\n", major, minor, *size, memcmp(*cubin, "\177ELF", 4) == 0 ? "yes" : "no");
    return memcmp(*cubin, "\177ELF", 4) != 0;
}

/* NVVM: the IR to PTX for compute_<sm> (malloc'd). */
static int nvvm_ptx(int sm, char **ptx) {
    nvvmProgram prog;
    char arch[32];
    snprintf(arch, sizeof arch, "-arch=compute_%d", sm);
    const char *opts[] = {arch};
    nvvmResult r = nvvmCreateProgram(&prog);
    if (r == NVVM_SUCCESS) r = nvvmAddModuleToProgram(prog, NVVM_IR, strlen(NVVM_IR), "scale.ll");
    if (r == NVVM_SUCCESS) r = nvvmCompileProgram(prog, 1, opts);
    size_t n = 0;
    if (r == NVVM_SUCCESS) r = nvvmGetCompiledResultSize(prog, &n);
    if (r == NVVM_SUCCESS) {
        *ptx = malloc(n);
        r = nvvmGetCompiledResult(prog, *ptx);
    }
    if (r != NVVM_SUCCESS) {
        size_t ln = 0;
        nvvmGetProgramLogSize(prog, &ln);
        char *log = malloc(ln + 1);
        nvvmGetProgramLog(prog, log);
        printf("nvvm log: %s\n", log);
        free(log);
    }
    nvvmDestroyProgram(&prog);
    if (r != NVVM_SUCCESS) return fail(nvvmGetErrorString(r), r);
    int major = 0, minor = 0;
    nvvmVersion(&major, &minor);
    printf("nvvm %d.%d: %zu bytes of PTX, entry %s\n", major, minor, n, strstr(*ptx, ".entry scale") ? "found" : "missing");
    return strstr(*ptx, ".entry scale") == NULL;
}

/* Loads `image`, launches scale(x, 3, N) and checks x[i] == 3 i. */
static int run(const char *what, const void *image) {
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr d;
    float h[N];
    for (int i = 0; i < N; i++) h[i] = (float)i;
    CUresult r = cuModuleLoadData(&mod, image);
    if (r != CUDA_SUCCESS) return fail("cuModuleLoadData", r);
    if ((r = cuModuleGetFunction(&fn, mod, "scale")) != CUDA_SUCCESS) return fail("cuModuleGetFunction", r);
    if ((r = cuMemAlloc(&d, sizeof h)) != CUDA_SUCCESS) return fail("cuMemAlloc", r);
    cuMemcpyHtoD(d, h, sizeof h);
    float a = 3.0f;
    int n = N;
    void *args[] = {&d, &a, &n};
    if ((r = cuLaunchKernel(fn, N / 256, 1, 1, 256, 1, 1, 0, NULL, args, NULL)) != CUDA_SUCCESS) return fail("cuLaunchKernel", r);
    cuMemcpyDtoH(h, d, sizeof h);
    cuMemFree(d);
    cuModuleUnload(mod);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += h[i] != 3.0f * (float)i;
    printf("%s: launched scale on %d floats, %d wrong\n", what, N, bad);
    return bad != 0;
}

int main(void) {
    int sm = 90;
    CUdevice dev = 0;
    CUcontext ctx = NULL;
    int gpu = cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS;
    if (gpu) {
        int major = 0, minor = 0;
        cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
        cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
        sm = major * 10 + minor;
        gpu = cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS;
    }
    char *cubin = NULL, *ptx = NULL;
    size_t size = 0;
    if (link_cubin(sm, &cubin, &size) || nvvm_ptx(sm, &ptx)) return 1;
    if (!gpu) {
        printf("RESULT: SKIP no driver\n");
        return 0;
    }
    int bad = run("nvJitLink cubin", cubin) + run("NVVM PTX", ptx);
    cuDevicePrimaryCtxRelease(dev);
    printf("RESULT: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
}
