from types import ModuleType

class LoaderError(RuntimeError): ...

driver: ModuleType
nvrtc: ModuleType
__all__ = ["LoaderError", "driver", "nvrtc"]
