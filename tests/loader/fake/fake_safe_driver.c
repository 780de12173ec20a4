/*
 * A fake libcuda for the safe layer's tests (tests/safe_fake.rs): "device" memory is host
 * memory, streams and events are tokens, and every call the safe layer makes is counted
 * (fake_count(name), reached through cuGetProcAddress_v2 as "cuFakeCount").
 *
 * Kernels come from cuModuleGetFunction(name = "<kernel>:<size>,<size>,...[;threads=N][;smem=N]"):
 * the sizes are the parameters cuFuncGetParamInfo reports, at offsets aligned to each size.
 * cuLaunchKernel copies every parameter's bytes (as the real driver reads them) and, for a
 * kernel named "inc", adds 1 to the u32 its first parameter points to.
 * cuPointerGetAttributes answers CU_MEMORYTYPE_HOST inside blocks from cuMemHostAlloc (pinned)
 * and 0 (memory CUDA does not know: pageable) elsewhere.
 * FAKE_DRIVER_VERSION (default 12090) is what cuDriverGetVersion reports; FAKE_PARAM_COUNT=1
 * makes cuFuncGetParamCount available.
 * Graphs: a stream in capture records its launches, memsets and device copies instead of running
 * them; explicit kernel, memset, memcpy and child nodes record the same; cuGraphLaunch replays
 * them in order (so "inc" counts replays). Graph allocations (captured or allocation nodes) are
 * host memory kept for good.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef unsigned long long CUdeviceptr;
#define OK 0
#define INVALID_VALUE 1

struct fake_fn {
    char name[64];
    size_t count;
    size_t sizes[64];
    size_t offsets[64];
    int max_threads;
    int max_smem;
};

static const char *NAMES[] = {
    "cuFuncGetParamInfo", "cuFuncGetParamCount", "cuFuncGetName", "cuFuncGetAttribute", "cuFuncSetAttribute",
    "cuLaunchKernel", "cuMemAlloc", "cuMemAllocAsync", "cuMemAllocFromPoolAsync", "cuMemFree", "cuMemFreeAsync",
    "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync", "cuMemcpyDtoDAsync", "cuMemsetD8Async", "cuStreamSynchronize",
    "cuStreamWaitEvent", "cuEventCreate", "cuEventRecord", "cuEventDestroy", "cuEventSynchronize",
    "cuMemHostAlloc", "cuMemFreeHost", "cuStreamCreate", "cuStreamDestroy", "cuModuleLoadData",
    "cuModuleGetFunction", "cuModuleUnload", "cuInit", "cuKernelGetParamInfo", "cuKernelGetName",
    "cuKernelGetFunction", "cuPointerGetAttributes", "cuDeviceGetAttribute",
    "cuStreamIsCapturing", "cuLibraryLoadData",
    "cuStreamBeginCapture", "cuStreamEndCapture", "cuGraphCreate", "cuGraphDestroy", "cuGraphInstantiate",
    "cuGraphExecDestroy", "cuGraphLaunch", "cuGraphAddNode", "cuCtxSynchronize", "cuMemPoolTrimTo",
    "cuDeviceGraphMemTrim", "graphOps", "cuGraphAddMemAllocNode", "cuGraphAddMemFreeNode",
};
#define NCOUNTS (sizeof NAMES / sizeof NAMES[0])
static long counts[NCOUNTS];
static void *last_free_stream;
static long last_deps;

static void count(const char *name)
{
    for (size_t i = 0; i < NCOUNTS; i++)
        if (strcmp(NAMES[i], name) == 0) { counts[i]++; return; }
}

/* Calls of `name` so far; "lastFreeStream" gives the stream of the last cuMemFreeAsync,
 * "lastDeps" the number of dependencies of the last graph node added. */
long fake_count(const char *name)
{
    if (strcmp(name, "lastFreeStream") == 0) return (long)(intptr_t)last_free_stream;
    if (strcmp(name, "lastDeps") == 0) return last_deps;
    for (size_t i = 0; i < NCOUNTS; i++)
        if (strcmp(NAMES[i], name) == 0) return counts[i];
    return -1;
}

