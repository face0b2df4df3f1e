"""Every script under tools/ runs as printed: each file with a shebang is
executable, and each Python one answers --help directly as an executable
(exit 0, its usage on stdout) without building or booting anything, in
words a user knows (no "seed 2" or "issue 13": the figure or the report by
name)."""
import os
import re
import subprocess

import pytest

TOOLS = os.path.join(os.path.dirname(__file__), "..", "..", "tools")


def scripts():
    """tools/ files that start with a shebang, by name."""
    out = []
    for name in sorted(os.listdir(TOOLS)):
        path = os.path.join(TOOLS, name)
        if os.path.isfile(path):
            with open(path, "rb") as f:
                if f.read(2) == b"#!":
                    out.append(name)
    return out


@pytest.mark.parametrize("name", scripts())
def test_script_is_executable(name):
    assert os.access(os.path.join(TOOLS, name), os.X_OK), f"tools/{name} has a shebang but is not executable"


@pytest.mark.parametrize("name", [n for n in scripts() if n.endswith(".py")])
def test_help_runs_as_an_executable(name, tmp_path):
    r = subprocess.run([os.path.abspath(os.path.join(TOOLS, name)), "--help"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert "usage" in r.stdout.lower(), r.stdout
    assert "qemu" not in r.stderr.lower(), r.stderr
    assert os.listdir(tmp_path) == [], "--help left files behind"
    assert not re.search(r"\bseed \d|\bissue #?\d|\bthe issue\b", r.stdout, re.I), r.stdout
