/* A fake libcuda: cuGetProcAddress_v2 knows "cuFake" (version >= 1000) and "cuFlags". */
#include <stdint.h>
#include <string.h>

int fake_fn(int x) { return x + 42; }
int fake_legacy(void) { return 1; }
int fake_ptds(void) { return 2; }
int cuDriverGetVersion(int *v) { *v = 12040; return 0; }

int cuGetProcAddress_v2(const char *sym, void **pfn, int ver, uint64_t flags, int *status) {
    *pfn = 0;
    if (strcmp(sym, "cuFake") == 0) {
        if (ver >= 1000) { *pfn = (void *)fake_fn; if (status) *status = 0; return 0; }
        if (status) *status = 2; /* CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT */
        return 500;
    }
    if (strcmp(sym, "cuFlags") == 0) {
        *pfn = flags == 2 ? (void *)fake_ptds : flags == 1 ? (void *)fake_legacy : 0;
        if (status) *status = *pfn ? 0 : 1;
        return *pfn ? 0 : 500;
    }
    if (status) *status = 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return 500;
}