static int env_int(const char *name, int dflt)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : dflt;
}

CUresult cuDriverGetVersion(int *v) { *v = env_int("FAKE_DRIVER_VERSION", 12090); return OK; }
static CUresult fInit(unsigned flags) { (void)flags; count("cuInit"); return OK; }

/* Parameters the last launch read, back to back. */
static unsigned char last_params[4096];
static size_t last_params_len;
long fake_last_params(unsigned char *out, long cap)
{
    long n = (long)last_params_len < cap ? (long)last_params_len : cap;
    memcpy(out, last_params, (size_t)n);
    return (long)last_params_len;
}

static CUresult fModuleLoadData(void **mod, const void *image) { (void)image; count("cuModuleLoadData"); *mod = malloc(1); return OK; }
/* One context at a time: cuCtxCreate makes it current, cuCtxDestroy ends it. */
static void *current_ctx;
static CUresult fCtxCreate(void **ctx, unsigned flags, int dev) { (void)flags; (void)dev; *ctx = malloc(1); current_ctx = *ctx; return OK; }
static CUresult fCtxGetCurrent(void **ctx) { *ctx = current_ctx; return OK; }
static CUresult fCtxDestroy(void *ctx) { if (ctx == current_ctx) current_ctx = 0; free(ctx); return OK; }
static CUresult fModuleGetFunction(struct fake_fn **out, void *mod, const char *spec);
/* A library is a module here; its kernels are functions (as cuKernelGetFunction says). */
static CUresult fLibraryLoadData(void **lib, const void *code, void *jo, void **jv, unsigned nj, void *lo, void **lv, unsigned nl)
{
    (void)code; (void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
    count("cuLibraryLoadData");
    *lib = malloc(1);
    return OK;
}
static CUresult fLibraryGetKernel(struct fake_fn **out, void *lib, const char *spec) { return fModuleGetFunction(out, lib, spec); }
static CUresult fLibraryUnload(void *lib) { free(lib); return OK; }
static CUresult fModuleUnload(void *mod) { count("cuModuleUnload"); free(mod); return OK; }

static CUresult fModuleGetFunction(struct fake_fn **out, void *mod, const char *spec)
{
    (void)mod;
    count("cuModuleGetFunction");
    struct fake_fn *f = calloc(1, sizeof *f);
    f->max_threads = 1024;
    f->max_smem = 48 * 1024;
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    if (n >= sizeof f->name) n = sizeof f->name - 1;
    memcpy(f->name, spec, n);
    const char *p = colon ? colon + 1 : "";
    size_t offset = 0;
    while (*p && *p != ';' && f->count < 64) {
        size_t size = strtoul(p, (char **)&p, 10);
        if (size == 0) break;
        size_t align = size >= 8 ? 8 : size;
        offset = (offset + align - 1) / align * align;
        f->sizes[f->count] = size;
        f->offsets[f->count] = offset;
        offset += size;
        f->count++;
        if (*p == ',') p++;
    }
    while (*p == ';') {
        p++;
        if (strncmp(p, "threads=", 8) == 0) f->max_threads = (int)strtol(p + 8, (char **)&p, 10);
        else if (strncmp(p, "smem=", 5) == 0) f->max_smem = (int)strtol(p + 5, (char **)&p, 10);
        else break;
    }
    *out = f;
    return OK;
}

static CUresult fFuncGetParamInfo(struct fake_fn *f, size_t i, size_t *offset, size_t *size)
{
    count("cuFuncGetParamInfo");
    if (i >= f->count) return INVALID_VALUE;
    *offset = f->offsets[i];
    *size = f->sizes[i];
    return OK;
}
/* A library kernel is the same object here: cuKernelGetFunction hands it back as a function. */
static CUresult fKernelGetParamInfo(struct fake_fn *k, size_t i, size_t *offset, size_t *size)
{
    count("cuKernelGetParamInfo");
    if (i >= k->count) return INVALID_VALUE;
    *offset = k->offsets[i];
    *size = k->sizes[i];
    return OK;
}
static CUresult fKernelGetName(const char **name, struct fake_fn *k) { count("cuKernelGetName"); *name = k->name; return OK; }
static CUresult fKernelGetFunction(struct fake_fn **f, struct fake_fn *k) { count("cuKernelGetFunction"); *f = k; return OK; }
static CUresult fFuncGetParamCount(struct fake_fn *f, size_t *n) { count("cuFuncGetParamCount"); *n = f->count; return OK; }
static CUresult fFuncGetName(const char **name, struct fake_fn *f) { count("cuFuncGetName"); *name = f->name; return OK; }

static CUresult fFuncGetAttribute(int *v, int attrib, struct fake_fn *f)
{
    count("cuFuncGetAttribute");
    if (attrib == 0) { *v = f->max_threads; return OK; }
    if (attrib == 8) { *v = f->max_smem; return OK; }
    return INVALID_VALUE;
}
static CUresult fFuncSetAttribute(struct fake_fn *f, int attrib, int v)
{
    count("cuFuncSetAttribute");
    if (attrib != 8) return INVALID_VALUE;
    f->max_smem = v;
    return OK;
}

/* Graph operations: kernels (parameters packed by their sizes), memsets, device copies. */
enum { OP_KERNEL, OP_MEMSET, OP_COPY };
struct op { int kind; struct fake_fn *f; unsigned char params[512]; CUdeviceptr d, s; size_t n; unsigned char v; };
struct fake_graph { int nops; struct op ops[64]; int nnodes; char nodes[64]; };
static void *cap_stream[8];
static struct fake_graph *cap_graph[8];

static struct fake_graph *capturing(void *s)
{
    for (int i = 0; i < 8; i++)
        if (s && cap_stream[i] == s) return cap_graph[i];
    return 0;
}

static struct op *new_op(struct fake_graph *g, int kind)
{
    if (g->nops == 64) return 0;
    count("graphOps");
    struct op *o = &g->ops[g->nops++];
    memset(o, 0, sizeof *o);
    o->kind = kind;
    return o;
}

static void run_kernel(struct fake_fn *f, void **params)
{
    last_params_len = 0;
    for (size_t i = 0; i < f->count; i++) {
        if (last_params_len + f->sizes[i] <= sizeof last_params)
            memcpy(last_params + last_params_len, params[i], f->sizes[i]);
        last_params_len += f->sizes[i];
    }
    if (strcmp(f->name, "inc") == 0 && f->count >= 1) {
        CUdeviceptr p;
        memcpy(&p, params[0], sizeof p);
        (*(uint32_t *)(uintptr_t)p)++;
    }
}

static CUresult record_kernel(struct fake_graph *g, struct fake_fn *f, void **params)
{
    struct op *o = new_op(g, OP_KERNEL);
    if (!o) return INVALID_VALUE;
    o->f = f;
    size_t at = 0;
    for (size_t i = 0; i < f->count && at + f->sizes[i] <= sizeof o->params; i++) {
        memcpy(o->params + at, params[i], f->sizes[i]);
        at += f->sizes[i];
    }
    return OK;
}

static CUresult fLaunchKernel(struct fake_fn *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                              unsigned bz, unsigned smem, void *stream, void **params, void **extra)
{
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)smem; (void)extra;
    count("cuLaunchKernel");
    struct fake_graph *g = capturing(stream);
    if (g) return record_kernel(g, f, params);
    run_kernel(f, params);
    return OK;
}

