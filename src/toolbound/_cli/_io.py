"""Shared CLI input/output helpers."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


class UsageError(Exception):
    """A problem with how the command was called (exit code 2)."""


def read_text(path: str) -> str:
    """Read a file (or standard input for ``-``) as UTF-8, with errors a newcomer understands."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise UsageError(f"no such file: {path}") from None
        except IsADirectoryError:
            raise UsageError(f"{path} is a directory; give a file, or - for standard input") from None
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    return data.decode("utf-8", errors="surrogateescape")


def write_json(obj: Any, *, indent: int | None = 2) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False, indent=indent) + "\n")


def fail_usage(message: str) -> int:
    sys.stderr.write(f"toolbound: error: {message}\n")
    return 2


def print_result(result: Any, fmt: str) -> None:
    """Print a SanitizedResult: ``model`` gives the text the model sees, ``json`` everything."""
    if fmt == "model":
        sys.stdout.write(result.to_model() + "\n")
    else:
        write_json(result.to_dict())


def add_classifier_option(p: argparse.ArgumentParser) -> None:
    """``--classifier DIR`` (scan, sanitize, proxy, bench); :func:`use_classifier` registers it."""
    p.add_argument("--classifier", metavar="DIR",
                   help="also score with a local ONNX transformer classifier (a directory holding model.onnx "
                   "and tokenizer.json; needs the 'classifier' extra); the score is the larger of the two")


def use_classifier(path: str) -> int | None:
    """Register ``--classifier``; a usage error (exit 2) when it cannot be loaded."""
    from toolbound._detect.api import use_classifier as register
    from toolbound._detect.classifier import ClassifierError

    try:
        register(path)
    except ClassifierError as exc:
        return fail_usage(f"--classifier: {exc}")
    return None
