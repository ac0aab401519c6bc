"""``rocport verify``: run the CUDA original and its port and compare what they compute.

:func:`verify` builds the original with nvcc and the port through HIP's NVIDIA backend (the
NVIDIA path), or the port with HIP-CPU's 64-lane wavefronts (the CPU path), runs both with the
same arguments and inputs, and reports per program: same, differs (first difference), could
not build (with the CUDA line), or not judged / not covered, with why.
"""

from rocport.verify.compare import Tolerance
from rocport.verify.engine import VerifyOptions, pair_programs, verify
from rocport.verify.model import Difference, KernelLimit, ProgramReport, Status, VerifyReport

__all__ = [
    "Difference",
    "KernelLimit",
    "ProgramReport",
    "Status",
    "Tolerance",
    "VerifyOptions",
    "VerifyReport",
    "pair_programs",
    "verify",
]
