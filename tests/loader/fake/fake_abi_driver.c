/*
 * A fake libcuda whose cuGetProcAddress_v2 keeps several ABIs of one name, as the real driver
 * does: for (name, version) it hands back the newest ABI introduced at or before `version`, and
 * NOT_FOUND above the driver's own version (FAKE_DRIVER_VERSION, default 12090), as a 13.0
 * driver answers for 13040. Each ABI writes which one it is (tests/driver_abis.rs).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int v1(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 1.0f; return 0; }
static int v2(float *ms, void *a, void *b) { (void)a; (void)b; *ms = 2.0f; return 0; }
static int uuid_v1(char *uuid, int dev) { (void)dev; uuid[0] = 1; return 0; }
static int uuid_v2(char *uuid, int dev) { (void)dev; uuid[0] = 2; return 0; }

struct abi { const char *name; int version; void *f; };
static const struct abi ABIS[] = {
    {"cuEventElapsedTime", 2000, (void *)v1},
    {"cuEventElapsedTime", 12080, (void *)v2},
    {"cuDeviceGetUuid", 9020, (void *)uuid_v1},
    {"cuDeviceGetUuid", 11040, (void *)uuid_v2},
};

static int driver_version(void)
{
    const char *v = getenv("FAKE_DRIVER_VERSION");
    return v ? atoi(v) : 12090;
}

int cuDriverGetVersion(int *v) { *v = driver_version(); return 0; }

int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status)
{
    (void)flags;
    *pfn = 0;
    if (status) *status = 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    if (ver > driver_version()) return 500;
    int known = 0;
    for (size_t i = 0; i < sizeof ABIS / sizeof ABIS[0]; i++) {
        if (strcmp(ABIS[i].name, sym) != 0) continue;
        known = 1;
        if (ABIS[i].version <= ver) *pfn = ABIS[i].f;
    }
    if (*pfn) { if (status) *status = 0; return 0; }
    if (known && status) *status = 2; /* CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT */
    return 500;
}
