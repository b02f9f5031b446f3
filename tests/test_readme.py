import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_generated_sections_are_current():
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "update_readme.py"), "--check"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_ci_runs_the_readme_commands():
    ci = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    assert "quickstart:test" in ci and "quickstart:run" in ci
    assert "<!-- quickstart:test -->" in readme and "<!-- quickstart:run -->" in readme
