# Boardside robot protocol: the robot-side state machine.
#
# This one file is shared, unchanged, by the MicroPython reference firmware
# (hardware/firmware/main.py copies it to the board) and by the Python simulator
# behind ``sim://`` and the tests (hardware/sim.py imports it).  It therefore uses only
# the language subset MicroPython supports: no f-strings, no dataclasses, no typing
# imports at run time (annotations are ignored by MicroPython).
#
# The protocol is specified in docs/protocol.md.  In short:
#
#   host -> robot   lines  "<seq> <op>[ <arg>]*<CC>\n"   (<= 20 bytes, CC = CRC-8 hex)
#                   lines  "H*CC" hello, "N <run>*CC" begin run, "X*CC" cancel,
#                          "K <key> <value>*CC" configure
#                   bytes  "!" hold (e-stop), "~" resume, "?" status  (real-time, never queued)
#   robot -> host   "a <seq> <free>*CC"   ack: every command <= seq is queued (cumulative)
#                   "d <seq> <x>,<y>,<H>*CC"   done: every command <= seq finished
#                   "e <seq> <CODE>[ <n>]*CC"   error
#                   "h <epoch> <run> <acked> <done> <free>/<size> <pose> <state>[ i<seq>]*CC"
#                   (after an interrupted move, sequenced commands get "e <seq> INT <n>" until "I")
#                   "s <acked> <done> <free> <pose> <state>*CC"   status (heartbeat)
#                   "# ..." comments (banner), no checksum

MAX_LINE = 20
MAX_SEQ = 9999
HEADINGS = "NESW"

# ops accepted in sequenced commands
OPS = ("F", "B", "L", "R", "XF", "XB", "P", "D", "O", "J", "T", "W", "G", "S", "XS")

RT_HOLD = 0x21  # '!'
RT_RESUME = 0x7E  # '~'
RT_STATUS = 0x3F  # '?'


def crc8(data: bytes) -> int:
    """CRC-8, polynomial 0x07, init 0, no reflection (the same CRC the iRobot Root uses)."""
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            if crc & 0x80:
                crc = ((crc << 1) ^ 0x07) & 0xFF
            else:
                crc = (crc << 1) & 0xFF
    return crc


def frame(body: str) -> bytes:
    """``body`` -> ``b"<body>*CC\\n"``."""
    raw = body.encode()
    return raw + b"*" + ("%02X" % crc8(raw)).encode() + b"\n"


def unframe(line: bytes) -> str | None:
    """A received line without its newline -> its body, or None if the checksum is wrong."""
    star = line.rfind(b"*")
    if star < 0 or len(line) - star != 3:
        return None
    body = line[:star]
    digits = line[star + 1 :]
    # exactly two upper-case hex digits, as frame() writes them: int(..., 16) alone also takes
    # "8c", " 8" or "+8", so a damaged byte there would go unnoticed
    if any(d not in b"0123456789ABCDEF" for d in digits):
        return None
    want = int(digits.decode(), 16)
    if crc8(body) != want:
        return None
    try:
        return body.decode()
    except UnicodeError:
        return None


def pose_str(x: int, y: int, h: int) -> str:
    return "%d,%d,%s" % (x, y, HEADINGS[h])


def parse_pose(text: str) -> tuple[int, int, int] | None:
    parts = text.split(",")
    if len(parts) != 3 or len(parts[2]) != 1 or parts[2] not in HEADINGS:
        return None
    try:
        return (int(parts[0]), int(parts[1]), HEADINGS.index(parts[2]))
    except ValueError:
        return None


class MemoryStore:
    """Non-volatile storage stand-in: survives a simulated reset (not a real power loss)."""

    def __init__(self) -> None:
        self.data: dict[str, object] = {}

    def load(self) -> dict[str, object]:
        return dict(self.data)

    def save(self, data: dict[str, object]) -> None:
        self.data = dict(data)


