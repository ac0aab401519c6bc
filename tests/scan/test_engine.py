"""Engine pieces: constant expressions, line starts, overlapping fixes, file walking."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from rocport._diagnostics import Applicability, Edit, Finding, Fix, Location, Severity, line_starts
from rocport.scan.cexpr import evaluate
from rocport.scan.context import CudaSource
from rocport.scan.engine import iter_files
from rocport.scan.fixer import apply_edits

NAMES = {"N": "256", "TILE": "(N / 8)", "BAD": "foo(1)", "LOOP": "LOOP + 1"}


@given(st.integers(-(10**6), 10**6), st.integers(1, 1000), st.integers(0, 20))
def test_evaluate_matches_c_arithmetic(a: int, b: int, shift: int) -> None:
    assert evaluate(f"{a} + {b} * 3", NAMES.get) == a + b * 3
    assert evaluate(f"({a}) / {b}", NAMES.get) == int(a / b)  # C truncates toward zero
    assert evaluate(f"({a}) % {b}", NAMES.get) == a - int(a / b) * b
    assert evaluate(f"{b} << {shift}", NAMES.get) == b << shift


def test_evaluate_names_sizeof_and_unknowns() -> None:
    assert evaluate("TILE * TILE * sizeof(float)", NAMES.get) == 32 * 32 * 4
    assert evaluate("0x1000u + 1'000", NAMES.get) == 4096 + 1000
    assert evaluate("BAD", NAMES.get) is None
    assert evaluate("LOOP", NAMES.get) is None  # self-reference stops, never recurses forever
    assert evaluate("sizeof(MyStruct)", NAMES.get) is None
    assert evaluate("n / 0", {"n": "1"}.get) is None


def test_evaluate_octal_and_bad_literals() -> None:
    assert evaluate("010 * 2", NAMES.get) == 16
    assert evaluate("0", NAMES.get) == 0
    assert evaluate("09", NAMES.get) is None  # not an octal number
    src = CudaSource("k.cu", "__global__ void k() { __shared__ float a[010], b[09], c[²]; }")
    assert [array.size for array in src.shared_arrays] == [32, None, None]


@given(st.text(alphabet="ab\n\r", max_size=50))
def test_line_starts_match_the_shared_helper(text: str) -> None:
    assert CudaSource("p", text).line_starts == line_starts(text)


def _finding(start: int, end: int, text: str, applicability=Applicability.SAFE) -> Finding:
    return Finding(
        "RP999",
        Severity.WARNING,
        Location("p", 1, start + 1),
        "m",
        Fix("t", (Edit(start, end, text),), applicability),
    )


def test_overlapping_fixes_apply_once_and_unsafe_needs_opt_in() -> None:
    text = "abcdef"
    findings = [
        _finding(0, 2, "X"),
        _finding(1, 3, "Y"),
        _finding(4, 5, "Z"),
        _finding(5, 6, "U", Applicability.UNSAFE),
    ]
    assert apply_edits(text, findings) == ("XcdZf", 2)
    assert apply_edits(text, findings, unsafe=True) == ("XcdZU", 3)


def test_walk_skips_default_and_given_excludes(tmp_path: Path) -> None:
    for name in ("src/a.cu", ".git/x.cu", "node_modules/y.cu", "gen/z.cu", "src/b.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("")
    found = {p.relative_to(tmp_path).as_posix() for p in iter_files([tmp_path], ["gen"])}
    assert found == {"src/a.cu", "src/b.py"}


def test_parallel_scan_gives_the_same_report(tmp_path: Path) -> None:
    import shutil

    from rocport.scan.engine import scan_paths
    from rocport.scan.rules import RULES

    from ._helpers import FIXTURES

    for copy in range(2):
        shutil.copytree(FIXTURES, tmp_path / f"copy{copy}")
    serial = scan_paths([tmp_path], RULES, jobs=1)
    parallel = scan_paths([tmp_path], RULES, jobs=2)
    assert serial.files == parallel.files > 2 * 16
    assert [f.to_dict() for f in serial.findings] == [f.to_dict() for f in parallel.findings]
    assert serial.sources == parallel.sources


def test_a_scan_makes_no_reference_cycles(tmp_path: Path) -> None:
    """The engine pauses the cyclic collector while it scans, which is only sound while a scan
    leaves no cycles behind: every rule, on every fixture, a bad Python file and a binary."""
    import gc
    import shutil

    from rocport.scan.engine import scan_paths
    from rocport.scan.rules import RULES

    from ._helpers import FIXTURES

    shutil.copytree(FIXTURES, tmp_path / "tree")
    (tmp_path / "tree" / "broken.py").write_text("def f(:\n")
    (tmp_path / "tree" / "blob.cu").write_bytes(b"\0\1")
    scan_paths([tmp_path], RULES)  # imports and caches outside the measured scan
    gc.collect()
    gc.disable()
    try:
        report = scan_paths([tmp_path], RULES)
        del report
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert gc.isenabled()
    scan_paths([tmp_path / "tree" / "RP101"], RULES)
    assert gc.isenabled()  # given back after a scan


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(["tid", "threadIdx", ".", "->", " ", "\n", "x", "2a", "_", ")", "(", "é"]),
        max_size=14,
    ).map("".join),
    st.sampled_from([160, 5, 1]),
)
def test_left_operand_by_regex_matches_the_step_by_step_walk(before: str, window: int) -> None:
    """RP103 matches the operand before ``% 32`` with one backwards regex in a window; it
    must agree with the walk one step at a time whatever the window cuts."""
    from rocport.scan.rules.cuda import _lane_math as lane_math_32

    code = before + " % 32"
    op = len(before) + 1
    saved, lane_math_32._CHAIN_WINDOW = lane_math_32._CHAIN_WINDOW, window
    try:
        fast = lane_math_32._left_operand(code, op)
    finally:
        lane_math_32._CHAIN_WINDOW = saved
    assert fast == lane_math_32._left_operand_by_steps(code, op)


def test_simple_function_heads_match_the_general_path() -> None:
    """The one-regex heads (plain, and with ``__launch_bounds__``) give what the general
    step-by-step path gives, on every fixture."""
    from ._helpers import FIXTURES

    seen = 0
    for path in sorted(FIXTURES.rglob("*.cu*")):
        src = CudaSource(path.name, path.read_text("utf-8"))
        for function in src.functions:
            assert src._function_at(function.start) == function, (path, function.name)
            seen += 1
    bounded = CudaSource("k.cu", "__global__ void __launch_bounds__(256, 2) k(int* x) { x[0]; }")
    assert [(f.name, f.is_kernel) for f in bounded.functions] == [("k", True)]
    assert bounded._function_at(0) == bounded.functions[0]
    assert seen > 20


def test_enclosing_loop_is_the_innermost_of_all_loops() -> None:
    """``enclosing_loop`` parses only the loops before an offset; it must pick what the
    innermost of every loop in the file would be, at every offset of every fixture."""
    import re

    from ._helpers import FIXTURES

    heads = re.compile(r"\b(?:(for|while)\s*\(|(do)\s*\{)")
    checked = 0
    for path in sorted(FIXTURES.rglob("*.cu*")):
        src = CudaSource(path.name, path.read_text("utf-8"))
        loops = []
        for match in heads.finditer(src.code):
            if not src.is_word_at(match.start(), match.start() + len(match.group(1) or "do")):
                continue
            if match.group(2):
                brace = match.end() - 1
                loops.append((match.start(), src.block_end(brace)))
            else:
                loop = src.loop_at(match.start(), match.group(1), match.end() - 1)
                if loop is not None:
                    loops.append((loop.start, loop.body[1]))
        for offset in range(0, len(src.code), 3):
            inside = [loop for loop in loops if loop[0] <= offset < loop[1]]
            expected = max(inside, default=None)
            found = src.enclosing_loop(offset)
            assert (found and (found.start, found.body[1])) == expected, (path, offset)
            checked += expected is not None
    assert checked > 100


def test_a_second_scan_in_one_process_sees_a_changed_header(tmp_path: Path) -> None:
    from rocport.scan.engine import scan_paths
    from rocport.scan.rules import BY_ID

    (tmp_path / "common.cuh").write_text("#define WARP_SIZE 32\n")
    (tmp_path / "k.cu").write_text(
        '#include "common.cuh"\n'
        "__global__ void k(float* out) {\n"
        "    __shared__ float slots[WARP_SIZE];\n"
        "    slots[threadIdx.x % WARP_SIZE] = 1.0f;\n"
        "    out[0] = slots[0];\n"
        "}\n"
    )
    rules = [BY_ID["RP107"]]
    first = scan_paths([tmp_path], rules)
    assert [f.location.line for f in first.findings] == [3]  # `WARP_SIZE` = 32, from the header
    (tmp_path / "common.cuh").write_text("#define WARP_SIZE 64\n")
    assert scan_paths([tmp_path], rules).findings == []
