"""``rocport profile``: the table, missing profilers, timeouts and torch.profiler on the CPU."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from rocport.cli.main import main

FIXTURES = Path(__file__).with_name("fixtures")


def _run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_parse_existing_output_prints_the_table_and_json(tmp_path, capsys):
    out = tmp_path / "k.json"
    code, stdout, err = _run(
        ["profile", "--parse", str(FIXTURES / "ncu_details.csv"), "--json", str(out)], capsys
    )
    assert code == 0, err
    assert "nvjet_tst_256x128" in stdout and "GB/s" in stdout and "L2 hit" in stdout
    data = json.loads(out.read_text())
    assert data["tool"] == "ncu" and len(data["kernels"]) == 2


def test_missing_profiler_is_one_line_exit_2(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    code, _, err = _run(["profile", "--", "true"], capsys)
    assert code == 2
    assert err.startswith("rocport: error: no profiler found") and err.count("\n") == 1


def test_named_profiler_missing(monkeypatch, capsys):
    monkeypatch.setenv("PATH", "/nonexistent")
    code, _, err = _run(["profile", "--tool", "ncu", "--", "true"], capsys)
    assert code == 2 and "ncu not found" in err


def _fake_tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)


def test_rocprof_is_run_without_a_shell_and_its_stats_parsed(tmp_path, monkeypatch, capsys):
    """A stand-in rocprof that writes its real stats file where ``-o`` points."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fixture = FIXTURES / "results.stats.csv"
    # argv: rocprof --stats -o DIR/results.csv CMD...; the stats file sits beside results.csv
    _fake_tool(
        bin_dir,
        "rocprof",
        f'out="$3"; cp "{fixture}" "${{out%.csv}}.stats.csv"; shift 3; exec "$@"\n',
    )
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    outdir = tmp_path / "prof"
    code, stdout, err = _run(
        ["profile", "--output-dir", str(outdir), "--", "echo", "a;b", "$(x)"], capsys
    )
    assert code == 0, err
    assert "Cijk_Ailk_Bljk" in stdout
    log = (outdir / "rocprof.log").read_text()
    assert "a;b $(x)" in log  # passed verbatim: no shell expanded it


def test_profiler_failure_and_timeout(tmp_path, monkeypatch, capsys):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _fake_tool(bin_dir, "rocprof", "exit 3\n")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}/usr/bin:/bin")
    code, _, err = _run(["profile", "--output-dir", str(tmp_path / "p"), "--", "true"], capsys)
    assert code == 2 and "exited with 3" in err
    _fake_tool(bin_dir, "rocprof", "sleep 30\n")
    code, _, err = _run(
        ["profile", "--timeout", "1", "--output-dir", str(tmp_path / "q"), "--", "true"], capsys
    )
    assert code == 2 and "ran past --timeout 1" in err


def test_nothing_to_profile(capsys):
    code, _, err = _run(["profile"], capsys)
    assert code == 2 and "nothing to profile" in err


@pytest.mark.torch
def test_torch_profiler_on_a_python_script(tmp_path, capsys):
    pytest.importorskip("torch", reason="--python needs PyTorch")
    script = tmp_path / "train.py"
    script.write_text(
        "import sys, torch\n"
        "n = int(sys.argv[1])\n"
        "m = torch.nn.Linear(64, 64)\n"
        "for _ in range(n):\n"
        "    m(torch.randn(32, 64)).sum().backward()\n"
    )
    outdir = tmp_path / "prof"
    code, stdout, err = _run(
        [
            "profile",
            "--python",
            str(script),
            "--output-dir",
            str(outdir),
            "--json",
            str(tmp_path / "t.json"),
            "3",
        ],
        capsys,
    )
    assert code == 0, err
    assert (outdir / "trace.json").is_file() and (outdir / "key_averages.txt").is_file()
    data = json.loads((tmp_path / "t.json").read_text())
    by_name = {k["name"]: k for k in data["kernels"]}
    assert by_name["aten::addmm"]["calls"] == 3  # three forward passes
    assert "aten::mm" in stdout or "aten::addmm" in stdout


@pytest.mark.torch
@pytest.mark.parametrize(
    ("skip", "calls", "scope"),
    [
        (2, 3, "optimizer steps 3–5 of 5; the first 2 (warm-up, cuDNN autotuning) left out"),
        (0, 5, "the whole run: all 5 optimizer steps"),
        (9, 5, "fewer than --skip-steps 9"),
    ],
)
def test_torch_profiler_leaves_out_warm_up_steps(tmp_path, capsys, skip, calls, scope):
    pytest.importorskip("torch", reason="--python needs PyTorch")
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\n"
        "m = torch.nn.Linear(64, 64)\n"
        "opt = torch.optim.SGD(m.parameters(), lr=0.1)\n"
        "for _ in range(5):\n"
        "    opt.zero_grad()\n"
        "    m(torch.randn(32, 64)).sum().backward()\n"
        "    opt.step()\n"
    )
    outdir, out = tmp_path / "prof", tmp_path / "t.json"
    argv = ["profile", "--python", str(script), "--skip-steps", str(skip)]
    code, stdout, err = _run([*argv, "--output-dir", str(outdir), "--json", str(out)], capsys)
    assert code == 0, err
    data = json.loads(out.read_text())
    assert scope in data["scope"]
    assert "profiled:" in stdout
    by_name = {k["name"]: k for k in data["kernels"]}
    assert by_name["aten::addmm"]["calls"] == calls  # one forward pass per profiled step
    assert (outdir / "warmup_trace.json").is_file() == (skip == 2)
    if skip == 2:  # the warm-up's two forward passes are in its trace, not in the other
        warmup = json.loads((outdir / "warmup_trace.json").read_text())["traceEvents"]
        rest = json.loads((outdir / "trace.json").read_text())["traceEvents"]
        assert [e.get("name") for e in warmup].count("aten::addmm") == 2
        assert [e.get("name") for e in rest].count("aten::addmm") == 3