class Drive:
    """Interface of the motor driver the core commands (sim: hardware/sim.py, board: main.py)."""

    def start(self, left_mm: float, right_mm: float, dwell_ms: int) -> None:
        raise NotImplementedError

    def busy(self) -> bool:
        raise NotImplementedError

    def hold(self) -> None:
        raise NotImplementedError

    def resume(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError


DEFAULT_CONFIG = {"c": 150.0, "w": 90.0, "s": 10.0, "t": 1.0, "v": 100.0}
# c: cell length mm, w: wheel base mm, s: steps per mm, t: turn trim factor, v: speed mm/s


class RobotCore:
    """The robot side of the protocol: queue, de-duplication, journal, hold/resume.

    ``feed(data)`` takes received bytes, ``tick()`` advances execution, ``emit`` (a
    callable taking bytes) sends replies.  ``store`` keeps the journal (run id, last
    completed sequence, pose, the move in progress) across resets.
    """

    def __init__(self, emit, drive, store, epoch: int, queue_size: int = 8) -> None:  # type: ignore[no-untyped-def]
        self.emit = emit
        self.drive = drive
        self.store = store
        self.epoch = epoch
        self.queue_size = queue_size
        self.buf = b""
        self.queue: list[tuple[int, str, str]] = []
        self.current: tuple[int, str, str] | None = None
        self.segments: list[tuple[float, float, int]] = []
        self.held = False
        # moves started, in order: the simulator records them for the tests (None on a board: no RAM growth)
        self.executed: list[tuple[int, str, str]] | None = None
        j = store.load()
        self.run = str(j.get("run", "0"))
        self.done = int(j.get("done", 0))  # type: ignore[call-overload]
        p = parse_pose(str(j.get("pose", "0,0,N")))
        self.pose = p if p is not None else (0, 0, 0)
        self.config = dict(DEFAULT_CONFIG)
        cfg = j.get("config")
        if isinstance(cfg, dict):
            for k in cfg:
                self.config[k] = float(cfg[k])
        moving = int(j.get("moving", 0))  # type: ignore[call-overload]
        # a move that was started but never completed before the reset: reported in hello
        self.interrupted = moving if moving > self.done else 0
        self.acked = self.done

    # ---------------------------------------------------------------- journal
    def _journal(self, moving: int) -> None:
        self.store.save(
            {
                "run": self.run,
                "done": self.done,
                "pose": pose_str(self.pose[0], self.pose[1], self.pose[2]),
                "moving": moving,
                "config": self.config,
            }
        )

    # ---------------------------------------------------------------- replies
    def send(self, body: str) -> None:
        self.emit(frame(body))

    def state_name(self) -> str:
        if self.held:
            return "hold"
        if self.current is not None or self.queue:
            return "run"
        return "idle"

    def free(self) -> int:
        return self.queue_size - len(self.queue)

    def send_status(self) -> None:
        self.send(
            "s %d %d %d %s %s"
            % (self.acked, self.done, self.free(), pose_str(self.pose[0], self.pose[1], self.pose[2]), self.state_name())
        )

    def send_hello(self) -> None:
        body = "h %d %s %d %d %d/%d %s %s" % (
            self.epoch,
            self.run,
            self.acked,
            self.done,
            self.free(),
            self.queue_size,
            pose_str(self.pose[0], self.pose[1], self.pose[2]),
            self.state_name(),
        )
        if self.interrupted:
            body += " i%d" % self.interrupted
        if self.current is not None:
            body += " c%d" % self.current[0]
        self.send(body)

    # ---------------------------------------------------------------- input
    def feed(self, data: bytes) -> None:
        for b in data:
            if b == RT_HOLD:
                self.hold()
                self.send_status()
            elif b == RT_RESUME:
                self.resume()
                self.send_status()
            elif b == RT_STATUS:
                self.send_status()
            elif b == 0x0A:
                line = self.buf
                self.buf = b""
                if line.endswith(b"\r"):
                    line = line[:-1]
                if line:
                    self.handle_line(line)
            elif b == 0x0D:
                self.buf += b"\r"
            else:
                self.buf += bytes((b,))
                if len(self.buf) > 64:  # garbage: no valid line is this long
                    self.buf = b""

    def handle_line(self, line: bytes) -> None:
        body = unframe(line)
        if body is None:
            self.send("e 0 CRC")
            return
        parts = body.split(" ")
        head = parts[0]
        if head == "H":
            self.send_hello()
            return
        if head == "N":
            self.begin_run(parts[1] if len(parts) > 1 else "")
            return
        if head == "X":
            self.cancel()
            self.send_status()
            return
        if head == "I":
            # the host has dealt with the interrupted move (the robot was put back or the
            # move will be replaced): accept sequenced commands again
            self.interrupted = 0
            self._journal(0)
            self.send_hello()
            return
        if head == "K":
            self.configure(parts)
            return
        try:
            seq = int(head)
        except ValueError:
            self.send("e 0 BAD")
            return
        if len(parts) < 2 or parts[1] not in OPS or seq < 1 or seq > MAX_SEQ:
            self.send("e %d BAD" % seq)
            return
        op = parts[1]
        arg = parts[2] if len(parts) > 2 else ""
        if seq <= self.acked:
            # duplicate (a resend after a lost ack, or a duplicated line): never run twice
            self.send("a %d %d" % (self.acked, self.free()))
            if seq <= self.done:
                self.send("d %d %s" % (self.done, pose_str(self.pose[0], self.pose[1], self.pose[2])))
            return
        if seq != self.acked + 1:
            self.send("e %d GAP %d" % (seq, self.acked + 1))
            return
        if self.interrupted:
            # a move was cut short: nothing runs until the host says how to go on ("I")
            self.send("e %d INT %d" % (seq, self.interrupted))
            return
        if not self.valid_arg(op, arg):
            self.send("e %d ARG" % seq)
            return
        if len(self.queue) >= self.queue_size:
            self.send("e %d FULL" % seq)
            return
        self.queue.append((seq, op, arg))
        self.acked = seq
        self.send("a %d %d" % (seq, self.free()))

    def valid_arg(self, op: str, arg: str) -> bool:
        if op == "O":
            return parse_pose(arg) is not None
        if op == "G":
            try:
                return 1 <= int(arg) <= 99
            except ValueError:
                return False
        if op in ("S", "XS"):
            return len(arg) == 1 and arg in HEADINGS
        if op in ("J", "T", "W"):
            try:
                v = int(arg)
            except ValueError:
                return False
            return -5000 <= v <= 5000
        return arg == ""

    def begin_run(self, run: str) -> None:
        if not run or len(run) > 8:
            self.send("e 0 BAD")
            return
        if self.current is not None or self.queue or self.held:
            self.send("e 0 BUSY")
            return
        self.run = run
        self.acked = 0
        self.done = 0
        self.interrupted = 0
        self._journal(0)
        self.send_hello()

    def configure(self, parts: list[str]) -> None:
        if len(parts) == 2 and parts[1] in self.config:  # query
            self.send("k %s %s" % (parts[1], repr(self.config[parts[1]])))
            return
        if len(parts) != 3 or parts[1] not in self.config:
            self.send("e 0 BAD")
            return
        try:
            v = float(parts[2])
        except ValueError:
            self.send("e 0 ARG")
            return
        if v <= 0:
            self.send("e 0 ARG")
            return
        self.config[parts[1]] = v
        self._journal(0)
        self.send("k %s %s" % (parts[1], parts[2]))

    def hold(self) -> None:
        if not self.held:
            self.held = True
            self.drive.hold()

    def resume(self) -> None:
        if self.held:
            self.held = False
            self.drive.resume()

    def cancel(self) -> None:
        """Drop queued commands and any held remainder; the robot stops where it is."""
        self.queue = []
        if self.current is not None:
            self.drive.abort()
            self.interrupted = self.current[0]
            self.current = None
            self.segments = []
        self.acked = self.done
        self.held = False
        self._journal(0)

    # ---------------------------------------------------------------- motion
    def plan(self, op: str, arg: str) -> list[tuple[float, float, int]]:
        """One command -> wheel segments (left mm, right mm, dwell ms)."""
        c = self.config["c"]
        quarter = 3.14159265 * self.config["w"] / 4.0 * self.config["t"]
        if op == "F":
            return [(c, c, 0)]
        if op == "B":
            return [(-c, -c, 0)]
        if op == "L":
            return [(-quarter, quarter, 0)]
        if op == "R":
            return [(quarter, -quarter, 0)]
        if op == "XF":
            return [(c / 3, c / 3, 0), (-c / 3, -c / 3, 0)]
        if op == "XB":
            return [(-c / 3, -c / 3, 0), (c / 3, c / 3, 0)]
        if op == "G":
            n = int(arg) * c
            return [(n, n, 0)]
        if op in ("S", "XS"):
            # a two-wheeled robot cannot move sideways: face the direction, move, face back
            turn = (HEADINGS.index(arg) - self.pose[2]) % 4
            step = [(c, c, 0)] if op == "S" else [(c / 3, c / 3, 0), (-c / 3, -c / 3, 0)]
            if turn == 0:
                return step
            if turn == 2:
                return [(-s[0], -s[1], s[2]) for s in step]
            if turn == 1:
                return [(quarter, -quarter, 0)] + step + [(-quarter, quarter, 0)]
            return [(-quarter, quarter, 0)] + step + [(quarter, -quarter, 0)]
        if op in ("P", "D", "O"):
            return [(0.0, 0.0, 150)]
        if op == "J":
            v = float(int(arg))
            return [(v, v, 0)]
        if op == "T":
            a = 3.14159265 * self.config["w"] * int(arg) / 360.0 * self.config["t"]
            return [(a, -a, 0)]
        if op == "W":
            return [(0.0, 0.0, int(arg))]
        return []

    def apply_pose(self, op: str, arg: str) -> None:
        x, y, h = self.pose
        dx = (0, 1, 0, -1)[h]
        dy = (1, 0, -1, 0)[h]
        if op == "F":
            self.pose = (x + dx, y + dy, h)
        elif op == "B":
            self.pose = (x - dx, y - dy, h)
        elif op == "L":
            self.pose = (x, y, (h + 3) % 4)
        elif op == "R":
            self.pose = (x, y, (h + 1) % 4)
        elif op == "G":
            n = int(arg)
            self.pose = (x + dx * n, y + dy * n, h)
        elif op == "S":
            t = HEADINGS.index(arg)
            self.pose = (x + (0, 1, 0, -1)[t], y + (1, 0, -1, 0)[t], h)
        elif op == "O":
            p = parse_pose(arg)
            if p is not None:
                self.pose = p

    def tick(self) -> None:
        if self.held:
            return
        if self.current is not None:
            if self.drive.busy():
                return
            if self.segments:
                seg = self.segments.pop(0)
                self.drive.start(seg[0], seg[1], seg[2])
                return
            seq, op, arg = self.current
            self.current = None
            self.apply_pose(op, arg)
            self.done = seq
            self._journal(0)
            self.send("d %d %s" % (seq, pose_str(self.pose[0], self.pose[1], self.pose[2])))
        if self.current is None and self.queue:
            cmd = self.queue.pop(0)
            self.current = cmd
            if self.executed is not None:
                self.executed.append(cmd)
            self._journal(cmd[0])
            self.segments = self.plan(cmd[1], cmd[2])
            if self.segments:
                seg = self.segments.pop(0)
                self.drive.start(seg[0], seg[1], seg[2])
