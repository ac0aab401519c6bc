"""``rocport scan``: find AMD-portability hazards in CUDA/HIP and Python code, and fix some.

The library entry points are :func:`scan_paths` (a tree) and :func:`scan_text` (one text);
:data:`RULES` lists every rule.
"""

from rocport.scan.engine import Note, ScanReport, scan_paths, scan_text
from rocport.scan.registry import FixAvailability, Language, Rule
from rocport.scan.rules import RULES

__all__ = [
    "FixAvailability",
    "Language",
    "Note",
    "RULES",
    "Rule",
    "ScanReport",
    "scan_paths",
    "scan_text",
]
