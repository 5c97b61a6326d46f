"""The line protocol and the robot-side state machine shared with the firmware."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.core import InvalidMoveError
from hardware.errors import InvalidRobotURLError
from hardware.firmware import bsproto
from hardware.link import Acked, Done, Hello, Rejected, Status, parse_event
from hardware.programs import parse_motions
from hardware.transport import RobotURL


class FakeDrive(bsproto.Drive):
    """A drive whose moves finish when the test says so (this is the robot's motor, not our code)."""

    def __init__(self) -> None:
        self.moving = False
        self.started: list[tuple[float, float, int]] = []
        self.held = False

    def start(self, left_mm: float, right_mm: float, dwell_ms: int) -> None:
        self.moving = True
        self.started.append((left_mm, right_mm, dwell_ms))

    def busy(self) -> bool:
        return self.moving or self.held

    def hold(self) -> None:
        self.held = True

    def resume(self) -> None:
        self.held = False

    def abort(self) -> None:
        self.moving = False


def make_core(
    store: bsproto.MemoryStore | None = None, queue: int = 4
) -> tuple[bsproto.RobotCore, list[str], FakeDrive]:
    out: list[str] = []
    drive = FakeDrive()

    def emit(data: bytes) -> None:
        body = bsproto.unframe(data.rstrip(b"\n"))
        assert body is not None, data
        out.append(body)

    core = bsproto.RobotCore(emit, drive, store or bsproto.MemoryStore(), 42, queue)
    core.executed = []
    return core, out, drive


def finish_all(core: bsproto.RobotCore, drive: FakeDrive) -> None:
    for _ in range(100):
        drive.moving = False
        core.tick()


def test_crc8_check_value() -> None:
    assert bsproto.crc8(b"123456789") == 0xF4  # CRC-8/SMBUS check value


@given(st.text(alphabet="0123456789 FBLRXOPD,-NESW", min_size=1, max_size=16), st.data())
def test_any_single_byte_error_is_detected(body: str, data: st.DataObject) -> None:
    line = bsproto.frame(body).rstrip(b"\n")
    assert bsproto.unframe(line) == body
    i = data.draw(st.integers(0, len(line) - 1))
    b = data.draw(st.integers(0, 255).filter(lambda v: v != line[i]))
    damaged = line[:i] + bytes((b,)) + line[i + 1 :]
    assert bsproto.unframe(damaged) != body


def test_longest_command_fits_one_ble_write() -> None:
    assert len(bsproto.frame("9999 O -99,-99,W")) == bsproto.MAX_LINE
    assert len(bsproto.frame("9999 XF")) <= bsproto.MAX_LINE
    assert len(bsproto.frame("9999 J -5000")) <= bsproto.MAX_LINE


def test_duplicate_commands_run_once_and_are_reacknowledged() -> None:
    core, out, drive = make_core()
    core.feed(bsproto.frame("N r1"))
    core.feed(bsproto.frame("1 F"))
    core.feed(bsproto.frame("1 F"))
    assert out[-2:] == ["a 1 3", "a 1 3"]  # one queued: 3 of 4 free
    finish_all(core, drive)
    core.feed(bsproto.frame("1 F"))
    assert out[-2:] == ["a 1 4", "d 1 0,1,N"]
    assert [e[0] for e in core.executed] == [1]


def test_gap_is_refused_with_the_expected_sequence() -> None:
    core, out, _ = make_core()
    core.feed(bsproto.frame("N r1") + bsproto.frame("1 F") + bsproto.frame("3 F"))
    assert out[-1] == "e 3 GAP 2"
    assert core.acked == 1


def test_corrupted_line_is_refused() -> None:
    core, out, _ = make_core()
    line = bytearray(bsproto.frame("1 F"))
    line[2] = ord("B")
    core.feed(bytes(line))
    assert out == ["e 0 CRC"]
    assert core.queue == []


def test_queue_never_overruns() -> None:
    core, out, _ = make_core(queue=2)
    core.hold()
    for seq in (1, 2, 3):
        core.feed(bsproto.frame(f"{seq} F"))
    assert out[-1] == "e 3 FULL"


def test_realtime_hold_resume_and_status_bytes() -> None:
    core, out, drive = make_core()
    core.feed(bsproto.frame("1 F"))
    core.tick()
    core.feed(b"!")
    assert core.held and drive.held and out[-1].endswith("hold")
    core.feed(b"~")
    assert not core.held and out[-1].endswith("run")
    core.feed(b"1 ?")  # a status request in the middle of a line is served at once
    assert out[-1].startswith("s 1 0 ")


def test_journal_survives_reset_and_reports_interrupted_move() -> None:
    store = bsproto.MemoryStore()
    core, _, drive = make_core(store)
    core.feed(bsproto.frame("N abc") + bsproto.frame("1 F") + bsproto.frame("2 L"))
    core.tick()
    drive.moving = False
    core.tick()  # 1 done, 2 started
    assert core.done == 1 and core.current is not None
    rebooted, out, _ = make_core(store)
    rebooted.feed(bsproto.frame("H"))
    event = parse_event(out[-1])
    assert isinstance(event, Hello)
    assert (event.state.run, event.state.done, event.state.acked, event.state.interrupted) == ("abc", 1, 1, 2)
    assert str(event.state.pose) == "0,1,N"


def test_begin_run_refused_while_busy() -> None:
    core, out, _ = make_core()
    core.feed(bsproto.frame("1 F") + bsproto.frame("2 F"))
    core.tick()
    core.feed(bsproto.frame("N x"))
    assert out[-1] == "e 0 BUSY"


def test_configuration_is_validated_and_persisted() -> None:
    store = bsproto.MemoryStore()
    core, out, drive = make_core(store)
    core.feed(bsproto.frame("K c 200"))
    assert out[-1] == "k c 200"
    core.feed(bsproto.frame("K c -1"))
    assert out[-1] == "e 0 ARG"
    core.feed(bsproto.frame("1 F"))
    core.tick()
    assert drive.started[-1] == (200.0, 200.0, 0)
    assert make_core(store)[0].config["c"] == 200.0


def test_event_parsing() -> None:
    assert parse_event("a 3 5") == Acked(3, 5)
    assert parse_event("d 3 1,2,E") == Done(3, parse_event("d 3 1,2,E").pose)  # type: ignore[union-attr]
    assert parse_event("e 4 GAP 2") == Rejected(4, "GAP", 2)
    s = parse_event("s 3 2 6 1,2,E run")
    assert isinstance(s, Status) and s.state == "run" and str(s.pose) == "1,2,E"
    assert parse_event("zz") is None


@pytest.mark.parametrize(
    "url",
    ["serial:///dev/ttyUSB0?baud=115200", "serial://COM3", "ble://AA:BB:CC:DD:EE:FF", "ble://name=MyBot",
     "sim://", "sim://?time=0.01", "spy://sim://", "ble://name=Root?dialect=root"],
)
def test_good_urls(url: str) -> None:
    u = RobotURL.parse(url)
    assert str(u) == url
    assert eval(repr(u), {"RobotURL": RobotURL}) == u


@pytest.mark.parametrize(
    ("url", "needle"),
    [("usb0", "expected one of"), ("tcp://host", "unknown robot URL scheme"), ("serial://", "names no port"),
     ("serial:///dev/x?baud=fast", "invalid baud"), ("ble://12:34", "expected ble://AA:BB"),
     ("sim://?dialect=lego", "unknown dialect"), ("sim://?time", "expected key=value")],
)
def test_bad_urls_say_the_expected_form(url: str, needle: str) -> None:
    with pytest.raises(InvalidRobotURLError) as err:
        RobotURL.parse(url)
    assert needle in str(err.value)
    assert repr(url) in str(err.value)


def test_parse_motions_checks_the_chain() -> None:
    ms = parse_motions("F>0,1,N L>0,1,W F>-1,1,W")
    assert [str(m) for m in ms] == ["F>0,1,N", "L>0,1,W", "F>-1,1,W"]
    with pytest.raises(InvalidMoveError, match="cannot follow"):
        parse_motions("F>0,1,N F>0,3,N")


def test_firmware_sources_stay_in_the_micropython_subset() -> None:
    """bsproto.py runs unchanged on MicroPython: no f-strings, no typing/dataclass/enum imports."""
    import ast
    import py_compile
    from pathlib import Path

    fw = Path(bsproto.__file__).parent
    for name in ("bsproto.py", "main.py"):
        tree = ast.parse((fw / name).read_text())
        assert not [n for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)], f"f-string in {name}"
        imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
        allowed = {"bsproto", "machine", "bluetooth", "json", "micropython", "os", "select", "sys", "time"}
        assert imported <= allowed, imported
        py_compile.compile(str(fw / name), doraise=True)


