"""``rocport bench``, ``bench compare`` and ``bench report`` through the real CLI entry point."""

from __future__ import annotations

import copy
import json
import struct
from pathlib import Path

import pytest

from rocport.bench.results import write
from rocport.cli.main import main


def _run(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
        raise SystemExit(0)
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


@pytest.fixture
def two_results(tiny_document, tmp_path):
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    write(tiny_document, a)
    slower = copy.deepcopy(tiny_document)
    for r in slower["results"]:
        r["value"] *= 0.5
    slower["metadata"]["device"]["name"] = "other-box"
    write(slower, b)
    return a, b


def test_compare_prints_ratios_and_writes_a_png(two_results, tmp_path, capsys):
    a, b = two_results
    png = tmp_path / "chart.png"
    code, out, err = _run(["bench", "compare", str(a), str(b), "--png", str(png)], capsys)
    assert code == 0, err
    assert "gemm/torch/fp32/64x64x64" in out
    assert "0.500x" in out
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width > 500 and height > 300


def test_report_writes_markdown(two_results, tmp_path, capsys):
    a, _ = two_results
    md = tmp_path / "r.md"
    code, _, err = _run(["bench", "report", str(a), "-o", str(md)], capsys)
    assert code == 0, err
    text = md.read_text()
    assert text.startswith("# rocport bench:")
    assert "| `copy/torch/fp32` |" in text
    assert "Not measured" in text


def test_compare_refuses_a_non_results_file(two_results, tmp_path, capsys):
    a, _ = two_results
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"schema": 1}))
    code, _, err = _run(["bench", "compare", str(a), str(bad)], capsys)
    assert code == 2
    assert err.startswith("rocport: error: ") and "not a rocport bench results file" in err
    assert err.count("\n") == 1


def test_compare_of_missing_file_is_one_line(tmp_path, capsys):
    code, _, err = _run(
        ["bench", "compare", str(tmp_path / "x.json"), str(tmp_path / "y.json")], capsys
    )
    assert code == 2 and "no such file" in err


def test_run_writes_valid_json(tmp_path, capsys):
    out = tmp_path / "calib.json"
    code, stdout, err = _run(
        [
            "bench",
            "--preset",
            "tiny",
            "--device",
            "cpu",
            "--workloads",
            "calibration,copy",
            "--quiet",
            "--out",
            str(out),
        ],
        capsys,
    )
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert {r["workload"] for r in doc["results"]} == {"calibration", "copy"}
    assert "## Results" in stdout


def test_bad_option_is_one_line(capsys):
    code, _, err = _run(["bench", "--device", "cpu", "--workloads", "gemm,teleport"], capsys)
    assert code == 2 and "teleport" in err


@pytest.mark.slow
def test_ddp_gloo_two_processes_goes_through_json_and_compare(tmp_path, capsys):
    out = tmp_path / "ddp.json"
    code, _, err = _run(
        ["bench", "--nproc", "2", "--preset", "tiny", "--device", "cpu", "--out", str(out)], capsys
    )
    assert code == 0, err
    doc = json.loads(out.read_text())
    assert doc["metadata"]["device"]["world_size"] == 2
    ids = {r["id"]: r for r in doc["results"]}
    total = ids["ddp/resnet18/fp32/contiguous/b2/r32/n2/total"]
    per = ids["ddp/resnet18/fp32/contiguous/b2/r32/n2/per_process"]
    assert len(per["params"]["per_rank_images_per_s"]) == 2
    assert total["value"] == pytest.approx(2 * 2 / (total["time"]["median_ms"] / 1e3))
    eff = ids["ddp/resnet18/fp32/contiguous/b2/r32/n2/scaling_efficiency"]["value"]
    assert 0 < eff < 1.5
    bus = ids["allreduce/gloo/1048576B/n2"]
    assert bus["params"]["algbw_gbs"] * 2 * 1 / 2 == pytest.approx(bus["value"])
    code, table, err = _run(
        ["bench", "compare", str(out), str(out), "--png", str(tmp_path / "d.png")], capsys
    )
    assert code == 0, err and "1.000x" in table


@pytest.mark.slow
def test_ddp_under_torchrun_writes_rank_0s_results(tmp_path):
    """``torchrun`` sets RANK and WORLD_SIZE; every rank must exit 0, rank 0 writes the file."""
    import subprocess
    import sys

    torchrun = Path(sys.executable).with_name("torchrun")
    assert torchrun.is_file(), "pip installs torch's torchrun script beside its Python"
    out = tmp_path / "ddp.json"
    argv = ["bench", "--preset", "tiny", "--device", "cpu", "--out", str(out)]
    proc = subprocess.run(
        [torchrun, "--standalone", "--nproc-per-node", "2", "-m", "rocport", *argv],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    doc = json.loads(out.read_text())
    assert doc["metadata"]["device"]["world_size"] == 2
    assert proc.stdout.count("| `ddp/resnet18/fp32/contiguous/b2/r32/n2/total` |") == 1


@pytest.mark.parametrize("command", ["bench", "amp-check"])
def test_without_torch_is_one_line_exit_2(command):
    """A Python where torch cannot be imported (``sys.modules[name] = None`` blocks it)."""
    import subprocess
    import sys

    code = (
        "import sys; sys.modules['torch'] = sys.modules['torchvision'] = None\n"
        "from rocport.cli.main import main\n"
        f"main([{command!r}, '--device', 'cpu'])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith(f"rocport: error: rocport {command} needs torch and torchvision")
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_unknown_arch_is_one_line(capsys):
    code, _, err = _run(["bench", "--device", "cpu", "--arch", "resnet9999"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "resnet9999" in err and "resnet50" in err


def test_out_in_a_missing_folder_is_refused_before_running(tmp_path, capsys):
    out = tmp_path / "nope" / "r.json"
    code, _, err = _run(["bench", "--preset", "tiny", "--device", "cpu", "--out", str(out)], capsys)
    assert code == 2 and "does not exist; create it first" in err
    assert not out.parent.exists()
