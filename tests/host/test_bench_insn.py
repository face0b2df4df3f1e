"""tools/bench_insn.py's plugin(): the one place every benchmark gets QEMU's
insncount plugin. Building it downloads Debian's QEMU source, so it says so
before, and says why when there is none (issue 34 N27)."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import bench_insn  # noqa: E402


def test_build_announced_and_failure_named(monkeypatch, tmp_path, capsys):
    ran = []

    def fake_run(cmd, **kw):
        ran.append((cmd, capsys.readouterr().out))  # what was printed before it ran
        return subprocess.CompletedProcess(cmd, 2, None, "apt-get source: no network")

    monkeypatch.delenv("INSNCOUNT", raising=False)
    monkeypatch.setattr(bench_insn, "BUILD", str(tmp_path))
    monkeypatch.setattr(bench_insn.subprocess, "run", fake_run)
    assert bench_insn.plugin() is None
    assert ran == [(["make", "-s", "insncount"],
                    "building the insncount plugin (make insncount; downloads Debian's QEMU source once)...\n")]
    assert capsys.readouterr().out == "make insncount failed (exit 2): apt-get source: no network\n"


def test_built_plugin_used_silently(monkeypatch, tmp_path, capsys):
    so = tmp_path / "insncount" / "insncount.so"
    so.parent.mkdir()
    so.write_bytes(b"")
    monkeypatch.delenv("INSNCOUNT", raising=False)
    monkeypatch.setattr(bench_insn, "BUILD", str(tmp_path))
    assert bench_insn.plugin() == str(so)
    assert capsys.readouterr().out == ""


def test_missing_insncount_named(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("INSNCOUNT", str(tmp_path / "none.so"))
    assert bench_insn.plugin() is None
    assert f"INSNCOUNT={tmp_path / 'none.so'}: no such file" in capsys.readouterr().out