/* Device memory is host memory, filled with 0xAB so that zeroing is visible. */
static void *dev_alloc(size_t n) { void *p = malloc(n); memset(p, 0xAB, n); return p; }
static CUresult fMemAlloc(CUdeviceptr *p, size_t n) { count("cuMemAlloc"); *p = (CUdeviceptr)(uintptr_t)dev_alloc(n); return OK; }
static CUresult fMemAllocAsync(CUdeviceptr *p, size_t n, void *s) { (void)s; count("cuMemAllocAsync"); *p = (CUdeviceptr)(uintptr_t)dev_alloc(n); return OK; }
static CUresult fMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, void *pool, void *s)
{
    (void)s;
    count("cuMemAllocFromPoolAsync");
    if (!pool) return INVALID_VALUE;
    *p = (CUdeviceptr)(uintptr_t)dev_alloc(n);
    return OK;
}
static CUresult fMemFree(CUdeviceptr p) { count("cuMemFree"); free((void *)(uintptr_t)p); return OK; }
static CUresult fMemFreeAsync(CUdeviceptr p, void *s)
{
    count("cuMemFreeAsync");
    last_free_stream = s;
    if (!capturing(s)) free((void *)(uintptr_t)p);
    return OK;
}
static CUresult fMemcpyHtoDAsync(CUdeviceptr d, const void *h, size_t n, void *s) { (void)s; count("cuMemcpyHtoDAsync"); memcpy((void *)(uintptr_t)d, h, n); return OK; }
static CUresult fMemcpyDtoHAsync(void *h, CUdeviceptr d, size_t n, void *s) { (void)s; count("cuMemcpyDtoHAsync"); memcpy(h, (void *)(uintptr_t)d, n); return OK; }
static CUresult fMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr src, size_t n, void *s)
{
    count("cuMemcpyDtoDAsync");
    struct fake_graph *g = capturing(s);
    struct op *o = g ? new_op(g, OP_COPY) : 0;
    if (o) { o->d = d; o->s = src; o->n = n; return OK; }
    memmove((void *)(uintptr_t)d, (void *)(uintptr_t)src, n);
    return OK;
}
static CUresult fMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, void *s)
{
    count("cuMemsetD8Async");
    struct fake_graph *g = capturing(s);
    struct op *o = g ? new_op(g, OP_MEMSET) : 0;
    if (o) { o->d = d; o->v = v; o->n = n; return OK; }
    memset((void *)(uintptr_t)d, v, n);
    return OK;
}
/* Live cuMemHostAlloc blocks, for cuPointerGetAttributes. */
static struct { char *p; size_t n; } pinned[64];

