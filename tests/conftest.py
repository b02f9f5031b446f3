import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def run_cli():
    """Run ``python -m toolbound ...`` in a subprocess; returns CompletedProcess."""
    import subprocess

    def _run(*args: str, input: str | bytes | None = None, env: dict | None = None, cwd=None):
        e = dict(os.environ)
        src = str(ROOT / "src")
        e["PYTHONPATH"] = src + os.pathsep + e.get("PYTHONPATH", "") if e.get("PYTHONPATH") else src
        if env:
            e.update(env)
        data = input.encode() if isinstance(input, str) else input
        p = subprocess.run([sys.executable, "-m", "toolbound", *args], input=data,
                           capture_output=True, env=e, cwd=cwd or ROOT, timeout=300)
        p.stdout_bytes = p.stdout
        p.stdout = p.stdout.decode("utf-8", "replace")
        p.stderr = p.stderr.decode("utf-8", "replace")
        return p

    return _run
