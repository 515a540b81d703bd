"""A minimal Chrome DevTools Protocol client over --remote-debugging-pipe (fds 3 and 4, messages
of JSON ending in NUL), and a PNG reader for screenshots. Standard library only."""
import base64
import json
import os
import shutil
import struct
import subprocess
import tempfile
import time
import zlib


class Browser:
    def __init__(self, chromium=os.environ.get('TQ_CHROMIUM', '/usr/lib/chromium/chromium' if os.path.exists('/usr/lib/chromium/chromium') else 'chromium'), width=1300, height=900):
        to_child_r, self._w = os.pipe()   # we write commands, the browser reads fd 3
        self._r, from_child_w = os.pipe()  # the browser writes fd 4, we read
        self.events = []
        self._buf = b''
        self._id = 0
        self.width, self.height = width, height
        self._profile = tempfile.mkdtemp(prefix='tq-chrome-profile-')  # removed by close()
        args = [chromium, '--headless', '--no-sandbox', '--disable-gpu', '--remote-debugging-pipe',
                '--no-first-run', '--no-default-browser-check', '--disable-extensions',
                '--disable-background-networking', '--disable-component-update', '--disable-sync',
                '--user-data-dir=' + self._profile,
                'about:blank']
        # The shell puts the pipe ends on fds 3 and 4, where Chromium looks for them.
        # (Through fds 10 and 11 first: either end may already be 3 or 4.)
        script = 'exec 10<&%d 11>&%d; exec 3<&10 4>&11 10<&- 11>&-; exec "$@"' % (to_child_r, from_child_w)
        self.proc = subprocess.Popen(
            ['bash', '-c', script, 'bash'] + args, pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(os.environ.get('TQ_CHROME_LOG', os.devnull), 'w'))
        os.close(to_child_r)
        os.close(from_child_w)
        self.session = None

    def _send(self, method, params=None, session=True):
        self._id += 1
        msg = {'id': self._id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self._w, json.dumps(msg).encode() + b'\0')
        return self._id

    def _read_message(self, timeout):
        deadline = time.time() + timeout
        while b'\0' not in self._buf:
            if time.time() > deadline:
                raise TimeoutError('no message from the browser')
            import select
            r, _, _ = select.select([self._r], [], [], max(0.0, deadline - time.time()))
            if r:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError('the browser closed the pipe')
                self._buf += chunk
        msg, self._buf = self._buf.split(b'\0', 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True, timeout=60):
        mid = self._send(method, params, session)
        while True:
            m = self._read_message(timeout)
            if m.get('id') == mid:
                if 'error' in m:
                    raise RuntimeError('%s: %s' % (method, m['error']))
                return m.get('result', {})
            self.events.append(m)

    def wait_event(self, method, timeout=60):
        for i, m in enumerate(self.events):
            if m.get('method') == method:
                return self.events.pop(i)
        deadline = time.time() + timeout
        while True:
            m = self._read_message(max(0.1, deadline - time.time()))
            if m.get('method') == method:
                return m
            self.events.append(m)

    def open(self, url):
        target = self.call('Target.createTarget', {'url': 'about:blank'}, session=False)['targetId']
        self.session = self.call('Target.attachToTarget', {'targetId': target, 'flatten': True}, session=False)['sessionId']
        for domain in ('Page', 'Runtime', 'Log', 'Network'):
            self.call(domain + '.enable')
        self.call('Emulation.setDeviceMetricsOverride',
                  {'width': self.width, 'height': self.height, 'deviceScaleFactor': 1, 'mobile': False})
        self.call('Page.navigate', {'url': url})
        self.wait_event('Page.loadEventFired')

    def eval(self, expression):
        r = self.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True})
        if 'exceptionDetails' in r:
            raise RuntimeError('evaluate failed: %s' % r['exceptionDetails'])
        return r['result'].get('value')

    def screenshot(self, clip):
        r = self.call('Page.captureScreenshot', {'format': 'png', 'captureBeyondViewport': True,
                                                 'clip': dict(clip, scale=1)})
        return base64.b64decode(r['data'])

    def drain(self):
        """Events received so far (console messages, exceptions, network requests)."""
        try:
            while True:
                self.events.append(self._read_message(0.3))
        except TimeoutError:
            pass
        return self.events

    def close(self):
        try:
            self.call('Browser.close', session=False, timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self._profile, ignore_errors=True)


def png_pixels(data):
    """(width, height, rows of (r, g, b) tuples) of an 8-bit, non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, width = 8, b'', None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, color, _, _, interlace = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and color in (2, 6) and interlace == 0, 'unsupported PNG'
            bpp = 3 if color == 2 else 4
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return width, height, rows


def ink(data):
    """Share of pixels that are not background (near white), and the number of distinct colours."""
    w, h, rows = png_pixels(data)
    inked, colors = 0, set()
    for row in rows[::2]:
        for px in row[::2]:
            colors.add(px)
            if min(px) < 235:
                inked += 1
    return inked / max(1, ((w + 1) // 2) * ((h + 1) // 2)), len(colors)
