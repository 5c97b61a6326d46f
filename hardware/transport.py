"""Byte transports to a robot, chosen by URL, behind one async interface.

``serial:///dev/ttyUSB0?baud=115200``  pyserial (any port name pyserial accepts, e.g. ``serial://COM3``)
``ble://AA:BB:CC:DD:EE:FF``            bleak, Nordic UART Service by default
``ble://name=MyBot``                   bleak, first device advertising that name
``sim://``                             an in-process *simulated* robot (hardware.sim) with realistic timing
``spy://<url>``                        any of the above, logging every byte both ways

Common query options: ``dialect=boardside`` (default, docs/protocol.md) or ``dialect=root``
(iRobot Root BLE protocol).  BLE: ``service=``, ``rx=``, ``tx=`` UUIDs, ``timeout=`` seconds.
Sim: ``time=`` time factor (0.01 runs 100x faster), ``queue=`` queue depth; the simulated body's
systematic error ``slip=`` (fraction of distance lost), ``drift=`` (degrees over-turned per quarter
turn), ``veer=`` (degrees of heading creep per 100 mm) -- docs/robot_tracking.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hardware.errors import InvalidRobotURLError, LinkLostError, RobotUnreachableError

NUS_SERVICE = "6e400001-b5a3-f393-e0a9-e50e24dcca9e"
NUS_RX = "6e400002-b5a3-f393-e0a9-e50e24dcca9e"  # host writes here
NUS_TX = "6e400003-b5a3-f393-e0a9-e50e24dcca9e"  # robot notifies here

URL_FORMS = (
    "serial:///dev/ttyUSB0?baud=115200, ble://AA:BB:CC:DD:EE:FF, ble://name=MyBot, sim://, spy://<url>"
)
DIALECTS = ("boardside", "root")

log = logging.getLogger("boardside.spy")


@dataclass(frozen=True)
class RobotURL:
    """A parsed robot URL; ``str`` gives it back."""

    scheme: str
    target: str
    options: dict[str, str] = field(default_factory=dict)
    inner: RobotURL | None = None
    text: str = ""

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"RobotURL.parse({str(self)!r})"

    @property
    def dialect(self) -> str:
        if self.inner is not None:
            return self.inner.dialect
        return self.options.get("dialect", "boardside")

    @classmethod
    def parse(cls, text: str) -> RobotURL:
        if not isinstance(text, str) or "://" not in text:
            raise InvalidRobotURLError(f"invalid robot URL {text!r} (expected one of: {URL_FORMS})")
        scheme, rest = text.split("://", 1)
        scheme = scheme.lower()
        if scheme == "spy":
            return cls("spy", "", {}, cls.parse(rest), text)
        target, _, query = rest.partition("?")
        options: dict[str, str] = {}
        if query:
            for item in query.split("&"):
                key, eq, value = item.partition("=")
                if not eq or not key:
                    raise InvalidRobotURLError(
                        f"invalid option {item!r} in robot URL {text!r} (expected key=value)"
                    )
                options[key.lower()] = value
        dialect = options.get("dialect", "boardside")
        if dialect not in DIALECTS:
            raise InvalidRobotURLError(
                f"unknown dialect {dialect!r} in robot URL {text!r} (expected one of {', '.join(DIALECTS)})"
            )
        if scheme == "serial":
            if not target:
                raise InvalidRobotURLError(
                    f"serial URL {text!r} names no port (expected serial:///dev/ttyUSB0?baud=115200)"
                )
            baud = options.get("baud", "115200")
            if not baud.isdigit() or int(baud) <= 0:
                raise InvalidRobotURLError(f"invalid baud rate {baud!r} in robot URL {text!r}")
            return cls("serial", target, options, None, text)
        if scheme == "ble":
            if target.startswith("name="):
                if not target[5:]:
                    raise InvalidRobotURLError(f"BLE URL {text!r} has an empty name (expected ble://name=MyBot)")
            elif not _is_ble_address(target):
                raise InvalidRobotURLError(
                    f"invalid BLE URL {text!r} (expected ble://AA:BB:CC:DD:EE:FF or ble://name=MyBot)"
                )
            return cls("ble", target, options, None, text)
        if scheme == "sim":
            for key in ("time", "queue"):
                if key in options:
                    try:
                        ok = float(options[key]) > 0
                    except ValueError:
                        ok = False
                    if not ok:
                        raise InvalidRobotURLError(f"invalid {key}={options[key]!r} in robot URL {text!r}")
            for key, limit in (("slip", 0.5), ("drift", 45.0), ("veer", 45.0)):
                if key in options:
                    try:
                        ok = math.isfinite(float(options[key])) and abs(float(options[key])) <= limit
                    except ValueError:
                        ok = False
                    if not ok:
                        raise InvalidRobotURLError(
                            f"invalid {key}={options[key]!r} in robot URL {text!r} "
                            f"(expected a number from {-limit:g} to {limit:g})"
                        )
            return cls("sim", target, options, None, text)
        raise InvalidRobotURLError(f"unknown robot URL scheme {scheme!r} in {text!r} (expected one of: {URL_FORMS})")


def _is_ble_address(text: str) -> bool:
    parts = text.split(":")
    if len(parts) == 6 and all(len(p) == 2 for p in parts):
        try:
            [int(p, 16) for p in parts]
        except ValueError:
            return False
        return True
    # macOS exposes CoreBluetooth UUIDs instead of addresses
    return len(text) == 36 and text.count("-") == 4


class Transport(ABC):
    """One byte stream to a robot.  ``read`` raises :class:`LinkLostError` when the link drops."""

    _max_write: int = 4096

    @property
    def max_write(self) -> int:
        """The largest single write the link carries in one packet (BLE: MTU - 3)."""
        return self._max_write

    def __init__(self, url: RobotURL) -> None:
        self.url = url

    @abstractmethod
    async def open(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def write(self, data: bytes) -> None: ...

    @abstractmethod
    async def read(self) -> bytes:
        """The next chunk of received bytes (waits for at least one byte)."""

    async def __aenter__(self) -> Transport:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


class QueueReader:
    """Received chunks handed from callbacks/threads to ``read`` (with a lost-link marker)."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.lost = False

    def put(self, data: bytes) -> None:
        self.queue.put_nowait(data)

    def drop(self) -> None:
        self.lost = True
        self.queue.put_nowait(None)

    async def get(self, what: str) -> bytes:
        if self.lost and self.queue.empty():
            raise LinkLostError(f"link to {what} lost")
        data = await self.queue.get()
        if data is None:
            raise LinkLostError(f"link to {what} lost")
        return data


