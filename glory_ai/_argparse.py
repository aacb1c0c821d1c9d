"""What every glory-ai subcommand's parser shares: one-line errors with exit status 2, and
help texts that show defaults and keep descriptions and examples as written."""
from __future__ import annotations

import argparse
from typing import NoReturn

#: the exit status of a mistake in the command line
EXIT_USAGE = 2


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown where there is one to show (not for flags and automatic values);
    descriptions and epilogs (examples) as written."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False) or action.default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line on stderr, exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")
