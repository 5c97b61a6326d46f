# Boardside reference firmware (MicroPython) for a two-wheeled stepper robot.
#
# Copy this file and bsproto.py to the board (e.g. `mpremote cp bsproto.py main.py :`).
# It speaks the Boardside robot protocol (docs/protocol.md) over a UART (USB serial on
# most boards) and over BLE as a Nordic UART Service peripheral, drives two stepper
# motors through STEP/DIR drivers (A4988, DRV8825, TMC2208 ...), and keeps its journal
# (run id, last completed command, pose, settings) in flash so a reset loses nothing.
#
# The protocol state machine is bsproto.RobotCore -- the very code the host's simulator
# runs (hardware/sim.py), so what the tests prove about it holds here.
#
# Tested boards: none yet (no hardware in CI).  Written for ESP32 and Raspberry Pi Pico W
# MicroPython 1.22+; on a micro:bit set BLE_ENABLED = False (its radio is not BLE-capable
# from MicroPython) and use the UART.

import json
import os
import select
import sys
import time

import bsproto
from machine import UART, Pin

# ----------------------------------------------------------------------------- settings
ROBOT_NAME = "BoardsideBot"
UART_ID = None       # None: the USB serial console (stdin/stdout; the REPL is taken over while running);
                     # 1 or 2: a hardware UART (e.g. to an HC-05/HM-10 module or another board)
UART_BAUD = 115200
BLE_ENABLED = True
QUEUE_SIZE = 8
JOURNAL = "journal.json"

LEFT_STEP, LEFT_DIR = 12, 13
RIGHT_STEP, RIGHT_DIR = 14, 15
ENABLE_PIN = 27      # active low enable of both drivers (None if not wired)
LEFT_FORWARD = 1     # DIR level that turns the left wheel forwards
RIGHT_FORWARD = 0    # the right motor is mirrored on most chassis
BUZZER_PIN = None    # beeps for pick/drop (None: silent)


class FlashStore:
    """The journal in a JSON file, replaced atomically (write + rename)."""

    def load(self):
        try:
            with open(JOURNAL) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def save(self, data):
        with open(JOURNAL + ".tmp", "w") as f:
            json.dump(data, f)
        try:
            os.remove(JOURNAL)
        except OSError:
            pass
        os.rename(JOURNAL + ".tmp", JOURNAL)


class StepperDrive(bsproto.Drive):
    """Two STEP/DIR steppers stepped from the main loop at the configured speed."""

    def __init__(self, config):
        self.config = config  # a function returning the core's settings
        self.ls = Pin(LEFT_STEP, Pin.OUT)
        self.ld = Pin(LEFT_DIR, Pin.OUT)
        self.rs = Pin(RIGHT_STEP, Pin.OUT)
        self.rd = Pin(RIGHT_DIR, Pin.OUT)
        self.en = Pin(ENABLE_PIN, Pin.OUT, value=1) if ENABLE_PIN is not None else None
        self.buzzer = Pin(BUZZER_PIN, Pin.OUT, value=0) if BUZZER_PIN is not None else None
        self.left = 0      # steps still to do
        self.right = 0
        self.total = 0
        self.done = 0
        self.period_us = 1000
        self.next_us = 0
        self.dwell_until = None
        self.held = False

    def start(self, left_mm, right_mm, dwell_ms):
        cfg = self.config()
        spm = cfg["s"]
        self.left = int(round(abs(left_mm) * spm))
        self.right = int(round(abs(right_mm) * spm))
        self.ld.value(LEFT_FORWARD if left_mm >= 0 else 1 - LEFT_FORWARD)
        self.rd.value(RIGHT_FORWARD if right_mm >= 0 else 1 - RIGHT_FORWARD)
        self.total = max(self.left, self.right)
        self.done = 0
        self.period_us = max(50, int(1000000 / (cfg["v"] * spm)))
        self.next_us = time.ticks_us()
        if self.en is not None and self.total:
            self.en.value(0)
        self.dwell_until = time.ticks_add(time.ticks_ms(), dwell_ms) if dwell_ms else None
        if dwell_ms and self.buzzer is not None:
            self.buzzer.value(1)

    def busy(self):
        if self.held:
            return True
        if self.done < self.total:
            return True
        if self.dwell_until is not None:
            if time.ticks_diff(self.dwell_until, time.ticks_ms()) > 0:
                return True
            self.dwell_until = None
            if self.buzzer is not None:
                self.buzzer.value(0)
        return False

    def step(self):
        """Called as often as possible from the main loop: emits the due step pulses."""
        if self.held or self.done >= self.total:
            return
        now = time.ticks_us()
        if time.ticks_diff(now, self.next_us) < 0:
            return
        # Bresenham: the longer side steps every period, the shorter proportionally
        if self.left * (self.done + 1) // self.total > self.left * self.done // self.total:
            self.ls.value(1)
        if self.right * (self.done + 1) // self.total > self.right * self.done // self.total:
            self.rs.value(1)
        time.sleep_us(2)
        self.ls.value(0)
        self.rs.value(0)
        self.done += 1
        self.next_us = time.ticks_add(self.next_us, self.period_us)
        if self.done >= self.total and self.en is not None:
            self.en.value(1)

    def hold(self):
        self.held = True  # the remaining steps are kept: resume continues the same move

    def resume(self):
        self.held = False
        self.next_us = time.ticks_us()

    def abort(self):
        self.total = self.done = 0
        self.dwell_until = None
        self.held = False
        if self.en is not None:
            self.en.value(1)