def test_protocol_doc_example_lines_carry_valid_checksums() -> None:
    from pathlib import Path

    doc = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    example = doc[doc.index("## Example") :]
    lines = []
    for row in example.splitlines():
        for part in row.split("<"):
            text = part.strip().lstrip(">").strip().split("   ")[0]
            if "*" in text and not text.startswith("#"):
                lines.append(text)
    assert len(lines) >= 10
    for text in lines:
        assert bsproto.unframe(text.encode()) is not None, text


@pytest.mark.parametrize(
    ("heading", "op", "arg", "pose", "segments"),
    [
        ("N", "G", "3", "0,3,N", 1),
        ("N", "S", "N", "0,1,N", 1),
        ("N", "S", "S", "0,-1,N", 1),  # straight back
        ("N", "S", "E", "1,0,N", 3),  # turn right, drive, turn left
        ("E", "S", "N", "0,1,E", 3),  # turn left, drive, turn right
        ("W", "XS", "N", "0,0,W", 4),  # turn, bump there and back, turn back
    ],
)
def test_jump_and_slide_ops(heading: str, op: str, arg: str, pose: str, segments: int) -> None:
    core, out, drive = make_core()
    core.feed(bsproto.frame(f"1 O 0,0,{heading}"))
    finish_all(core, drive)
    core.feed(bsproto.frame(f"2 {op} {arg}"))
    finish_all(core, drive)
    assert out[-1] == f"d 2 {pose}"
    assert len(drive.started) == 1 + segments  # the set-pose dwell + the move's segments
    core.feed(bsproto.frame("3 G 100"))
    assert out[-1] == "e 3 ARG"


def test_newer_motion_kinds_map_to_protocol_ops() -> None:
    from engine.motion import Motion, MotionKind
    from hardware.link import Command

    if not hasattr(MotionKind, "SLIDE"):
        pytest.skip("engine.motion has no JUMP/SLIDE yet (they come with the Quirky engine)")
    assert Command.from_motion(Motion.parse("S:E>1,0,N")).op == "S"
    assert (Command.from_motion(Motion.parse("J:2>0,2,N")).op, Command.from_motion(Motion.parse("J:2>0,2,N")).arg) \
        == ("G", "2")
    assert Command.from_motion(Motion.parse("XS:W>0,0,N")).arg == "W"


def test_a_checksum_digit_changed_in_case_or_to_a_sign_is_detected() -> None:
    # found by hypothesis in a helper's run: int(..., 16) accepted "8c" for "8C"
    line = bsproto.frame("4").rstrip(b"\n")
    assert line == b"4*8C" and bsproto.unframe(line) == "4"
    for bad in (b"4*8c", b"4* C", b"4*+C", b"4*8 "):
        assert bsproto.unframe(bad) is None