static CUresult fMemHostAlloc(void **p, size_t n, unsigned flags)
{
    (void)flags;
    count("cuMemHostAlloc");
    *p = malloc(n);
    memset(*p, 0xCD, n);
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
        if (!pinned[i].p) { pinned[i].p = *p; pinned[i].n = n; break; }
    return OK;
}
static CUresult fMemFreeHost(void *p)
{
    count("cuMemFreeHost");
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
        if (pinned[i].p == p) pinned[i].p = 0;
    free(p);
    return OK;
}

#define MEMORY_TYPE 2 /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE */
#define MEMORYTYPE_HOST 1
static CUresult fPointerGetAttributes(unsigned n, const int *attrs, void **data, CUdeviceptr ptr)
{
    count("cuPointerGetAttributes");
    unsigned type = 0;
    for (size_t i = 0; i < sizeof pinned / sizeof pinned[0]; i++)
        if (pinned[i].p && ptr >= (uintptr_t)pinned[i].p && ptr < (uintptr_t)pinned[i].p + pinned[i].n) type = MEMORYTYPE_HOST;
    for (unsigned i = 0; i < n; i++) {
        if (attrs[i] != MEMORY_TYPE) return INVALID_VALUE;
        *(unsigned *)data[i] = type;
    }
    return OK;
}

/* One device; CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS (88) is FAKE_PAGEABLE_ACCESS (0). */
static CUresult fDeviceGetCount(int *n) { *n = 1; return OK; }
static CUresult fDeviceGet(int *d, int ordinal) { *d = ordinal; return ordinal == 0 ? OK : INVALID_VALUE; }
static CUresult fDeviceGetAttribute(int *v, int attr, int dev)
{
    count("cuDeviceGetAttribute");
    if (dev != 0 || attr != 88) return INVALID_VALUE;
    *v = env_int("FAKE_PAGEABLE_ACCESS", 0);
    return OK;
}