class BleUart:
    """A Nordic UART Service peripheral (RX: write / write without response, TX: notify)."""

    def __init__(self, name, on_rx):
        import bluetooth

        self.bt = bluetooth
        self.on_rx = on_rx
        self.ble = bluetooth.BLE()
        self.ble.active(True)
        self.ble.irq(self._irq)
        uart = bluetooth.UUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
        tx = (bluetooth.UUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E"), bluetooth.FLAG_NOTIFY)
        rx = (bluetooth.UUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E"),
              bluetooth.FLAG_WRITE | bluetooth.FLAG_WRITE_NO_RESPONSE)
        ((self.tx, self.rx),) = self.ble.gatts_register_services(((uart, (tx, rx)),))
        self.ble.gatts_set_buffer(self.rx, 128, True)
        self.conn = None
        self.mtu = 23
        self.name = name
        self.advertise()

    def advertise(self):
        n = self.name.encode()
        adv = bytes((2, 0x01, 0x06, len(n) + 1, 0x09)) + n
        self.ble.gap_advertise(100000, adv_data=adv)

    def _irq(self, event, data):
        if event == 1:  # _IRQ_CENTRAL_CONNECT
            self.conn = data[0]
        elif event == 2:  # _IRQ_CENTRAL_DISCONNECT
            self.conn = None
            self.mtu = 23
            self.advertise()
        elif event == 3:  # _IRQ_GATTS_WRITE
            conn, handle = data
            if handle == self.rx:
                self.on_rx(self.ble.gatts_read(self.rx))
        elif event == 21:  # _IRQ_MTU_EXCHANGED
            self.mtu = data[1]

    def write(self, data):
        if self.conn is None:
            return
        size = self.mtu - 3
        for i in range(0, len(data), size):
            try:
                self.ble.gatts_notify(self.conn, self.tx, data[i:i + size])
            except OSError:
                return


class StdioPort:
    """The USB serial console as a byte port (what a Pico or ESP32-S3 shows as /dev/ttyACM0)."""

    def __init__(self):
        import micropython

        micropython.kbd_intr(-1)  # a 0x03 byte on the line must not stop the firmware
        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.inp = getattr(sys.stdin, "buffer", sys.stdin)
        self.out = getattr(sys.stdout, "buffer", sys.stdout)

    def any(self):
        return 1 if self.poll.poll(0) else 0

    def read(self, n):
        return self.inp.read(1)

    def write(self, data):
        self.out.write(data)


def main():
    uart = StdioPort() if UART_ID is None else UART(UART_ID, UART_BAUD)
    outputs = [uart.write]
    rx = []

    def emit(data):
        for out in outputs:
            out(data)

    drive = StepperDrive(lambda: core.config)
    epoch = int.from_bytes(os.urandom(4), "big") & 0x3FFFFFFF
    core = bsproto.RobotCore(emit, drive, FlashStore(), epoch, QUEUE_SIZE)
    if BLE_ENABLED:
        ble = BleUart(ROBOT_NAME, rx.append)
        outputs.append(ble.write)
    uart.write(b"# Boardside robot firmware 1.0 ready\r\n")
    while True:
        n = uart.any()
        if n:
            core.feed(uart.read(n))
        while rx:
            core.feed(rx.pop(0))
        drive.step()
        core.tick()


main()
