"""rocport: move CUDA and deep-learning code to AMD ROCm, and prove the move worked."""

from rocport.errors import InputError, OutputError, RocportError, ToolError

__version__ = "0.1.0"

__all__ = [
    "InputError",
    "OutputError",
    "RocportError",
    "ToolError",
    "__version__",
]
