#!/usr/bin/python3
"""The one QEMU runner: `make run`, the tests and the benchmarks all use it.

It composes the QEMU command line (machine, memory, CPUs, NICs with their
backends and PCI placement, boot path) and, as a library, drives the serial
console and QMP for tests:

    with Qemu(boot="kernel", append="selftest=exit") as q:
        q.expect(r"ready in (\\d+) us")
        q.wait()                      # QEMU's exit status

Boot paths: kernel (-kernel, PVH), iso-bios (GRUB on SeaBIOS), iso-uefi
(GRUB on OVMF), efi (BOOTX64.EFI from an EFI system partition on OVMF),
net-bios (-boot n: the first NIC's iPXE ROM on SeaBIOS loads the bootfile
of its netdev=user,tftp=DIR,bootfile=PATH NIC, e.g. make netboot's tree),
net-uefi (the same on OVMF: its network stack on the NIC's UEFI driver,
rom=efi, loads an EFI bootfile).
The guest exits through isa-debug-exit: status 33 = success, 35 = failure.
TCG only: this machine's /dev/kvm cannot run SSE code (see README.md, Status).
"""
import argparse
import ctypes
import json
import os
import re
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import contextmanager

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
OVMF = "/usr/share/ovmf/OVMF.fd"
BOOTS = ("kernel", "iso-bios", "iso-uefi", "efi", "net-bios", "net-uefi")
PROMPT = "linerate> "  # the serial shell's prompt
# iPXE option ROMs for -boot n (Debian ipxe-qemu; QEMU 10 from backports looks elsewhere).
IPXE_ROMS = "/usr/lib/ipxe/qemu"
EXIT_OK, EXIT_FAIL = 33, 35


NIC_HELP = """\
--nic MODEL[:OPT=VAL,...], repeatable; port N is the Nth --nic.
  MODEL       e1000 | e1000e | igb | virtio-net-pci (virtio 1.x only: disable-legacy=on)
  bus=        root (default): the root bus | rp: its own pcie-root-port (q35;
              needed for more than one igb) | bridge: behind a pci-bridge |
              rp-bridge: behind a pcie-pci-bridge behind a pcie-root-port (q35)
  netdev=     none (default): no backend, QEMU drops what the port sends |
              stream: QEMU listens on the unix socket build/run/nicN.sock (the
                tests' Qemu class: in its temporary folder), for build/trafgen;
                connect=PATH connects to another QEMU's socket instead (two
                guests back to back) |
              dgram: UDP 127.0.0.1 port 40000+2N (lport=), sending to 40001+2N
                (rport=) |
              hub: QEMU's hub 0, wiring the guest's hub ports to each other |
              user: QEMU's user network (restricted) with its DHCP server;
                tftp=DIR and bootfile=PATH serve a network boot (make netboot's
                tree), hostfwd=PORT forwards TCP 127.0.0.1:PORT to the guest's
                port 80 |
              tap: the existing tap device ifname=NAME (made by the caller; root)
  mac=        the port's MAC address (default QEMU's 52:54:00:12:34:56+N)
  rom=        1: the NIC's iPXE boot ROM (net-bios) | efi: its UEFI driver (net-uefi);
              without it the NIC has no boot ROM (QEMU's default one would make
              OVMF try PXE before the disk)
  queues=     netdev=tap: N queues (a tap made multi_queue, tools/netns.py
              tap_add(queues=N)); virtio-net-pci then gets mq=on and 2N+2
              MSI-X vectors, the tap spreading flows over the queue pairs
  rss=        1: virtio-net-pci with queues=N also gets rss=on,hash=on: the
              driver takes RSS and HASH_REPORT, and QEMU steers each frame by
              the driver's RSS table in its own code (docs/drivers.md)
  vectors=    virtio-net-pci with queues=N: MSI-X vectors (default 2N+2); fewer
              than N+1 makes the driver share one vector among its queues
  packed=     virtio-net-pci: 1 offers packed virtqueues (QEMU's packed=on)
  in_order=   virtio-net-pci: 1 offers VIRTIO_F_IN_ORDER (QEMU's in_order=on)
  legacy=     virtio-net-pci: 1 keeps the legacy I/O BAR (QEMU's default
              transitional device, 1af4:1000); only: the legacy interface
              alone (disable-modern=on); default 0 (1af4:1041)
Defaults: --boot kernel --machine q35 --mem 256M --smp 1, QEMU's CPU model.
Examples:
  make shell's ports (build/trafgen sends into build/run/nic0.sock):
    tools/qemurun.py --interactive --nic e1000e:netdev=stream --nic e1000e:netdev=stream
  an igb port on a tap device (created first, e.g. by tools/netns.py):
    tools/qemurun.py --interactive --nic igb:bus=rp,netdev=tap,ifname=lr0 --append 'app=rr ip0=10.3.0.1/24'
  network boot from make netboot's tree (BIOS, iPXE):
    tools/qemurun.py --interactive --boot net-bios \\
      --nic e1000e:netdev=user,tftp=build/netboot,bootfile=boot/grub/i386-pc/core.0,rom=1"""
