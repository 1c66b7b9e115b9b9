"""Experiment placeholder: not implemented yet (raises NotAvailable, exit code 2)."""
from __future__ import annotations

import argparse

HELP = "not available yet"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace):
    from gomocup_bot.experiments import NotAvailable

    raise NotAvailable("this experiment is not written yet")
