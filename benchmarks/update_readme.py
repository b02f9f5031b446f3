"""Regenerate README.md's generated sections from their sources (never type figures by hand).

Each section sits between ``<!-- generated:NAME:begin -->`` and ``<!-- generated:NAME:end -->``.
Sources: the error catalogue, and the benchmark results in benchmarks/results/*.json.

    python benchmarks/update_readme.py          # rewrite README.md
    python benchmarks/update_readme.py --check  # exit 1 if README.md is stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "benchmarks" / "results"
sys.path.insert(0, str(ROOT / "src"))


def error_codes() -> str:
    from toolbound._errors import CATALOGUE

    rows = ["| code | retryable | means | the model is told to |", "| --- | --- | --- | --- |"]
    for e in CATALOGUE.values():
        rows.append(f"| `{e.code}` | {'yes' if e.retryable else 'no'} | {e.summary} | {e.advice} |")
    return "\n".join(rows)


def _load(name: str) -> dict | None:
    p = RESULTS / f"{name}.json"
    return json.loads(p.read_text()) if p.exists() else None


SECTIONS: dict[str, Callable[[], str]] = {"error-codes": error_codes}


def _extra_sections() -> None:
    """Sections contributed by benchmark modules (each defines ``readme_sections() -> dict``)."""
    import importlib.util

    for path in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        spec = importlib.util.spec_from_file_location(path.stem, path)
        assert spec and spec.loader
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        fn = getattr(mod, "readme_sections", None)
        if fn is not None:
            for name, render in fn().items():
                SECTIONS[name] = render


def render(text: str) -> str:
    _extra_sections()
    for name, fn in SECTIONS.items():
        pat = re.compile(rf"(<!-- generated:{re.escape(name)}:begin -->\n).*?(<!-- generated:{re.escape(name)}:end -->)",
                         re.S)
        if pat.search(text):
            body = fn().rstrip("\n") + "\n"
            text = pat.sub(lambda m: m.group(1) + body + m.group(2), text)
    return text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if README.md is not up to date")
    args = ap.parse_args()
    old = README.read_text(encoding="utf-8")
    new = render(old)
    if args.check:
        if new != old:
            print("README.md is stale: run python benchmarks/update_readme.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