NIC_OPTS = ("bus", "netdev", "connect", "lport", "rport", "tftp", "bootfile", "hostfwd", "ifname", "mac",
            "rom", "legacy", "queues", "rss", "vectors", "packed", "in_order")
MODELS = ("e1000", "e1000e", "igb", "virtio-net-pci")


def nic_spec(spec):
    """(model, {option: value}) of a NIC spec MODEL[:OPT=VAL,...]."""
    model, _, rest = spec.partition(":")
    opts = dict(kv.partition("=")[::2] for kv in rest.split(",") if kv)
    bad = [k for k in opts if k not in NIC_OPTS]
    if bad:
        raise SystemExit(f"nic {spec}: unknown option {bad[0]}= (options: {'= '.join(NIC_OPTS)}=; "
                         "tools/qemurun.py --help)")
    return model, opts


def nic_args(i, spec, machine, sockdir):
    """QEMU arguments for NIC i from a spec MODEL[:OPT=VAL,...] (NIC_HELP)."""
    model, opts = nic_spec(spec)
    bus, netdev = opts.get("bus", "root"), opts.get("netdev", "none")
    args, dev = [], f"{model},id=nic{i}"
    if bus == "rp":
        if machine != "q35":
            raise SystemExit("bus=rp needs the q35 machine")
        args += ["-device", f"pcie-root-port,id=rp{i},chassis={i + 1},slot={i + 1}"]
        dev += f",bus=rp{i}"
    elif bus == "bridge":
        args += ["-device", f"pci-bridge,id=br{i},chassis_nr={i + 1}"]
        dev += f",bus=br{i},addr=0x1"
    elif bus == "rp-bridge":
        if machine != "q35":
            raise SystemExit("bus=rp-bridge needs the q35 machine")
        args += ["-device", f"pcie-root-port,id=rp{i},chassis={i + 1},slot={i + 1}",
                 "-device", f"pcie-pci-bridge,id=pb{i},bus=rp{i}"]
        dev += f",bus=pb{i},addr=0x1"
    elif bus != "root":
        raise SystemExit(f"nic {spec}: bus= takes root|rp|bridge|rp-bridge")
    if netdev == "stream" and "connect" in opts:
        args += ["-netdev", f"stream,id=n{i},server=off,addr.type=unix,addr.path={opts['connect']}"]
    elif netdev == "hub":
        args += ["-netdev", f"hubport,id=n{i},hubid=0"]
    elif netdev == "stream":
        os.makedirs(sockdir, exist_ok=True)
        path = os.path.join(sockdir, f"nic{i}.sock")
        args += ["-netdev", f"stream,id=n{i},server=on,addr.type=unix,addr.path={path}"]
    elif netdev == "dgram":
        lp, rp = int(opts.get("lport", 40000 + 2 * i)), int(opts.get("rport", 40001 + 2 * i))
        args += ["-netdev", f"dgram,id=n{i},local.type=inet,local.host=127.0.0.1,local.port={lp},"
                 f"remote.type=inet,remote.host=127.0.0.1,remote.port={rp}"]
    elif netdev == "user":
        nd = f"user,id=n{i},restrict=on"
        if "tftp" in opts:
            nd += f",tftp={opts['tftp']},bootfile={opts.get('bootfile', '')}"
        if "hostfwd" in opts:
            nd += f",hostfwd=tcp:127.0.0.1:{int(opts['hostfwd'])}-:80"
        args += ["-netdev", nd]
    elif netdev == "tap":
        # An existing tap device (ifname= option, made by the caller; root).
        if "ifname" not in opts:
            raise SystemExit(f"nic {spec}: netdev=tap needs ifname=")
        nd = f"tap,id=n{i},ifname={opts['ifname']},script=no,downscript=no"
        if int(opts.get("queues", 1)) > 1:
            nq = int(opts["queues"])
            nd += f",queues={nq},vhost=off"
            if model == "virtio-net-pci":
                dev += f",mq=on,vectors={int(opts.get('vectors', 2 * nq + 2))}" + \
                    (",rss=on,hash=on" if opts.get("rss") == "1" else "")
        args += ["-netdev", nd]
    elif netdev != "none":
        raise SystemExit(f"nic {spec}: netdev= takes stream|dgram|user|tap|hub|none")
    if netdev != "none":
        dev += f",netdev=n{i}"
    if opts.get("rom") in ("1", "efi"):
        dev += f",romfile={IPXE_ROMS}/{'efi' if opts['rom'] == 'efi' else 'pxe'}-{model}.rom"
    else:
        dev += ",romfile="      # no boot ROM: OVMF would try the NIC's PXE before the disk
    if "mac" in opts:
        dev += f",mac={opts['mac']}"
    if model == "virtio-net-pci" and opts.get("packed") == "1":
        dev += ",packed=on"
    if model == "virtio-net-pci" and opts.get("in_order") == "1":
        dev += ",in_order=on"
    if model == "virtio-net-pci" and opts.get("legacy") == "only":
        dev += ",disable-modern=on"
    elif model == "virtio-net-pci" and opts.get("legacy", "0") != "1":
        dev += ",disable-legacy=on"
    return args + ["-device", dev]


