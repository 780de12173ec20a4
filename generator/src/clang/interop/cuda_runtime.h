/* cudagen stand-in for NVIDIA's cuda_runtime.h (not read: its C++ templates and inline helpers are
 * no part of the C API), which cuda_egl_interop.h includes: the runtime API it builds on. */
#pragma once
#include "cuda_runtime_api.h"
