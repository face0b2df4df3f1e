"""The Debian Linux guest's initramfs (tools/linux_guest.py) and make
rfc2544's side-by-side tables (tools/rfc2544.py), without booting: the
archive from a stand-in of the extracted .debs, the roles' kernel command
lines against what /init reads, --dut's refusal, a table from known rows."""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import linux_guest  # noqa: E402
import rfc2544  # noqa: E402


def test_initramfs_holds_init_busybox_module_and_sockperf(tmp_path):
    x = tmp_path / "x"
    for m in linux_guest.MODULES:
        ko = x / "lib/modules/9.9.9-test/kernel" / m
        ko.parent.mkdir(parents=True, exist_ok=True)
        ko.write_bytes(b"module " + ko.name.encode())
    (x / "bin").mkdir()
    (x / "bin/busybox").write_bytes(b"busybox")
    out = str(tmp_path / "initrd.cpio")
    linux_guest.initramfs(str(x), "9.9.9-test", out)
    listing = subprocess.run(f"cpio -itv --quiet < {out}", shell=True, capture_output=True, text=True,
                             check=True).stdout.splitlines()
    entries = {line.split()[-1]: line.split() for line in listing}
    for name in ("init", "bin/busybox", "bin/sockperf", "e1000e.ko", "8021q.ko", "llc.ko", "lib64/ld-linux-x86-64.so.2",
                 "dev", "proc"):
        assert name in entries, listing
    assert all(e[2] == "root" and e[3] == "root" for e in entries.values()), listing
    assert entries["init"][0] == "-rwxr-xr-x"
    subprocess.run(f"cd {tmp_path} && mkdir u && cd u && cpio -id --quiet init e1000e.ko 8021q.ko < {out}", shell=True,
                   check=True)
    assert (tmp_path / "u/init").read_text() == linux_guest.INIT
    assert (tmp_path / "u/e1000e.ko").read_bytes() == b"module e1000e.ko"
    assert (tmp_path / "u/8021q.ko").read_bytes() == b"module 8021q.ko"
    assert not os.path.exists(out + ".root") and not os.path.exists(out + ".new")


def test_roles_give_only_what_init_reads():
    read = re.search(r"case \$a in (\S+)\)", linux_guest.INIT).group(1).split("|")
    lines = [linux_guest.ROLES["router"].format(ip0="10.1.0.1/24", ip1="10.2.0.1/24",
                                                neigh0="10.1.0.2@52:54:00:00:01:01",
                                                neigh1="10.2.0.2@52:54:00:00:01:02"),
             linux_guest.ROLES["server"].format(ip0="10.0.0.2/24")]
    words = [[w for w in line.split() if w.startswith("lg_")] for line in lines]
    assert words == [["lg_ip0=10.1.0.1/24", "lg_ip1=10.2.0.1/24", "lg_neigh0=10.1.0.2@52:54:00:00:01:01",
                      "lg_neigh1=10.2.0.2@52:54:00:00:01:02", "lg_forward=1"],
                     ["lg_ip0=10.0.0.2/24", "lg_sockperf=1"]]
    for w in words[0] + words[1]:
        assert any(re.fullmatch(p.replace("*", ".*"), w) for p in read), (w, read)


def test_rfc2544_refuses_an_unknown_dut():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "rfc2544.py"), "--dut", "appliance,bsd"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 2
    assert "--dut appliance,bsd: accepted: appliance, linux, or both comma-separated (each once)" in r.stderr


def test_side_by_side_puts_each_dut_in_its_columns():
    res = {"appliance": {"throughput": [{"size": 64, "pps": 3720, "pct": 18.6}],
                         "loss": [{"size": 64, "load_pct": 100, "offered_pps": 3800, "loss_pct": 0.0}]},
           "linux": {"throughput": [{"size": 64, "pps": 2000, "pct": 10.0}, {"size": "imix", "pps": 900, "pct": 4.5}],
                     "loss": [{"size": 64, "load_pct": 100, "offered_pps": 3790, "loss_pct": 45.123}]}}
    lines = rfc2544.side_by_side(res)
    assert lines == [
        "throughput (26.1): frames/s with zero loss",
        "  frame B                 appliance                     linux",
        "                    fps   % ceiling           fps   % ceiling",
        "       64          3720       18.60          2000       10.00",
        "     imix             -           -           900        4.50",
        "",
        "frame loss (26.3) at 100 % of the ceiling, %",
        "  frame B                 appliance                     linux",
        "            offered fps      loss %   offered fps      loss %",
        "       64          3800       0.000          3790      45.123",
        "     imix             -           -             -           -",
        "",
    ]
