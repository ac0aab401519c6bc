"""The benchmark scripts' ``--markdown``/``--json``/``--from-json`` options: the recorded
real-world run renders the section that ``docs/benchmarks.md`` holds, a missing Markdown file is
made, and bad paths or files stop with one line before any work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
REALWORLD = REPO / "benchmarks" / "realworld.py"
RECORDED = REPO / "docs" / "results" / "realworld.json"

sys.path.insert(0, str(REPO / "benchmarks"))
from _markdown import replace_section  # noqa: E402


def _realworld(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REALWORLD), *args], capture_output=True, text=True, timeout=120
    )


def test_the_recorded_run_renders_the_section_of_the_docs(tmp_path: Path) -> None:
    made = tmp_path / "new.md"  # missing: made with the section alone
    result = _realworld("--from-json", str(RECORDED), "--markdown", str(made))
    assert result.returncode == 0, result.stderr
    section = made.read_text()
    assert section.startswith("## Real-world corpus\n")
    assert section in (REPO / "docs" / "benchmarks.md").read_text()
    rows = [line.split()[:2] for line in result.stdout.splitlines()]
    assert ["rodinia", "amd"] in rows and ["llm.c", "rocport"] in rows


def test_a_section_is_replaced_in_place_and_the_rest_kept() -> None:
    section = "## Results\n\nnew\n"
    document = "# Title\n\n## Results\n\nold\n\n### detail\n\nold too\n\n## Other\n\nkept\n"
    merged = replace_section(document, section)
    assert merged == "# Title\n\n## Results\n\nnew\n\n## Other\n\nkept\n"
    assert replace_section(merged, section) == merged
    assert replace_section("# Title\n", section) == "# Title\n\n## Results\n\nnew\n"
    assert replace_section("## Other\n\nkept", section).endswith("kept\n\n## Results\n\nnew\n")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from-json", "missing.json"], "No such file"),
        (["--from-json", "bad.json"], "not a realworld.py --json file"),
        (["--from-json", "list.json"], "not a realworld.py --json file"),
        (["--json", "nowhere/out.json"], "does not exist"),
        (["--markdown", "."], "is a folder"),
    ],
)
def test_bad_paths_and_files_stop_with_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    (tmp_path / "bad.json").write_text("{")
    (tmp_path / "list.json").write_text("[]")
    monkeypatch.chdir(tmp_path)
    result = _realworld(*args)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("realworld.py: error: ") and message in last
