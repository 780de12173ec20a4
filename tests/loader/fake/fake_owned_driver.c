/*
 * A fake libcuda for the generated owned handles' tests (tests/safe_owned.rs): streams, modules
 * and functions are tokens, every call is counted (fake_count(name), reached through
 * cuGetProcAddress_v2 as "cuFakeCount"). FAKE_DESTROY_FAILS=1 makes cuStreamDestroy fail with
 * CUDA_ERROR_INVALID_HANDLE (400) without destroying. "lastReleasedDevice" gives the device of
 * the last cuDevicePrimaryCtxRelease. One context may be current (push sets it, pop clears it,
 * cuCtxGetCurrent reads it), for every thread alike.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
#define OK 0
#define INVALID_HANDLE 400

static const char *NAMES[] = {
    "cuStreamCreate", "cuStreamDestroy", "cuStreamSynchronize", "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease", "cuCtxPushCurrent", "cuCtxPopCurrent", "cuModuleLoadData",
    "cuModuleGetFunction", "cuModuleUnload", "cuCtxGetCurrent",
};
#define NCOUNTS (sizeof NAMES / sizeof NAMES[0])
static long counts[NCOUNTS];
static long last_released_device = -1;
static void *current_ctx;

static void count(const char *name)
{
    for (size_t i = 0; i < NCOUNTS; i++)
        if (strcmp(NAMES[i], name) == 0) { counts[i]++; return; }
}

long fake_count(const char *name)
{
    if (strcmp(name, "lastReleasedDevice") == 0) return last_released_device;
    for (size_t i = 0; i < NCOUNTS; i++)
        if (strcmp(NAMES[i], name) == 0) return counts[i];
    return -1;
}

static int fails(void)
{
    const char *v = getenv("FAKE_DESTROY_FAILS");
    return v && *v == '1';
}

CUresult cuDriverGetVersion(int *v) { *v = 12090; return OK; }

static CUresult fStreamCreate(void **s, unsigned flags) { (void)flags; count("cuStreamCreate"); *s = malloc(1); return OK; }
static CUresult fStreamDestroy(void *s)
{
    count("cuStreamDestroy");
    if (fails()) return INVALID_HANDLE;
    free(s);
    return OK;
}
static CUresult fStreamSynchronize(void *s) { (void)s; count("cuStreamSynchronize"); return OK; }
static CUresult fPrimaryCtxRetain(void **ctx, int dev) { count("cuDevicePrimaryCtxRetain"); *ctx = (void *)(intptr_t)(0x1000 + dev); return OK; }
static CUresult fPrimaryCtxRelease(int dev) { count("cuDevicePrimaryCtxRelease"); last_released_device = dev; return OK; }
static CUresult fCtxPushCurrent(void *ctx) { count("cuCtxPushCurrent"); current_ctx = ctx; return OK; }
static CUresult fCtxPopCurrent(void **ctx) { count("cuCtxPopCurrent"); if (ctx) *ctx = current_ctx; current_ctx = 0; return OK; }
static CUresult fCtxGetCurrent(void **ctx) { count("cuCtxGetCurrent"); *ctx = current_ctx; return OK; }
static CUresult fModuleLoadData(void **mod, const void *image) { (void)image; count("cuModuleLoadData"); *mod = malloc(1); return OK; }
static CUresult fModuleGetFunction(void **f, void *mod, const char *name) { (void)name; count("cuModuleGetFunction"); *f = (char *)mod + 1; return OK; }
static CUresult fModuleUnload(void *mod) { count("cuModuleUnload"); free(mod); return OK; }

struct entry { const char *name; void *fn; };
static const struct entry ENTRIES[] = {
    {"cuStreamCreate", (void *)fStreamCreate},
    {"cuStreamDestroy", (void *)fStreamDestroy},
    {"cuStreamSynchronize", (void *)fStreamSynchronize},
    {"cuDevicePrimaryCtxRetain", (void *)fPrimaryCtxRetain},
    {"cuDevicePrimaryCtxRelease", (void *)fPrimaryCtxRelease},
    {"cuCtxPushCurrent", (void *)fCtxPushCurrent},
    {"cuCtxPopCurrent", (void *)fCtxPopCurrent},
    {"cuCtxGetCurrent", (void *)fCtxGetCurrent},
    {"cuModuleLoadData", (void *)fModuleLoadData},
    {"cuModuleGetFunction", (void *)fModuleGetFunction},
    {"cuModuleUnload", (void *)fModuleUnload},
    {"cuFakeCount", (void *)fake_count},
};

int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    (void)ver; (void)flags;
    *pfn = 0;
    for (size_t i = 0; !*pfn && i < sizeof ENTRIES / sizeof ENTRIES[0]; i++)
        if (strcmp(ENTRIES[i].name, sym) == 0) *pfn = ENTRIES[i].fn;
    if (status) *status = *pfn ? 0 : 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return *pfn ? OK : 500;             /* CUDA_ERROR_NOT_FOUND */
}
