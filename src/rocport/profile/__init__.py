"""``rocport profile``: run the best profiler present and rank the kernels."""

from rocport.profile.model import KernelStat, KernelTable
from rocport.profile.parsers import parse_file
from rocport.profile.runner import ProfileRequest, run

__all__ = ["KernelStat", "KernelTable", "ProfileRequest", "parse_file", "run"]
