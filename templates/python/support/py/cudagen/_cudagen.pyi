from types import ModuleType
from typing import Any

class LoaderError(RuntimeError): ...

driver: ModuleType
nvrtc: ModuleType
runtime: ModuleType
_nvjitlink: ModuleType
_nvvm: ModuleType

def _pack_kernel_params(record: str, value: Any) -> tuple[int, Any]: ...

__all__ = ["LoaderError", "_nvjitlink", "_nvvm", "_pack_kernel_params", "driver", "nvrtc", "runtime"]