static CUresult fStreamCreate(void **s, unsigned flags) { (void)flags; count("cuStreamCreate"); *s = malloc(1); return OK; }
static CUresult fStreamDestroy(void *s) { count("cuStreamDestroy"); free(s); return OK; }
/* FAKE_CAPTURING=1: every stream reports CU_STREAM_CAPTURE_STATUS_ACTIVE. */
static CUresult fStreamIsCapturing(void *s, int *status)
{
    (void)s;
    count("cuStreamIsCapturing");
    *status = capturing(s) ? 1 : env_int("FAKE_CAPTURING", 0);
    return OK;
}
static CUresult fStreamGetCtx(void *s, void **ctx) { (void)s; *ctx = current_ctx; return OK; }
static CUresult fStreamBeginCapture(void *s, int mode)
{
    (void)mode;
    count("cuStreamBeginCapture");
    for (int i = 0; i < 8; i++)
        if (!cap_stream[i]) { cap_stream[i] = s; cap_graph[i] = calloc(1, sizeof(struct fake_graph)); return OK; }
    return INVALID_VALUE;
}
static CUresult fStreamEndCapture(void *s, struct fake_graph **g)
{
    count("cuStreamEndCapture");
    for (int i = 0; i < 8; i++)
        if (s && cap_stream[i] == s) { *g = cap_graph[i]; cap_stream[i] = 0; return OK; }
    return INVALID_VALUE;
}
static CUresult fGraphCreate(struct fake_graph **g, unsigned flags) { (void)flags; count("cuGraphCreate"); *g = calloc(1, sizeof **g); return OK; }
static CUresult fGraphDestroy(struct fake_graph *g) { count("cuGraphDestroy"); free(g); return OK; }
static CUresult fGraphInstantiate(struct fake_graph **e, struct fake_graph *g, unsigned long long flags)
{
    (void)flags;
    count("cuGraphInstantiate");
    *e = malloc(sizeof **e);
    memcpy(*e, g, sizeof **e);
    return OK;
}
static CUresult fGraphExecDestroy(struct fake_graph *e) { count("cuGraphExecDestroy"); free(e); return OK; }
static CUresult fGraphLaunch(struct fake_graph *e, void *s)
{
    (void)s;
    count("cuGraphLaunch");
    for (int i = 0; i < e->nops; i++) {
        struct op *o = &e->ops[i];
        if (o->kind == OP_MEMSET) memset((void *)(uintptr_t)o->d, o->v, o->n);
        if (o->kind == OP_COPY) memmove((void *)(uintptr_t)o->d, (void *)(uintptr_t)o->s, o->n);
        if (o->kind == OP_KERNEL) {
            void *ptrs[64];
            for (size_t j = 0, at = 0; j < o->f->count && j < 64; at += o->f->sizes[j], j++) ptrs[j] = o->params + at;
            run_kernel(o->f, ptrs);
        }
    }
    return OK;
}
static CUresult fGraphUpload(struct fake_graph *e, void *s) { (void)e; (void)s; return OK; }
/* A node: a byte of its graph's token array; dependencies must be nodes of the same graph. */
static CUresult add_node(void **node, struct fake_graph *g, void **deps, size_t ndeps)
{
    count("cuGraphAddNode");
    for (size_t i = 0; i < ndeps; i++)
        if ((char *)deps[i] < g->nodes || (char *)deps[i] >= g->nodes + g->nnodes) return INVALID_VALUE;
    if (g->nnodes == 64) return INVALID_VALUE;
    *node = &g->nodes[g->nnodes++];
    last_deps = (long)ndeps;
    return OK;
}
struct kernel_node_params {
    struct fake_fn *f; unsigned gx, gy, gz, bx, by, bz, smem; void **params; void **extra; void *kern; void *ctx;
};
static CUresult fGraphAddKernelNode(void **node, struct fake_graph *g, void **deps, size_t n, const struct kernel_node_params *p)
{
    CUresult r = add_node(node, g, deps, n);
    return r == OK ? record_kernel(g, p->f, p->params) : r;
}
struct memset_params { CUdeviceptr dst; size_t pitch; unsigned value, elementSize; size_t width, height; };
static CUresult fGraphAddMemsetNode(void **node, struct fake_graph *g, void **deps, size_t n, const struct memset_params *p, void *ctx)
{
    (void)ctx;
    CUresult r = add_node(node, g, deps, n);
    struct op *o = r == OK ? new_op(g, OP_MEMSET) : 0;
    if (!o) return INVALID_VALUE;
    o->d = p->dst; o->v = (unsigned char)p->value; o->n = p->width * p->elementSize;
    return OK;
}
struct memcpy3d {
    size_t srcXInBytes, srcY, srcZ, srcLOD; int srcMemoryType; const void *srcHost; CUdeviceptr srcDevice; void *srcArray;
    void *reserved0; size_t srcPitch, srcHeight, dstXInBytes, dstY, dstZ, dstLOD; int dstMemoryType; void *dstHost;
    CUdeviceptr dstDevice; void *dstArray; void *reserved1; size_t dstPitch, dstHeight, WidthInBytes, Height, Depth;
};
static CUresult fGraphAddMemcpyNode(void **node, struct fake_graph *g, void **deps, size_t n, const struct memcpy3d *p, void *ctx)
{
    (void)ctx;
    if (p->srcMemoryType != 2 || p->dstMemoryType != 2 || p->Height != 1 || p->Depth != 1) return INVALID_VALUE;
    CUresult r = add_node(node, g, deps, n);
    struct op *o = r == OK ? new_op(g, OP_COPY) : 0;
    if (!o) return INVALID_VALUE;
    o->d = p->dstDevice; o->s = p->srcDevice; o->n = p->WidthInBytes;
    return OK;
}
static CUresult fGraphAddChildGraphNode(void **node, struct fake_graph *g, void **deps, size_t n, struct fake_graph *child)
{
    CUresult r = add_node(node, g, deps, n);
    for (int i = 0; r == OK && i < child->nops; i++) {
        struct op *o = new_op(g, child->ops[i].kind);
        if (!o) return INVALID_VALUE;
        *o = child->ops[i];
    }
    return r;
}
static CUresult fGraphAddEmptyNode(void **node, struct fake_graph *g, void **deps, size_t n) { return add_node(node, g, deps, n); }
static CUresult fGraphAddEventNode(void **node, struct fake_graph *g, void **deps, size_t n, void *e) { (void)e; return add_node(node, g, deps, n); }
/* Graph memory: host memory kept for good (as capture allocations); the free node is counted. */
struct mem_alloc_params { unsigned char pool_props[88]; const void *access; size_t naccess; size_t bytesize; CUdeviceptr dptr; };
static CUresult fGraphAddMemAllocNode(void **node, struct fake_graph *g, void **deps, size_t n, struct mem_alloc_params *p)
{
    count("cuGraphAddMemAllocNode");
    int loc_type, loc_id;
    memcpy(&loc_type, p->pool_props + 8, sizeof loc_type);
    memcpy(&loc_id, p->pool_props + 12, sizeof loc_id);
    if (p->bytesize == 0 || p->access || p->naccess || loc_type != 1 || loc_id != 0) return INVALID_VALUE;
    CUresult r = add_node(node, g, deps, n);
    if (r == OK) p->dptr = (CUdeviceptr)(uintptr_t)dev_alloc(p->bytesize);
    return r;
}
static CUresult fGraphAddMemFreeNode(void **node, struct fake_graph *g, void **deps, size_t n, CUdeviceptr d)
{
    count("cuGraphAddMemFreeNode");
    return d ? add_node(node, g, deps, n) : INVALID_VALUE;
}
static CUresult fGraphGetNodes(struct fake_graph *g, void **nodes, size_t *n) { (void)nodes; *n = (size_t)g->nnodes; return OK; }
/* Queries: 1 GiB of which 768 MiB free; one pool. */
static CUresult fMemGetInfo(size_t *free_, size_t *total) { *free_ = 768u << 20; *total = 1u << 30; return OK; }
static CUresult fDeviceGetName(char *name, int len, int dev) { (void)dev; snprintf(name, (size_t)len, "Fake GPU"); return OK; }
static CUresult fDeviceTotalMem(size_t *b, int dev) { (void)dev; *b = 1u << 30; return OK; }
static CUresult fCtxSynchronize(void) { count("cuCtxSynchronize"); return OK; }
static CUresult fCtxGetDevice(int *d) { *d = 0; return current_ctx ? OK : 201; }
static char pool_token;
static CUresult fDeviceGetMemPool(void **pool, int dev) { (void)dev; *pool = &pool_token; return OK; }
static CUresult fMemPoolTrimTo(void *pool, size_t keep) { (void)pool; (void)keep; count("cuMemPoolTrimTo"); return OK; }
static CUresult fDeviceGraphMemTrim(int dev) { (void)dev; count("cuDeviceGraphMemTrim"); return OK; }
static CUresult fStreamSynchronize(void *s) { (void)s; count("cuStreamSynchronize"); return OK; }
static CUresult fStreamWaitEvent(void *s, void *e, unsigned flags) { (void)s; (void)e; (void)flags; count("cuStreamWaitEvent"); return OK; }
static CUresult fEventCreate(void **e, unsigned flags) { (void)flags; count("cuEventCreate"); *e = malloc(1); return OK; }
static CUresult fEventRecord(void *e, void *s) { (void)e; (void)s; count("cuEventRecord"); return OK; }
static CUresult fEventDestroy(void *e) { count("cuEventDestroy"); free(e); return OK; }
static CUresult fEventSynchronize(void *e) { (void)e; count("cuEventSynchronize"); return OK; }

