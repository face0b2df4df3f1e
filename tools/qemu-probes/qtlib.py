import subprocess, socket, os, tempfile, time, json, struct, select


def halt_bios():
    """A 64 KiB BIOS whose reset vector (0xfff0) is cli; hlt; jmp back."""
    path = os.path.join(tempfile.gettempdir(), 'linerate-probe-halt.bin')
    with open(path, 'wb') as f:
        f.write(bytes(0xfff0) + bytes.fromhex('faf4ebfd') + bytes(12))
    return path

class QT:
    def __init__(self, dev, extra=(), netdev=None, machine='pc', devopts=''):
        self.qmp_path = '/tmp/qmp.%d.sock' % os.getpid()
        try: os.unlink(self.qmp_path)
        except FileNotFoundError: pass
        args = ['qemu-system-x86_64', '-machine', machine, '-accel', 'tcg', '-bios', halt_bios(), '-qtest', 'stdio',
                '-display', 'none', '-nodefaults', '-m', '64M',
                '-qmp', 'unix:%s,server=on,wait=off' % self.qmp_path]
        if netdev:
            args += ['-netdev', netdev]
            args += ['-device', '%s,netdev=n0,addr=04.0,mac=52:54:00:12:34:56%s' % (dev, devopts)]
        else:
            args += ['-device', '%s,addr=04.0,mac=52:54:00:12:34:56%s' % (dev, devopts)]
        args += list(extra)
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open('/tmp/qemu-probe.log','ab'), bufsize=0)
        self.buf = b''
        self.irqs = []
        for _ in range(100):
            if os.path.exists(self.qmp_path): break
            time.sleep(0.05)
        for _ in range(100):
            try:
                self.qmp = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.qmp.connect(self.qmp_path); break
            except (ConnectionRefusedError, FileNotFoundError):
                time.sleep(0.05)
        self.qf = self.qmp.makefile('rw')
        self.qf.readline()
        self.qmp_cmd('qmp_capabilities')
    def qmp_cmd(self, cmd, **a):
        self.qf.write(json.dumps({'execute': cmd, 'arguments': a}) + '\n'); self.qf.flush()
        while True:
            r = json.loads(self.qf.readline())
            if 'return' in r or 'error' in r: return r
    def _line(self):
        while b'\n' not in self.buf:
            d = self.p.stdout.read1(65536) if hasattr(self.p.stdout,'read1') else os.read(self.p.stdout.fileno(), 65536)
            if not d: raise EOFError(open('/tmp/qemu-probe.log').read()[-2000:])
            self.buf += d
        l, self.buf = self.buf.split(b'\n', 1)
        return l.decode()
    def cmd(self, s):
        self.p.stdin.write((s + '\n').encode())
        while True:
            l = self._line()
            if l.startswith('IRQ'):
                self.irqs.append(l); continue
            if l.startswith('OK') or l.startswith('FAIL') or l.startswith('ERR'):
                return l
    def val(self, s):
        r = self.cmd(s).split()
        return int(r[1], 16) if len(r) > 1 else None
    # PCI config (pc machine, bus0 dev4)
    def cfg_addr(self, reg, dev=4): return 0x80000000 | (dev << 11) | (reg & 0xfc)
    def cfgr32(self, reg):
        self.cmd('outl 0xcf8 0x%x' % self.cfg_addr(reg)); return self.val('inl 0xcfc')
    def cfgw32(self, reg, v):
        self.cmd('outl 0xcf8 0x%x' % self.cfg_addr(reg)); self.cmd('outl 0xcfc 0x%x' % v)
    def cfgr16(self, reg):
        v = self.cfgr32(reg & ~3); return (v >> (8 * (reg & 2))) & 0xffff
    def cfgw16(self, reg, v):
        self.cmd('outl 0xcf8 0x%x' % self.cfg_addr(reg)); self.cmd('outw 0x%x 0x%x' % (0xcfc + (reg & 2), v))
    def barsize(self, i):
        reg = 0x10 + 4 * i
        old = self.cfgr32(reg); self.cfgw32(reg, 0xffffffff); s = self.cfgr32(reg); self.cfgw32(reg, old)
        return old, s
    def caps(self):
        out = []; p = self.cfgr32(0x34) & 0xff
        while p:
            v = self.cfgr32(p); out.append((p, v & 0xff, v)); p = (v >> 8) & 0xff
        return out
    def rd(self, off): return self.val('readl 0x%x' % (self.mmio + off))
    def wr(self, off, v): return self.cmd('writel 0x%x 0x%x' % (self.mmio + off, v & 0xffffffff))
    def memw(self, addr, data): return self.cmd('write 0x%x %d 0x%s' % (addr, len(data), data.hex()))
    def memr(self, addr, n):
        r = self.cmd('read 0x%x %d' % (addr, n)).split()[1]; return bytes.fromhex(r[2:])
    def step(self, ns): return self.cmd('clock_step %d' % ns)
    def setup(self, bars):
        # bars: dict index->addr
        for i, a in bars.items(): self.cfgw32(0x10 + 4 * i, a)
        self.cfgw16(0x04, 0x0007)
        self.mmio = bars[0]
    def close(self):
        try: self.p.stdin.close()
        except Exception: pass
        try: self.p.wait(timeout=5)
        except Exception: self.p.kill()