# --------------------------------------------------------------------------- serial
class SerialTransport(Transport):
    """pyserial port; a reader thread hands bytes to the event loop."""

    def __init__(self, url: RobotURL) -> None:
        super().__init__(url)
        self.port = url.target
        self.baud = int(url.options.get("baud", "115200"))
        self._ser: Any = None
        self._reader = QueueReader()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._fd: int | None = None

    async def open(self) -> None:
        import serial

        try:
            self._ser = serial.Serial(self.port, self.baud, timeout=0, write_timeout=2.0)
        except (serial.SerialException, OSError, ValueError) as exc:
            raise RobotUnreachableError(f"cannot open serial port {self.port!r}: {exc}") from None
        loop = asyncio.get_running_loop()
        self._reader = QueueReader()
        self._stop.clear()
        fileno = getattr(self._ser, "fileno", None)
        if fileno is not None and os.name == "posix":
            # POSIX: the event loop watches the port itself -- no thread hand-off latency
            self._fd = fileno()
            loop.add_reader(self._fd, self._on_readable)
            return
        self._ser.timeout = 0.02

        def pump() -> None:
            ser = self._ser
            while not self._stop.is_set():
                try:
                    data = ser.read(max(1, ser.in_waiting))
                except (serial.SerialException, OSError, TypeError, AttributeError):
                    if not self._stop.is_set():
                        loop.call_soon_threadsafe(self._reader.drop)
                    return
                if data:
                    loop.call_soon_threadsafe(self._reader.put, bytes(data))

        self._thread = threading.Thread(target=pump, name=f"serial-{self.port}", daemon=True)
        self._thread.start()

    def _on_readable(self) -> None:
        if self._fd is None:
            return
        try:
            data = os.read(self._fd, 4096)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self._reader.put(data)
            return
        # readable with nothing to read: the device went away (cable pulled, EIO)
        self._unwatch()
        self._reader.drop()

    def _unwatch(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(self._fd)
            self._fd = None

    async def close(self) -> None:
        self._unwatch()
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 1.0)
            self._thread = None
        if self._ser is not None:
            with contextlib.suppress(Exception):
                self._ser.close()
            self._ser = None

    async def write(self, data: bytes) -> None:
        import serial

        if self._ser is None or self._reader.lost:
            raise LinkLostError(f"serial port {self.port!r} is closed")
        try:
            self._ser.write(data)
        except (serial.SerialException, OSError) as exc:
            raise LinkLostError(f"serial port {self.port!r} failed: {exc}") from None

    async def read(self) -> bytes:
        return await self._reader.get(f"serial port {self.port!r}")


