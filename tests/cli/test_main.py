"""The top-level CLI: every subcommand is registered, loads, and bad input exits 2 in one line."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest

from rocport.cli.main import SUBCOMMANDS, cli, main


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS))
def test_subcommand_loads(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert isinstance(command, click.Command)
    assert command.help or command.short_help, f"{name} has no help text"


def test_unknown_subcommand_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["no-such-command"])
    assert exc.value.code == 2
    assert "no-such-command" in capsys.readouterr().err


def test_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "rocport", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.startswith("rocport, version ")


def test_help_imports_no_torch() -> None:
    """``rocport --help`` lists every command without importing the optional torch extra."""
    code = (
        "import sys; from rocport.cli.main import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "assert 'torch' not in sys.modules, 'torch imported by --help'\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    for name in SUBCOMMANDS:
        assert name in out.stdout


def test_bad_option_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["port", "--blas", "mkl", "."])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rocport: error: "), err
