"""``rocport check``: prove that ported code compiles for AMD GPUs, with the HIP release it targets.

:func:`check_tree` finds a HIP toolchain (``/opt/rocm``, ``PATH``, or a root that
``scripts/toolchain-rocm.sh`` set up), compiles every translation unit of a tree for the requested
GPU targets in parallel, and maps each compiler error back to the CUDA line it came from.
"""

from rocport.check.model import CheckReport, Diagnostic, Mode, Status, UnitResult
from rocport.check.runner import check_tree, find_units
from rocport.check.sourcemap import ChangedName, SourceMap
from rocport.check.toolchain import Toolchain, discover, find_toolchain

__all__ = [
    "ChangedName",
    "CheckReport",
    "Diagnostic",
    "Mode",
    "SourceMap",
    "Status",
    "Toolchain",
    "UnitResult",
    "check_tree",
    "discover",
    "find_toolchain",
    "find_units",
]
