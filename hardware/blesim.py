"""A *simulated* BLE robot: a bumble peripheral serving the Nordic UART Service on bumble's
in-process radio link, and a bleak client backend that talks to it through a bumble central.

Needs ``bumble`` (the ``test`` extra).  Everything above the radio is real: bleak's
``BleakClient`` API (with this backend injected via ``backend=``), bumble's host stack,
ATT/GATT, MTU exchange, notifications, disconnections.  :class:`IntervalLink` delivers
link-layer packets only at connection events (every ``interval`` seconds), the way a
real BLE connection does, so timings are measured in connection intervals.

    radio = BleRadio(interval=0.030)
    robot = await radio.add_peripheral(SimulatedRobot(...))
    transport = BleTransport(RobotURL.parse(f"ble://{robot.address}"), backend=radio.bleak_backend())
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import math
from collections.abc import Callable
from typing import Any

from bleak.backends.characteristic import BleakGATTCharacteristic
from bleak.backends.client import BaseBleakClient, NotifyCallback
from bleak.backends.descriptor import BleakGATTDescriptor
from bleak.backends.device import BLEDevice
from bleak.backends.service import BleakGATTService, BleakGATTServiceCollection
from bleak.exc import BleakError
from bumble.controller import Controller
from bumble.core import PhysicalTransport
from bumble.device import Connection, Device, Peer
from bumble.gatt import Characteristic, CharacteristicValue, Service
from bumble.hci import Address
from bumble.host import Host
from bumble.link import LocalLink
from bumble.transport.common import AsyncPipeSink

from hardware.link import within
from hardware.transport import NUS_RX, NUS_SERVICE, NUS_TX


class IntervalLink(LocalLink):  # type: ignore[misc]
    """bumble's local link, delivering ACL packets only at connection events."""

    def __init__(self, interval: float = 0.0) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.interval = interval
        self._fifo: collections.deque[tuple[float, Callable[[], None]]] = collections.deque()
        self._armed = False
        self._t0: float | None = None
        self.packets = 0

    def send_acl_data(self, sender_controller: Any, destination_address: Any, transport: Any, data: bytes) -> None:
        self.packets += 1
        if self.interval <= 0 or transport != PhysicalTransport.LE:
            super().send_acl_data(sender_controller, destination_address, transport, data)
            return
        dest = self.find_le_controller(destination_address)
        if dest is None:
            return
        source = sender_controller.random_address
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self._t0 is None:
            self._t0 = now
        k = math.floor((now - self._t0) / self.interval) + 1
        due = self._t0 + k * self.interval
        if self._fifo and self._fifo[-1][0] > due:
            due = self._fifo[-1][0]
        self._fifo.append((due, lambda: dest.on_link_acl_data(source, transport, data)))
        if not self._armed:
            self._armed = True
            loop.call_at(due, self._deliver)

    def _deliver(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        while self._fifo and self._fifo[0][0] <= now + 1e-6:
            _, fn = self._fifo.popleft()
            fn()
        if self._fifo:
            loop.call_at(self._fifo[0][0], self._deliver)
        else:
            self._armed = False


class BlePeripheral:
    """A simulated robot (any object with attach/detach/receive/ensure_running) behind NUS."""

    def __init__(self, radio: BleRadio, robot: Any, address: str, name: str) -> None:
        self.radio = radio
        self.robot = robot
        self.address = address
        self.name = name
        controller = Controller(f"periph-{address}", link=radio.link, public_address=address)
        self.device = Device(name=name, address=Address(address), host=Host(controller, AsyncPipeSink(controller)))
        self.rx: Characteristic[bytes] = Characteristic(
            NUS_RX,
            Characteristic.Properties.WRITE | Characteristic.Properties.WRITE_WITHOUT_RESPONSE,
            Characteristic.WRITEABLE,
            CharacteristicValue(write=self._on_write),  # type: ignore[arg-type]
        )
        self.tx = Characteristic(NUS_TX, Characteristic.Properties.NOTIFY, Characteristic.READABLE, b"")
        self.device.add_service(Service(NUS_SERVICE, [self.rx, self.tx]))
        self.connection: Connection | None = None
        self._out: asyncio.Queue[bytes] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None
        self.device.on("connection", self._on_connection)

    async def start(self) -> None:
        await self.device.power_on()
        await self.device.start_advertising(auto_restart=True)
        self._sender = asyncio.get_running_loop().create_task(self._send_loop())
        self.robot.ensure_running()

    def _on_connection(self, connection: Connection) -> None:
        self.connection = connection
        while not self._out.empty():
            self._out.get_nowait()
        self.robot.attach(self._out.put_nowait)

        def gone(*_: Any) -> None:
            self.connection = None
            self.robot.detach()

        connection.on("disconnection", gone)

    def _on_write(self, connection: Connection, value: bytes) -> None:
        self.robot.receive(bytes(value))

    async def _send_loop(self) -> None:
        while True:
            data = await self._out.get()
            conn = self.connection
            if conn is None:
                continue
            size = conn.att_mtu - 3
            for i in range(0, len(data), size):
                try:
                    await self.device.notify_subscriber(conn, self.tx, data[i : i + size])
                except Exception:
                    break

    async def drop(self) -> None:
        """Simulate the robot going out of range: the connection drops."""
        conn = self.connection
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.disconnect()


class BleRadio:
    """bumble's in-process radio with one central (used by the bleak backend) and peripherals."""

    def __init__(self, interval: float = 0.0, mtu: int = 23) -> None:
        self.link = IntervalLink(interval)
        self.mtu = mtu
        controller = Controller("central", link=self.link, public_address="C0:C0:C0:C0:C0:C0")
        self.central = Device(
            name="host", address=Address("C0:C0:C0:C0:C0:C0"), host=Host(controller, AsyncPipeSink(controller))
        )
        self.peripherals: dict[str, BlePeripheral] = {}
        self._powered = False

    async def add_peripheral(
        self, robot: Any, address: str = "F0:F0:F0:F0:F0:01", name: str = "BoardsideSim"
    ) -> BlePeripheral:
        if not self._powered:
            await self.central.power_on()
            self._powered = True
        p = BlePeripheral(self, robot, address, name)
        await p.start()
        self.peripherals[address.upper()] = p
        return p

    def bleak_backend(self) -> type[BaseBleakClient]:
        radio = self

        class Backend(BumbleBleakClient):
            pass

        Backend.radio = radio
        return Backend


class BumbleBleakClient(BaseBleakClient):
    """A bleak client backend over a bumble central (inject with ``BleakClient(..., backend=)``)."""

    radio: BleRadio

    def __init__(self, address_or_ble_device: BLEDevice | str, **kwargs: Any) -> None:
        super().__init__(
            address_or_ble_device,
            disconnected_callback=kwargs.get("disconnected_callback"),
            timeout=kwargs.get("timeout", 10.0),
        )
        self._conn: Connection | None = None
        self._peer: Peer | None = None
        self._proxies: dict[int, Any] = {}

    @property
    def name(self) -> str:
        p = self.radio.peripherals.get(self.address.upper())
        return p.name if p else self.address

    @property
    def mtu_size(self) -> int:
        return self._conn.att_mtu if self._conn is not None else 23

    @property
    def is_connected(self) -> bool:
        return self._conn is not None

    async def connect(self, pair: bool, **kwargs: Any) -> None:
        if self.address.upper() not in self.radio.peripherals:
            raise BleakError(f"Device with address {self.address} was not found.")
        try:
            conn = await within(
                self.radio.central.connect(Address(self.address)), self._timeout
            )
        except (TimeoutError, Exception) as exc:
            raise BleakError(f"could not connect to {self.address}: {exc}") from None
        self._conn = conn

        def gone(*_: Any) -> None:
            was = self._conn is not None
            self._conn = None
            if was and self._disconnected_callback is not None:
                self._disconnected_callback()

        conn.on("disconnection", gone)
        peer = Peer(conn)
        self._peer = peer
        if self.radio.mtu > 23:
            await peer.request_mtu(self.radio.mtu)
        await peer.discover_services()
        collection = BleakGATTServiceCollection()
        for svc in peer.services:
            await svc.discover_characteristics()
            bsvc = BleakGATTService(svc, svc.handle, str(svc.uuid.to_hex_str("-")).lower())
            collection.add_service(bsvc)
            for ch in svc.characteristics:
                props = [
                    name
                    for flag, name in (
                        (Characteristic.Properties.READ, "read"),
                        (Characteristic.Properties.WRITE_WITHOUT_RESPONSE, "write-without-response"),
                        (Characteristic.Properties.WRITE, "write"),
                        (Characteristic.Properties.NOTIFY, "notify"),
                        (Characteristic.Properties.INDICATE, "indicate"),
                    )
                    if ch.properties & flag
                ]
                bch = BleakGATTCharacteristic(
                    ch, ch.handle, str(ch.uuid.to_hex_str("-")).lower(), props,  # type: ignore[arg-type]
                    lambda: self.mtu_size - 3, bsvc,
                )
                collection.add_characteristic(bch)
                self._proxies[ch.handle] = ch
        self.services = collection

    async def disconnect(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                await conn.disconnect()

    async def pair(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("pairing is not simulated")

    async def unpair(self) -> None:
        raise NotImplementedError("pairing is not simulated")

    async def read_gatt_char(self, characteristic: BleakGATTCharacteristic, *, use_cached: bool = False,
                             **kwargs: Any) -> bytearray:
        self._check()
        return bytearray(await self._proxies[characteristic.handle].read_value())

    async def read_gatt_descriptor(self, descriptor: BleakGATTDescriptor, *, use_cached: bool = False,
                                   **kwargs: Any) -> bytearray:
        raise BleakError("descriptors are not simulated")

    async def write_gatt_char(self, characteristic: BleakGATTCharacteristic, data: Any, response: bool) -> None:
        self._check()
        try:
            await self._proxies[characteristic.handle].write_value(bytes(data), with_response=response)
        except Exception as exc:
            raise BleakError(f"write failed: {exc}") from None

    async def write_gatt_descriptor(self, descriptor: BleakGATTDescriptor, data: Any) -> None:
        raise BleakError("descriptors are not simulated")

    async def start_notify(self, characteristic: BleakGATTCharacteristic, callback: NotifyCallback,
                           **kwargs: Any) -> None:
        self._check()
        await self._proxies[characteristic.handle].subscribe(lambda value: callback(bytearray(value)))

    async def stop_notify(self, characteristic: BleakGATTCharacteristic) -> None:
        self._check()
        await self._proxies[characteristic.handle].unsubscribe()

    def _check(self) -> None:
        if self._conn is None:
            raise BleakError("Not connected")
