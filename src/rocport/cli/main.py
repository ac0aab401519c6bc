"""Entry point: a click group whose subcommands load on first use.

Lazy loading keeps ``rocport port`` fast and lets ``port``/``scan``/``doctor`` run
without the optional ``torch`` extra that ``bench``/``amp-check`` import.
"""

from __future__ import annotations

import importlib
import sys

import click

from rocport import __version__
from rocport.errors import RocportError

#: subcommand name -> "module:attribute" of its click command
SUBCOMMANDS: dict[str, str] = {
    "port": "rocport.cli.port:command",
    "check": "rocport.cli.check:command",
    "scan": "rocport.cli.scan:command",
    "doctor": "rocport.cli.doctor:command",
    "install-plan": "rocport.cli.doctor:install_plan_command",
    "bench": "rocport.cli.bench:command",
    "amp-check": "rocport.cli.amp:command",
    "profile": "rocport.cli.profile:command",
    "verify": "rocport.cli.verify:command",
}


class LazyGroup(click.Group):
    """A group that imports each subcommand's module only when it is invoked."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = SUBCOMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        return getattr(importlib.import_module(module_name), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="rocport")
def cli() -> None:
    """Move CUDA code to AMD ROCm, and prove that the move worked."""


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; a :class:`RocportError` becomes one line on stderr and exit code 2."""
    try:
        cli.main(args=argv, prog_name="rocport", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("rocport: aborted", err=True)
        sys.exit(130)
    except click.UsageError as exc:
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        click.echo(f"rocport: error: {exc.format_message()}{hint}", err=True)
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except RocportError as exc:
        from rocport._printable import printable  # a path in the message may hold escapes

        click.echo(f"rocport: error: {printable(str(exc))}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("rocport: interrupted", err=True)
        sys.exit(130)
