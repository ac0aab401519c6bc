"""Probes never crash: missing tools, failures, timeouts and broken frameworks become results."""

from __future__ import annotations

import sys

import jsonschema

from rocport.doctor.host import Host

from .helpers import FIXTURES, doctor_json


def test_missing_tool_is_a_result() -> None:
    result = Host().run("rocminfo", ["rocport-no-such-tool-xyz"])
    assert result.status == "missing" and not result.ok


def test_failing_tool_keeps_its_output() -> None:
    result = Host().run(
        "id", [sys.executable, "-c", "import sys; print('oops', file=sys.stderr); sys.exit(3)"]
    )
    assert (result.status, result.returncode, result.error_line()) == ("failed", 3, "oops")


def test_timeout_is_a_result() -> None:
    result = Host(timeout=0.5).run("id", [sys.executable, "-c", "import time; time.sleep(30)"])
    assert result.status == "timeout" and "timed out" in result.stderr


def test_recorded_exit_status_under_root() -> None:
    result = Host(FIXTURES / "render_missing").run("rocminfo", ["rocminfo"])
    assert result.status == "failed" and result.returncode == 1
    assert Host(FIXTURES / "render_missing").run("nvidia-smi", ["nvidia-smi"]).status == "missing"


def test_environ_is_read_from_proc_under_root() -> None:
    env = Host(FIXTURES / "nvidia_h200").environ()
    assert env["CUDA_VISIBLE_DEVICES"] == "0,1" and env["USER"] == "alice"


def test_crashing_python_cannot_take_the_doctor_down(capsys, tmp_path) -> None:
    """--python pointing at an interpreter that dies by SIGSEGV gives a failed torch check."""
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\nkill -SEGV $$\n")
    fake.chmod(0o755)
    code, report = doctor_json(capsys, "--python", str(fake), "--timeout", "10")
    torch = next(c for c in report["checks"] if c["id"] == "torch.build")
    assert torch["status"] == "fail" and "broken" in torch["found"]
    assert code == 1


def test_doctor_json_shape_validates(capsys) -> None:
    schema = {
        "type": "object",
        "required": ["schema", "tool", "rocm_release", "root", "ok", "summary", "checks"],
        "properties": {
            "schema": {"const": 1},
            "ok": {"type": "boolean"},
            "summary": {
                "type": "object",
                "required": ["pass", "warn", "fail", "skip"],
                "additionalProperties": {"type": "integer"},
            },
            "checks": {
                "type": "array",
                "minItems": 10,
                "items": {
                    "type": "object",
                    "required": ["id", "group", "title", "status", "found", "fix", "details"],
                    "properties": {
                        "status": {"enum": ["pass", "warn", "fail", "skip"]},
                        "found": {"type": "string", "minLength": 1},
                        "fix": {"type": ["string", "null"]},
                        "details": {"type": "object"},
                    },
                },
            },
        },
    }
    for scenario in ("mi300x_ready", "nvidia_h200"):
        _, report = doctor_json(capsys, "--root", str(FIXTURES / scenario))
        jsonschema.validate(report, schema)
        assert sum(report["summary"].values()) == len(report["checks"])