def qemu_command(boot="kernel", machine="q35", mem="128M", smp=1, cpu=None, nics=(), extra=(),
                 append="", qmp=None, interactive=False, workdir=None, sockdir=None,
                 kernel="linerate.elf", com=1, iso=None, esp_files=()):
    """The QEMU argument list for one run (see module doc); extra: more QEMU
    arguments, e.g. other devices; kernel: the image under build/ that boot
    kernel loads (linerate-fault.elf: with the shell's `fault` command);
    com: the COM port (1-4) on stdio, the ones before it unconnected (null),
    e.g. 2 with console=ttyS1; 0: COM1 unconnected and stdio left to a
    chardev in extra (a PCI serial card's); iso: the image boot iso-* takes
    instead of build/linerate.iso (a test's own GRUB menu); esp_files: host
    files copied to the root of boot efi's EFI system partition (the
    loader's initrd=)."""
    if boot not in BOOTS:
        raise SystemExit(f"boot {boot!r}: accepted: {'|'.join(BOOTS)}")
    cmd = ["qemu-system-x86_64", "-accel", "tcg", "-M", machine, "-m", mem, "-smp", str(smp),
           "-display", "none", "-nic", "none", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    if com not in (0, 1, 2, 3, 4):
        raise SystemExit(f"com {com!r}: accepted: 0|1|2|3|4")
    cmd += ["-serial", "null"] * max(com - 1, 1 - com)
    if com:
        cmd += ["-serial", "mon:stdio"] if interactive else ["-serial", "stdio", "-monitor", "none"]
    else:
        cmd += ["-monitor", "none"]
    if cpu:
        cmd += ["-cpu", cpu]
    if qmp:
        cmd += ["-qmp", f"unix:{qmp},server=on,wait=off"]
    if sum(1 for s in nics if nic_spec(s)[0] == "igb" and nic_spec(s)[1].get("bus", "root") == "root") > 1:
        raise SystemExit("more than one igb on the root bus: QEMU puts each igb's SR-IOV VFs 16 slots above it, over "
                         "two slots, where the next igb's collide; give each igb its own root port: igb:bus=rp (q35)")
    for i, spec in enumerate(nics):
        cmd += nic_args(i, spec, machine, sockdir or os.path.join(BUILD, "run"))
    cmd += list(extra)
    if boot == "kernel":
        cmd += ["-kernel", os.path.join(BUILD, kernel)]
        if append:
            cmd += ["-append", append]
    elif boot.startswith("net-"):
        if not nics:
            raise SystemExit(f"--boot {boot} needs a NIC to boot from, e.g. --nic e1000e:netdev=user,"
                             f"tftp=build/netboot,bootfile=boot/grub/i386-pc/core.0,rom=1 (tools/qemurun.py --help)")
        if append:
            raise SystemExit("--append needs boot kernel or efi; netboot takes the command line from the TFTP tree")
        cmd += (["-bios", OVMF] if boot == "net-uefi" else []) + ["-boot", "n"]
    elif boot.startswith("iso"):
        if append:
            raise SystemExit("--append needs boot kernel or efi; on the ISO edit the GRUB entry ('e')")
        if boot == "iso-uefi":
            cmd += ["-bios", OVMF]
        cmd += ["-cdrom", iso or os.path.join(BUILD, "linerate.iso")]
    else:
        esp = os.path.join(workdir, "esp")
        os.makedirs(os.path.join(esp, "EFI", "BOOT"), exist_ok=True)
        efi = os.path.join(BUILD, "BOOTX64.EFI")
        if append:
            # No boot option carries load options on a fresh OVMF: the EFI
            # shell runs startup.nsh, which passes them.
            shutil.copy(efi, os.path.join(esp, "linerate.efi"))
            with open(os.path.join(esp, "startup.nsh"), "w") as f:
                f.write(f"fs0:\\linerate.efi {append}\r\n")
        else:
            shutil.copy(efi, os.path.join(esp, "EFI", "BOOT", "BOOTX64.EFI"))
        for f in esp_files:
            shutil.copy(f, esp)
        cmd += ["-bios", OVMF, "-drive", f"format=raw,file=fat:rw:{esp}"]
    return cmd


def merge_knobs(base, extra):
    """Kernel command line base with the words of extra added, each
    replacing base's word of the same knob (a knob given twice is refused,
    and its default kept)."""
    keys = {w.split("=", 1)[0] for w in extra.split()}
    return " ".join([w for w in base.split() if w.split("=", 1)[0] not in keys] + extra.split())


def die_with_parent():
    """In the child before exec: SIGTERM when the Python that started QEMU
    dies (prctl PR_SET_PDEATHSIG), so a killed test leaves no QEMU behind."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


class Qemu:
    """A running QEMU whose serial console is a pipe (library use). log: a
    binary file that gets the console as it comes, lines ending in "\n" (the
    serial line's "\r\n" became "\r\r\n" on a terminal and ^M^M in logs)."""

    def __init__(self, log=None, **kw):
        self.workdir = tempfile.mkdtemp(prefix="linerate-")
        self.qmp_path = os.path.join(self.workdir, "qmp.sock")
        self.cmd = qemu_command(qmp=self.qmp_path, workdir=self.workdir, sockdir=self.workdir, **kw)
        self.out = b""
        self.pos = 0
        self.log = log
        self.log_cr = b""   # a "\r" that ended the last chunk, written with the next
        self.started = time.monotonic()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        self.qmp = None
        self.qmp_events = []    # QMP events read while waiting for replies, in order

    def nic_sock(self, i):
        """Path of NIC i's -netdev stream server socket."""
        return os.path.join(self.workdir, f"nic{i}.sock")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def _read(self, timeout):
        r, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not r:
            return False
        data = os.read(self.proc.stdout.fileno(), 65536)
        if not data:
            return None
        self.out += data
        if self.log:
            text = self.log_cr + data
            self.log_cr = b"\r" if text.endswith(b"\r") else b""
            self.log.write(text[:len(text) - len(self.log_cr)].replace(b"\r\n", b"\n"))
            self.log.flush()
        return True

    def expect(self, pattern, timeout=30):
        """Wait until pattern (a regex over the console text after the last
        match) appears; return the match. Raises TimeoutError with the tail
        of the console when it does not, or when QEMU exits first."""
        rx = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        end = time.monotonic() + timeout
        while True:
            m = rx.search(self.out, self.pos)
            if m:
                self.pos = m.end()
                return m
            left = end - time.monotonic()
            got = self._read(max(0, min(left, 0.5))) if left > 0 else False
            if got is None or left <= 0:
                why = self.ended() if got is None else f"{timeout} s passed"
                raise TimeoutError(f"{why} before /{pattern}/; console tail:\n"
                                   + self.text()[-3000:])

    def text(self):
        return self.out.decode(errors="replace")

    def shell(self, line, timeout=60):
        """Run one shell command line; return what it printed (the text
        between its echo and the next prompt)."""
        self.send(line + "\r")
        m = self.expect(r"(?s)" + re.escape(line) + r"\r\n(.*?)" + re.escape(PROMPT), timeout)
        return m.group(1).decode(errors="replace")

    @contextmanager
    def pumping(self):
        """Within the block, a thread keeps reading the console (to the log
        given at start), so the guest's output flows while the caller waits
        on something else; expect() is for after the block."""
        stop = threading.Event()

        def pump():
            while not stop.is_set() and self._read(0.2) is not None:
                pass
        t = threading.Thread(target=pump, daemon=True)
        t.start()
        try:
            yield
        finally:
            stop.set()
            t.join()

    def ended(self):
        """How QEMU ended, for an error message: its exit status or the
        signal that killed it (docs/testing.md, "QEMU's own faults")."""
        try:
            rc = self.proc.wait(5)
        except subprocess.TimeoutExpired:
            return "QEMU closed its console but runs on"
        if rc < 0:
            return f"QEMU was killed by {signal.Signals(-rc).name}" + (
                " (QEMU 10.0.2 does so when a -netdev stream client leaves while frames it sent wait in QEMU)"
                if rc == -signal.SIGSEGV else "")
        return f"QEMU exited with status {rc}" + (
            " (-no-reboot: the guest reset, e.g. a triple fault, or powered off)" if rc == 0 else "")

    def send(self, s):
        try:
            self.proc.stdin.write(s.encode() if isinstance(s, str) else s)
            self.proc.stdin.flush()
        except BrokenPipeError:
            raise RuntimeError(f"{self.ended()}; console tail:\n" + self.text()[-3000:]) from None

    def wait(self, timeout=30):
        """Wait for QEMU to exit, collecting the console; return its status."""
        end = time.monotonic() + timeout
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while self._read(0):
            pass
        if self.proc.poll() is None:
            raise TimeoutError(f"QEMU still running after {timeout} s; console tail:\n"
                               + self.text()[-3000:])
        return self.proc.returncode

    def qmp_cmd(self, execute, **arguments):
        """Run one QMP command; return its 'return' value. A QEMU that does
        not answer within 60 s (its main loop blocked) raises socket.timeout
        (TimeoutError) instead of hanging the caller."""
        if not self.qmp:
            for _ in range(50):
                try:
                    self.qmp = socket.socket(socket.AF_UNIX)
                    self.qmp.connect(self.qmp_path)
                    break
                except OSError:
                    time.sleep(0.1)
            self.qmp.settimeout(60)
            self.qmp_file = self.qmp.makefile("rw")
            json.loads(self.qmp_file.readline())
            self._qmp_send({"execute": "qmp_capabilities"})
        return self._qmp_send({"execute": execute, "arguments": arguments})

    def _qmp_send(self, msg):
        self.qmp_file.write(json.dumps(msg) + "\n")
        self.qmp_file.flush()
        while True:
            reply = json.loads(self.qmp_file.readline())
            if "event" in reply:
                self.qmp_events.append(reply)
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {msg['execute']}: {reply['error']}")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.qmp:
            self.qmp.close()
        self.proc.stdout.close()
        try:
            self.proc.stdin.close()
        except BrokenPipeError:     # QEMU died with our input unread: ended() said how
            pass
        shutil.rmtree(self.workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=NIC_HELP,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--boot", default="kernel", choices=BOOTS)
    ap.add_argument("--machine", default="q35", choices=("q35", "pc"), help="default q35")
    ap.add_argument("--mem", default="256M", help="guest RAM, QEMU -m syntax (default 256M)")
    ap.add_argument("--smp", type=int, default=1, help="CPUs (default 1)")
    ap.add_argument("--cpu", help="QEMU CPU model, e.g. max (default: QEMU's qemu64)")
    ap.add_argument("--nic", action="append", default=[], metavar="MODEL[:bus=..,netdev=..]",
                    help="add a NIC: e1000, e1000e, igb or virtio-net-pci; repeatable (options below)")
    ap.add_argument("--append", default="", help="kernel command line (kernel and efi boots)")
    ap.add_argument("--com", type=int, default=1, choices=(1, 2, 3, 4),
                    help="the COM port on this terminal, those before it unconnected (default 1; "
                         "2 with --append console=ttyS1)")
    ap.add_argument("--interactive", action="store_true",
                    help="serial console on this terminal (Ctrl-A X quits, Ctrl-A C monitor)")
    ap.add_argument("--print", action="store_true", help="print the QEMU command and exit")
    a = ap.parse_args()
    for spec in a.nic:
        if spec.split(":", 1)[0] not in MODELS:
            ap.error(f"--nic {spec}: the model is {', '.join(MODELS)}")
    # --print keeps the work directory (the EFI boot's ESP, the sockets'
    # folder): the command it prints uses it.
    workdir = tempfile.mkdtemp(prefix="linerate-")
    try:
        cmd = qemu_command(boot=a.boot, machine=a.machine, mem=a.mem, smp=a.smp, cpu=a.cpu,
                           nics=a.nic, append=a.append, interactive=True, workdir=workdir, com=a.com)
        if a.print:
            print(shlex.join(cmd))
            if any(workdir in arg for arg in cmd):
                workdir = None  # kept: the printed command uses it
            return 0
        print("linerate: " + shlex.join(cmd), file=sys.stderr)
        print("linerate: Ctrl-A X quits QEMU", file=sys.stderr)
        return subprocess.call(cmd)
    finally:
        if workdir:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
