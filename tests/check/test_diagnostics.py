"""Parsing clang's diagnostics as hipcc prints them (the text below is real hipcc output)."""

from __future__ import annotations

from rocport.check.diagnostics import parse_diagnostics

# hipcc 7.0 (HIP 6.4, clang 21) on a file with an error only in the gfx942 pass
HIPCC_70_GFX942_ONLY = """\
two.hip:4:10: error: use of undeclared identifier 'nosuch942'
    4 |   a[0] = nosuch942;
      |          ^~~~~~~~~
1 error generated when compiling for gfx942.
failed to execute:/usr/lib/llvm-21/bin/clang++  --offload-arch=gfx90a --offload-arch=gfx942 -O3  -x hip -c two.hip -o "t.o"
"""  # noqa: E501

# hipcc 7.0, one warning repeated in every pass (two GPU targets and the host)
HIPCC_70_WARNING_EVERY_PASS = """\
k.hip:3:23: warning: ignoring return value of type 'hipError_t' declared with 'nodiscard' attribute [-Wunused-value]
    3 | int main(){ float* d; hipMalloc(&d, 4); k<<<1,1>>>(d); return 0; }
      |                       ^~~~~~~~~ ~~~~~
1 warning generated when compiling for gfx90a.
k.hip:3:23: warning: ignoring return value of type 'hipError_t' declared with 'nodiscard' attribute [-Wunused-value]
    3 | int main(){ float* d; hipMalloc(&d, 4); k<<<1,1>>>(d); return 0; }
      |                       ^~~~~~~~~ ~~~~~
1 warning generated when compiling for gfx942.
k.hip:3:23: warning: ignoring return value of type 'hipError_t' declared with 'nodiscard' attribute [-Wunused-value]
    3 | int main(){ float* d; hipMalloc(&d, 4); k<<<1,1>>>(d); return 0; }
      |                       ^~~~~~~~~ ~~~~~
1 warning generated when compiling for host.
"""  # noqa: E501

# hipcc 5.2 (clang 15): a missing header
HIPCC_52_MISSING_HEADER = """\
/tmp/rpt/hip/a.cu:2:10: fatal error: 'hipblas/hipblas.h' file not found
#include <hipblas/hipblas.h>
         ^~~~~~~~~~~~~~~~~~~
1 error generated when compiling for gfx90a.
"""

# clang 15 driver error for a target it does not know
CLANG_15_BAD_TARGET = "clang-15: error: unsupported CUDA gpu architecture: gfx942\n"


def test_error_of_one_pass_is_attributed_to_it() -> None:
    (diag,) = parse_diagnostics(HIPCC_70_GFX942_ONLY)
    assert (diag.file, diag.line, diag.column, diag.severity) == ("two.hip", 4, 10, "error")
    assert diag.message == "use of undeclared identifier 'nosuch942'"
    assert diag.passes == ["gfx942"]


def test_repeated_diagnostic_is_kept_once_with_every_pass() -> None:
    (diag,) = parse_diagnostics(HIPCC_70_WARNING_EVERY_PASS)
    assert diag.severity == "warning"
    assert diag.passes == ["gfx90a", "gfx942", "host"]
    assert diag.message.endswith("[-Wunused-value]")


def test_fatal_error_names_the_missing_header() -> None:
    (diag,) = parse_diagnostics(HIPCC_52_MISSING_HEADER)
    assert diag.severity == "error" and diag.fatal
    assert diag.file == "/tmp/rpt/hip/a.cu"
    assert diag.missing_header == "hipblas/hipblas.h"


def test_driver_error_has_no_location() -> None:
    (diag,) = parse_diagnostics(CLANG_15_BAD_TARGET)
    assert diag.file is None and diag.line is None
    assert diag.message == "unsupported CUDA gpu architecture: gfx942"


def test_source_lines_and_carets_are_not_diagnostics() -> None:
    text = "    4 |   a[0] = x: error: y;\n      |          ^~~~\nnote: nothing\n"
    assert parse_diagnostics(text) == []