struct entry { const char *name; void *fn; };
static const struct entry ENTRIES[] = {
    {"cuInit", (void *)fInit},
    {"cuModuleLoadData", (void *)fModuleLoadData},
    {"cuModuleUnload", (void *)fModuleUnload},
    {"cuModuleGetFunction", (void *)fModuleGetFunction},
    {"cuFuncGetParamInfo", (void *)fFuncGetParamInfo},
    {"cuFuncGetName", (void *)fFuncGetName},
    {"cuFuncGetAttribute", (void *)fFuncGetAttribute},
    {"cuFuncSetAttribute", (void *)fFuncSetAttribute},
    {"cuLaunchKernel", (void *)fLaunchKernel},
    {"cuMemAlloc", (void *)fMemAlloc},
    {"cuMemAllocAsync", (void *)fMemAllocAsync},
    {"cuMemAllocFromPoolAsync", (void *)fMemAllocFromPoolAsync},
    {"cuMemFree", (void *)fMemFree},
    {"cuMemFreeAsync", (void *)fMemFreeAsync},
    {"cuMemcpyHtoDAsync", (void *)fMemcpyHtoDAsync},
    {"cuMemcpyDtoHAsync", (void *)fMemcpyDtoHAsync},
    {"cuMemcpyDtoDAsync", (void *)fMemcpyDtoDAsync},
    {"cuMemsetD8Async", (void *)fMemsetD8Async},
    {"cuMemHostAlloc", (void *)fMemHostAlloc},
    {"cuMemFreeHost", (void *)fMemFreeHost},
    {"cuStreamCreate", (void *)fStreamCreate},
    {"cuStreamDestroy", (void *)fStreamDestroy},
    {"cuStreamSynchronize", (void *)fStreamSynchronize},
    {"cuStreamWaitEvent", (void *)fStreamWaitEvent},
    {"cuEventCreate", (void *)fEventCreate},
    {"cuEventRecord", (void *)fEventRecord},
    {"cuEventDestroy", (void *)fEventDestroy},
    {"cuEventSynchronize", (void *)fEventSynchronize},
    {"cuKernelGetParamInfo", (void *)fKernelGetParamInfo},
    {"cuKernelGetName", (void *)fKernelGetName},
    {"cuKernelGetFunction", (void *)fKernelGetFunction},
    {"cuPointerGetAttributes", (void *)fPointerGetAttributes},
    {"cuStreamIsCapturing", (void *)fStreamIsCapturing},
    {"cuDeviceGetCount", (void *)fDeviceGetCount},
    {"cuDeviceGet", (void *)fDeviceGet},
    {"cuDeviceGetAttribute", (void *)fDeviceGetAttribute},
    {"cuCtxCreate", (void *)fCtxCreate},
    {"cuCtxGetCurrent", (void *)fCtxGetCurrent},
    {"cuCtxDestroy", (void *)fCtxDestroy},
    {"cuLibraryLoadData", (void *)fLibraryLoadData},
    {"cuLibraryGetKernel", (void *)fLibraryGetKernel},
    {"cuLibraryUnload", (void *)fLibraryUnload},
    {"cuStreamGetCtx", (void *)fStreamGetCtx},
    {"cuStreamBeginCapture", (void *)fStreamBeginCapture},
    {"cuStreamEndCapture", (void *)fStreamEndCapture},
    {"cuGraphCreate", (void *)fGraphCreate},
    {"cuGraphDestroy", (void *)fGraphDestroy},
    {"cuGraphInstantiateWithFlags", (void *)fGraphInstantiate},
    {"cuGraphExecDestroy", (void *)fGraphExecDestroy},
    {"cuGraphLaunch", (void *)fGraphLaunch},
    {"cuGraphUpload", (void *)fGraphUpload},
    {"cuGraphAddKernelNode", (void *)fGraphAddKernelNode},
    {"cuGraphAddMemsetNode", (void *)fGraphAddMemsetNode},
    {"cuGraphAddMemcpyNode", (void *)fGraphAddMemcpyNode},
    {"cuGraphAddChildGraphNode", (void *)fGraphAddChildGraphNode},
    {"cuGraphAddEmptyNode", (void *)fGraphAddEmptyNode},
    {"cuGraphAddEventRecordNode", (void *)fGraphAddEventNode},
    {"cuGraphAddEventWaitNode", (void *)fGraphAddEventNode},
    {"cuGraphGetNodes", (void *)fGraphGetNodes},
    {"cuGraphAddMemAllocNode", (void *)fGraphAddMemAllocNode},
    {"cuGraphAddMemFreeNode", (void *)fGraphAddMemFreeNode},
    {"cuMemGetInfo", (void *)fMemGetInfo},
    {"cuDeviceGetName", (void *)fDeviceGetName},
    {"cuDeviceTotalMem", (void *)fDeviceTotalMem},
    {"cuCtxSynchronize", (void *)fCtxSynchronize},
    {"cuCtxGetDevice", (void *)fCtxGetDevice},
    {"cuDeviceGetDefaultMemPool", (void *)fDeviceGetMemPool},
    {"cuDeviceGetMemPool", (void *)fDeviceGetMemPool},
    {"cuMemPoolTrimTo", (void *)fMemPoolTrimTo},
    {"cuDeviceGraphMemTrim", (void *)fDeviceGraphMemTrim},
    {"cuFakeCount", (void *)fake_count},
    {"cuFakeLastParams", (void *)fake_last_params},
};

int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    (void)ver; (void)flags;
    *pfn = 0;
    if (strcmp(sym, "cuFuncGetParamCount") == 0 && env_int("FAKE_PARAM_COUNT", 0)) *pfn = (void *)fFuncGetParamCount;
    for (size_t i = 0; !*pfn && i < sizeof ENTRIES / sizeof ENTRIES[0]; i++)
        if (strcmp(ENTRIES[i].name, sym) == 0) *pfn = ENTRIES[i].fn;
    if (status) *status = *pfn ? 0 : 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return *pfn ? OK : 500;             /* CUDA_ERROR_NOT_FOUND */
}
