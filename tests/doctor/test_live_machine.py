"""``rocport doctor`` on the machine that runs the tests: a sane report, never a crash."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import metadata

import pytest

from rocport.doctor.checks import ALL_CHECKS


@pytest.fixture(scope="module")
def live_json() -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rocport", "doctor", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_live_json_report_is_complete(live_json) -> None:
    assert live_json.returncode in (0, 1), live_json.stderr
    assert "Traceback" not in live_json.stderr
    report = json.loads(live_json.stdout)
    assert [c["id"] for c in report["checks"]] == [c.id for c in ALL_CHECKS]
    assert report["ok"] is (live_json.returncode == 0)
    for check in report["checks"]:
        assert "internal error" not in check["found"], check
        if check["status"] in ("warn", "fail"):
            assert check["fix"], check


def test_live_report_agrees_with_this_machine(live_json) -> None:
    report = json.loads(live_json.stdout)
    by_id = {c["id"]: c for c in report["checks"]}
    with open("/etc/os-release", encoding="utf-8") as fh:
        pretty = next(
            (
                line.split("=", 1)[1].strip().strip('"')
                for line in fh
                if line.startswith("PRETTY_NAME=")
            ),
            None,
        )
    if pretty:
        assert pretty in by_id["os.supported"]["found"]
    if not os.path.exists("/dev/kfd"):
        devices = by_id["perm.devices"]
        # no driver: the check is skipped because driver.amdgpu failed, else it fails itself
        assert devices["status"] == "fail" or (
            devices["status"] == "skip" and by_id["driver.amdgpu"]["status"] == "fail"
        )
    try:
        torch_version = metadata.version("torch")
    except metadata.PackageNotFoundError:
        assert by_id["torch.build"]["status"] in ("warn", "fail")
    else:
        assert by_id["torch.build"]["details"]["version"].split("+")[0] == torch_version


def test_live_table_output() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "rocport", "doctor", "--timeout", "20"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr
    assert "os.supported" in proc.stdout and (
        "no failures" in proc.stdout or "not ready" in proc.stdout
    )