# --------------------------------------------------------------------------- BLE
class BleTransport(Transport):
    """A BLE UART-style service through bleak (Nordic UART Service by default).

    Writes use write-without-response (``response=False``, explicit) when the RX
    characteristic allows it, in pieces no larger than the characteristic's
    ``max_write_without_response_size`` (the negotiated MTU - 3).  ``backend`` (a bleak
    client backend class) is injected by the tests to run over bumble's local link.
    """

    def __init__(
        self, url: RobotURL, backend: type[Any] | None = None, scanner_backend: type[Any] | None = None
    ) -> None:
        super().__init__(url)
        self.service = url.options.get("service", NUS_SERVICE).lower()
        self.rx_uuid = url.options.get("rx", NUS_RX).lower()
        self.tx_uuid = url.options.get("tx", NUS_TX).lower()
        self.timeout = float(url.options.get("timeout", "10"))
        self.backend = backend
        self.scanner_backend = scanner_backend
        self._client: Any = None
        self._rx: Any = None
        self._response = False
        self._reader = QueueReader()

    async def _resolve(self) -> Any:
        from bleak import BleakScanner

        kwargs: dict[str, Any] = {}
        if self.scanner_backend is not None:
            kwargs["backend"] = self.scanner_backend
        target = self.url.target
        if target.startswith("name="):
            dev = await BleakScanner.find_device_by_name(target[5:], timeout=self.timeout, **kwargs)
        elif self.backend is not None:
            return target  # an injected backend resolves addresses itself
        else:
            dev = await BleakScanner.find_device_by_address(target, timeout=self.timeout, **kwargs)
        if dev is None:
            raise RobotUnreachableError(f"no BLE robot {target!r} found within {self.timeout:g} s")
        return dev

    async def open(self) -> None:
        from bleak import BleakClient
        from bleak.exc import BleakError

        self._reader = QueueReader()
        reader = self._reader
        try:
            device = await self._resolve()
            kwargs: dict[str, Any] = {"timeout": self.timeout}
            if self.backend is not None:
                kwargs["backend"] = self.backend
            client = BleakClient(device, disconnected_callback=lambda _c: reader.drop(), **kwargs)
            await client.connect()
        except (TimeoutError, BleakError, OSError) as exc:
            raise RobotUnreachableError(f"cannot connect to BLE robot {self.url.target!r}: {exc}") from None
        try:
            rx = client.services.get_characteristic(self.rx_uuid)
            tx = client.services.get_characteristic(self.tx_uuid)
            if rx is None or tx is None:
                raise RobotUnreachableError(
                    f"BLE device {self.url.target!r} has no UART service "
                    f"(looked for rx {self.rx_uuid!r} and tx {self.tx_uuid!r})"
                )
            self._response = "write-without-response" not in rx.properties
            self._max_write = max(20, rx.max_write_without_response_size)
            await client.start_notify(tx, lambda _ch, data: reader.put(bytes(data)))
        except BaseException:
            with contextlib.suppress(Exception):
                await client.disconnect()
            raise
        self._client = client
        self._rx = rx

    async def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                await client.disconnect()

    async def write(self, data: bytes) -> None:
        from bleak.exc import BleakError

        if self._client is None or self._reader.lost:
            raise LinkLostError(f"BLE link to {self.url.target!r} is down")
        try:
            for i in range(0, len(data), self.max_write):
                await self._client.write_gatt_char(self._rx, data[i : i + self.max_write], response=self._response)
        except (BleakError, OSError, EOFError) as exc:
            raise LinkLostError(f"BLE write to {self.url.target!r} failed: {exc}") from None

    async def read(self) -> bytes:
        return await self._reader.get(f"BLE robot {self.url.target!r}")


# --------------------------------------------------------------------------- spy
class SpyTransport(Transport):
    """Wraps another transport and logs every byte both ways (logger ``boardside.spy``)."""

    def __init__(self, url: RobotURL, inner: Transport, sink: Callable[[str, bytes], None] | None = None) -> None:
        super().__init__(url)
        self.inner = inner
        self.sink = sink
        self.t0 = time.monotonic()

    @property
    def max_write(self) -> int:
        return self.inner.max_write

    def _note(self, direction: str, data: bytes) -> None:
        if self.sink is not None:
            self.sink(direction, data)
        log.info("%8.3f %s %r", time.monotonic() - self.t0, direction, data)

    async def open(self) -> None:
        self._note("--", b"open " + str(self.inner.url).encode())
        await self.inner.open()

    async def close(self) -> None:
        self._note("--", b"close")
        await self.inner.close()

    async def write(self, data: bytes) -> None:
        self._note(">>", data)
        await self.inner.write(data)

    async def read(self) -> bytes:
        data = await self.inner.read()
        self._note("<<", data)
        return data


def make_transport(url: str | RobotURL, **inject: Any) -> Transport:
    """Build (not open) the transport a URL names.  ``inject`` passes test hooks (BLE backend)."""
    u = url if isinstance(url, RobotURL) else RobotURL.parse(url)
    if u.scheme == "spy":
        assert u.inner is not None
        return SpyTransport(u, make_transport(u.inner, **inject), inject.get("spy_sink"))
    if u.scheme == "serial":
        return SerialTransport(u)
    if u.scheme == "ble":
        return BleTransport(u, backend=inject.get("ble_backend"), scanner_backend=inject.get("ble_scanner_backend"))
    from hardware.sim import SimTransport

    return SimTransport(u, robot=inject.get("sim_robot"))
